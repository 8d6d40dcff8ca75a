"""Minimax search: negamax with alpha-beta, iterative deepening and a transposition table.

Values are points for the side to move, komi included: at a finished game, the final score
under the game's rules (Black's points minus White's minus komi, negated for White); before
that, under optimal play by both sides (the negamax recurrence). A depth-limited
search ends its lines early with a heuristic ``h(state, geometry)``; ``solve`` searches every
line to the end of the game, which the move cap guarantees comes.

The search runs in one numba kernel over an explicit stack of states (one per ply,
copy-make). Recursion is avoided because numba cannot reload a cached recursive function.
The heuristic reaches the kernel as a first-class function: all heuristics then share one
compiled (and cached) kernel, and a heuristic may allocate although the kernel does not.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import cache
from typing import Any, NamedTuple

import numba
import numpy as np
from numba import njit, types

from go_env import Game, Rules
from go_env import core as K

Heuristic = Callable[[K.GoState, K.Geometry], float]
"""A numba-compiled ``h(state, geometry) -> float``: the side to move's expected lead in
points, komi excluded. It must not change the state; ``state.recent`` is stale in search."""

# Transposition table entry bounds.
EXACT, LOWER, UPPER = 0, 1, 2
# The depth recorded for a subtree whose every leaf was the end of the game: its value is
# exact at any depth.
SOLVED = 1 << 30
# Slots of the ``counters`` array.
NODES, ESTIMATES, BUDGET, ABORTED = range(4)
# Node budget of a search without a time limit.
_UNLIMITED = np.iinfo(np.int64).max
# Entries per transposition-table bucket; the shallowest is replaced.
BUCKET = 4
# Ordering score of the table's best move: ahead of any history score.
FIRST = 1 << 62


@njit(cache=True)
def area_heuristic(state: K.GoState, geometry: K.Geometry) -> float:
    """The default heuristic: the area count (Tromp-Taylor) of the board as it stands."""
    num_points = geometry.size * geometry.size
    marks = np.empty(num_points, np.int8)
    stack = np.empty(num_points, np.int64)
    margin = float(K.count_points(state, geometry, False, marks, stack))
    return margin if state.info[K.INFO_TO_PLAY] == K.BLACK else -margin


@njit(cache=True)
def _outcome(state, geometry):
    margin = K.score(state, geometry)
    return margin if state.info[K.INFO_TO_PLAY] == K.BLACK else -margin


@K.inline_kernel
def _side_to_move_komi(state):
    """The komi the side to move adds to its points: minus the komi for Black, plus for White."""
    komi = 0.5 * state.info[K.INFO_KOMI]
    return -komi if state.info[K.INFO_TO_PLAY] == K.BLACK else komi


class TranspositionTable(NamedTuple):
    """Search results by position and history; open addressing in buckets of ``BUCKET``."""

    keys: np.ndarray  # uint64[S]: node key (0 = free slot)
    values: np.ndarray  # float64[S]: value or bound for the side to move
    depths: np.ndarray  # int32[S]: depth searched below the node, or SOLVED
    bounds: np.ndarray  # int8[S]: EXACT, LOWER or UPPER
    moves: np.ndarray  # int16[S]: best move found, or -1


def new_table(size: int) -> TranspositionTable:
    """A transposition table of ``size`` entries (rounded up to a power of two, at least 64)."""
    slots = 1 << max(6, (size - 1).bit_length())
    return TranspositionTable(
        keys=np.zeros(slots, np.uint64),
        values=np.zeros(slots, np.float64),
        depths=np.zeros(slots, np.int32),
        bounds=np.zeros(slots, np.int8),
        moves=np.full(slots, -1, np.int16),
    )


class _Work(NamedTuple):
    """The explicit search stack, indexed by ply ``0..D``, and other scratch."""

    stack: K.GoState  # GoState batch [D+1]: the position at each ply
    moves: np.ndarray  # int16[D+1, P+1]: moves to try, in order
    num_moves: np.ndarray  # int64[D+1]
    next_move: np.ndarray  # int64[D+1]: index of the next move to try
    depth: np.ndarray  # int64[D+1]: depth left to search
    alpha: np.ndarray  # float64[D+1]
    beta: np.ndarray  # float64[D+1]
    alpha0: np.ndarray  # float64[D+1]: alpha on entry, to tell the bound of the result
    best_value: np.ndarray  # float64[D+1]
    best_move: np.ndarray  # int64[D+1]
    key: np.ndarray  # uint64[D+1]: node key for the transposition table
    history_key: np.ndarray  # uint64[D+1]: hash of the set of positions seen
    estimates0: np.ndarray  # int64[D+1]: counters[ESTIMATES] on entry
    mask: np.ndarray  # int8[P+1]: legal moves
    order: np.ndarray  # int64[P+1]: ordering scores
    history: np.ndarray  # int64[3, P+1]: history heuristic by colour and move
    counters: np.ndarray  # int64[4]: NODES, ESTIMATES, BUDGET, ABORTED


def _new_work(game: Game, plies: int, history: np.ndarray, counters: np.ndarray) -> _Work:
    moves = game.num_points + 1
    per_ply = plies + 1
    return _Work(
        stack=K.GoState(*(np.repeat(field[None], per_ply, axis=0) for field in game.state)),
        moves=np.zeros((per_ply, moves), np.int16),
        num_moves=np.zeros(per_ply, np.int64),
        next_move=np.zeros(per_ply, np.int64),
        depth=np.zeros(per_ply, np.int64),
        alpha=np.zeros(per_ply, np.float64),
        beta=np.zeros(per_ply, np.float64),
        alpha0=np.zeros(per_ply, np.float64),
        best_value=np.zeros(per_ply, np.float64),
        best_move=np.zeros(per_ply, np.int64),
        key=np.zeros(per_ply, np.uint64),
        history_key=np.zeros(per_ply, np.uint64),
        estimates0=np.zeros(per_ply, np.int64),
        mask=np.zeros(moves, np.int8),
        order=np.zeros(moves, np.int64),
        history=history,
        counters=counters,
    )


# ---------------------------------------------------------------------------------------
# Keys
# ---------------------------------------------------------------------------------------


@K.inline_kernel
def _mix(x):
    """splitmix64's finaliser: a bijection of uint64 that scatters every input bit."""
    x ^= x >> np.uint64(30)
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(27)
    x *= np.uint64(0x94D049BB133111EB)
    x ^= x >> np.uint64(31)
    return x


