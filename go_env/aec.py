r"""
# Go

A two-player PettingZoo AEC environment for Go over goarena's numba rules core.

| Import             | `from go_env import env` (wrapped) or `raw_env`   |
|--------------------|---------------------------------------------------|
| Actions            | Discrete                                          |
| Parallel API       | No                                                |
| Manual Control     | No                                                |
| Agents             | `agents = ["black_0", "white_0"]`                 |
| Agents             | 2                                                 |
| Action Shape       | `Discrete(N*N + 1)` (362 on 19x19)                |
| Action Values      | `0 .. N*N`; `N*N` is pass                         |
| Observation Shape  | `(N, N, 17)` bool, plus an `(N*N + 1,)` int8 mask |
| Observation Values | [0, 1]                                            |

Black moves first, except with handicap stones, when White does. Two consecutive passes
end the game; it is then scored and the winner gets +1, the loser -1.

### Arguments

```python
from go_env import env

env(board_size=19, rules=None, komi=None, handicap=0, observation_layout="goarena",
    observation_dtype="bool", render_mode=None)
```

`board_size`: the board is `board_size` x `board_size`, 2 to 25.

The defaults, 19x19 and komi 7.5, are those of PettingZoo's own Go (`go_v5`), and so are
the agents' names, the actions, the action mask, the rewards and the bool planes: code
written for `go_v5` runs unchanged on the API. The order of the planes is goarena's own
(below), unlike `go_v5`'s; `observation_layout="go_v5"` gives `go_v5`'s planes exactly (tests
compare the two envs move by move). The komi comes from one table for every env and command,
`go_env.rules.default_komi(size)`: 7 on 9x9 (the komi of the 9x9 computer-Go server CGOS and
of the shipped networks' training and measurements; a draw there counts half a win), 7.5 on
every other size. goarena's Gymnasium env (`goarena/Go-v0`) defaults to 9x9, where learning
runs on a CPU, and its leagues play 9x9: both with komi 7.

`rules`: a `go_env.Rules` (komi, ko rule, suicide, scoring, move cap); the default is
`Rules(komi=default_komi(board_size))`: area scoring, positional superko, no suicide, a cap of
`2 * N * N` moves.

`komi`: if given, replaces the komi of `rules`.

`handicap`: fixed handicap stones for Black (GTP's `fixed_handicap`, 2 to 9 on odd boards
from 9x9); White then moves first.

`observation_layout`: the order of the 17 planes. `"goarena"` (the table below);
`"go_v5"`, PettingZoo's: after each move the mover's stones then the other side's are
stacked, newest first (so, for the agent to move, planes 0 and 1 are the opponent's stones and
its own, planes 2 and 3 its own and the opponent's a move earlier, and so on), plane 16 all 1
if the observing agent plays White; `"pgx"`, pgx's Go: plane `2k` the observing agent's
stones `k` moves ago, plane `2k + 1` the opponent's, plane 16 as `go_v5`'s.

`observation_dtype`: `"bool"` (as `go_v5`), `"uint8"`, `"int8"` or `"float32"`.

`render_mode`: `"human"` (a pygame window), `"ansi"` (text, as GNU Go's `showboard`),
`"rgb_array"` (a uint8 picture of the board) or `None`.

### Observation Space

The observation is a dict: `"observation"`, the planes below, and `"action_mask"`, the legal
moves. Planes are from the point of view of the agent observing: for the agent to move,
"own" stones are the side to move's, as in AlphaZero. Row 0 is the top row, column 0 the left
column: plane `[r, c, k]` describes the point of action `r * N + c`.

|  Plane  | Description                                                   |
|:-------:|---------------------------------------------------------------|
|    0    | own stones now                                                |
|  1 - 7  | own stones 1 to 7 moves ago                                   |
|    8    | opponent's stones now                                         |
| 9 - 15  | opponent's stones 1 to 7 moves ago                            |
|   16    | all 1 if the observing agent plays Black, all 0 if White      |

A pass counts as a move, so after a pass plane 1 equals plane 0. History planes from before
the game's first position (the empty board, or the handicap stones) are all 0.

#### Legal Actions Mask

`action_mask[a]` is 1 if action `a` is legal for the agent to move: the point is empty and
the move is neither suicide (unless the rules allow it) nor a ko or superko violation. Pass
is always legal. The mask of the agent not to move, and of every agent once the game is
over, is all 0.

### Action Space

| Action ID              | Description                                         |
|:----------------------:|-----------------------------------------------------|
| `0 .. N-1`             | a stone on the top row, columns 0 to N-1            |
| `r * N + c`            | a stone on row `r` (0 at the top), column `c`       |
| `N*N - N .. N*N - 1`   | a stone on the bottom row                           |
| `N*N`                  | pass                                                |

`go_env.coords` converts actions to and from GTP vertices (`"D4"`) and SGF points.

### Rewards

| Winner | Loser | Draw (jigo, integer komi only) |
|:------:|:-----:|:------------------------------:|
| +1     | -1    | 0                              |

Rewards come at the end only. The game is scored by `rules.scoring`: area (Tromp-Taylor:
stones plus empty regions that reach only one colour) or territory (those regions plus
captures), minus komi for Black. Every stone on the board counts as alive, so dead stones
must be captured before the game ends.

Two consecutive passes set `terminations`. At the move cap (`rules.max_moves`, by default
`2 * N * N`, passes included) the game sets `truncations` instead, and is scored as it stands.

An illegal move (occupied point, suicide, ko, superko, or an action off the board) ends the
game at once: the offender gets -1 and the other agent 0, as in PettingZoo's classic
environments, and both agents are terminated. The move is not played, and both agents'
`info` say why:

```python
{"illegal_move": "ko", "error": "illegal move C3 (point 56) by white: ko"}  # on 9x9
```

An action that is not an integer (a float, even `40.0`, a string, a bool) is refused with a
`TypeError` before anything changes: no move is guessed from it.

### Rules

Rules are parameters of `go_env.Rules`, not separate environments: ko (`"positional"` or
`"situational"` superko, or `"simple"` ko), suicide allowed or not, area or territory
scoring, komi (multiples of 0.5), and the move cap. `Rules.preset("tromp-taylor")`,
`"chinese"` and `"japanese-like"` name common sets. `env.unwrapped.game` is the
`go_env.Game` being played: score, result, SGF and legal moves can be read from it.

### Version History

* v0: Initial release: history planes from the observing agent's view, rules as parameters,
  illegal moves reported with their reason, `ansi` rendering; bool planes as `go_v5`'s, and
  `go_v5`'s and pgx's plane orders as options.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator

from go_env.features import (
    NUM_HISTORY_PLANES,
    OBSERVATION_DTYPES,
    check_observation_options,
    planes_in_layout,
)
from go_env.game import BLACK, WHITE, Game, IllegalMoveError, as_move
from go_env.render import Renderer
from go_env.rules import Rules, board_rules

AGENTS = ("black_0", "white_0")
AGENT_COLORS = {"black_0": BLACK, "white_0": WHITE}
COLOR_AGENTS = {BLACK: "black_0", WHITE: "white_0"}
OPPONENTS = {"black_0": "white_0", "white_0": "black_0"}


def env(**kwargs: Any) -> AECEnv:
    """The Go environment wrapped for use: ``raw_env(**kwargs)`` under ``OrderEnforcingWrapper``.

    ``raw_env`` itself ends the game on an illegal or off-board move and says why in
    ``info``: the job of ``TerminateIllegalWrapper`` and ``AssertOutOfBoundsWrapper``, which
    could not give the reason.
    """
    return _OrderEnforcing(raw_env(**kwargs))


class _OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """``OrderEnforcingWrapper`` whose ``step()``, ``last()``, ``agents`` and ``agent_selection``
    go straight to the env rather than through the wrapper's attribute look-ups: a fifth of a step."""

    def agent_iter(self, max_iter: int = 2**63) -> _AgentIterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _AgentIterable(self, max_iter)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        env = self.env  # AECEnv.last, one call fewer
        agent = env.agent_selection
        observation = env.observe(agent) if observe else None
        return (
            observation,
            env._cumulative_rewards[agent],
            env.terminations[agent],
            env.truncations[agent],
            env.infos[agent],
        )

    def step(self, action: int | None) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        elif not self.env.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            self.env.step(action)

    # Read on every step by the agent iterator; as properties they skip two __getattr__ hops.
    @property
    def agents(self) -> list[str]:
        if not self._has_reset:
            raise AttributeError("agents cannot be accessed before reset")
        return self.env.agents

    @property
    def agent_selection(self) -> str:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.agent_selection

    def __str__(self) -> str:
        return str(self.env)


