"""Go for one learner against a fixed opponent, as a Gymnasium environment: ``goarena/Go-v0``.

The opponent is any ``Callable[[Game], int]`` that returns a legal move for the side to
move (default: a uniformly random legal move, pass included). It moves inside ``reset`` and
``step``, so every observation is the learner's turn::

    import gymnasium
    import go_env  # registers goarena/Go-v0
    from sb3_contrib import MaskablePPO

    env = gymnasium.make("goarena/Go-v0", board_size=5, learner="random")
    MaskablePPO("MlpPolicy", env).learn(10_000)  # masks from env.action_masks()

An opponent that fails is a broken env, not a game result: ``reset`` or ``step`` raises
``OpponentError`` and the env needs a new ``reset``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Literal

import gymnasium
import numpy as np
from gymnasium import spaces

from go_env.features import NUM_HISTORY_PLANES
from go_env.game import BLACK, WHITE, Game, IllegalMoveError, as_move
from go_env.render import Renderer
from go_env.rules import Rules

ENV_ID = "goarena/Go-v0"

Opponent = Callable[[Game], int]


class OpponentError(RuntimeError):
    """The opponent raised, changed the game, or answered something other than a legal move."""


class GoEnv(gymnasium.Env[np.ndarray, np.int64]):
    """Go against a fixed opponent, from the learner's side of the board.

    Observations are the history planes of ``go_env.aec``'s documentation, int8[N, N, 17],
    from the learner's point of view (plane 0: the learner's stones now). Actions are
    ``0 .. N*N-1`` (row-major, row 0 at the top) and ``N*N`` for pass. ``action_masks()``
    (bool[N*N + 1], for sb3-contrib's MaskablePPO) and ``info["action_mask"]`` (int8, for
    ``action_space.sample(mask)``) give the legal moves.

    The reward is 0 until the end, then +1 if the learner wins, -1 if it loses and 0 for a
    draw. Two passes in a row end the game (``terminated``); the move cap of the rules
    stops it (``truncated``), and it is scored as it stands. An illegal learner action ends
    the episode as a loss (-1, ``terminated``) without changing the board, and
    ``info["illegal_move"]`` gives the reason (occupied, suicide, ko, superko, off board),
    ``info["error"]`` the whole message. An action that is not an integer (``40.7``,
    ``"40"``) is refused with ``TypeError`` and changes nothing.

    If the opponent raises, plays on the game it is shown, or answers with a non-integer or
    an illegal move, ``reset`` or ``step`` raises ``OpponentError`` (from the opponent's own
    exception, if any) and the episode is over: ``step`` raises ``ResetNeeded`` until the
    next ``reset``. No reward is given for it, since a transition that did not happen would
    mislead the learner; and no learner action is ever played for the opponent.

    Args:
        board_size: N, the board is N x N (2 to 25).
        rules: the ruleset (default ``Rules()``).
        komi: replaces ``rules.komi`` if given.
        handicap: fixed handicap stones for Black; White moves first when there are any.
        learner: the learner's colour, ``"black"``, ``"white"``, or ``"random"`` (drawn at
            every reset from the env's ``np_random``).
        opponent: picks the opponent's moves; default uniform random, seeded by ``reset``.
        render_mode: ``"human"``, ``"ansi"``, ``"rgb_array"`` or ``None``.

    Attributes:
        game: the ``Game`` being played.
        learner_color: ``BLACK`` or ``WHITE``, the learner's colour this episode.
    """

    metadata: dict[str, Any] = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        board_size: int = 9,
        rules: Rules | None = None,
        komi: float | None = None,
        handicap: int = 0,
        learner: Literal["black", "white", "random"] = "black",
        opponent: Opponent | None = None,
        render_mode: str | None = None,
    ):
        if learner not in ("black", "white", "random"):
            raise ValueError(f"learner must be 'black', 'white' or 'random', got {learner!r}")
        rules = rules if rules is not None else Rules()
        self.rules = dataclasses.replace(rules, komi=komi) if komi is not None else rules
        self.board_size = board_size
        self.handicap = handicap
        self.learner = learner
        self.opponent = opponent if opponent is not None else self._random_move
        self.render_mode = render_mode
        self._renderer = Renderer(render_mode, self.metadata["render_fps"])

        n = board_size
        self.observation_space = spaces.Box(0, 1, (n, n, NUM_HISTORY_PLANES), np.int8)
        self.action_space = spaces.Discrete(n * n + 1)
        self.game = Game(board_size, self.rules, handicap)
        self.learner_color = BLACK
        self._mask = np.zeros(n * n + 1, np.int8)
        self._over = False

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        self.game = Game(self.board_size, self.rules, self.handicap)
        if self.learner == "random":
            self.learner_color = BLACK if self.np_random.integers(2) == 0 else WHITE
        else:
            self.learner_color = BLACK if self.learner == "black" else WHITE
        self._over = False
        if self.game.to_play != self.learner_color:
            self._opponent_plays()
        observation, info = self._observe()
        if self.render_mode == "human":
            self.render()
        return observation, info

    def step(self, action: int | np.integer) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        if self._over:
            raise gymnasium.error.ResetNeeded("the episode is over: call reset() before step()")
        move = as_move(action)
        try:
            self.game.play(move)
        except IllegalMoveError as error:
            self._over = True
            observation, info = self._observe()
            info.update(illegal_move=error.reason, error=str(error))
            return observation, -1.0, True, False, info
        if not self.game.is_over:
            self._opponent_plays()
        self._over = bool(self.game.is_over)
        reward = self.game.outcome(self.learner_color) if self._over else 0.0
        observation, info = self._observe()
        if self.render_mode == "human":
            self.render()
        return observation, reward, bool(self.game.is_terminated), bool(self.game.is_truncated), info

    def action_masks(self) -> np.ndarray:
        """bool[N*N + 1]: True for each legal learner move (all False once the episode is over)."""
        return self._mask.astype(bool)

    def render(self) -> str | np.ndarray | None:
        return self._renderer.render(self.game)

    def close(self) -> None:
        self._renderer.close()

    def _observe(self) -> tuple[np.ndarray, dict[str, Any]]:
        """The learner's observation and an info dict holding its legal moves (new arrays)."""
        if self._over:
            self._mask = np.zeros_like(self._mask)
        else:
            self._mask = self.game.legal_mask().copy()
        return self.game.observation_for(self.learner_color), {"action_mask": self._mask.copy()}

    def _opponent_plays(self) -> None:
        """Play the opponent's move; if it gives no legal one, end the episode and raise."""
        moves_before = len(self.game.moves)
        try:
            move = self.opponent(self.game)
        except Exception as error:
            raise self._broken(f"the opponent raised {type(error).__name__}: {error}") from error
        if len(self.game.moves) != moves_before:
            raise self._broken("the opponent played on the game it was shown instead of answering a move")
        try:
            self.game.play(move)
        except (TypeError, IllegalMoveError) as error:
            raise self._broken(f"the opponent's move is refused: {error}") from error

    def _broken(self, message: str) -> OpponentError:
        """End the episode, the opponent having failed; the error to raise."""
        self._over = True
        self._mask = np.zeros_like(self._mask)
        return OpponentError(message)

    def _random_move(self, game: Game) -> int:
        legal = game.legal_moves()
        return int(legal[self.np_random.integers(len(legal))])


def register_envs() -> None:
    """Register ``goarena/Go-v0`` with Gymnasium; calling it again does nothing."""
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="go_env.gym_env:GoEnv")