@K.inline_kernel
def _history_key(state):
    """Order-independent hash of the positions seen so far (superko history).

    Keys are mixed before the xor: Zobrist keys of positions along a game are xors of few
    stone keys, so their plain xor would cancel for many different histories.
    """
    key = np.uint64(0)
    if state.info[K.INFO_KO_RULE] != K.KO_SIMPLE:
        for i in range(state.seen.shape[0]):
            if state.seen[i] != 0:
                key ^= _mix(state.seen[i])
    return key


@K.inline_kernel
def _node_key(state, geometry, history_key):
    """The transposition key: everything the rest of the game can depend on.

    Under superko a plain position key is wrong: which moves are legal below a node depends
    on the positions already seen, so one board reached along two histories can have two
    values (a ko that one history lets a player retake and the other forbids). The history
    is folded in as a hash of the seen set (order-independent, since only the set matters).
    Under simple ko the ko point suffices. The passes pending and the move number (the move
    cap) end games, and under territory scoring the captures count.
    """
    info = state.info
    key = _mix(state.key[0] ^ geometry.zobrist_turn[info[K.INFO_TO_PLAY]] ^ history_key)
    key = _mix(key ^ np.uint64(info[K.INFO_KO_POINT] + 1))
    key = _mix(key ^ np.uint64(info[K.INFO_PASSES] + 4 * info[K.INFO_MOVE_NUMBER]))
    if info[K.INFO_SCORING] == K.SCORING_TERRITORY:
        key = _mix(key ^ np.uint64(info[K.INFO_CAPTURES] - info[K.INFO_CAPTURES + 1] + (1 << 32)))
    return key


# ---------------------------------------------------------------------------------------
# Transposition table
# ---------------------------------------------------------------------------------------


@K.inline_kernel
def _tt_find(tt, key):
    """The slot holding ``key``, or -1."""
    base = np.int64(key & np.uint64(tt.keys.shape[0] - BUCKET))
    for slot in range(base, base + BUCKET):
        if tt.keys[slot] == key:
            return slot
    return -1


@K.inline_kernel
def _tt_store(tt, key, depth, bound, value, move):
    """Store a result, over an entry of the same key searched no deeper, else over the
    shallowest entry of the bucket."""
    base = np.int64(key & np.uint64(tt.keys.shape[0] - BUCKET))
    victim = base
    for slot in range(base, base + BUCKET):
        if tt.keys[slot] == key:
            if tt.depths[slot] > depth:
                return
            victim = slot
            break
        if tt.keys[slot] == 0 or tt.depths[slot] < tt.depths[victim]:
            victim = slot
    tt.keys[victim] = key
    tt.depths[victim] = depth
    tt.bounds[victim] = bound
    tt.values[victim] = value
    tt.moves[victim] = move


