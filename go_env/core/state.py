"""The state of a game as a small struct of arrays, and the tables shared by a board size.

Points are flat indices ``0 .. P-1`` (``P = N*N``), row-major with row 0 the top row;
``P`` is the pass move. Inside the kernels ``board[P]`` holds a permanent ``WALL``
stone, and every off-board neighbour in the geometry tables points at it, so
neighbour loops need no bounds checks.

What every move needs is kept incrementally: chains as circular linked lists with a
head, stone count, pseudo-liberty count (liberties counted once per adjacent stone,
which is zero exactly when the chain has no liberty) and Zobrist key; the list of
empty points; the board's Zobrist key; and an open-addressing hash set of every
position seen, for superko.
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

import numpy as np
from numba import njit

# Kernels that allocate nothing are compiled without numba's reference counting: with it,
# each call that passes the 13-array state pays dozens of atomic reference-count updates
# (measured: 80 ns per inlined call, several times the work of the call itself).
# ``_nrt`` is numba's switch for its runtime; its stubs leave it out.
kernel = njit(cache=True, _nrt=False)  # type: ignore[call-overload]
# Small helpers are inlined into their callers before compilation; left to LLVM, a call
# that passes the state by value costs more than the helper's work.
inline_kernel = njit(cache=True, _nrt=False, inline="always")  # type: ignore[call-overload]

# Point contents.
EMPTY, BLACK, WHITE, WALL = 0, 1, 2, 3

# Move status codes (``LEGAL`` is 0 so a status reads as "is there a problem").
LEGAL, OCCUPIED, SUICIDE, KO, SUPERKO, GAME_OVER, OFF_BOARD = range(7)
STATUS_NAMES = ("legal", "occupied", "suicide", "ko", "superko", "game over", "off board")

# Ko rules.
KO_SIMPLE, KO_POSITIONAL, KO_SITUATIONAL = 0, 1, 2

# Scoring rules (``INFO_SCORING``).
SCORING_AREA, SCORING_TERRITORY = 0, 1

# Why a game is over (``INFO_OVER``).
RUNNING, ENDED_BY_PASSES, TRUNCATED = 0, 1, 2

# Boards kept for history observation planes.
HISTORY = 8

# Slots of the ``info`` array.
INFO_TO_PLAY = 0  # BLACK or WHITE
INFO_KO_POINT = 1  # point of a simple-ko recapture that is forbidden now, or -1
INFO_PASSES = 2  # consecutive passes just played
INFO_MOVE_NUMBER = 3  # moves played (passes included; setup stones excluded)
INFO_NUM_EMPTY = 4  # length of the live part of ``empties``
INFO_CAPTURES = 5  # +0: stones captured by Black, +1: stones captured by White
INFO_KO_RULE = 7  # KO_SIMPLE / KO_POSITIONAL / KO_SITUATIONAL
INFO_SUICIDE = 8  # 1 if suicide is allowed
INFO_MAX_MOVES = 9  # the game is truncated when INFO_MOVE_NUMBER reaches this
INFO_OVER = 10  # RUNNING / ENDED_BY_PASSES / TRUNCATED
INFO_LAST_MOVE = 11  # last move played, or -1
INFO_KOMI = 12  # komi in half points (komi 7.5 is 15), so that it fits the int64 slots
INFO_SCORING = 13  # SCORING_AREA / SCORING_TERRITORY
INFO_MOST_STONES = 14  # the most stones on the board in a position of the superko history
NUM_INFO = 15


class Geometry(NamedTuple):
    """Per-board-size tables shared by every game of that size (read-only)."""

    size: int
    neighbors: np.ndarray  # int64[P, 4]: orthogonal neighbours; P where off board
    diagonals: np.ndarray  # int64[P, 4]: diagonal neighbours; P where off board
    zobrist: np.ndarray  # uint64[3, P]: keys by colour (row EMPTY unused)
    zobrist_turn: np.ndarray  # uint64[3]: [empty-board key, Black to move, White to move]


class GoState(NamedTuple):
    """The state of one game. A batch of games has the same fields with a leading axis ``B``."""

    board: np.ndarray  # int8[P+1]: EMPTY/BLACK/WHITE; board[P] == WALL
    chain_head: np.ndarray  # int16[P]: head point of the chain a stone belongs to
    chain_next: np.ndarray  # int16[P]: next stone of the chain (circular list)
    chain_size: np.ndarray  # int16[P]: stones in the chain, valid at the head
    chain_libs: np.ndarray  # int16[P]: pseudo-liberties of the chain, valid at the head
    chain_key: np.ndarray  # uint64[P]: xor of the chain's Zobrist keys, valid at the head
    empties: np.ndarray  # int16[P]: empty points in empties[:info[INFO_NUM_EMPTY]]
    empty_index: np.ndarray  # int16[P]: position of an empty point in ``empties``
    placed_at: np.ndarray  # int32[P]: move number that placed the stone (-1 empty, 0 setup)
    recent: np.ndarray  # int8[HISTORY, P]: board after move k is recent[k % HISTORY]
    seen: np.ndarray  # uint64[H]: hash set of position keys (0 = free slot), H a power of 2
    key: np.ndarray  # uint64[1]: Zobrist key of the board
    info: np.ndarray  # int64[NUM_INFO]: scalars, see INFO_*


@cache
def make_geometry(size: int) -> Geometry:
    """Neighbour tables and Zobrist keys for a ``size`` x ``size`` board (cached per size)."""
    if not 1 <= size <= 25:
        raise ValueError(f"board size must be between 1 and 25, got {size}")
    num_points = size * size
    neighbors = np.full((num_points, 4), num_points, dtype=np.int64)
    diagonals = np.full((num_points, 4), num_points, dtype=np.int64)
    for p in range(num_points):
        row, col = divmod(p, size)
        for k, (dr, dc) in enumerate(((-1, 0), (0, -1), (0, 1), (1, 0))):
            r, c = row + dr, col + dc
            if 0 <= r < size and 0 <= c < size:
                neighbors[p, k] = r * size + c
        for k, (dr, dc) in enumerate(((-1, -1), (-1, 1), (1, -1), (1, 1))):
            r, c = row + dr, col + dc
            if 0 <= r < size and 0 <= c < size:
                diagonals[p, k] = r * size + c
    # Keys depend only on the size, so hashes are reproducible across runs and processes.
    rng = np.random.default_rng(0x60A12E4A + size)
    zobrist = rng.integers(1, 2**63, size=(3, num_points), dtype=np.int64).astype(np.uint64)
    zobrist_turn = rng.integers(1, 2**63, size=3, dtype=np.int64).astype(np.uint64)
    for table in (neighbors, diagonals, zobrist, zobrist_turn):
        table.setflags(write=False)
    return Geometry(size, neighbors, diagonals, zobrist, zobrist_turn)


def seen_capacity(max_moves: int) -> int:
    """Size of the position hash set: a power of two, at most half full at ``max_moves``."""
    capacity = 16
    while capacity < 2 * (max_moves + 2):
        capacity *= 2
    return capacity


def copy_state(state: GoState) -> GoState:
    """An independent copy of a state (or batch)."""
    return GoState(*(field.copy() for field in state))


@inline_kernel
def _copy_array(dst, src):
    flat_dst = dst.reshape(-1)
    flat_src = src.reshape(-1)
    for i in range(flat_src.shape[0]):
        flat_dst[i] = flat_src[i]


@kernel
def copy_into(dst, src):
    """Copy every field of ``src`` into ``dst`` (same board size and rules) without allocating."""
    _copy_array(dst.board, src.board)
    _copy_array(dst.chain_head, src.chain_head)
    _copy_array(dst.chain_next, src.chain_next)
    _copy_array(dst.chain_size, src.chain_size)
    _copy_array(dst.chain_libs, src.chain_libs)
    _copy_array(dst.chain_key, src.chain_key)
    _copy_array(dst.empties, src.empties)
    _copy_array(dst.empty_index, src.empty_index)
    _copy_array(dst.placed_at, src.placed_at)
    _copy_array(dst.recent, src.recent)
    _copy_array(dst.seen, src.seen)
    _copy_array(dst.key, src.key)
    _copy_array(dst.info, src.info)
