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


def planes_in_layout(planes: np.ndarray, channels_first: bool, dtype: npt.DTypeLike | None) -> np.ndarray:
    """History planes ``[..., N, N, 17]`` as ``[..., 17, N, N]`` when ``channels_first``, cast to
    ``dtype``: the layouts and dtypes the envs offer (a contiguous array)."""
    if channels_first:
        planes = np.moveaxis(planes, -1, -3)
    return np.ascontiguousarray(planes, dtype=dtype)


@batch_kernel(MIN_WORK_HISTORY)
def batch_history_planes(batch, geometry, out):
    """``history_planes`` of every game of a batch into ``out`` (int8[B, N, N, 17])."""
    for b in prange(batch.board.shape[0]):
        history_planes(batch_item(batch, b), geometry, out[b])