# ---------------------------------------------------------------------------------------
# The search kernel
# ---------------------------------------------------------------------------------------


@K.inline_kernel
def _order_moves(work, ply, color, first):
    """Fill the move list of ``ply`` from ``work.mask``: ``first`` (the table's best move),
    then by history score, pass before points on ties (passing early settles finished
    positions at once; trying it last makes exhaustive search far slower)."""
    num_points = work.mask.shape[0] - 1
    moves = work.moves[ply]
    count = 0
    for m in range(num_points, -1, -1):
        if work.mask[m] == 0:
            continue
        score = work.history[color, m]
        if m == first:
            score = FIRST
        # Insertion sort, best first; ties keep pass ahead.
        i = count
        while i > 0 and work.order[i - 1] < score:
            moves[i] = moves[i - 1]
            work.order[i] = work.order[i - 1]
            i -= 1
        moves[i] = m
        work.order[i] = score
        count += 1
    work.num_moves[ply] = count


@K.inline_kernel
def _enter(work, tt, geometry, ply, use_tt, heuristic, outcome):
    """Open the node at ``ply``; True if its value is known at once (``best_value[ply]``)."""
    counters = work.counters
    counters[NODES] += 1
    if counters[NODES] > counters[BUDGET]:
        counters[ABORTED] = 1
    state = K.batch_item(work.stack, ply)
    if state.info[K.INFO_OVER] != K.RUNNING:
        work.best_value[ply] = outcome(state, geometry)
        return True
    key = _node_key(state, geometry, work.history_key[ply])
    work.key[ply] = key
    depth = work.depth[ply]
    first = -1
    if use_tt:
        slot = _tt_find(tt, key)
        if slot >= 0:
            first = tt.moves[slot]
            value = tt.values[slot]
            bound = tt.bounds[slot]
            # The root is always searched, so that it yields a move.
            if (
                ply > 0
                and tt.depths[slot] >= depth
                and (
                    bound == EXACT
                    or (bound == LOWER and value >= work.beta[ply])
                    or (bound == UPPER and value <= work.alpha[ply])
                )
            ):
                if tt.depths[slot] < SOLVED:
                    counters[ESTIMATES] += 1
                work.best_value[ply] = value
                return True
    color = state.info[K.INFO_TO_PLAY]
    if depth == 0:
        counters[ESTIMATES] += 1
        work.best_value[ply] = heuristic(state, geometry) + _side_to_move_komi(state)
        return True
    K.legal_mask(state, geometry, work.mask)
    _order_moves(work, ply, color, first)
    work.next_move[ply] = 0
    work.best_value[ply] = -np.inf
    work.best_move[ply] = -1
    work.alpha0[ply] = work.alpha[ply]
    work.estimates0[ply] = counters[ESTIMATES]
    return False


@K.inline_kernel
def _close(work, tt, ply, use_tt):
    """Record the result of a searched node in the table and the history scores."""
    value = work.best_value[ply]
    move = work.best_move[ply]
    if use_tt:
        bound = EXACT
        if value <= work.alpha0[ply]:
            bound = UPPER
        elif value >= work.beta[ply]:
            bound = LOWER
        solved = work.counters[ESTIMATES] == work.estimates0[ply]
        depth = SOLVED if solved else work.depth[ply]
        _tt_store(tt, work.key[ply], depth, bound, value, move)
    if value > work.alpha0[ply]:
        color = work.stack.info[ply, K.INFO_TO_PLAY]
        work.history[color, move] += work.depth[ply] * work.depth[ply]


