"""Observation planes for networks, as numba functions of the rules state."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import prange

from go_env.core import BLACK, HISTORY, INFO_MOVE_NUMBER, INFO_TO_PLAY, batch_item, kernel
from go_env.core.parallel import batch_kernel

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
    enemy = 3 - to_play
    move_number = state.info[INFO_MOVE_NUMBER]
    depth = min(HISTORY, move_number + 1)
    black_to_play = to_play == BLACK
    planes = out.reshape(num_points, NUM_HISTORY_PLANES)  # point-major: contiguous writes
    for p in range(num_points):
        for i in range(HISTORY):
            c = state.recent[(move_number - i) % HISTORY, p] if i < depth else 0
            planes[p, i] = c == to_play
            planes[p, HISTORY + i] = c == enemy
        planes[p, 2 * HISTORY] = black_to_play


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
