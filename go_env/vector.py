"""Many games of Go against an opponent as one Gymnasium vector environment, over one ``GameBatch``.

``GoVectorEnv(num_envs)`` is ``num_envs`` copies of ``goarena/Go-v0`` (``GoEnv``) stepped
together: every call is a few kernel calls over all games, not a Python loop over envs. The
learner plays one colour in each sub-env, the opponent moves inside ``reset`` and ``step``,
so every observation is the learner's turn::

    import gymnasium
    import go_env  # registers goarena/Go-v0, with this class as its vector entry point

    envs = gymnasium.make_vec("goarena/Go-v0", num_envs=64, board_size=9, learner="alternate")
    observations, infos = envs.reset(seed=0)                        # int8[64, 9, 9, 17]
    actions = envs.action_space.sample(mask=tuple(infos["action_mask"]))  # or a policy's, masked
    observations, rewards, terminated, truncated, infos = envs.step(actions)

Episodes reset in the step that ends them (Gymnasium's ``AutoresetMode.SAME_STEP``): the
observation returned for a sub-env whose episode just ended is the first of its next episode,
the last one is in ``infos["final_obs"]``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Literal

import gymnasium
import numba
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from go_env import core as K
from go_env.batch import GameBatch
from go_env.features import (
    NUM_HISTORY_PLANES,
    history_planes,
    new_history_planes,
    other_side_view,
    planes_in_layout,
)
from go_env.game import result_string
from go_env.gym_env import LEARNER_COLORS, OBSERVATION_DTYPES, OpponentError
from go_env.rules import Rules, default_komi

# Picks the opponent's moves for a batch: (observations int8[K, N, N, 17], masks int8[K, N*N+1])
# -> int64[K] legal moves (see ``GoVectorEnv``).
BatchOpponent = Callable[[np.ndarray, np.ndarray], np.ndarray]
# Observations, rewards, terminated, truncated, infos.
StepResult = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]

WINNER_NAMES = {K.EMPTY: "draw", K.BLACK: "black", K.WHITE: "white"}


class GoVectorEnv(gymnasium.vector.VectorEnv[np.ndarray, np.ndarray, np.ndarray]):
    """``num_envs`` games of Go, each a learner against an opponent, stepped as one batch.

    Each sub-env plays as a ``GoEnv`` against the same opponent would (the same observations,
    masks, rewards and ends for the same moves; tests check it). Observations are the history
    planes from the learner's point of view (plane 0: the learner's stones now), int8[B, N, N,
    17] by default; ``channels_first=True`` gives [B, 17, N, N] and ``observation_dtype=
    "float32"`` floats, as torch and Stable-Baselines3 want them. Actions are int[B]: ``0 ..
    N*N-1`` (row-major, row 0 at the top) and ``N*N`` for pass. ``action_masks()`` (bool[B,
    N*N+1], the name sb3-contrib's MaskablePPO looks for) and ``infos["action_mask"]`` (int8,
    for ``action_space.sample(mask=tuple(...))``) give the legal moves; in every sub-env at
    least pass is legal, since every observation is a running game's.

    Rewards are 0 until an episode ends, then +1 if the learner wins, -1 if it loses, 0 for a
    draw, by the score of the board (Black's points minus White's minus komi under the rules'
    scoring, as ``GameBatch.scores``). Two passes in a row end a game (``terminated``); the
    rules' move cap stops it (``truncated``) and it is scored as it stands. An illegal learner
    action (occupied, suicide, ko, superko, off the board) is not played and ends that episode
    as a loss (-1, ``terminated``). Actions that are not integers raise ``TypeError`` and
    change nothing.

    Auto-reset is ``AutoresetMode.SAME_STEP`` (``metadata["autoreset_mode"]``): a sub-env whose
    episode ends is reset in the same ``step`` (and the opponent moves first where the learner
    is White), so the returned observation, mask and ``infos["action_mask"]`` are its new
    episode's, and the next action is played in it. Where episodes ended, ``infos`` holds, in
    Gymnasium's layout (an array over sub-envs per key, and a bool array ``"_key"`` saying
    which sub-envs have it):

    - ``final_obs``: object array of the ended episodes' last observations (learner's view);
    - ``score``: float64, Black's margin of the final board (after an illegal move, the board as
      it stands, which does not decide the winner);
    - ``winner``: object array of ``"black"``, ``"white"`` or ``"draw"``;
    - ``reason``: object array of ``"passes"``, ``"move_cap"`` or ``"illegal_move"``;
    - ``result``: as SGF's RE (``B+3.5``, ``W+F`` for a forfeit by illegal move, ``0``);
    - ``illegal_move``: why the learner's move was illegal (``core.STATUS_NAMES``), only where
      that ended the episode;
    - ``final_info``: the same keys (not ``final_obs``), where Gymnasium's same-step convention
      puts an ended episode's last info.

    The opponent moves for every sub-env in one call:

    - ``None``: a uniformly random legal move (pass included), drawn inside numba by
      ``GameBatch.sample_and_play`` from one generator per game;
    - a ``BatchOpponent``, ``opponent(observations, masks) -> moves``, called with the games
      where the opponent is to move only, in sub-env order: ``observations`` int8[K, N, N,
      17], each game's history planes from the opponent's point of view (the side to move;
      always this layout and dtype, whatever the learner's observations), and ``masks``
      int8[K, N*N+1] its legal moves. It returns K integer moves, one for each of those games.
      If it raises or answers anything else (a wrong shape, non-integers, an illegal move:
      it has the masks, so unlike ``GoEnv`` this is not scored as its loss), ``reset`` or
      ``step`` raises ``OpponentError`` and the env needs a new ``reset``.

    Args:
        num_envs: number of sub-envs (games), at least 1.
        board_size: N, the board is N x N (2 to 25).
        rules: the ruleset (default ``Rules(komi=default_komi(board_size))``: area scoring,
            komi 7 on 9x9 and 7.5 on other sizes, positional superko, a cap of 2 * N * N moves).
        komi: replaces ``rules.komi`` if given.
        learner: the learner's colour in every sub-env: ``"black"``, ``"white"``,
            ``"alternate"`` (sub-env ``i`` starts Black if ``i`` is even, White if odd, and
            swaps at each of its resets; a seeded ``reset`` starts again from there) or
            ``"random"`` (drawn at each of its resets from ``np_random``).
        opponent: ``None`` (random) or a ``BatchOpponent``, see above.
        channels_first: observations [B, 17, N, N] instead of [B, N, N, 17].
        observation_dtype: ``"int8"`` or ``"float32"``.
        seed: seeds the first ``reset`` if that is given no seed.
        threads: numba threads for the kernels of ``reset`` and ``step`` (at most numba's
            number). A kernel's work is microseconds a game, and waking threads for each of a
            step's few calls costs more than it saves unless the games are many and the cores
            idle (on busy cores, far more); hence one by default. With more, each kernel still
            runs in parallel only on batches above its threshold (``go_env.core.parallel``).

    ``reset(seed=s)`` seeds everything random in the env (the random opponent's moves, the
    learner's colours), so that the same actions replay the same episodes.
    ``reset(options={"reset_mask": mask})`` resets only the sub-envs where the bool[B] mask is
    True, as ``SyncVectorEnv`` does.

    Attributes:
        batch: the ``GameBatch`` of the sub-envs' games.
        learner_colors: int64[B], ``BLACK`` or ``WHITE``: the learner's colour in each sub-env.
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int,
        board_size: int = 9,
        rules: Rules | None = None,
        komi: float | None = None,
        learner: Literal["black", "white", "alternate", "random"] = "black",
        opponent: BatchOpponent | None = None,
        channels_first: bool = False,
        observation_dtype: Literal["int8", "float32"] = "int8",
        seed: int | None = None,
        threads: int = 1,
    ):
        if learner not in LEARNER_COLORS:
            raise ValueError(f"learner must be one of {', '.join(LEARNER_COLORS)}, got {learner!r}")
        if observation_dtype not in OBSERVATION_DTYPES:
            raise ValueError(f"observation_dtype must be 'int8' or 'float32', got {observation_dtype!r}")
        if threads < 1:
            raise ValueError(f"threads must be >= 1, got {threads}")
        if opponent is not None and not callable(opponent):
            raise TypeError(f"opponent must be None or callable(observations, masks), got {opponent!r}")
        rules = rules if rules is not None else Rules(komi=default_komi(board_size))
        self.rules = dataclasses.replace(rules, komi=komi) if komi is not None else rules
        self.batch = GameBatch(board_size, num_envs, self.rules)
        self.num_envs = num_envs
        self.board_size = board_size
        self.learner = learner
        self.opponent = opponent
        self.channels_first = channels_first
        self.observation_dtype = observation_dtype
        self.threads = threads

        n = board_size
        shape = (NUM_HISTORY_PLANES, n, n) if channels_first else (n, n, NUM_HISTORY_PLANES)
        self.single_observation_space = spaces.Box(0, 1, shape, OBSERVATION_DTYPES[observation_dtype])
        self.single_action_space = spaces.Discrete(n * n + 1)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)

        self.learner_colors = np.full(num_envs, K.BLACK, np.int64)
        # Episodes each sub-env has begun since the last seeded reset (for learner="alternate").
        self._episodes = np.zeros(num_envs, np.int64)
        self._uniform = np.ones((num_envs, self.batch.num_actions))
        self._weights = np.empty_like(self._uniform)
        self._masks = np.zeros((num_envs, self.batch.num_actions), np.int8)
        self._first_seed = seed
        self._needs_reset = True

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start new episodes in every sub-env (or those of ``options["reset_mask"]``)."""
        seed = seed if seed is not None else self._first_seed
        self._first_seed = None
        super().reset(seed=seed)
        if seed is not None:
            self.batch.seed(int(self.np_random.integers(2**63)))
            self._episodes[:] = 0
        where = np.ones(self.num_envs, np.bool_)
        if options is not None and "reset_mask" in options:
            where = np.asarray(options["reset_mask"])
            if where.shape != (self.num_envs,) or where.dtype != np.bool_:
                raise ValueError(f"options['reset_mask'] must be bool[{self.num_envs}], got {where!r}")
            if self._needs_reset and not where.all():
                raise gymnasium.error.ResetNeeded("reset every sub-env first: reset_mask must be all True")
        self._needs_reset = True  # until the episodes have begun: the opponent may fail
        with self._threads():
            self._begin_episodes(where)
            self._needs_reset = False
            observations = self._format(self.batch.observations())
            return observations, self._mask_info()

    def step(self, actions: np.ndarray) -> StepResult:
        """Play the learner's ``actions`` (int[B]) and the opponent's replies; episodes that end
        reset at once (see the class documentation)."""
        if self._needs_reset:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"expected {self.num_envs} actions, got shape {actions.shape}")
        if not np.issubdtype(actions.dtype, np.integer):
            raise TypeError(f"actions must be integers, got dtype {actions.dtype}")
        with self._threads():
            return self._step(actions.astype(np.int64))

    def _step(self, moves: np.ndarray) -> StepResult:
        status = self.batch.play(moves, strict=False)
        illegal = status != K.LEGAL
        self._opponent_moves(~self.batch.is_over & ~illegal)

        over = self.batch.state.info[:, K.INFO_OVER]
        terminated = illegal | (over == K.ENDED_BY_PASSES)
        truncated = over == K.TRUNCATED
        ended = terminated | truncated
        rewards = np.zeros(self.num_envs)
        infos: dict[str, Any] = {}
        if ended.any():
            infos = self._finish(ended, illegal, status, rewards)
            self._begin_episodes(ended)
        observations = self._format(self.batch.observations())
        infos.update(self._mask_info())
        return observations, rewards, terminated, truncated, infos

    def action_masks(self) -> np.ndarray:
        """bool[B, N*N + 1]: True for each legal learner move, for the current observations."""
        return self._masks.astype(bool)

    def _begin_episodes(self, where: np.ndarray) -> None:
        """Empty the boards of the sub-envs ``where`` (bool[B]), give the learner its colour in
        each, and let the opponent play first where the learner is White."""
        self.batch.reset(where)
        if self.learner == "alternate":
            first_white = np.arange(self.num_envs) % 2
            colors = np.where((first_white + self._episodes) % 2 == 0, K.BLACK, K.WHITE)
        elif self.learner == "random":
            colors = np.where(self.np_random.integers(2, size=self.num_envs) == 0, K.BLACK, K.WHITE)
        else:
            colors = np.full(self.num_envs, K.BLACK if self.learner == "black" else K.WHITE)
        self.learner_colors[where] = colors[where]
        self._episodes[where] += 1
        self._opponent_moves(where & (self.learner_colors == K.WHITE))

    def _opponent_moves(self, movers: np.ndarray) -> None:
        """The opponent plays in the sub-envs ``movers`` (bool[B]), each a running game with the
        opponent to move."""
        if not movers.any():
            return
        if self.opponent is None:
            # Rows of zero weight draw nothing; pass is legal in every running game, so the
            # others all move.
            np.multiply(self._uniform, movers[:, None], out=self._weights)
            self.batch.sample_and_play(self._weights, strict=False)
            return
        rows = np.flatnonzero(movers)
        observations = self.batch.observations()[rows]
        masks = self.batch.legal_masks()[rows]
        try:
            answer = np.asarray(self.opponent(observations, masks))
        except Exception as error:
            raise self._broken(f"the opponent raised {type(error).__name__}: {error}") from error
        if answer.shape != rows.shape or not np.issubdtype(answer.dtype, np.integer):
            raise self._broken(
                f"the opponent must answer {rows.size} integer moves, "
                f"got {answer.dtype} of shape {answer.shape}"
            )
        moves = np.full(self.num_envs, -1, np.int64)  # -1 is off the board: the others are left alone
        moves[rows] = np.where((answer >= 0) & (answer < self.batch.num_actions), answer, -1)
        status = self.batch.play(moves, strict=False)[rows]
        refused = np.flatnonzero(status != K.LEGAL)
        if refused.size:
            i = refused[0]
            reason = K.STATUS_NAMES[status[i]]
            raise self._broken(f"the opponent's move {answer[i]} in sub-env {rows[i]} is refused: {reason}")

    def _finish(
        self, ended: np.ndarray, illegal: np.ndarray, status: np.ndarray, rewards: np.ndarray
    ) -> dict[str, Any]:
        """Score the episodes that ``ended`` (bool[B]), write their rewards, and return the infos
        that describe them (before their sub-envs reset)."""
        details: dict[str, Any] = {"score": np.zeros(self.num_envs)}
        for key in ("winner", "reason", "result"):
            details[key] = np.full(self.num_envs, None, object)
        final_obs = np.full(self.num_envs, None, object)
        geometry = self.batch.geometry
        # Few episodes end in a step: a few small kernel calls for each beat a batch call.
        for b in np.flatnonzero(ended).tolist():
            state = K.state_item(self.batch.state, b)
            learner = int(self.learner_colors[b])
            planes = new_history_planes(self.board_size)
            history_planes(state, geometry, planes)
            if state.info[K.INFO_TO_PLAY] != learner:
                planes = other_side_view(planes)
            final_obs[b] = self._format(planes)
            margin = float(K.score(state, geometry))
            if illegal[b]:
                winner = K.WHITE if learner == K.BLACK else K.BLACK
                reason, result = "illegal_move", f"{'B' if winner == K.BLACK else 'W'}+F"
            else:
                winner = K.BLACK if margin > 0 else K.WHITE if margin < 0 else K.EMPTY
                truncated = state.info[K.INFO_OVER] == K.TRUNCATED
                reason, result = "move_cap" if truncated else "passes", result_string(margin)
            rewards[b] = 0.0 if winner == K.EMPTY else 1.0 if winner == learner else -1.0
            details["score"][b] = margin
            details["winner"][b] = WINNER_NAMES[winner]
            details["reason"][b] = reason
            details["result"][b] = result
        for key in ("score", "winner", "reason", "result"):
            details[f"_{key}"] = ended.copy()
        if illegal.any():
            details["illegal_move"] = np.full(self.num_envs, None, object)
            details["illegal_move"][illegal] = [K.STATUS_NAMES[code] for code in status[illegal]]
            details["_illegal_move"] = illegal.copy()
        return {
            "final_obs": final_obs,
            "_final_obs": ended.copy(),
            "final_info": dict(details),
            "_final_info": ended.copy(),
            **details,
        }

    def _mask_info(self) -> dict[str, Any]:
        """Read the learner's legal moves now; the infos that carry them."""
        self._masks = self.batch.legal_masks()
        return {"action_mask": self._masks.copy(), "_action_mask": np.ones(self.num_envs, np.bool_)}

    @contextmanager
    def _threads(self) -> Iterator[None]:
        """Run the kernels called inside on ``self.threads`` numba threads."""
        previous = numba.get_num_threads()
        threads = min(self.threads, previous, self.num_envs)
        if threads == previous:
            yield
            return
        numba.set_num_threads(threads)
        try:
            yield
        finally:
            numba.set_num_threads(previous)

    def _format(self, planes: np.ndarray) -> np.ndarray:
        """int8[..., N, N, 17] planes in the observation space's layout and dtype."""
        return planes_in_layout(planes, self.channels_first, OBSERVATION_DTYPES[self.observation_dtype])

    def _broken(self, message: str) -> OpponentError:
        """The opponent failed: every sub-env needs a reset; the error to raise."""
        self._needs_reset = True
        self._masks = np.zeros_like(self._masks)
        return OpponentError(message)