def _alphabeta(root, geometry, work, tt, depth, alpha, beta, use_tt, heuristic, outcome):
    """Fail-soft alpha-beta negamax from ``root`` to ``depth`` plies.

    Returns the value (exact inside ``(alpha, beta)``, else a bound on the side it fell);
    the best move is left in ``work.best_move[0]``, -1 when the game is over.
    """
    K.copy_into(K.batch_item(work.stack, 0), root)
    work.history_key[0] = _history_key(root)
    work.depth[0] = depth
    work.alpha[0] = alpha
    work.beta[0] = beta
    work.best_move[0] = -1
    ply = 0
    known = _enter(work, tt, geometry, 0, use_tt, heuristic, outcome)
    while True:
        if work.counters[ABORTED]:
            return 0.0
        if known:
            if ply == 0:
                return work.best_value[0]
            value = -work.best_value[ply]
            ply -= 1
            if value > work.best_value[ply]:
                work.best_value[ply] = value
                work.best_move[ply] = work.moves[ply, work.next_move[ply] - 1]
                if value > work.alpha[ply]:
                    work.alpha[ply] = value
            if work.alpha[ply] >= work.beta[ply]:
                _close(work, tt, ply, use_tt)
                continue
        i = work.next_move[ply]
        if i == work.num_moves[ply]:
            _close(work, tt, ply, use_tt)
            known = True
            continue
        work.next_move[ply] = i + 1
        parent = K.batch_item(work.stack, ply)
        child = K.batch_item(work.stack, ply + 1)
        K.copy_into(child, parent)
        K.apply_legal(child, geometry, work.moves[ply, i], False)
        history_key = work.history_key[ply]
        if child.info[K.INFO_KO_RULE] != K.KO_SIMPLE:
            seen = K.position_key(child, geometry, child.key[0], child.info[K.INFO_TO_PLAY])
            if not K.seen_contains(parent.seen, seen):
                history_key ^= _mix(seen)
        ply += 1
        work.history_key[ply] = history_key
        work.depth[ply] = work.depth[ply - 1] - 1
        work.alpha[ply] = -work.beta[ply - 1]
        work.beta[ply] = -work.alpha[ply - 1]
        known = _enter(work, tt, geometry, ply, use_tt, heuristic, outcome)


@cache
def _kernel() -> Any:
    """``_alphabeta`` compiled for the state types (once per process; cached on disk).

    The explicit signature makes heuristics first-class functions, compiled on their own.
    """
    game = Game(2)
    state_type = numba.typeof(game.state)
    geometry_type = numba.typeof(game.geometry)
    work_type = numba.typeof(_new_work(game, 1, np.zeros((3, 5), np.int64), np.zeros(4, np.int64)))
    table_type = numba.typeof(new_table(64))
    # The heuristic and the outcome: both h(state, geometry) -> float.
    valuation_type = types.FunctionType(types.float64(state_type, geometry_type))
    signature = types.float64(
        state_type, geometry_type, work_type, table_type, types.int64, types.float64, types.float64,
        types.boolean, valuation_type, valuation_type,
    )  # fmt: skip
    return njit(signature, cache=True, _nrt=False)(_alphabeta)  # type: ignore[call-overload]


# ---------------------------------------------------------------------------------------
# Python API
# ---------------------------------------------------------------------------------------


class SearchResult(NamedTuple):
    """What a search found.

    Attributes:
        value: points for the side to move, komi included (exact when ``solved``).
        move: the best move, or -1 when the game is over.
        pv: the principal variation, starting with ``move``.
        depth: plies of the deepest completed iteration.
        solved: every line behind ``value`` was searched to the end of the game.
        nodes: nodes visited, all iterations and the principal variation included.
    """

    value: float
    move: int
    pv: list[int]
    depth: int
    solved: bool
    nodes: int


def final_value(game: Game) -> float:
    """The score of a finished ``game`` for the side to move (as the search counts it)."""
    return float(_outcome(game.state, game.geometry))


def leaf_value(game: Game, heuristic: Heuristic) -> float:
    """``heuristic``'s estimate for the side to move in ``game``, komi included."""
    return float(heuristic(game.state, game.geometry)) + _side_to_move_komi(game.state)


def _check_heuristic(heuristic: Heuristic) -> None:
    if not isinstance(heuristic, numba.core.registry.CPUDispatcher):
        raise TypeError(f"the heuristic must be compiled with numba.njit, got {heuristic!r}")


