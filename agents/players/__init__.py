"""The built-in players, built by name from spec strings (``goarena.agents.specs``): ``random``,
``search`` (uct, puct, and alphago, PUCT configured with AlphaGo's networks), ``minimax``
(minimax, expectimax), ``rollout`` (rollout-policy), ``network`` (one network player: sl-policy,
rl-policy, value-greedy, ownership-greedy and zero are its registry entries), ``sb3`` (a
Stable-Baselines3 model as a network player), ``policy_player`` (``PolicyPlayer``, any
function as a player, and torch) and ``pool`` (a player drawn from several per game, for
self-play). ``options`` is how each declares its options once (``PlayerOptions``); ``policy``
holds the policy players' passing rule (``playing_on``)."""
