"""AlphaGo's input planes (Silver et al. 2016, Extended Data Table 2), from the side to move's view.

Every plane is binary, ``uint8[C, N, N]``. "Own" is the side to move. Counted features are
one-hot, the last plane of each group meaning "that many or more". Move features are set only
on empty points where the side to move may play (legal under the state's ko and suicide rules).

======  ==================  =====================================================================
planes  feature             meaning
======  ==================  =====================================================================
0-2     stone colour        own stone, opponent stone, empty
3       ones                constant 1
4-11    turns since         a stone placed 1, 2, ..., 7, >= 8 moves ago (setup stones: >= 8)
12-19   liberties           exact liberties of the chain on a stone: 1, ..., 7, >= 8
20-27   capture size        opponent stones a move here captures: 0, ..., 6, >= 7
28-35   self-atari size     own stones left in atari by a move here: 1, ..., 7, >= 8
36-43   liberties after     liberties of the move's chain after its captures: 1, ..., 7, >= 8
44      ladder capture      the move ataris a chain that cannot escape the ladder (``ladders``)
45      ladder escape       the move takes an own chain in atari out of the ladder
46      sensibleness        legal, and not filling an own one-point eye (``core.is_eye``)
47      zeros               constant 0
48      player colour       1 if Black is to move; written only when ``out`` has 49 planes
======  ==================  =====================================================================

The policy networks read the 48 planes 0-47; the paper's value network adds plane 48.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
from numba import njit, prange

from go_env.core import (
    BLACK,
    EMPTY,
    INFO_MOVE_NUMBER,
    INFO_TO_PLAY,
    LEGAL,
    Geometry,
    GoState,
    batch_item,
    is_eye,
    kernel,
    move_status,
)
from go_env.core.parallel import batch_kernel
from go_env.features.ladders import (
    ladder_capture_with,
    ladder_escape_with,
    load_board,
    new_ladder_work,
)
from go_env.features.liberties import move_liberties, point_liberties

NUM_ALPHAGO_PLANES = 48
NUM_VALUE_PLANES = 49  # with the player-colour plane

OWN_STONES, OPPONENT_STONES, EMPTY_POINTS = 0, 1, 2
ONES = 3
TURNS_SINCE = 4
LIBERTIES = 12
CAPTURE_SIZE = 20
SELF_ATARI_SIZE = 28
LIBERTIES_AFTER = 36
LADDER_CAPTURE = 44
LADDER_ESCAPE = 45
SENSIBLENESS = 46
ZEROS = 47
PLAYER_COLOUR = 48

# The least games x board points at which ``batch_alphago_planes`` runs in parallel: a
# millisecond or more of serial work (15 to 30 µs a 9x9 position; ``goarena bench threads``
# measures it), so that a search's leaves (8 or 16 a call) are made serially.
MIN_WORK_PLANES = 1 << 13


@kernel
def _next_to(state, geometry, liberties, point, color, count):
    """True if a chain of ``color`` with exactly ``count`` liberties touches ``point``."""
    for k in range(4):
        n = geometry.neighbors[point, k]
        if state.board[n] == color and liberties[n] == count:
            return True
    return False


@kernel
def _fill_planes(state, geometry, out, mark, liberties, libs_after, captures, sizes, ladder_work):
    num_points = geometry.size * geometry.size
    planes = out.reshape(out.shape[0], num_points)
    planes[:, :] = 0
    color = state.info[INFO_TO_PLAY]
    enemy = 3 - color
    move_number = state.info[INFO_MOVE_NUMBER]
    point_liberties(state, geometry, mark, liberties)
    move_liberties(state, geometry, liberties, mark, libs_after, captures, sizes)
    load_board(ladder_work, state)
    for p in range(num_points):
        c = state.board[p]
        planes[ONES, p] = 1
        if c != EMPTY:
            planes[OWN_STONES if c == color else OPPONENT_STONES, p] = 1
            placed = state.placed_at[p]
            age = move_number - placed + 1 if placed > 0 else 8  # setup stones are old
            planes[TURNS_SINCE + min(age, 8) - 1, p] = 1
            planes[LIBERTIES + min(liberties[p], 8) - 1, p] = 1
            continue
        planes[EMPTY_POINTS, p] = 1
        if move_status(state, geometry, p) != LEGAL:
            continue
        planes[CAPTURE_SIZE + min(captures[p], 7), p] = 1
        if libs_after[p] > 0:  # 0 only for a suicide, where the rules allow it
            planes[LIBERTIES_AFTER + min(libs_after[p], 8) - 1, p] = 1
        if libs_after[p] == 1:
            planes[SELF_ATARI_SIZE + min(sizes[p], 8) - 1, p] = 1
        # The readers run only where their answer can be yes.
        if _next_to(state, geometry, liberties, p, enemy, 2):
            planes[LADDER_CAPTURE, p] = ladder_capture_with(state, geometry, p, ladder_work)
        if _next_to(state, geometry, liberties, p, color, 1) or _next_to(
            state, geometry, liberties, p, enemy, 1
        ):
            planes[LADDER_ESCAPE, p] = ladder_escape_with(state, geometry, p, ladder_work)
        planes[SENSIBLENESS, p] = not is_eye(state, geometry, p, color)
    if out.shape[0] > PLAYER_COLOUR and color == BLACK:
        planes[PLAYER_COLOUR, :] = 1


@njit(cache=True)
def alphago_planes(state, geometry, out):
    """Write the planes of one position into ``out`` (uint8[48 or 49, N, N], C-contiguous)."""
    size = geometry.size
    if out.shape[0] < NUM_ALPHAGO_PLANES or out.shape[0] > NUM_VALUE_PLANES:
        raise ValueError("alphago planes: out must have 48 or 49 planes of N x N points")
    if out.shape[1] != size or out.shape[2] != size:
        raise ValueError("alphago planes: out's board axes differ from the board size")
    num_points = size * size
    _fill_planes(
        state,
        geometry,
        out,
        np.empty(num_points + 1, np.int64),
        np.empty(num_points, np.int32),
        np.empty(num_points, np.int32),
        np.empty(num_points, np.int32),
        np.empty(num_points, np.int32),
        new_ladder_work(geometry.size),
    )


@batch_kernel(MIN_WORK_PLANES)
def batch_alphago_planes(batch, geometry, out):
    """``alphago_planes`` of every game of a batch into ``out`` (uint8[B, 48 or 49, N, N])."""
    for b in prange(batch.board.shape[0]):
        alphago_planes(batch_item(batch, b), geometry, out[b])


def new_alphago_planes(size: int, player_colour: bool = False, batch: int = 0) -> np.ndarray:
    """An array for the planes: uint8[48, N, N], 49 with ``player_colour``, with a leading
    ``batch`` axis when ``batch > 0``."""
    planes = NUM_VALUE_PLANES if player_colour else NUM_ALPHAGO_PLANES
    lead = (batch,) if batch else ()
    return np.zeros((*lead, planes, size, size), np.uint8)


class Position(Protocol):
    """What ``game_planes`` reads of a ``go_env.Game`` (named structurally: ``go_env.game``
    imports this package)."""

    size: int
    state: GoState
    geometry: Geometry


def game_planes(game: Position, player_colour: bool = False) -> np.ndarray:
    """The planes of a ``go_env.Game``'s position (uint8[48, N, N], 49 with ``player_colour``)."""
    out = new_alphago_planes(game.size, player_colour)
    alphago_planes(game.state, game.geometry, out)
    return out
