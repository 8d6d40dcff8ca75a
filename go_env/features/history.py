"""Observation planes for networks, as numba functions of the rules state."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import prange

from go_env.core import (
    BLACK,
    HISTORY,
    INFO_MOVE_NUMBER,
    INFO_TO_PLAY,
    LEGAL,
    PLAYED_STATUS_MASK,
    WHITE,
    batch_item,
    copy_into,
    inline_kernel,
    kernel,
    make_geometry,
    new_state,
    play,
    play_and_list,
    reset,
    setup_stones,
)
from go_env.core.parallel import batch_kernel
from go_env.rules import Rules

NUM_HISTORY_PLANES = 2 * HISTORY + 1
# The least games x board points at which ``batch_history_planes`` runs in parallel: about a
# millisecond of serial work (0.5 µs a 9x9 position; ``goarena bench threads`` measures it).
MIN_WORK_HISTORY = 1 << 17


@kernel
def history_planes(state, geometry, out):
    """AlphaZero-style planes from the side to move's point of view into ``out`` (int8[N, N, 17]).

    Plane ``i`` (0..7): the side to move's stones ``i`` moves ago; plane ``8 + i``: the
    opponent's stones ``i`` moves ago (all zero before the game's first position);
    plane 16: all ones if Black is to move.
    """
    num_points = geometry.size * geometry.size
    to_play = state.info[INFO_TO_PLAY]
    move_number = state.info[INFO_MOVE_NUMBER]
    depth = min(HISTORY, move_number + 1)
    # A point holds 0, BLACK (1) or WHITE (2): the side to move's stone is bit 0 of it when
    # Black is to move, bit 1 when White is, and the opponent's the other bit; shifts instead
    # of comparisons keep the loop free of branches.
    own_shift = np.int8(0 if to_play == BLACK else 1)
    enemy_shift = np.int8(1) - own_shift
    one = np.int8(1)
    black_to_play = np.int8(to_play == BLACK)
    planes = out.reshape(num_points, NUM_HISTORY_PLANES)  # point-major: contiguous writes
    for p in range(num_points):
        for i in range(HISTORY):  # HISTORY is a power of two: ``&`` is its modulo
            c = state.recent[(move_number - i) & (HISTORY - 1), p] if i < depth else np.int8(0)
            planes[p, i] = (c >> own_shift) & one
            planes[p, HISTORY + i] = (c >> enemy_shift) & one
        planes[p, 2 * HISTORY] = black_to_play


@inline_kernel
def _advance_history_planes(state, geometry, out):
    """``out`` (int8[N, N, 17]), ``history_planes`` of the position before the last move,
    rewritten as those of the position after it: each side's history is the other side's
    before, one move older, and only the newest planes are read off the board."""
    num_points = geometry.size * geometry.size
    to_play = state.info[INFO_TO_PLAY]
    own_shift = np.int8(0 if to_play == BLACK else 1)
    enemy_shift = np.int8(1) - own_shift
    one = np.int8(1)
    black_to_play = np.int8(to_play == BLACK)
    planes = out.reshape(num_points, NUM_HISTORY_PLANES)
    for p in range(num_points):
        for i in range(HISTORY - 1, 0, -1):  # from the oldest: each plane read before it is written
            own, enemy = planes[p, i - 1], planes[p, HISTORY + i - 1]
            planes[p, i] = enemy
            planes[p, HISTORY + i] = own
        c = state.board[p]
        planes[p, 0] = (c >> own_shift) & one
        planes[p, HISTORY] = (c >> enemy_shift) & one
        planes[p, 2 * HISTORY] = black_to_play


@kernel
def play_and_observe(state, geometry, move, mask, legal, planes):
    """``core.play_and_list`` that also rewrites ``planes`` (int8[N, N, 17]) for the position
    the move leaves, in the same call: what an env reads after each move. ``planes`` must hold
    the ``history_planes`` of the position before the move: they are moved on a move, not
    made again."""
    played = play_and_list(state, geometry, move, mask, legal)
    if played & PLAYED_STATUS_MASK == LEGAL:
        _advance_history_planes(state, geometry, planes)
    return played


def new_history_planes(size: int) -> np.ndarray:
    return np.empty((size, size, NUM_HISTORY_PLANES), np.int8)  # the kernel writes every entry


# Plane order that turns the side to move's view into the other side's.
_SWAP_SIDES = np.r_[HISTORY : 2 * HISTORY, 0:HISTORY, 2 * HISTORY]


def other_side_view(planes: np.ndarray) -> np.ndarray:
    """History planes int8[N, N, 17] from the other side's point of view (a new array)."""
    swapped = planes[:, :, _SWAP_SIDES]
    swapped[:, :, -1] ^= 1
    return swapped