class Minimax:
    """Alpha-beta negamax with iterative deepening, keeping its table between searches.

    Args:
        heuristic: the leaf estimate of depth-limited searches (see ``Heuristic``).
        tt_size: transposition-table entries (rounded up to a power of two; 23 bytes each).
        use_tt: whether to use the table at all (off: plain alpha-beta, for comparison).
    """

    def __init__(self, heuristic: Heuristic = area_heuristic, tt_size: int = 1 << 20, use_tt: bool = True):
        _check_heuristic(heuristic)
        self.heuristic = heuristic
        self.use_tt = use_tt
        self._table = new_table(tt_size if use_tt else 64)
        self._counters = np.zeros(4, np.int64)
        self._history = np.zeros((3, 1), np.int64)
        self._work: _Work | None = None
        self._context: tuple[int, Rules] | None = None

    def clear(self) -> None:
        """Forget every stored result (the table's keys hold neither board size nor rules)."""
        self._table.keys[:] = 0
        self._context = None

    def search(self, game: Game, depth: int | None = None, seconds: float | None = None) -> SearchResult:
        """Search ``game`` by iterative deepening, one ply more per iteration.

        Args:
            game: the position; it is not changed.
            depth: the deepest iteration; ``None`` goes on until the value is solved.
            seconds: a time budget; the iteration it stops is discarded (the first one always
                completes). Time is turned into a node budget by the rate measured so far.

        Returns:
            The result of the deepest completed iteration. Deepening stops early once the
            value is solved.
        """
        if depth is not None and depth < 1:
            raise ValueError(f"depth must be at least 1, got {depth}")
        if game.is_over:
            return SearchResult(final_value(game), -1, [], 0, True, 0)
        self._prepare(game)
        counters = self._counters
        counters[:] = 0
        remaining = _moves_left(game)
        limit = remaining if depth is None else min(depth, remaining)
        deadline = None if seconds is None else time.perf_counter() + seconds
        started = time.perf_counter()
        result = None
        for iteration in range(1, limit + 1):
            budget = _UNLIMITED
            if deadline is not None and result is not None:
                rate = counters[NODES] / max(time.perf_counter() - started, 1e-3)
                budget = counters[NODES] + int(rate * (deadline - time.perf_counter()))
                if budget <= counters[NODES]:
                    break
            estimates = counters[ESTIMATES]
            value, move = self._run(game, iteration, budget)
            if counters[ABORTED]:
                break
            solved = counters[ESTIMATES] == estimates
            result = SearchResult(value, move, [], iteration, solved, 0)
            if solved:
                break
        assert result is not None
        pv = self._principal_variation(game, result)
        return result._replace(pv=pv, nodes=int(counters[NODES]))

    def solve(self, game: Game) -> SearchResult:
        """The exact value of ``game`` under optimal play, with an optimal line to the end."""
        return self.search(game)

    def _prepare(self, game: Game) -> None:
        context = (game.size, game.rules)
        if context != self._context:
            self.clear()
            self._history = np.zeros((3, game.num_points + 1), np.int64)
            self._work = None
            self._context = context
        else:
            self._history //= 2  # older history counts for less

    def _window(self, game: Game, depth: int) -> tuple[float, float]:
        """Search window: the range of possible final scores when every leaf is a game end.

        Searching with it lets a line that wins everything cut off its siblings at once.
        """
        if depth < _moves_left(game) or game.rules.scoring != "area":
            return -np.inf, np.inf
        komi = float(game.rules.komi) if game.to_play == K.BLACK else -float(game.rules.komi)
        return -game.num_points - komi, game.num_points - komi

    def _run(self, game: Game, depth: int, budget: int) -> tuple[float, int]:
        """One alpha-beta search to ``depth``; (value, best move)."""
        if self._work is None or self._work.depth.shape[0] <= depth:
            # Grown geometrically, so that deepening reallocates only now and then.
            plies = max(depth, 2 * (0 if self._work is None else self._work.depth.shape[0]))
            plies = min(plies, game.rules.move_cap(game.size))
            self._work = _new_work(game, plies, self._history, self._counters)
        self._counters[BUDGET] = budget
        self._counters[ABORTED] = 0
        alpha, beta = self._window(game, depth)
        value = _kernel()(
            game.state, game.geometry, self._work, self._table, depth, alpha, beta, self.use_tt,
            self.heuristic, _outcome,
        )  # fmt: skip
        return float(value), int(self._work.best_move[0])

    def _principal_variation(self, game: Game, result: SearchResult) -> list[int]:
        """Best moves along the line: each position after the first is searched again (the
        table makes that cheap), since the table may have lost the entries of the line.

        After a solved search the positions are searched to the end of the game: a shallower
        search could meet lines the first one pruned, and end them with the heuristic.
        """
        line = game.copy()
        pv: list[int] = []
        move = result.move
        while move >= 0:
            pv.append(move)
            line.play(move)
            if line.is_over or (len(pv) == result.depth and not result.solved):
                break
            depth = _moves_left(line) if result.solved else result.depth - len(pv)
            _, move = self._run(line, depth, _UNLIMITED)
        return pv


def _moves_left(game: Game) -> int:
    """Moves before the move cap ends ``game``."""
    return game.rules.move_cap(game.size) - game.move_number


def solve(game: Game, tt_size: int = 1 << 20, use_tt: bool = True) -> tuple[float, list[int]]:
    """Solve ``game`` exactly: the final score for the side to move under optimal play by
    both sides (komi included), and a principal variation of moves to the end of the game.

    The move cap is part of the rules and can change the value: 2x2 is worth +1 to Black,
    but 0 when the default cap (8 moves) ends the game before its ko fight does. Only tiny
    boards are within reach: 3x3 takes under a second, 4x4 is beyond this plain search.
    """
    result = Minimax(tt_size=tt_size, use_tt=use_tt).solve(game)
    return result.value, result.pv
