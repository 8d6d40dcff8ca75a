"""Local pattern features of candidate moves, for AlphaGo's fast rollout policy.

The rollout policy is a linear softmax: each candidate move switches on a few binary
features, and its logit is the sum of their weights (one weight vector, ``float32[F]``).
Features are from the side to move's view, so one weight vector plays both colours:

=====================  =========================================================================
feature                active when
=====================  =========================================================================
``PASS``               the candidate is the pass move (its only feature)
``SAVE_ATARI``         an own chain in atari has two or more liberties after the move
``ATARI``              the move takes an enemy chain from two liberties to one
``CAPTURE + i``        the move captures 1, 2, or 3 and more stones (i = 0, 1, 2)
``SELF_ATARI + i``     after the move the mover's chain has one liberty; it has 1 stone, or more
``DISTANCE + i``       Manhattan distance to the previous move 1, 2, 3, 4, 5-7, 8 and more
pattern (3x3)          always: the 3x3 pattern around the candidate (see below)
response               the previous move is one of the candidate's 8 neighbours: where it is,
                       with the colours of the candidate's 8 neighbours
=====================  =========================================================================

The 3x3 pattern gives each orthogonal neighbour one of 8 states (empty, off the board, own or
enemy stone whose chain has 1, 2, or 3 and more liberties) and each diagonal one of 4 (empty,
off the board, own, enemy): 2**20 codes. Patterns that one of the 8 symmetries of the square
maps onto each other share one feature (about 2**17 of them); so do response patterns (the
previous move's place and the colours turn together). Lookup tables map every code to its
feature index (``pattern_tables``): exact, no hashing.

Liberties here are exact (the rules core keeps pseudo-liberties): ``update_liberties`` counts
them, capped at 3, for every chain once per position. Kernels follow the core's discipline:
work arrays come in a ``PatternScratch``, nothing is allocated per move. The features come from
a state (``candidate_features``, ``move_logits``) or from position records for training
(``record_features``: board, side to move, last move), by the same kernels. ``local_features``
are those that do not depend on the previous move, which playouts keep from move to move.

Weights travel as ``rollout.npz`` (``save_weights``/``load_weights``): the weights, the feature
layout's version and the board size they were trained on.
"""

from __future__ import annotations

from functools import cache
from os import PathLike
from typing import NamedTuple

import numpy as np
from numba import njit

from go_env.core import (
    BLACK,
    EMPTY,
    INFO_LAST_MOVE,
    INFO_NUM_EMPTY,
    INFO_OVER,
    INFO_TO_PLAY,
    LEGAL,
    RUNNING,
    WALL,
    WHITE,
    Geometry,
    GoState,
    copy_into,
    copy_state,
    empty_point_status,
    inline_kernel,
    kernel,
    make_geometry,
    new_state,
    setup_stones,
)
from go_env.features.liberties import chain_liberties
from go_env.rules import Rules

LAYOUT_VERSION = 1

# Feature indices before the pattern tables.
PASS = 0
SAVE_ATARI = 1
ATARI = 2
CAPTURE = 3  # 3 buckets
SELF_ATARI = 6  # 2 buckets
DISTANCE = 8
NUM_DISTANCES = 6  # buckets: 1, 2, 3, 4, 5-7, 8 and more
NUM_TACTICAL = DISTANCE + NUM_DISTANCES
MAX_ACTIVE = 7  # features one candidate can switch on (pattern, response and one of each kind)
# Playouts multiply the exps of a move's weights: bounded weights keep the products finite.
MAX_WEIGHT = 100.0