# The plane orders the envs offer (``planes_in_layout``): goarena's own, pgx's Go and
# PettingZoo's ``go_v5``. The dtypes they offer, by name.
OBSERVATION_LAYOUTS = ("goarena", "pgx", "go_v5")
OBSERVATION_DTYPES: dict[str, type] = {
    "uint8": np.uint8,
    "bool": np.bool_,
    "int8": np.int8,
    "float32": np.float32,
}


def check_layout(layout: str, what: str = "observation_layout") -> None:
    """ValueError unless ``layout`` names a plane order the envs offer."""
    if layout not in OBSERVATION_LAYOUTS:
        raise ValueError(f"{what} must be one of {', '.join(OBSERVATION_LAYOUTS)}, got {layout!r}")


def check_observation_options(layout: str, dtype: str) -> None:
    """ValueError unless ``layout`` and ``dtype`` name a layout and a dtype the envs offer."""
    check_layout(layout)
    if dtype not in OBSERVATION_DTYPES:
        raise ValueError(f"observation_dtype must be one of {', '.join(OBSERVATION_DTYPES)}, got {dtype!r}")


def _interleaved(to_move_first: np.ndarray) -> np.ndarray:
    """Plane order of pairs ``(a, b)`` for each of the 8 positions, then the colour plane:
    ``(own, opponent's)`` where ``to_move_first[k]``, else ``(opponent's, own)``."""
    own, enemy = np.arange(HISTORY), HISTORY + np.arange(HISTORY)
    first = np.where(to_move_first, own, enemy)
    second = np.where(to_move_first, enemy, own)
    return np.r_[np.column_stack((first, second)).ravel(), 2 * HISTORY]


_EVERY_OTHER = np.arange(HISTORY) % 2 == 1
_LAYOUT_ORDERS = {
    ("pgx", True): _interleaved(np.ones(HISTORY, bool)),
    ("pgx", False): _interleaved(np.ones(HISTORY, bool)),
    # go_v5 stacks, after each move, (the mover's stones, the other side's): for the side to
    # move the newest pair is its opponent's move, so the order alternates along the history.
    ("go_v5", True): _interleaved(_EVERY_OTHER),
    ("go_v5", False): _interleaved(~_EVERY_OTHER),
}


def planes_in_layout(
    planes: np.ndarray,
    channels_first: bool,
    dtype: npt.DTypeLike | None,
    layout: str = "goarena",
    observer_to_move: bool = True,
) -> np.ndarray:
    """History planes ``[..., N, N, 17]`` (``history_planes``, from the observer's view) in
    ``layout``, as ``[..., 17, N, N]`` when ``channels_first``, cast to ``dtype`` (a new,
    contiguous array).

    ``"goarena"``: as ``history_planes`` (own stones now, 1 .. 7 moves ago; the opponent's
    the same; all ones if the observer is Black). ``"pgx"``: pgx's Go, plane ``2k`` own stones
    ``k`` moves ago, ``2k + 1`` the opponent's, plane 16 all ones if the observer is White.
    ``"go_v5"``: PettingZoo's ``go_v5``, plane pair ``k`` the stones of whoever made the move
    ``k`` moves ago, then the other side's (so, for the side to move, the opponent's first at
    even ``k``), plane 16 as pgx's. ``observer_to_move`` says whether the planes are the side
    to move's (only ``go_v5`` depends on it).
    """
    if layout != "goarena":
        check_layout(layout)
        planes = planes[..., _LAYOUT_ORDERS[layout, bool(observer_to_move)]]  # a copy
        planes[..., -1] ^= 1
    if channels_first:
        planes = np.moveaxis(planes, -1, -3)
    return np.ascontiguousarray(planes, dtype=dtype)


@batch_kernel(MIN_WORK_HISTORY)
def batch_history_planes(batch, geometry, out):
    """``history_planes`` of every game of a batch into ``out`` (int8[B, N, N, 17])."""
    for b in prange(batch.board.shape[0]):
        history_planes(batch_item(batch, b), geometry, out[b])


# -- reading stored planes: a batch channels first, int8[B, 17, N, N] ------------------------


def black_to_play(planes: np.ndarray) -> np.ndarray:
    """bool[B]: whether Black is to move at each position of ``planes``."""
    return planes[:, 2 * HISTORY, 0, 0] == 1


def occupied(planes: np.ndarray) -> np.ndarray:
    """bool[B, N, N]: the points with a stone on each position's board."""
    return (planes[:, 0] | planes[:, HISTORY]).astype(bool)


