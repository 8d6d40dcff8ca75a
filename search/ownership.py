"""Dead stones: who ends up owning each point, from playouts, and the score without the dead.

Under Tromp-Taylor rules every stone on the board counts. Where a game is settled by taking
the dead stones off before the count (by agreement, an arbiter, or a clean-up phase, as on
KGS and under Chinese or Japanese rules), a stone that cannot live counts for the other side,
and a player that passes while its own dead stones stand in the other's area gives those
points away. Pachi and KataGo judge a pass by the settled score: playouts from the position
(or a network) say who owns each point at the end, and a stone on a point that the other side
mostly ends up owning is dead.

``estimate_ownership`` plays the playouts (random ones that leave seki alone). Reading the
dead stones off its map, counting without them and judging a pass by that count
(``dead_stones``, ``settled_score``, ``PassCheck``) are the settle module's
(``search.settle``), where every way of counting a finished game lives.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from go_env import Game, Rules
from go_env import core as K
from go_env.core import inline_kernel
from goarena.search.evaluator import random_state

OWNERSHIP_PLAYOUTS = 64  # playouts behind one ownership map (about 2 ms of random ones on 9x9)


@inline_kernel
def _liberties(state, geometry, stone, skip, marks, stamp, limit):
    """The liberties of the chain on ``stone`` not marked ``stamp`` yet (marking them), but
    ``skip``: counted up to ``limit``."""
    count = 0
    x = stone
    while True:
        for k in range(4):
            n = geometry.neighbors[x, k]
            if state.board[n] == K.EMPTY and n != skip and marks[n] != stamp:
                marks[n] = stamp
                count += 1
                if count >= limit:
                    return count
        x = state.chain_next[x]
        if x == stone:
            return count


@inline_kernel
def _joins_into_atari(state, geometry, point, color, marks, stamp):
    """Whether ``color`` on the empty ``point`` joins a chain of its own and leaves it one
    liberty without capturing: a self-atari of more than one stone. (A lone stone's
    self-atari is allowed: killing an eye space of two or three points takes one.)"""
    enemy = 3 - color
    for k in range(4):
        n = geometry.neighbors[point, k]
        if state.board[n] == enemy:
            stamp[0] += 1
            if _liberties(state, geometry, n, -1, marks, stamp[0], 2) == 1:
                return False  # it captures
    stamp[0] += 1
    libs = 0
    joins = False
    for k in range(4):
        n = geometry.neighbors[point, k]
        if state.board[n] == K.EMPTY and marks[n] != stamp[0]:
            marks[n] = stamp[0]
            libs += 1
    for k in range(4):
        n = geometry.neighbors[point, k]
        if state.board[n] == color and libs < 2:
            joins = True
            libs += _liberties(state, geometry, n, point, marks, stamp[0], 2 - libs)
        elif state.board[n] == color:
            joins = True
    return joins and libs < 2


@inline_kernel
def _ownership_move(state, geometry, rng, marks, stamp):
    """A uniformly random legal move that fills no own eye and puts no chain of its own in
    atari (see ``_joins_into_atari``); pass when there is none. Seki stays seki: neither side
    fills the shared liberties."""
    color = state.info[K.INFO_TO_PLAY]
    n = state.info[K.INFO_NUM_EMPTY]
    while n > 0:
        i = np.int64((K.next_random(rng) >> np.uint64(33)) % np.uint64(n))
        p = state.empties[i]
        if (
            not K.is_eye(state, geometry, p, color)
            and K.empty_point_status(state, geometry, p, color) == K.LEGAL
            and not _joins_into_atari(state, geometry, p, color, marks, stamp)
        ):
            return p
        n = K.set_aside(state, i, n)
    return geometry.size * geometry.size


@njit(cache=True)  # not a ``kernel``: ``area_owner`` allocates its flood fill's arrays
def _ownership(root, geometry, work, rng, playouts, marks, stamp, owner, total):
    """Add each point's final area owner over ``playouts`` playouts from ``root`` (left
    unchanged) to ``total`` (float64[P]): +1 for Black, -1 for White."""
    num_points = geometry.size * geometry.size
    for _ in range(playouts):
        K.copy_into(work, root)
        while work.info[K.INFO_OVER] == K.RUNNING:
            K.apply_legal(work, geometry, _ownership_move(work, geometry, rng, marks, stamp), False)
        K.area_owner(work, geometry, owner)
        for p in range(num_points):
            if owner[p] == K.BLACK:
                total[p] += 1.0
            elif owner[p] == K.WHITE:
                total[p] -= 1.0


def _fresh_position(game: Game) -> Game:
    """``game``'s board and side to move, with its komi, as a new game with a full move cap:
    the playouts must not stop at the cap of a game near its end, dead stones uncaptured."""
    board = game.board.ravel()
    rules = Rules(komi=game.rules.komi, ko=game.rules.ko, suicide=game.rules.suicide)
    fresh = Game(game.size, rules)
    fresh.setup(
        np.flatnonzero(board == K.BLACK).tolist(), np.flatnonzero(board == K.WHITE).tolist(), game.to_play
    )
    return fresh


def estimate_ownership(
    game: Game, playouts: int = OWNERSHIP_PLAYOUTS, rng: np.ndarray | None = None
) -> np.ndarray:
    """float64[N*N]: each point's owner at the end of ``playouts`` playouts from ``game``'s
    position, averaged: +1 Black's in every one, -1 White's, 0 neither's or each's as often.

    The playouts draw uniformly random legal moves that fill no own eye and put no chain of
    more than one stone in atari (``_ownership_move``), from the board as it stands (its ko
    history left out) with a full move cap, until both pass.

    Args:
        game: the position (not changed).
        playouts: how many.
        rng: the kernels' generator state (``search.evaluator.random_state``), advanced; a
            fresh one seeded at random when None.
    """
    if playouts < 1:
        raise ValueError(f"playouts must be at least 1, got {playouts}")
    root = _fresh_position(game)
    work = K.copy_state(root.state)
    marks = np.zeros(game.num_points + 1, np.int64)
    stamp = np.zeros(1, np.int64)
    owner = np.zeros(game.num_points, np.int8)
    total = np.zeros(game.num_points, np.float64)
    rng = random_state(None) if rng is None else rng
    _ownership(root.state, root.geometry, work, rng, playouts, marks, stamp, owner, total)
    return total / playouts