# Neighbour offsets (row, column) in the order of ``Geometry.neighbors`` and ``.diagonals``.
_ORTHOGONAL = ((-1, 0), (0, -1), (0, 1), (1, 0))
_DIAGONAL = ((-1, -1), (-1, 1), (1, -1), (1, 1))
# The 8 symmetries of the square: (swap row and column, row sign, column sign).
_SYMMETRIES = tuple((swap, s, t) for swap in (False, True) for s in (1, -1) for t in (1, -1))
# Point states in the 3x3 code: empty, off board, then stones (own, enemy) by liberties.
_OFF_BOARD_STATE = 1
_OWN_STONE_STATE = 2  # + liberties - 1 (capped at 3) for orthogonal neighbours
_ENEMY_STONE_STATE = 5
_ORTHOGONAL_STATES, _DIAGONAL_STATES = 8, 4
_DIAGONAL_SHIFT = _ORTHOGONAL_STATES**4  # the diagonal digits come after the orthogonal ones
NUM_PATTERN_CODES = _DIAGONAL_SHIFT * _DIAGONAL_STATES**4
NUM_COLOR_CODES = 4**8  # response patterns: colours (empty, off, own, enemy) of 8 neighbours


class PatternTables(NamedTuple):
    """Code -> feature index tables (read-only, shared by every board size)."""

    pattern_ids: np.ndarray  # int32[NUM_PATTERN_CODES]: 3x3 code -> feature index
    response_ids: np.ndarray  # int32[8 * NUM_COLOR_CODES]: place * NUM_COLOR_CODES + colours -> index
    num_features: int  # F: the length of a weight vector; also the padding index of feature lists


class PatternPolicy(NamedTuple):
    """The rollout policy as numba takes it: the tables and one weight per feature."""

    tables: PatternTables
    weights: np.ndarray  # float32[F]


class PatternScratch(NamedTuple):
    """Work arrays of the pattern kernels for one board size."""

    libs: np.ndarray  # int8[P]: exact liberties capped at 3, valid at chain heads
    first_libs: np.ndarray  # int16[P, 2]: a chain's first two liberties, valid at heads
    marks: np.ndarray  # int64[P]: liberty-count stamps
    stamp: np.ndarray  # int64[1]: the last stamp used
    active: np.ndarray  # int32[MAX_ACTIVE]: feature indices of one candidate
    moves: np.ndarray  # int64[P+1]: candidate moves of a position
    logits: np.ndarray  # float64[P+1]: their logits, then their softmax weights


def new_pattern_scratch(size: int) -> PatternScratch:
    num_points = size * size
    return PatternScratch(
        libs=np.zeros(num_points, np.int8),
        first_libs=np.zeros((num_points, 2), np.int16),
        marks=np.zeros(num_points, np.int64),
        stamp=np.zeros(1, np.int64),
        active=np.zeros(MAX_ACTIVE, np.int32),
        moves=np.zeros(num_points + 1, np.int64),
        logits=np.zeros(num_points + 1, np.float64),
    )


def _symmetry_permutations(offsets: tuple[tuple[int, int], ...]) -> list[list[int]]:
    """For each symmetry, where each neighbour in ``offsets`` goes."""
    return [
        [offsets.index((s * c, t * r) if swap else (s * r, t * c)) for r, c in offsets]
        for swap, s, t in _SYMMETRIES
    ]


