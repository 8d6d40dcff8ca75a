"""Counting the board: area (Tromp-Taylor) and territory scores, and each point's area owner.

A state carries its komi and scoring rule (``INFO_KOMI``, ``INFO_SCORING``): ``score`` reads
them; ``count_points`` counts under settings of the caller's choosing.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from go_env.core.state import (
    BLACK,
    EMPTY,
    INFO_CAPTURES,
    INFO_KOMI,
    INFO_SCORING,
    SCORING_TERRITORY,
    WALL,
    WHITE,
    inline_kernel,
    kernel,
)


@inline_kernel
def _empty_region(state, geometry, start, marks, region):
    """Mark the empty region around the unmarked empty ``start``; return its size and the
    colours it touches (bit 1: Black, bit 2: White). The region's points are left in
    ``region[:size]``, which serves as the fill's queue (int64[P])."""
    marks[start] = 1
    region[0] = start
    size = 1
    touches = 0
    i = 0
    while i < size:
        p = region[i]
        i += 1
        for k in range(4):
            n = geometry.neighbors[p, k]
            c = state.board[n]
            if c == EMPTY:
                if not marks[n]:
                    marks[n] = 1
                    region[size] = n
                    size += 1
            elif c != WALL:
                touches |= c
    return size, touches


@njit(cache=True)
def area_owner(state, geometry, out):
    """Write each point's area owner into ``out`` (int8[P]): the stone's colour, or for an
    empty point the one colour its empty region touches (EMPTY when it touches both or none)."""
    num_points = geometry.size * geometry.size
    out[:] = state.board[:num_points]
    marks = np.zeros(num_points, np.int8)
    region = np.empty(num_points, np.int64)
    for start in range(num_points):
        if state.board[start] != EMPTY or marks[start]:
            continue
        size, touches = _empty_region(state, geometry, start, marks, region)
        owner = touches if touches == BLACK or touches == WHITE else EMPTY
        for i in range(size):
            out[region[i]] = owner


@kernel
def count_points(state, geometry, territory, marks, stack):
    """Black's points minus White's, komi not included, by area or (``territory``) territory
    counting; the flood fill's work arrays are passed in (int8[P], int64[P]), so that kernels
    compiled without reference counting can call it."""
    num_points = geometry.size * geometry.size
    marks[:] = 0
    black = 0
    white = 0
    for start in range(num_points):
        color = state.board[start]
        if color != EMPTY:
            if not territory:
                if color == BLACK:
                    black += 1
                else:
                    white += 1
            continue
        if marks[start]:
            continue
        size, touches = _empty_region(state, geometry, start, marks, stack)
        if touches == BLACK:
            black += size
        elif touches == WHITE:
            white += size
    if territory:
        black += state.info[INFO_CAPTURES]
        white += state.info[INFO_CAPTURES + 1]
    return black - white


@inline_kernel
def score_margin(state, geometry, marks, stack):
    """``score`` with the flood fill's work arrays passed in (see ``count_points``)."""
    territory = state.info[INFO_SCORING] == SCORING_TERRITORY
    return count_points(state, geometry, territory, marks, stack) - 0.5 * state.info[INFO_KOMI]


@njit(cache=True)
def score(state, geometry):
    """Black's points minus White's points minus komi, under the state's scoring rule.

    Area scoring (Tromp-Taylor): stones plus empty regions reaching only one colour.
    Territory scoring: those empty regions plus stones captured; every stone on the
    board counts as alive, so dead stones must be captured before the count.
    """
    num_points = geometry.size * geometry.size
    marks = np.empty(num_points, np.int8)
    stack = np.empty(num_points, np.int64)
    return score_margin(state, geometry, marks, stack)
