"""The built-in players, one module each, built by name from spec strings (``goarena.agents.specs``):
``random``, ``search`` (uct, puct), ``alphago``, ``minimax`` (minimax, expectimax), ``policy``
(sl-policy, rl-policy), ``rollout`` (rollout-policy), ``value`` (value-greedy),
``ownership`` (ownership-greedy), ``sb3``, ``policy_player`` (``PolicyPlayer``, any network
as a player, and torch) and ``pool`` (a player drawn from several per game, for self-play)."""
