"""Observation planes for networks, as numba functions of the rules state."""

from __future__ import annotations

import numpy as np
from numba import njit

from go_env._kernels import BLACK, EMPTY, HISTORY, INFO_MOVE_NUMBER, INFO_TO_PLAY

NUM_HISTORY_PLANES = 2 * HISTORY + 1


@njit(cache=True, _nrt=False)
def history_planes(state, geometry, out):
    """AlphaZero-style planes from the side to move's point of view into ``out`` (int8[N, N, 17]).

    Plane ``i`` (0..7): the side to move's stones ``i`` moves ago; plane ``8 + i``: the
    opponent's stones ``i`` moves ago (all zero before the game's first position);
    plane 16: all ones if Black is to move.
    """
    size = geometry.size
    to_play = state.info[INFO_TO_PLAY]
    move_number = state.info[INFO_MOVE_NUMBER]
    out[:] = 0
    for i in range(min(HISTORY, move_number + 1)):
        board = state.recent[(move_number - i) % HISTORY]
        p = 0
        for row in range(size):
            for col in range(size):
                c = board[p]
                if c != EMPTY:
                    out[row, col, i if c == to_play else HISTORY + i] = 1
                p += 1
    if to_play == BLACK:
        out[:, :, 2 * HISTORY] = 1


def new_history_planes(size: int) -> np.ndarray:
    return np.zeros((size, size, NUM_HISTORY_PLANES), np.int8)