def after_a_pass(planes: np.ndarray) -> np.ndarray:
    """bool[B]: whether each position's board is the one before it (the move before was a pass,
    as far as the planes tell: a position with no history reads as one too)."""
    same_own = (planes[:, 0] == planes[:, 1]).all(axis=(1, 2))
    return same_own & (planes[:, HISTORY] == planes[:, HISTORY + 1]).all(axis=(1, 2))


def planes_from_boards(boards: np.ndarray, to_play: np.ndarray) -> np.ndarray:
    """int8[B, 17, *S]: the history planes of positions given by their boards.

    Args:
        boards: int[B, HISTORY, *S] (S the board's shape, flat or N x N), ``boards[b, i]`` the
            board ``i`` moves before position ``b`` (BLACK, WHITE or EMPTY at each point; all
            EMPTY before the game's first position).
        to_play: int[B], the colour to move at each position.
    """
    mover = np.asarray(to_play, np.int8).reshape(-1, *([1] * (boards.ndim - 1)))
    planes = np.zeros((boards.shape[0], NUM_HISTORY_PLANES, *boards.shape[2:]), np.int8)
    planes[:, :HISTORY] = boards == mover
    planes[:, HISTORY : 2 * HISTORY] = boards == 3 - mover
    planes[:, 2 * HISTORY] = mover[:, 0] == BLACK
    return planes


@kernel
def _children_planes(planes, moves, parent, child, geometry, rules, points, colors, out, legal):
    """The rules core plays each move on the position set up from the planes' board (the side
    to move as Black, colours being relative); a child that repeats one of the 7 earlier
    boards the planes hold is refused too (the ko the setup position cannot know)."""
    count, width = moves.shape
    size = geometry.size
    num_points = size * size
    for b in range(count):
        reset(parent, geometry, rules)
        stones = 0
        for p in range(num_points):
            row, col = p // size, p % size
            if planes[b, 0, row, col] or planes[b, HISTORY, row, col]:
                points[stones] = p
                colors[stones] = BLACK if planes[b, 0, row, col] else WHITE
                stones += 1
        valid = setup_stones(parent, geometry, points[:stones], colors[:stones], BLACK) == LEGAL
        for m in range(width):
            move = moves[b, m]
            ok = valid and 0 <= move <= num_points
            if ok:
                copy_into(child, parent)
                ok = play(child, geometry, move) == LEGAL
            for i in range(1, HISTORY):  # no earlier board again
                if not ok or move == num_points:
                    break
                same = True
                for p in range(num_points):
                    row, col = p // size, p % size
                    if (child.board[p] == BLACK) != (planes[b, i, row, col] == 1) or (
                        child.board[p] == WHITE
                    ) != (planes[b, HISTORY + i, row, col] == 1):
                        same = False
                        break
                ok = not same
            legal[b, m] = ok
            for p in range(num_points):  # the child's mover is White here; an illegal one's all 0
                row, col = p // size, p % size
                out[b, m, 0, row, col] = ok and child.board[p] == WHITE
                out[b, m, HISTORY, row, col] = ok and child.board[p] == BLACK
                for i in range(HISTORY - 1):
                    out[b, m, 1 + i, row, col] = planes[b, HISTORY + i, row, col] if ok else 0
                    out[b, m, HISTORY + 1 + i, row, col] = planes[b, i, row, col] if ok else 0
                out[b, m, 2 * HISTORY, row, col] = 1 - planes[b, 2 * HISTORY, row, col] if ok else 0


def children_planes(planes: np.ndarray, moves: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The positions after ``moves`` from the positions of ``planes``.

    Args:
        planes: int8[B, 17, N, N], history planes from the side to move's view.
        moves: int[B, M], moves for the side to move there (N*N a pass; a negative number,
            no move: its child is refused).

    Returns:
        (children int8[B, M, 17, N, N], the history planes of each position after its move
        from its new side to move's view; legal bool[B, M]). An illegal move's planes are 0.
    """
    planes = np.ascontiguousarray(planes, np.int8)
    moves = np.ascontiguousarray(moves, np.int64)
    if planes.ndim != 4 or planes.shape[1] != NUM_HISTORY_PLANES or moves.shape[:1] != planes.shape[:1]:
        raise ValueError(f"planes [B, 17, N, N] and moves [B, M], got {planes.shape} and {moves.shape}")
    size = planes.shape[-1]
    out = np.empty((*moves.shape, *planes.shape[1:]), np.int8)
    legal = np.empty(moves.shape, np.bool_)
    rules = np.array(Rules(ko="positional").kernel_rules(size), np.int64)
    parent, child = (new_state(size, *rules) for _ in range(2))
    points = np.empty(size * size, np.int64)
    colors = np.empty(size * size, np.int8)
    _children_planes(planes, moves, parent, child, make_geometry(size), rules, points, colors, out, legal)
    return out, legal
