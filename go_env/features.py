"""Observation planes for networks, as numba functions of the rules state."""

from __future__ import annotations

import numpy as np
from numba import njit

from go_env._kernels import BLACK, HISTORY, INFO_MOVE_NUMBER, INFO_TO_PLAY

NUM_HISTORY_PLANES = 2 * HISTORY + 1


@njit(cache=True)
def history_planes(state, geometry, out):
    """AlphaZero-style planes from the side to move's point of view into ``out`` (int8[N, N, 17]).

    Plane ``i`` (0..7): the side to move's stones ``i`` moves ago; plane ``8 + i``: the
    opponent's stones ``i`` moves ago (all zero before the game's first position);
    plane 16: all ones if Black is to move.
    """
    size = geometry.size
    to_play = state.info[INFO_TO_PLAY]
    enemy = 3 - to_play
    move_number = state.info[INFO_MOVE_NUMBER]
    out[:] = 0
    for i in range(min(HISTORY, move_number + 1)):
        board = state.recent[(move_number - i) % HISTORY]
        for p in range(size * size):
            c = board[p]
            if c == to_play:
                out[p // size, p % size, i] = 1
            elif c == enemy:
                out[p // size, p % size, HISTORY + i] = 1
    if to_play == BLACK:
        out[:, :, 2 * HISTORY] = 1


def new_history_planes(size: int) -> np.ndarray:
    return np.zeros((size, size, NUM_HISTORY_PLANES), np.int8)
