"""goarena's players: the interface every player implements, and players built from spec strings.

Where things are, by role:

- ``protocols``: ``Agent`` (``name``, ``reset(context)``, ``select_move(game)``), the
  ``GameContext`` a player is reset with, and the optional capabilities (``Actor``,
  ``PolicyAgent``, ``AnalysisAgent``, ``TimedAgent``, ``Warmable``, ...);
- ``specs``: spec strings (``"uct:simulations=200"``), the registry of built-in players, entry
  points, ``make_agent`` and ``check_spec``;
- ``players/``: the built-in players (random, uct and puct, alphago, minimax and expectimax,
  sl-policy and rl-policy, rollout-policy, value-greedy, ownership-greedy, sb3, torch and
  ``PolicyPlayer`` (any network as a player), an opponent pool);
- ``nets/``: torch modules only, their checkpoints and the one loader of network files;
- ``inference/``: networks as evaluators of search leaves;
- ``data/``, ``training/``: expert and self-play data, and the jobs that train the networks;
- ``gtp/``: external engines as players, and any player as a GTP engine.
"""

from goarena.agents.protocols import Action, Agent, GameContext, UnsupportedGame
from goarena.agents.specs import AgentSpecError, check_spec, make_agent

__all__ = ["Action", "Agent", "AgentSpecError", "GameContext", "UnsupportedGame", "check_spec", "make_agent"]
