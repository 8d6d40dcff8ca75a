"""Many games of Go against an opponent as one Gymnasium vector environment, over one ``GameBatch``.

``GoVectorEnv(num_envs)`` is ``num_envs`` copies of ``goarena/Go-v0`` (``GoEnv``) stepped
together: every call is a few kernel calls over all games, not a Python loop over envs. The
learner plays one colour in each sub-env, the opponent moves inside ``reset`` and ``step``,
so every observation is the learner's turn::

    import gymnasium
    import go_env  # registers goarena/Go-v0, with this class as its vector entry point

    envs = gymnasium.make_vec("goarena/Go-v0", num_envs=64, board_size=9, learner="alternate")
    observations, infos = envs.reset(seed=0)                        # uint8[64, 9, 9, 17]
    actions = envs.action_space.sample(mask=tuple(infos["action_mask"]))  # or a policy's, masked
    observations, rewards, terminated, truncated, infos = envs.step(actions)

Episodes reset in the step that ends them (Gymnasium's ``AutoresetMode.SAME_STEP``): the
observation returned for a sub-env whose episode just ended is the first of its next episode,
the last one is in ``infos["final_obs"]``.

The opponent is the random mover of the rules core by default, a batched callable, or any
player ``GoEnv`` takes: ``opponent="uct:simulations=100"`` (one player per sub-env), a player
object, or a list of them, one per sub-env. Players that can play many games at once
(``select_moves``: goarena's ``random``, ``puct`` and policy-network players) are called
once per step for all the games where they are to move. ``learner="both"`` makes both
colours learners: self-play, each step a move for the side to move in every game (see
``GoVectorEnv``).

Legal moves are ``envs.action_masks()`` here and ``infos["action_mask"]`` in every mode;
``action_masks(envs)`` reads them from any vector env of ``goarena/Go-v0``, Gymnasium's
``SyncVectorEnv`` and ``AsyncVectorEnv`` (``make_vec(..., vectorization_mode="sync")``)
included, which have no method of their own for it. ``goarena.agents.training.vec_env``
makes this env a Stable-Baselines3 ``VecEnv``, for sb3-contrib's MaskablePPO.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Literal, cast

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
    OBSERVATION_DTYPES,
    check_observation_options,
    history_planes,
    new_history_planes,
    other_side_view,
    planes_in_layout,
)
from go_env.game import RESIGN, Game, as_move, other_color, result_string
from go_env.gym_env import LEARNER_COLORS, Opponent, OpponentError, as_opponent
from go_env.rules import Rules, board_rules

# Picks the opponent's moves for a batch: (observations int8[K, N, N, 17], masks int8[K, N*N+1])
# -> int64[K] legal moves (see ``GoVectorEnv``).
BatchOpponent = Callable[[np.ndarray, np.ndarray], np.ndarray]
# Observations, rewards, terminated, truncated, infos.
StepResult = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]

WINNER_NAMES = {K.EMPTY: "draw", K.BLACK: "black", K.WHITE: "white"}
VECTOR_LEARNERS = (*LEARNER_COLORS, "both")


class GoVectorEnv(gymnasium.vector.VectorEnv[np.ndarray, np.ndarray, np.ndarray]):
    """``num_envs`` games of Go, each a learner against an opponent (or two learners), stepped as one batch.

    Each sub-env plays as a ``GoEnv`` against the same opponent would (the same observations,
    masks, rewards and ends for the same moves; tests check it). Observations are the history
    planes from the learner's point of view (plane 0: the learner's stones now), uint8[B, N, N,
    17] by default; ``channels_first=True`` gives [B, 17, N, N] and ``observation_dtype=
    "float32"`` floats, as torch and Stable-Baselines3 want them; ``observation_layout`` orders
    the planes as ``GoEnv``'s does. Actions are int[B]: ``0 ..
    N*N-1`` (row-major, row 0 at the top) and ``N*N`` for pass. ``action_masks()`` (bool[B,
    N*N+1], the name sb3-contrib's MaskablePPO looks for) and ``infos["action_mask"]`` (int8,
    for ``action_space.sample(mask=tuple(...))``) give the legal moves; in every sub-env at
    least pass is legal, since every observation is a running game's. ``infos["to_play"]``
    (int64[B], ``BLACK`` or ``WHITE``) is the colour each observation is for.

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
    - ``score``: float64, Black's margin of the final board (after an illegal move or a
      resignation, the board as it stands, which does not decide the winner);
    - ``winner``: object array of ``"black"``, ``"white"`` or ``"draw"``;
    - ``reason``: object array of ``"passes"``, ``"move_cap"``, ``"illegal_move"`` (the
      learner's), and with a player as the opponent ``"resign"`` or ``"opponent_illegal_move"``
      (the learner wins), as ``GoEnv`` says them;
    - ``result``: as SGF's RE (``B+3.5``, ``W+R``, ``W+F`` for a forfeit by illegal move, ``0``);
    - ``rewards``: float64[B, 2], each colour's reward (Black's, then White's: +1, -1 or 0);
    - ``illegal_move``: why an illegal move ended the episode (``core.STATUS_NAMES``);
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
      ``step`` raises ``OpponentError`` and the env needs a new ``reset``;
    - a player, as ``GoEnv`` takes one: a spec string (``"uct:simulations=100"``) or a player
      object, through goarena's agents (the ``go_env.opponents`` entry point). A player that
      can play many games at once (its opponent has ``select_moves(batch)``: goarena's
      ``random``, ``puct`` and policy-network players) is reset once at each ``reset``
      (colour None, a seed from ``np_random``) and asked once per step, with a ``GameBatch``
      of copies of the games where it is to move. Any other player plays one sub-env: a spec
      string builds one for each; a player object serves ``num_envs=1`` only;
    - a list of ``num_envs`` opponents as ``GoEnv`` takes them (specs, players, or
      ``callable(game) -> move``), one per sub-env, each driven as ``GoEnv`` drives it: reset
      with a seed at each of its sub-env's episodes, told every move (``observe_move``),
      shown a ``Game`` that holds the whole record.

    A player's resignation and its illegal moves end the episode as the learner's win, as in
    ``GoEnv``, except on its first move of an episode (before the learner's first), where no
    step can report it: that is an ``OpponentError``; so is a player that raises.

    ``learner="both"`` makes both colours learners (self-play; ``opponent`` must be None):
    each step plays ``actions[b]`` for the side to move in game ``b``, whose view every
    observation is (``infos["to_play"]`` says which colour, so that two policies can route
    their actions), and ``rewards[b]`` is the reward of the player who just moved: +1 if its
    move ended the game won for it, -1 lost (an illegal move loses), 0 else. Both sides'
    rewards are ``infos["rewards"]`` at each episode's end, from which each position's value
    target is its player's::

        envs = GoVectorEnv(64, learner="both")
        observations, infos = envs.reset(seed=0)
        while True:
            black = infos["to_play"] == go_env.BLACK
            actions = np.where(black, black_policy(observations, envs.action_masks()),
                               white_policy(observations, envs.action_masks()))
            observations, rewards, terminated, truncated, infos = envs.step(actions)
            # where an episode ended: infos["rewards"][b] = (Black's, White's), zero-sum;
            # each of its observations' value target is infos["rewards"][b, colour index]

    Args:
        num_envs: number of sub-envs (games), at least 1.
        board_size: N, the board is N x N (2 to 25).
        rules: the ruleset (default ``Rules(komi=default_komi(board_size))``: area scoring,
            komi 7 on 9x9 and 7.5 on other sizes, positional superko, a cap of 2 * N * N moves).
        komi: replaces ``rules.komi`` if given.
        learner: the learner's colour in every sub-env: ``"black"``, ``"white"``,
            ``"alternate"`` (sub-env ``i`` starts Black if ``i`` is even, White if odd, and
            swaps at each of its resets; a seeded ``reset`` starts again from there),
            ``"random"`` (drawn at each of its resets from ``np_random``) or ``"both"`` (see
            above).
        opponent: ``None`` (random), a ``BatchOpponent``, a player or a list of opponents,
            see above.
        channels_first: observations [B, 17, N, N] instead of [B, N, N, 17].
        observation_dtype: ``"uint8"`` (the default), ``"bool"``, ``"int8"`` or ``"float32"``.
        observation_layout: ``"goarena"`` (the default), ``"pgx"`` or ``"go_v5"``, as ``GoEnv``'s.
        seed: seeds the first ``reset`` if that is given no seed.
        threads: numba threads for the kernels of ``reset`` and ``step`` (at most numba's
            number). A kernel's work is microseconds a game, and waking threads for each of a
            step's few calls costs more than it saves unless the games are many and the cores
            idle (on busy cores, far more); hence one by default. With more, each kernel still
            runs in parallel only on batches above its threshold (``go_env.core.parallel``).

    ``reset(seed=s)`` seeds everything random in the env (the random opponent's moves, the
    learner's colours, the players' seeds), so that the same actions replay the same episodes
    against players that draw only from their seeds.
    ``reset(options={"reset_mask": mask})`` resets only the sub-envs where the bool[B] mask is
    True, as ``SyncVectorEnv`` does. ``close()`` closes the players.

    Attributes:
        batch: the ``GameBatch`` of the sub-envs' games.
        learner_colors: int64[B], ``BLACK`` or ``WHITE``: the learner's colour in each sub-env
            (with ``learner="both"``, the side to move).
    """

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int,
        board_size: int = 9,
        rules: Rules | None = None,
        komi: float | None = None,
        learner: Literal["black", "white", "alternate", "random", "both"] = "black",
        opponent: BatchOpponent | str | object | Sequence[Opponent | str | object] | None = None,
        channels_first: bool = False,
        observation_dtype: Literal["uint8", "bool", "int8", "float32"] = "uint8",
        observation_layout: Literal["goarena", "pgx", "go_v5"] = "goarena",
        seed: int | None = None,
        threads: int = 1,
    ):
        if learner not in VECTOR_LEARNERS:
            raise ValueError(f"learner must be one of {', '.join(VECTOR_LEARNERS)}, got {learner!r}")
        check_observation_options(observation_layout, observation_dtype)
        if threads < 1:
            raise ValueError(f"threads must be >= 1, got {threads}")
        if learner == "both" and opponent is not None:
            raise ValueError("learner='both' plays both colours: there is no opponent to give")
        self.rules = board_rules(board_size, rules, komi)
        self.batch = GameBatch(board_size, num_envs, self.rules)
        self.num_envs = num_envs
        self.board_size = board_size
        self.learner = learner
        self.opponent = opponent
        # A player (or players) drive the opponent's side; None for the random and batched callables.
        self._players = (
            _Players.make(opponent, num_envs, board_size, self.rules) if _is_player(opponent) else None
        )
        self.channels_first = channels_first
        self.observation_dtype = observation_dtype
        self.observation_layout = observation_layout
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
        # How a player forfeited the running episode of each sub-env: resigned, or a refused move's status.
        self._resigned = np.zeros(num_envs, np.bool_)
        self._refused = np.zeros(num_envs, np.int64)
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
            if self._players is not None and where.all():
                with self._calling_opponent():
                    self._players.reset(int(self.np_random.integers(2**31)))
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
        if self._players is not None:
            with self._calling_opponent():
                self._players.played(moves, ~illegal)
        if self.learner != "both":
            self._opponent_moves(~self.batch.is_over & ~illegal)

        over = self.batch.state.info[:, K.INFO_OVER]
        forfeited = self._resigned | (self._refused != K.LEGAL)
        terminated = illegal | (over == K.ENDED_BY_PASSES) | forfeited
        truncated = (over == K.TRUNCATED) & ~forfeited
        ended = terminated | truncated
        rewards = np.zeros(self.num_envs)
        infos: dict[str, Any] = {}
        if ended.any():
            infos = self._finish(ended, illegal, status, rewards)
            self._begin_episodes(ended)
        if self.learner == "both":
            self.learner_colors[:] = self.batch.state.info[:, K.INFO_TO_PLAY]
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
        else:  # "both": Black moves first
            colors = np.full(self.num_envs, K.WHITE if self.learner == "white" else K.BLACK)
        self.learner_colors[where] = colors[where]
        self._episodes[where] += 1
        self._resigned[where] = False
        self._refused[where] = K.LEGAL
        if self._players is not None:
            seeds = self.np_random.integers(2**31, size=self.num_envs)
            with self._calling_opponent():
                self._players.begin(where, np.where(self.learner_colors == K.BLACK, K.WHITE, K.BLACK), seeds)
        if self.learner == "both":
            return
        self._opponent_moves(where & (self.learner_colors == K.WHITE))
        if (self._resigned | (self._refused != K.LEGAL))[where].any():
            raise self._broken("the opponent forfeited its first move (resigned or played an illegal move)")

    def _opponent_moves(self, movers: np.ndarray) -> None:
        """The opponent plays in the sub-envs ``movers`` (bool[B]), each a running game with the
        opponent to move."""
        if not movers.any():
            return
        if self._players is None and self.opponent is None:
            # Rows of zero weight draw nothing; pass is legal in every running game, so the
            # others all move.
            np.multiply(self._uniform, movers[:, None], out=self._weights)
            self.batch.sample_and_play(self._weights, strict=False)
            return
        rows = np.flatnonzero(movers)
        with self._calling_opponent():
            if self._players is not None:
                answer = np.asarray(self._players.answers(self.batch, rows))
            else:
                opponent = cast(BatchOpponent, self.opponent)
                answer = np.asarray(opponent(self.batch.observations()[rows], self.batch.legal_masks()[rows]))
        if answer.shape != rows.shape or not np.issubdtype(answer.dtype, np.integer):
            raise self._broken(
                f"the opponent must answer {rows.size} integer moves, "
                f"got {answer.dtype} of shape {answer.shape}"
            )
        moves = np.full(self.num_envs, -1, np.int64)  # -1 is off the board: the others are left alone
        moves[rows] = np.where((answer >= 0) & (answer < self.batch.num_actions), answer, -1)
        status = self.batch.play(moves, strict=False)[rows]
        refused = status != K.LEGAL
        if self._players is None:
            if refused.any():
                i = np.flatnonzero(refused)[0]
                reason = K.STATUS_NAMES[status[i]]
                raise self._broken(
                    f"the opponent's move {answer[i]} in sub-env {rows[i]} is refused: {reason}"
                )
            return
        # A player's resignation or illegal move ends its game, as the learner's win.
        resigned = answer == RESIGN
        self._resigned[rows[resigned]] = True
        self._refused[rows[refused & ~resigned]] = status[refused & ~resigned]
        forfeits = np.zeros(self.num_envs, np.bool_)
        forfeits[rows[refused]] = True
        self.batch.stop(forfeits)
        played = np.zeros(self.num_envs, np.bool_)
        played[rows[~refused]] = True
        with self._calling_opponent():
            self._players.played(moves, played)

    def _finish(
        self, ended: np.ndarray, illegal: np.ndarray, status: np.ndarray, rewards: np.ndarray
    ) -> dict[str, Any]:
        """Score the episodes that ``ended`` (bool[B]), write their rewards, and return the infos
        that describe them (before their sub-envs reset)."""
        details: dict[str, Any] = {"score": np.zeros(self.num_envs), "rewards": np.zeros((self.num_envs, 2))}
        for key in ("winner", "reason", "result"):
            details[key] = np.full(self.num_envs, None, object)
        final_obs = np.full(self.num_envs, None, object)
        refused = self._refused != K.LEGAL
        geometry = self.batch.geometry
        # Few episodes end in a step: a few small kernel calls for each beat a batch call.
        for b in np.flatnonzero(ended).tolist():
            state = K.state_item(self.batch.state, b)
            learner = int(self.learner_colors[b])
            planes = new_history_planes(self.board_size)
            history_planes(state, geometry, planes)
            to_move = state.info[K.INFO_TO_PLAY] == learner
            final_obs[b] = self._format(planes if to_move else other_side_view(planes), to_move)
            margin = float(K.score(state, geometry))
            how = ""  # SGF's R (resignation) or F (forfeit) where the board's count does not decide
            if illegal[b]:
                winner, reason, how = other_color(learner), "illegal_move", "F"
            elif self._resigned[b]:
                winner, reason, how = learner, "resign", "R"
            elif refused[b]:
                winner, reason, how = learner, "opponent_illegal_move", "F"
            else:
                winner = K.BLACK if margin > 0 else K.WHITE if margin < 0 else K.EMPTY
                reason = "move_cap" if state.info[K.INFO_OVER] == K.TRUNCATED else "passes"
            result = f"{'B' if winner == K.BLACK else 'W'}+{how}" if how else result_string(margin)
            if winner != K.EMPTY:
                details["rewards"][b] = (1.0, -1.0) if winner == K.BLACK else (-1.0, 1.0)
            rewards[b] = details["rewards"][b, 0 if learner == K.BLACK else 1]
            details["score"][b] = margin
            details["winner"][b] = WINNER_NAMES[winner]
            details["reason"][b] = reason
            details["result"][b] = result
        for key in ("score", "rewards", "winner", "reason", "result"):
            details[f"_{key}"] = ended.copy()
        forfeits = illegal | (ended & refused)
        if forfeits.any():
            details["illegal_move"] = np.full(self.num_envs, None, object)
            codes = np.where(illegal, status, self._refused)
            details["illegal_move"][forfeits] = [K.STATUS_NAMES[code] for code in codes[forfeits]]
            details["_illegal_move"] = forfeits
        return {
            "final_obs": final_obs,
            "_final_obs": ended.copy(),
            "final_info": dict(details),
            "_final_info": ended.copy(),
            **details,
        }

    def _mask_info(self) -> dict[str, Any]:
        """Read the learner's legal moves now; the infos that carry them and its colours."""
        self._masks = self.batch.legal_masks()
        every = np.ones(self.num_envs, np.bool_)
        return {
            "action_mask": self._masks.copy(),
            "_action_mask": every,
            "to_play": self.learner_colors.copy(),
            "_to_play": every.copy(),
        }

    def close_extras(self, **kwargs: Any) -> None:
        if self._players is not None:
            self._players.close()

    @contextmanager
    def _calling_opponent(self) -> Iterator[None]:
        """Calls to the opponent inside: whatever it raises breaks the env (``OpponentError``)."""
        try:
            yield
        except OpponentError as error:
            raise self._broken(str(error)) from error
        except Exception as error:
            raise self._broken(f"the opponent raised {type(error).__name__}: {error}") from error

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

    def _format(self, planes: np.ndarray, observer_to_move: bool = True) -> np.ndarray:
        """int8[..., N, N, 17] planes (the observer's) in the observation space's layout and dtype."""
        dtype = OBSERVATION_DTYPES[self.observation_dtype]
        return planes_in_layout(planes, self.channels_first, dtype, self.observation_layout, observer_to_move)

    def _broken(self, message: str) -> OpponentError:
        """The opponent failed: every sub-env needs a reset; the error to raise."""
        self._needs_reset = True
        self._masks = np.zeros_like(self._masks)
        return OpponentError(message)


def action_masks(envs: gymnasium.vector.VectorEnv) -> np.ndarray:
    """bool[B, N*N+1]: the legal moves of every sub-env of a vector env of ``goarena/Go-v0``,
    however it was made (wrappers included): ``GoVectorEnv`` answers from its batch, Gymnasium's
    ``SyncVectorEnv`` and ``AsyncVectorEnv`` (``gymnasium.make_vec(..., vectorization_mode=
    "sync")``), which have no such method, from each ``GoEnv`` (``envs.call("action_masks")``).
    """
    unwrapped = envs.unwrapped
    if isinstance(unwrapped, GoVectorEnv):
        return unwrapped.action_masks()
    return np.stack(unwrapped.call("action_masks"))  # type: ignore[attr-defined]


def _is_player(opponent: object) -> bool:
    """Whether ``opponent`` is a player, a spec or a list of opponents (not None, not a
    batched callable)."""
    if opponent is None:
        return False
    if isinstance(opponent, (str, list, tuple)):
        return True
    return not callable(opponent) or hasattr(opponent, "select_move")


class _Players:
    """The opponent's side played by players: one ``Opponent`` (``go_env.gym_env``'s) for each
    sub-env, with a ``Game`` that follows its sub-env's moves, or one ``Opponent`` that plays
    every game at once (``select_moves(batch)``)."""

    def __init__(self, opponents: list[Opponent], batched: Opponent | None, size: int, rules: Rules):
        self.opponents = opponents
        self.batched = batched
        self.size = size
        self.rules = rules
        self.games = [Game(size, rules) for _ in opponents]

    @classmethod
    def make(cls, opponent: object, num_envs: int, size: int, rules: Rules) -> _Players:
        """The players for ``num_envs`` sub-envs of a spec, a player or a list of opponents."""
        if isinstance(opponent, (list, tuple)):
            if len(opponent) != num_envs:
                raise ValueError(
                    f"a list of opponents needs one for each of the {num_envs} sub-envs, got {len(opponent)}"
                )
            return cls([as_opponent(each) for each in opponent], None, size, rules)
        first = as_opponent(opponent)
        if hasattr(first, "select_moves"):
            return cls([], first, size, rules)
        if isinstance(opponent, str):  # a player of its own for each sub-env
            return cls([first, *(as_opponent(opponent) for _ in range(num_envs - 1))], None, size, rules)
        if num_envs > 1:
            raise TypeError(
                f"the player {opponent!r} plays one game at a time: give a spec string (one player "
                f"for each sub-env) or a list of {num_envs} players"
            )
        return cls([first], None, size, rules)

    def reset(self, seed: int) -> None:
        """The env's ``reset``: a player of every game starts afresh (colour None)."""
        new_game = getattr(self.batched, "new_game", None)
        if new_game is not None:
            new_game(Game(self.size, self.rules), None, seed)

    def begin(self, where: np.ndarray, colors: np.ndarray, seeds: np.ndarray) -> None:
        """New episodes in the sub-envs ``where`` (bool[B]), the players' ``colors`` and ``seeds``."""
        for b in np.flatnonzero(where).tolist() if self.opponents else []:
            self.games[b] = Game(self.size, self.rules)
            new_game = getattr(self.opponents[b], "new_game", None)
            if new_game is not None:
                new_game(self.games[b].copy(), int(colors[b]), int(seeds[b]))

    def answers(self, batch: GameBatch, rows: np.ndarray) -> np.ndarray:
        """int64[K]: the players' moves (or ``RESIGN``) in the games ``rows`` of ``batch``."""
        if self.batched is not None:
            return self.batched.select_moves(batch.take(rows))  # type: ignore[attr-defined]
        answers = np.empty(len(rows), np.int64)
        for i, b in enumerate(rows.tolist()):
            game = self.games[b]
            moves_before = len(game.moves)
            answer = self.opponents[b](game)
            if len(game.moves) != moves_before:
                raise OpponentError(
                    "the opponent played on the game it was shown instead of answering a move"
                )
            try:
                answers[i] = as_move(answer)
            except TypeError as error:
                raise OpponentError(f"the opponent's answer is not a move: {error}") from error
        return answers

    def played(self, moves: np.ndarray, where: np.ndarray) -> None:
        """``moves[b]`` (int[B]) were played in the sub-envs ``where`` (bool[B])."""
        for b in np.flatnonzero(where).tolist() if self.opponents else []:
            game, move = self.games[b], int(moves[b])
            game.play(move)
            observe = getattr(self.opponents[b], "observe_move", None)
            if observe is not None:
                observe(game.copy(), move)

    def close(self) -> None:
        for opponent in [*self.opponents, self.batched]:
            close = getattr(opponent, "close", None)
            if close is not None:
                close()
