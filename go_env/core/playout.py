"""Random playouts: uniformly random legal moves that fill no own eye, until the game ends."""

from __future__ import annotations

import numpy as np
from numba import njit

from go_env.core.rules import apply_legal, empty_point_status
from go_env.core.scoring import score
from go_env.core.state import (
    EMPTY,
    INFO_NUM_EMPTY,
    INFO_OVER,
    INFO_TO_PLAY,
    LEGAL,
    RUNNING,
    WALL,
    copy_into,
    inline_kernel,
    kernel,
)


@inline_kernel
def is_eye(state, geometry, point, color):
    """True if the empty ``point`` is a (not false) one-point eye of ``color``."""
    for k in range(4):
        c = state.board[geometry.neighbors[point, k]]
        if c != color and c != WALL:
            return False
    enemy_diagonals = 0
    at_edge = False
    for k in range(4):
        c = state.board[geometry.diagonals[point, k]]
        if c == WALL:
            at_edge = True
        elif c == 3 - color:
            enemy_diagonals += 1
    return enemy_diagonals == 0 if at_edge else enemy_diagonals <= 1


@kernel
def clear_own_eyes(state, geometry, moves, color):
    """Clear ``moves[p]`` (int8[P+1], a move mask) at every point ``p`` that is an own eye of
    ``color`` (``is_eye``), in one call; other entries are left as they are."""
    for p in range(geometry.size * geometry.size):
        if moves[p] != 0 and state.board[p] == EMPTY and is_eye(state, geometry, p, color):
            moves[p] = 0


@inline_kernel
def next_random(rng):
    """xorshift64* step on ``rng`` (uint64[1]); returns 64 random bits."""
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return x * np.uint64(0x2545F4914F6CDD1D)


@inline_kernel
def next_uniform(rng):
    """A float drawn uniformly from [0, 1) with ``next_random`` (its top 53 bits)."""
    return np.float64(next_random(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@inline_kernel
def set_aside(state, i, n):
    """Move ``empties[i]``, a rejected candidate, past the live window ``empties[:n]``, and
    return the window's new length: it is drawn no more, and the list stays a permutation."""
    n -= 1
    p, last = state.empties[i], state.empties[n]
    state.empties[i] = last
    state.empty_index[last] = i
    state.empties[n] = p
    state.empty_index[p] = n
    return n


@inline_kernel
def random_move(state, geometry, rng):
    """A uniformly random legal move that fills no own eye; pass when there is none."""
    color = state.info[INFO_TO_PLAY]
    n = state.info[INFO_NUM_EMPTY]
    while n > 0:
        i = np.int64((next_random(rng) >> np.uint64(33)) % np.uint64(n))
        p = state.empties[i]
        if not is_eye(state, geometry, p, color) and empty_point_status(state, geometry, p, color) == LEGAL:
            return p
        n = set_aside(state, i, n)
    return geometry.size * geometry.size


@kernel
def random_playout(state, geometry, rng):
    """Play random moves (see ``random_move``) until the game is over; return moves played.

    The playout skips the boards kept for history planes: ``state.recent`` is stale after it.
    """
    played = 0
    while state.info[INFO_OVER] == RUNNING:
        apply_legal(state, geometry, random_move(state, geometry, rng), False)
        played += 1
    return played


@njit(cache=True)
def random_playouts(root, geometry, scratch, count, rng):
    """Play ``count`` random games on from ``root`` (left unchanged), in ``scratch``, each
    scored under the root's komi and scoring rule.

    Returns:
        (moves played in all, games Black won, games drawn).
    """
    moves = 0
    black_wins = 0
    draws = 0
    for _ in range(count):
        copy_into(scratch, root)
        moves += random_playout(scratch, geometry, rng)
        margin = score(scratch, geometry)
        if margin > 0:
            black_wins += 1
        elif margin == 0:
            draws += 1
    return moves, black_wins, draws