def _digits(codes: np.ndarray, base: int, count: int) -> list[np.ndarray]:
    return [(codes // base**k) % base for k in range(count)]


def _canonical_ids(variants: list[np.ndarray], offset: int) -> np.ndarray:
    """Feature indices from ``offset`` on, one per class of codes mapped onto each other."""
    canonical = np.minimum.reduce(variants)
    return (np.unique(canonical, return_inverse=True)[1].reshape(-1) + offset).astype(np.int32)


@cache
def pattern_tables() -> PatternTables:
    """The lookup tables of the current layout (built once per process, about a second)."""
    orthogonal = _symmetry_permutations(_ORTHOGONAL)
    diagonal = _symmetry_permutations(_DIAGONAL)

    codes = np.arange(NUM_PATTERN_CODES, dtype=np.int64)
    ortho_digits = _digits(codes % _DIAGONAL_SHIFT, _ORTHOGONAL_STATES, 4)
    diag_digits = _digits(codes // _DIAGONAL_SHIFT, _DIAGONAL_STATES, 4)
    variants = []
    for perm_o, perm_d in zip(orthogonal, diagonal, strict=True):
        code = np.zeros_like(codes)
        for k in range(4):
            code += ortho_digits[k] * _ORTHOGONAL_STATES ** perm_o[k]
            code += diag_digits[k] * _DIAGONAL_STATES ** perm_d[k] * _DIAGONAL_SHIFT
        variants.append(code)
    pattern_ids = _canonical_ids(variants, NUM_TACTICAL)

    # Response codes: place of the previous move (0-3 orthogonal, 4-7 diagonal) and colours
    # of the 8 neighbours (orthogonal digits 0-3, diagonal digits 4-7, base 4).
    places = np.repeat(np.arange(8, dtype=np.int64), NUM_COLOR_CODES)
    colors = np.tile(np.arange(NUM_COLOR_CODES, dtype=np.int64), 8)
    color_digits = _digits(colors, 4, 8)
    variants = []
    for perm_o, perm_d in zip(orthogonal, diagonal, strict=True):
        neighbour_map = perm_o + [4 + d for d in perm_d]
        code = np.array(neighbour_map, np.int64)[places] * NUM_COLOR_CODES
        for k in range(8):
            code += color_digits[k] * 4 ** neighbour_map[k]
        variants.append(code)
    response_ids = _canonical_ids(variants, int(pattern_ids.max()) + 1)

    for table in (pattern_ids, response_ids):
        table.setflags(write=False)
    return PatternTables(pattern_ids, response_ids, int(response_ids.max()) + 1)


@inline_kernel
def update_liberties(state, geometry, scratch):
    """Count every chain's exact liberties (capped at 3) into ``scratch.libs`` at its head,
    and its first two liberties into ``scratch.first_libs`` (``liberties.chain_liberties``)."""
    scratch.stamp[0] = chain_liberties(
        state, geometry, scratch.marks, scratch.stamp[0], 3, scratch.libs, scratch.first_libs
    )


@inline_kernel
def _is_stone(c):
    return c != EMPTY and c != WALL


@inline_kernel
def _first_touch(state, geometry, move, k):
    """Whether the stone at neighbour ``k`` of ``move`` is the first of its chain among the
    neighbours (a chain may touch a point up to four times)."""
    head = state.chain_head[geometry.neighbors[move, k]]
    for j in range(k):
        n = geometry.neighbors[move, j]
        if _is_stone(state.board[n]) and state.chain_head[n] == head:
            return False
    return True


@inline_kernel
def _joins(state, geometry, move, color, point):
    """Whether the ``color`` stone at ``point`` is in a chain that ``move`` joins."""
    head = state.chain_head[point]
    for k in range(4):
        n = geometry.neighbors[move, k]
        if state.board[n] == color and state.chain_head[n] == head:
            return True
    return False


@inline_kernel
def _add_liberty(count, first, point):
    """(count, first) of a set of distinct liberties, counted up to 2, after adding ``point``."""
    if count == 0:
        return 1, point
    if count == 1 and point != first:
        return 2, first
    return count, first


@inline_kernel
def liberties_after(state, geometry, scratch, move, color):
    """Liberties (exact, capped at 2) of the chain ``color`` forms by playing on the empty
    ``move``, captures included. ``update_liberties`` must be current."""
    count = 0
    first = -1
    for k in range(4):
        n = geometry.neighbors[move, k]
        c = state.board[n]
        if c == EMPTY:
            count, first = _add_liberty(count, first, n)
        elif c == color:
            head = state.chain_head[n]
            libs = scratch.libs[head]
            if libs >= 3:  # it loses only ``move``
                return 2
            for j in range(libs):
                if scratch.first_libs[head, j] != move:
                    count, first = _add_liberty(count, first, scratch.first_libs[head, j])
        elif c != WALL and scratch.libs[state.chain_head[n]] == 1:
            # A captured chain: its stones next to the new chain become liberties.
            head = state.chain_head[n]
            x = head
            while True:
                for j in range(4):
                    m = geometry.neighbors[x, j]
                    if m == move or (state.board[m] == color and _joins(state, geometry, move, color, m)):
                        count, first = _add_liberty(count, first, x)
                        break
                x = state.chain_next[x]
                if x == head:
                    break
        if count >= 2:
            return 2
    return count


@inline_kernel
def _pattern_codes(state, geometry, scratch, move, color):
    """(3x3 code, response colour code) of the empty point ``move`` for ``color``."""
    code = 0
    colors = 0
    for k in range(4):
        n = geometry.neighbors[move, k]
        c = state.board[n]
        if c == EMPTY:
            point_state, point_color = 0, 0
        elif c == WALL:
            point_state, point_color = _OFF_BOARD_STATE, 1
        elif c == color:
            point_state, point_color = _OWN_STONE_STATE + scratch.libs[state.chain_head[n]] - 1, 2
        else:
            point_state, point_color = _ENEMY_STONE_STATE + scratch.libs[state.chain_head[n]] - 1, 3
        code += point_state * _ORTHOGONAL_STATES**k
        colors += point_color * 4**k
    for k in range(4):
        c = state.board[geometry.diagonals[move, k]]
        if c == EMPTY:
            point_color = 0
        elif c == WALL:
            point_color = 1
        elif c == color:
            point_color = 2
        else:
            point_color = 3
        code += point_color * _DIAGONAL_STATES**k * _DIAGONAL_SHIFT
        colors += point_color * 4 ** (4 + k)
    return code, colors


@inline_kernel
def _neighbour_place(dr, dc):
    """Index of the neighbour at offset (dr, dc): 0-3 orthogonal, 4-7 diagonal (the
    geometry's orders)."""
    if dr == -1 and dc == 0:
        return 0
    if dr == 0:
        return 1 if dc == -1 else 2
    if dc == 0:
        return 3
    return 4 + 2 * (dr == 1) + (dc == 1)


@inline_kernel
def local_features(state, geometry, tables, scratch, move, color, out):
    """Write the features of ``color`` playing on the empty ``move`` that do not depend on the
    previous move (the 3x3 pattern and the tactical ones) into ``out``; return (how many, the
    liberties of the new chain capped at 2). ``update_liberties`` must be current."""
    code, _ = _pattern_codes(state, geometry, scratch, move, color)
    out[0] = tables.pattern_ids[code]
    count = 1
    captured = 0
    ataris = False
    in_atari = False
    new_size = 1
    for k in range(4):
        n = geometry.neighbors[move, k]
        c = state.board[n]
        if not _is_stone(c) or not _first_touch(state, geometry, move, k):
            continue
        head = state.chain_head[n]
        if c == color:
            new_size += state.chain_size[head]
            in_atari |= scratch.libs[head] == 1
        elif scratch.libs[head] == 1:
            captured += state.chain_size[head]
        elif scratch.libs[head] == 2:
            ataris = True
    libs = liberties_after(state, geometry, scratch, move, color)
    if captured:
        out[count] = CAPTURE + min(captured, 3) - 1
        count += 1
    if ataris:
        out[count] = ATARI
        count += 1
    if in_atari and libs >= 2:
        out[count] = SAVE_ATARI
        count += 1
    if libs == 1:
        out[count] = SELF_ATARI + (new_size > 1)
        count += 1
    return count, libs


@inline_kernel
def distance_feature(geometry, move, last):
    """The distance feature of the point ``move`` after the point ``last``."""
    size = geometry.size
    distance = abs(last // size - move // size) + abs(last % size - move % size)
    return DISTANCE + (max(distance, 1) - 1 if distance <= 4 else (4 if distance <= 7 else 5))


@inline_kernel
def previous_move_place(geometry, move, last):
    """Where the point ``last`` is among the 8 neighbours of the point ``move`` (0-3
    orthogonal, 4-7 diagonal, in the geometry's orders), or -1 when it is not one of them."""
    size = geometry.size
    dr = last // size - move // size
    dc = last % size - move % size
    if abs(dr) > 1 or abs(dc) > 1 or (dr == 0 and dc == 0):
        return -1
    return _neighbour_place(dr, dc)


@inline_kernel
def response_feature(state, geometry, tables, scratch, move, color, place):
    """The response pattern of ``color`` playing on the empty ``move`` with the previous move
    at ``place`` among its neighbours (``previous_move_place``). ``update_liberties`` must be
    current."""
    _, colors = _pattern_codes(state, geometry, scratch, move, color)
    return tables.response_ids[place * NUM_COLOR_CODES + colors]


@inline_kernel
def move_features(state, geometry, tables, scratch, move, out):
    """Write the features of ``move`` (an empty point, or pass) for the side to move into
    ``out`` (int32[MAX_ACTIVE]); return how many. ``update_liberties`` must be current."""
    num_points = geometry.size * geometry.size
    if move == num_points:
        out[0] = PASS
        return 1
    color = state.info[INFO_TO_PLAY]
    count, _ = local_features(state, geometry, tables, scratch, move, color, out)
    last = state.info[INFO_LAST_MOVE]
    if 0 <= last < num_points:
        place = previous_move_place(geometry, move, last)
        if place >= 0:
            out[count] = response_feature(state, geometry, tables, scratch, move, color, place)
            count += 1
        out[count] = distance_feature(geometry, move, last)
        count += 1
    return count


@inline_kernel
def move_logit(policy, active, count):
    """The logit of a move whose features are ``active[:count]``."""
    total = 0.0
    for j in range(count):
        total += policy.weights[active[j]]
    return total


@kernel
def candidate_features(state, geometry, tables, scratch, features, legal):
    """Features of every legal move for the side to move.

    Args:
        features: int32[A, MAX_ACTIVE] (A = P + 1, pass last), filled with each legal move's
            feature indices, padded with ``tables.num_features``.
        legal: int8[A], filled with 1 for the legal moves (pass included), 0 elsewhere; all 0
            once the game is over.
    """
    num_points = geometry.size * geometry.size
    features[:] = tables.num_features
    legal[:] = 0
    if state.info[INFO_OVER] != RUNNING:
        return
    color = state.info[INFO_TO_PLAY]
    update_liberties(state, geometry, scratch)
    for i in range(state.info[INFO_NUM_EMPTY]):
        p = state.empties[i]
        if empty_point_status(state, geometry, p, color) == LEGAL:
            legal[p] = 1
            move_features(state, geometry, tables, scratch, p, features[p])
    legal[num_points] = 1
    features[num_points, 0] = PASS


@kernel
def move_logits(state, geometry, policy, scratch, out):
    """``out`` (float64[A]) gets the policy's logit of every legal move, -inf elsewhere."""
    num_points = geometry.size * geometry.size
    out[:] = -np.inf
    if state.info[INFO_OVER] != RUNNING:
        return
    color = state.info[INFO_TO_PLAY]
    update_liberties(state, geometry, scratch)
    for i in range(state.info[INFO_NUM_EMPTY]):
        p = state.empties[i]
        if empty_point_status(state, geometry, p, color) == LEGAL:
            count = move_features(state, geometry, policy.tables, scratch, p, scratch.active)
            out[p] = move_logit(policy, scratch.active, count)
    out[num_points] = policy.weights[PASS]


@njit(cache=True)
def _record_features(boards, to_play, last_moves, geometry, tables, blank, state, scratch, features, legal):
    num_points = geometry.size * geometry.size
    points = np.empty(num_points, np.int64)
    colors = np.empty(num_points, np.int64)
    for b in range(boards.shape[0]):
        copy_into(state, blank)
        stones = 0
        for p in range(num_points):
            if boards[b, p] != EMPTY:
                points[stones] = p
                colors[stones] = boards[b, p]
                stones += 1
        if setup_stones(state, geometry, points[:stones], colors[:stones], to_play[b]) != LEGAL:
            features[b] = tables.num_features
            legal[b] = 0
            continue
        state.info[INFO_LAST_MOVE] = last_moves[b]
        candidate_features(state, geometry, tables, scratch, features[b], legal[b])


def record_features(
    boards: np.ndarray, to_play: np.ndarray, last_moves: np.ndarray, size: int
) -> tuple[np.ndarray, np.ndarray]:
    """Features of positions given as records, for training (no ko or superko is known, so
    every empty point that is not suicide is a candidate).

    Args:
        boards: int8[B, P], absolute colours (EMPTY, BLACK, WHITE).
        to_play: int[B], BLACK or WHITE.
        last_moves: int[B], the previous move: a point, P (pass) or -1 (none).
        size: the board size N (P = N*N).

    Returns:
        (features int32[B, A, MAX_ACTIVE] padded with the tables' ``num_features``,
        legal int8[B, A]); a board that is no position of Go (a chain without liberties) gets
        no legal move at all.
    """
    num_points = size * size
    boards = np.ascontiguousarray(boards, np.int8)
    if boards.ndim != 2 or boards.shape[1] != num_points:
        raise ValueError(f"boards must be shaped [B, {num_points}] for size {size}, got {boards.shape}")
    count = boards.shape[0]
    to_play = np.ascontiguousarray(to_play, np.int64)
    last_moves = np.ascontiguousarray(last_moves, np.int64)
    if to_play.shape != (count,) or last_moves.shape != (count,):
        raise ValueError(
            f"to_play and last_moves must be shaped [{count}], got {to_play.shape}, {last_moves.shape}"
        )
    if not np.isin(to_play, (BLACK, WHITE)).all():
        raise ValueError("to_play must be BLACK (1) or WHITE (2)")
    if ((last_moves < -1) | (last_moves > num_points)).any():
        raise ValueError(f"last_moves must be -1 (none), a point or {num_points} (pass)")
    if ((boards < EMPTY) | (boards > WHITE)).any():
        raise ValueError("boards must hold EMPTY (0), BLACK (1) or WHITE (2) only")
    tables = pattern_tables()
    features = np.empty((count, num_points + 1, MAX_ACTIVE), np.int32)
    legal = np.empty((count, num_points + 1), np.int8)
    # Simple ko: a record knows no earlier position, so only suicide makes a point illegal.
    blank = new_state(size, *Rules(ko="simple").kernel_rules(size))
    _record_features(
        boards, to_play, last_moves, make_geometry(size), tables, blank, copy_state(blank),
        new_pattern_scratch(size), features, legal,
    )  # fmt: skip
    return features, legal


def position_features(state: GoState, geometry: Geometry) -> tuple[np.ndarray, np.ndarray]:
    """(features int32[A, MAX_ACTIVE], legal int8[A]) of a single-game state's legal moves
    (see ``candidate_features``)."""
    num_points = geometry.size * geometry.size
    features = np.empty((num_points + 1, MAX_ACTIVE), np.int32)
    legal = np.empty(num_points + 1, np.int8)
    candidate_features(state, geometry, pattern_tables(), new_pattern_scratch(geometry.size), features, legal)
    return features, legal


def save_weights(path: str | PathLike[str], weights: np.ndarray, size: int) -> None:
    """Write rollout weights (float[F]) trained on ``size`` x ``size`` boards as an ``.npz``."""
    weights = np.asarray(weights, np.float32)
    expected = pattern_tables().num_features
    if weights.shape != (expected,):
        raise ValueError(
            f"weights must be shaped [{expected}] (layout {LAYOUT_VERSION}), got {weights.shape}"
        )
    if not (np.abs(weights) <= MAX_WEIGHT).all():
        raise ValueError(f"weights must be finite and within +-{MAX_WEIGHT:g}")
    with open(path, "wb") as file:  # np.savez would append .npz to a name without it
        np.savez(file, weights=weights, layout_version=LAYOUT_VERSION, size=size)


def load_weights(path: str | PathLike[str]) -> tuple[PatternPolicy, int]:
    """(the policy, the board size it was trained on) from a file ``save_weights`` wrote.

    Raises:
        ValueError: the file is not rollout weights of this feature layout.
    """
    try:
        with np.load(path) as data:
            weights = np.ascontiguousarray(data["weights"], np.float32)
            version = int(data["layout_version"])
            size = int(data["size"])
    except (KeyError, ValueError, OSError) as error:
        raise ValueError(f"{path}: not a rollout weights file ({error})") from error
    if version != LAYOUT_VERSION:
        raise ValueError(f"{path}: feature layout {version}, this version reads layout {LAYOUT_VERSION}")
    tables = pattern_tables()
    if weights.shape != (tables.num_features,):
        raise ValueError(f"{path}: weights shaped {weights.shape}, the layout has {tables.num_features}")
    if not (np.abs(weights) <= MAX_WEIGHT).all():
        raise ValueError(f"{path}: weights must be finite and within +-{MAX_WEIGHT:g}")
    return PatternPolicy(tables, weights), size