class _AgentIterator(AECOrderEnforcingIterator):
    """``AECOrderEnforcingIterator`` reading the agents of the env under the wrapper directly:
    the same checks (an agent left, the step taken), two attribute hops fewer a step."""

    def __next__(self) -> str:
        raw = self.env.env  # type: ignore[attr-defined]
        if not raw.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert self.env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"  # type: ignore[attr-defined]
        self.env._has_updated = False  # type: ignore[attr-defined]
        return raw.agent_selection


class _AgentIterable(AECOrderEnforcingIterable):
    def __iter__(self) -> _AgentIterator:
        return _AgentIterator(self.env, self.max_iter)  # type: ignore[arg-type]


class raw_env(AECEnv, EzPickle):
    """Go for two agents, ``black_0`` and ``white_0``; see the module documentation.

    Args:
        board_size: N, the board is N x N (2 to 25).
        rules: the ruleset (default ``Rules(komi=default_komi(board_size))``).
        komi: replaces ``rules.komi`` if given.
        handicap: fixed handicap stones for Black; White moves first when there are any.
        observation_layout: ``"goarena"``, ``"go_v5"`` or ``"pgx"``: the order of the planes.
        observation_dtype: ``"bool"``, ``"uint8"``, ``"int8"`` or ``"float32"``.
        render_mode: ``"human"``, ``"ansi"``, ``"rgb_array"`` or ``None``.
    """

    metadata: dict[str, Any] = {
        "render_modes": ["human", "ansi", "rgb_array"],
        "name": "go_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        board_size: int = 19,
        rules: Rules | None = None,
        komi: float | None = None,
        handicap: int = 0,
        observation_layout: str = "goarena",
        observation_dtype: str = "bool",
        render_mode: str | None = None,
    ):
        EzPickle.__init__(
            self, board_size, rules, komi, handicap, observation_layout, observation_dtype, render_mode
        )
        check_observation_options(observation_layout, observation_dtype)
        self.observation_layout = observation_layout
        self.observation_dtype = observation_dtype
        super().__init__()
        self.rules = board_rules(board_size, rules, komi)
        self.board_size = board_size
        self.handicap = handicap
        self.render_mode = render_mode
        self._renderer = Renderer(render_mode, self.metadata["render_fps"])

        n = board_size
        dtype = OBSERVATION_DTYPES[observation_dtype]
        self.possible_agents = list(AGENTS)
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(0, 1, (n, n, NUM_HISTORY_PLANES), dtype),
                    "action_mask": spaces.Box(0, 1, (n * n + 1,), np.int8),
                }
            )
            for agent in AGENTS
        }
        self.action_spaces = {agent: spaces.Discrete(n * n + 1) for agent in AGENTS}
        self._no_moves = np.zeros(n * n + 1, np.int8)
        self._over = False
        self._new_game()

    def _new_game(self) -> None:
        """A new game whose every move writes the planes and mask the next ``observe`` reads.

        The planes are the game's live planes (``Game.live_observation``) read as the env's
        dtype where that is a view (goarena's layout in int8, uint8 or bool, all 0 and 1);
        other layouts and dtypes are made from them at each ``observe``.
        """
        self.game = Game(self.board_size, self.rules, self.handicap)
        live = self.game.live_observation()
        viewable = self.observation_layout == "goarena" and self.observation_dtype != "float32"
        dtype = OBSERVATION_DTYPES[self.observation_dtype]
        # With the game they belong to: a game put in its place (``env.unwrapped.game``) has
        # planes of its own, which ``observe`` then makes.
        self._live: tuple[Game, np.ndarray] | None = (self.game, live.view(dtype)) if viewable else None

    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game. The game has no randomness, so ``seed`` changes nothing."""
        self._new_game()
        self._over = False
        self.agents = list(AGENTS)
        self.rewards = dict.fromkeys(AGENTS, 0.0)
        self._cumulative_rewards = dict.fromkeys(AGENTS, 0.0)
        self.terminations = dict.fromkeys(AGENTS, False)
        self.truncations = dict.fromkeys(AGENTS, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in AGENTS}
        self.agent_selection = COLOR_AGENTS[self.game.to_play]
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``{"observation": bool[N, N, 17], "action_mask": int8[N*N + 1]}`` (the planes in the
        env's layout and dtype), new arrays."""
        if agent == self.agent_selection and not self._over:
            # Copies of what the move's kernel call wrote, in a new dict: agents and replay
            # buffers keep observations (PettingZoo's api_test compares one step's with the
            # next), and the game rewrites its arrays at its next move.
            live = self._live
            if live is not None and live[0] is self.game:
                return {"observation": live[1].copy(), "action_mask": self.game.legal_mask().copy()}
            planes, mask = self.game.observe()
        else:
            planes, mask = self.game.observation_for(AGENT_COLORS[agent]), self._no_moves.copy()
        dtype = OBSERVATION_DTYPES[self.observation_dtype]
        observation = planes_in_layout(
            planes, False, dtype, self.observation_layout, AGENT_COLORS[agent] == self.game.to_play
        )
        return {"observation": observation, "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is still playing: its action must be a move, not None")
        # TypeError for a float or a string: no move is guessed.
        move = action if type(action) is int else as_move(action)
        self._cumulative_rewards[agent] = 0.0
        opponent = OPPONENTS[agent]
        try:
            legal = self.game.play(move)
        except IllegalMoveError as error:
            self._finish({agent: -1.0, opponent: 0.0}, truncated=False)
            info = {"illegal_move": error.reason, "error": str(error)}
            self.infos = {agent: info, opponent: dict(info)}
        else:
            if not len(legal):  # the game is over
                rewards = {a: self.game.outcome(AGENT_COLORS[a]) for a in AGENTS}
                self._finish(rewards, truncated=self.game.is_truncated)
        self.agent_selection = opponent
        if self.render_mode == "human":
            self.render()

    def _finish(self, rewards: dict[str, float], truncated: bool) -> None:
        """End the game for both agents with ``rewards``."""
        self._over = True
        self.rewards = rewards
        ended = self.truncations if truncated else self.terminations
        for agent in AGENTS:
            ended[agent] = True
        self._accumulate_rewards()

    def render(self) -> str | np.ndarray | None:
        return self._renderer.render(self.game)

    def close(self) -> None:
        self._renderer.close()
