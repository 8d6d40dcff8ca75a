"""Go for one learner against an opponent, as a Gymnasium environment: ``goarena/Go-v0``.

The opponent moves inside ``reset`` and ``step``, so every observation is the learner's turn::

    import gymnasium
    import go_env  # registers goarena/Go-v0
    from sb3_contrib import MaskablePPO

    env = gymnasium.make("goarena/Go-v0", board_size=5, opponent="uct:simulations=50",
                         learner="alternate", channels_first=True, observation_dtype="float32")
    MaskablePPO("MlpPolicy", env).learn(10_000)  # masks from env.action_masks()

The opponent is one of

- ``None``: a uniformly random legal move (pass included), drawn from the env's ``np_random``;
- a spec string (``"random"``, ``"uct:simulations=200"``, ``"sb3:runs/ppo/model.zip"``,
  ``"mybot:make_player"``) or a player object (``select_move(game)``, ``reset(context)``):
  goarena's players, built and driven through its agents package. The player is reset at
  every episode with the game, its colour and a seed drawn from ``np_random``, and is told of
  every move played (``observe_move``), as in a league;
- any other ``Callable[[Game], int]``: called for a move, with no lifecycle. It may also have
  ``new_game(game, color, seed)``, ``observe_move(game, move)`` and ``close()``, which the
  env then calls (the ``Opponent`` protocol).

``go_env`` does not import the agents package: spec strings and player objects reach it
through the ``go_env.opponents`` entry point that goarena installs.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any, Literal, Protocol

import gymnasium
import numpy as np
from gymnasium import spaces

from go_env.features import (
    NUM_HISTORY_PLANES,
    OBSERVATION_DTYPES,
    check_observation_options,
    planes_in_layout,
)
from go_env.game import (
    BLACK,
    COLOR_NAMES,
    EMPTY,
    RESIGN,
    WHITE,
    Game,
    IllegalMoveError,
    as_move,
    other_color,
    result_string,
)
from go_env.render import Renderer
from go_env.rules import Rules, board_rules

ENV_ID = "goarena/Go-v0"
# Entry points that turn a spec string or a player object into an ``Opponent``.
OPPONENT_ENTRY_POINTS = "go_env.opponents"

LEARNER_COLORS = ("black", "white", "random", "alternate")


class Opponent(Protocol):
    """Picks the opponent's moves: a legal move for the side to move, or ``RESIGN``.

    Optional methods, called when present: ``new_game(game, color, seed)`` at each episode,
    ``observe_move(game, move)`` after every move played (both sides), ``close()``.
    """

    def __call__(self, game: Game) -> int: ...


class OpponentError(RuntimeError):
    """The opponent raised, changed the game, or answered something that is not a move."""


class GoEnv(gymnasium.Env[np.ndarray, np.int64]):
    """Go against an opponent, from the learner's side of the board.

    Observations are the history planes of ``go_env.aec``'s documentation from the learner's
    point of view (plane 0: the learner's stones now): uint8[N, N, 17] by default;
    ``channels_first=True`` gives [17, N, N] and ``observation_dtype="float32"`` floats, as
    torch and Stable-Baselines3 want them; ``observation_layout="pgx"`` or ``"go_v5"`` orders
    the planes as those libraries do. Actions are ``0 .. N*N-1`` (row-major, row 0 at
    the top) and ``N*N`` for pass. ``action_masks()`` (bool[N*N + 1], for sb3-contrib's
    MaskablePPO) and ``info["action_mask"]`` (int8, for ``action_space.sample(mask)``) give
    the legal moves.

    The reward is 0 until the end, then +1 if the learner wins, -1 if it loses and 0 for a
    draw. The episode ends (``terminated``) on two passes in a row, an illegal move by either
    side, or the opponent's resignation; the move cap of the rules stops it (``truncated``)
    and it is scored as it stands. The last step's ``info`` says how it ended:

    - ``reason``: ``"passes"``, ``"move_cap"``, ``"resign"`` (the opponent resigned),
      ``"illegal_move"`` (the learner's; the move is not played and the learner loses) or
      ``"opponent_illegal_move"`` (the learner wins);
    - ``winner``: ``"black"``, ``"white"`` or ``"draw"``; ``score``: Black's points minus
      White's minus komi as the board stands; ``result``: as SGF's RE (``B+3.5``, ``W+R``,
      ``B+F`` for a forfeit by illegal move, ``0``);
    - after an illegal move, ``illegal_move`` (occupied, suicide, ko, superko, off board) and
      ``error`` (the whole message).

    An action that is not an integer (``40.7``, ``"40"``) is refused with ``TypeError`` and
    changes nothing. An opponent that raises, plays on the game it is shown or answers with
    something that is not a move is a broken env, not a game result: ``reset`` or ``step``
    raises ``OpponentError`` (from the opponent's own exception, if any), and ``step``
    raises ``ResetNeeded`` until the next ``reset``.

    Defaults: 9x9, where learning runs on a CPU (PettingZoo's Go, ``go_env.env``, keeps
    PettingZoo's 19x19), and ``Rules(komi=default_komi(board_size))``: area scoring,
    positional superko, komi 7 on 9x9 as the leagues play it (7.5 on other sizes).

    Args:
        board_size: N, the board is N x N (2 to 25).
        rules: the ruleset (default ``Rules(komi=default_komi(board_size))``).
        komi: replaces ``rules.komi`` if given.
        handicap: fixed handicap stones for Black; White moves first when there are any.
        learner: the learner's colour: ``"black"``, ``"white"``, ``"random"`` (drawn at every
            reset from ``np_random``) or ``"alternate"`` (Black first, then each reset swaps;
            a seeded reset starts again with Black).
        opponent: see the module documentation; default uniform random, seeded by ``reset``.
        channels_first: observations [17, N, N] instead of [N, N, 17].
        observation_dtype: ``"uint8"`` (the default), ``"bool"``, ``"int8"`` or ``"float32"``.
        observation_layout: the order of the planes: ``"goarena"`` (the default, above),
            ``"pgx"`` (pgx's Go) or ``"go_v5"`` (PettingZoo's); see
            ``go_env.features.planes_in_layout``.
        render_mode: ``"human"``, ``"ansi"``, ``"rgb_array"`` or ``None``.

    Attributes:
        game: the ``Game`` being played.
        learner_color: ``BLACK`` or ``WHITE``, the learner's colour this episode.
        opponent: the ``Opponent`` (a player given by spec or object is wrapped).
    """

    metadata: dict[str, Any] = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        board_size: int = 9,
        rules: Rules | None = None,
        komi: float | None = None,
        handicap: int = 0,
        learner: Literal["black", "white", "random", "alternate"] = "black",
        opponent: Opponent | str | object | None = None,
        channels_first: bool = False,
        observation_dtype: Literal["uint8", "bool", "int8", "float32"] = "uint8",
        observation_layout: Literal["goarena", "pgx", "go_v5"] = "goarena",
        render_mode: str | None = None,
    ):
        if learner not in LEARNER_COLORS:
            raise ValueError(f"learner must be one of {', '.join(LEARNER_COLORS)}, got {learner!r}")
        check_observation_options(observation_layout, observation_dtype)
        self.rules = board_rules(board_size, rules, komi)
        self.board_size = board_size
        self.handicap = handicap
        self.learner = learner
        self.channels_first = channels_first
        self.observation_dtype = observation_dtype
        self.observation_layout = observation_layout
        self.opponent: Opponent = as_opponent(opponent) if opponent is not None else self._random_move
        self.render_mode = render_mode
        self._renderer = Renderer(render_mode, self.metadata["render_fps"])

        n = board_size
        shape = (NUM_HISTORY_PLANES, n, n) if channels_first else (n, n, NUM_HISTORY_PLANES)
        self.observation_space = spaces.Box(0, 1, shape, OBSERVATION_DTYPES[observation_dtype])
        self.action_space = spaces.Discrete(n * n + 1)
        self.game = Game(board_size, self.rules, handicap)
        self.learner_color = BLACK
        self._mask = np.zeros(n * n + 1, np.int8)
        self._over = False
        self._winner = EMPTY  # once the episode is over: BLACK, WHITE or EMPTY (a draw)
        self._ending: dict[str, Any] = {}  # once it is over: how it ended, for the last info
        self._episodes = 0  # since the last seeded reset, for learner="alternate"

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self._episodes = 0
        self.game = Game(self.board_size, self.rules, self.handicap)
        self.game.live_observation()  # from now on each move's kernel call writes the planes too
        self.learner_color = self._learner_color()
        self._episodes += 1
        self._over = False
        self._ending = {}
        new_game = getattr(self.opponent, "new_game", None)
        if new_game is not None:
            opponent_seed = int(self.np_random.integers(2**31))
            self._call_opponent(new_game, self.game.copy(), other_color(self.learner_color), opponent_seed)
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
            self._play(move)
        except IllegalMoveError as error:
            self._finish("illegal_move", other_color(self.learner_color), "F")
            observation, info = self._observe()
            info.update(illegal_move=error.reason, error=str(error))
            return observation, -1.0, True, False, info
        if not self.game.is_over:
            self._opponent_plays()
        if self.game.is_over and not self._over:
            self._finish("move_cap" if self.game.is_truncated else "passes", self.game.winner())
        reward = self._reward()
        observation, info = self._observe()
        if self.render_mode == "human":
            self.render()
        return observation, reward, self._over and not self.game.is_truncated, self.game.is_truncated, info

    def action_masks(self) -> np.ndarray:
        """bool[N*N + 1]: True for each legal learner move (all False once the episode is over)."""
        return self._mask.astype(bool)

    def render(self) -> str | np.ndarray | None:
        return self._renderer.render(self.game)

    def close(self) -> None:
        self._renderer.close()
        close = getattr(self.opponent, "close", None)
        if close is not None:
            close()

    def _learner_color(self) -> int:
        if self.learner == "random":
            return BLACK if self.np_random.integers(2) == 0 else WHITE
        if self.learner == "alternate":
            return BLACK if self._episodes % 2 == 0 else WHITE
        return BLACK if self.learner == "black" else WHITE

    def _reward(self) -> float:
        if not self._over or self._winner == EMPTY:
            return 0.0
        return 1.0 if self._winner == self.learner_color else -1.0

    def _finish(self, reason: str, winner: int, how: str | None = None) -> None:
        """End the episode: ``winner`` (a colour, or EMPTY for a draw) by ``reason``; ``how``
        is SGF's R (resignation) or F (forfeit) when the board's count does not decide it."""
        self._over = True
        self._winner = winner
        score = self.game.score()
        result = f"{'B' if winner == BLACK else 'W'}+{how}" if how else result_string(score)
        self._ending = {
            "reason": reason,
            "winner": COLOR_NAMES.get(winner, "draw"),
            "score": score,
            "result": result,
        }

    def _observe(self) -> tuple[np.ndarray, dict[str, Any]]:
        """The learner's observation and an info dict holding its legal moves (new arrays)."""
        if self._over:
            self._mask = np.zeros_like(self._mask)
        else:
            self._mask = self.game.legal_mask().copy()
        to_move = self.learner_color == self.game.to_play  # not after the learner's last move
        # To move, the planes the last move's kernel call wrote; else made for the learner.
        planes = self.game.live_observation() if to_move else self.game.observation_for(self.learner_color)
        dtype = OBSERVATION_DTYPES[self.observation_dtype]
        observation = planes_in_layout(planes, self.channels_first, dtype, self.observation_layout, to_move)
        if np.may_share_memory(observation, planes):
            # The game's own array (int8 in goarena's order): the next move rewrites it, and
            # learners keep observations (rollout and replay buffers), so they get a copy.
            observation = observation.copy()
        return observation, {"action_mask": self._mask.copy(), **self._ending}

    def _play(self, move: int) -> None:
        """Play ``move`` for the side to move and tell the opponent (IllegalMoveError if illegal)."""
        self.game.play(move)
        observe = getattr(self.opponent, "observe_move", None)
        if observe is not None:
            self._call_opponent(observe, self.game.copy(), move)

    def _opponent_plays(self) -> None:
        """Play the opponent's move; an illegal move or a resignation ends the episode."""
        color = self.game.to_play
        moves_before = len(self.game.moves)
        answer = self._call_opponent(self.opponent, self.game)
        if len(self.game.moves) != moves_before:
            raise self._broken("the opponent played on the game it was shown instead of answering a move")
        try:
            move = as_move(answer)
        except TypeError as error:
            raise self._broken(f"the opponent's answer is not a move: {error}") from error
        if move == RESIGN:
            self._finish("resign", other_color(color), "R")
            return
        try:
            self._play(move)
        except IllegalMoveError as error:
            self._finish("opponent_illegal_move", other_color(color), "F")
            self._ending.update(illegal_move=error.reason, error=str(error))

    def _call_opponent(self, method: Callable[..., Any], *args: Any) -> Any:
        try:
            return method(*args)
        except Exception as error:
            raise self._broken(f"the opponent raised {type(error).__name__}: {error}") from error

    def _broken(self, message: str) -> OpponentError:
        """End the episode, the opponent having failed; the error to raise."""
        self._over = True
        self._mask = np.zeros_like(self._mask)
        return OpponentError(message)

    def _random_move(self, game: Game) -> int:
        legal = game.legal_moves()
        return int(legal[self.np_random.integers(len(legal))])


def as_opponent(opponent: Opponent | str | object) -> Opponent:
    """``opponent`` as an ``Opponent``: a spec string or a player object through the installed
    ``go_env.opponents`` entry point (goarena's agents), any other callable as it is."""
    if not isinstance(opponent, str) and callable(opponent) and not hasattr(opponent, "select_move"):
        return opponent  # type: ignore[return-value]  # a callable(game) -> move
    loaders = list(entry_points(group=OPPONENT_ENTRY_POINTS))
    if not loaders:
        raise TypeError(
            f"opponent {opponent!r} is a spec string or a player, which needs goarena's agents "
            f"installed (entry point group {OPPONENT_ENTRY_POINTS!r}); or pass a callable(game) -> move"
        )
    return loaders[0].load()(opponent)


def register_envs() -> None:
    """Register ``goarena/Go-v0`` with Gymnasium, ``GoVectorEnv`` as what ``gymnasium.make_vec``
    builds for it by default; calling it again does nothing."""
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(
            id=ENV_ID, entry_point="go_env.gym_env:GoEnv", vector_entry_point="go_env.vector:GoVectorEnv"
        )
