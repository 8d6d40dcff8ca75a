"""Dead stones: who ends up owning each point, from playouts, and the score without the dead.

Under Tromp-Taylor rules every stone on the board counts. Where a game is settled by taking
the dead stones off before the count (by agreement, an arbiter, or a clean-up phase, as on
KGS and under Chinese or Japanese rules), a stone that cannot live counts for the other side,
and a player that passes while its own dead stones stand in the other's area gives those
points away. Pachi and KataGo judge a pass by the settled score: playouts from the position
(or a network) say who owns each point at the end, and a stone on a point that the other side
mostly ends up owning is dead.

``estimate_ownership`` plays the playouts (random ones that leave seki alone),
``dead_stones`` reads the dead stones off its map, ``settled_score`` counts the board without
them (``settled_board``), and ``PassCheck`` puts them together to judge a search player's pass::

    check = PassCheck(seed=0)
    check.settle(game)            # Settlement(raw=..., settled=..., dead=(...))
    check.move(game, search)      # pass, or the search's best other move when passing is unsafe

A search settles the games that finish inside its tree the same way:
``search.settle_finished_games(check.owner(check.ownership(game)))`` before searching ``game``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import numpy as np
from numba import njit

from go_env import Game, Rules
from go_env import core as K
from go_env.core import inline_kernel
from goarena.search.evaluator import random_state
from goarena.search.tree import ILLEGAL, ROOT, TreeSearch

OWNERSHIP_PLAYOUTS = 64  # playouts behind one ownership map (about 2 ms of random ones on 9x9)
DEAD_THRESHOLD = 0.5  # dead: the other side owns the point in 75% of the playouts or more


class Settlement(NamedTuple):
    """A board's count as it stands and once its dead stones are taken off (Black's margin)."""

    raw: float  # every stone counted, as Tromp-Taylor rules count them
    settled: float  # without the dead stones
    dead: tuple[int, ...]  # the points of the stones judged dead


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
        # Move the rejected point past the live window; the list stays a permutation.
        n -= 1
        last = state.empties[n]
        state.empties[i] = last
        state.empty_index[last] = i
        state.empties[n] = p
        state.empty_index[p] = n
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


def firm_owner(ownership: np.ndarray, threshold: float = DEAD_THRESHOLD) -> np.ndarray:
    """int8[N*N]: ``BLACK`` where ``ownership`` is above ``threshold``, ``WHITE`` where it is
    below ``-threshold``, 0 elsewhere (``TreeSearch.settle_finished_games`` takes it)."""
    owner = np.zeros(ownership.shape, np.int8)
    owner[ownership > threshold] = K.BLACK
    owner[ownership < -threshold] = K.WHITE
    return owner


def dead_stones(game: Game, ownership: np.ndarray, threshold: float = DEAD_THRESHOLD) -> list[int]:
    """The points of the stones on ``game``'s board whose point the other side owns: a Black
    stone where ``ownership`` is below ``-threshold``, a White one where it is above it."""
    board = game.board.ravel()
    owner = firm_owner(ownership, threshold)
    dead = (board != K.EMPTY) & (owner == 3 - board)
    return [int(point) for point in np.flatnonzero(dead)]


def settled_board(game: Game, dead: Iterable[int]) -> Game:
    """``game``'s board with the ``dead`` stones taken off, as a game to count by area (its
    komi, its side to move): ``score()`` is the settled margin, ``area_owner()`` the owners."""
    board = game.board.ravel()
    removed = set(dead)
    black = [int(p) for p in np.flatnonzero(board == K.BLACK) if p not in removed]
    white = [int(p) for p in np.flatnonzero(board == K.WHITE) if p not in removed]
    counted = Game(game.size, Rules(komi=game.rules.komi, scoring="area"))
    counted.setup(black, white, game.to_play)
    return counted


def settled_score(game: Game, dead: Iterable[int]) -> float:
    """Black's margin by the area count of ``game``'s board with the ``dead`` stones taken off
    (komi included)."""
    return settled_board(game, dead).score()


def _result(margin: float, color: int) -> int:
    """1 a win for ``color``, 0 a draw, -1 a loss."""
    return int(np.sign(margin)) * (1 if color == K.BLACK else -1)


class PassCheck:
    """Judges a pass by the settled score, for games whose dead stones are taken off.

    A pass is unsafe when stones of the player's own are dead and the count without them is
    worse for it (a loss or a draw where the raw count said a win, a loss where it said a
    draw): the player then plays on. The other side's dead stones are left on the board for
    that count: a clean-up phase takes off only the stones that are captured in it, and the
    other side captures none of its own, so the player must (KataGo's conservative pass).
    Both counts are area counts (under territory rules they differ from the rules' own by
    the prisoners, alike for both).

    Args:
        playouts: playouts per ownership map.
        threshold: how sure the playouts must be that a stone is dead (``dead_stones``).
        seed: seed of the playouts.
    """

    def __init__(
        self, playouts: int = OWNERSHIP_PLAYOUTS, threshold: float = DEAD_THRESHOLD, seed: int | None = None
    ):
        if playouts < 1:
            raise ValueError(f"playouts must be at least 1, got {playouts}")
        if not 0.0 <= threshold < 1.0:
            raise ValueError(f"threshold is an ownership in [0, 1), got {threshold}")
        self.playouts = playouts
        self.threshold = threshold
        self._rng = random_state(seed)

    def ownership(self, game: Game) -> np.ndarray:
        """``estimate_ownership`` of ``game`` with the check's playouts."""
        return estimate_ownership(game, self.playouts, self._rng)

    def owner(self, ownership: np.ndarray) -> np.ndarray:
        """``firm_owner`` of ``ownership`` at the check's threshold: what a search settles
        its finished games by (``TreeSearch.settle_finished_games``)."""
        return firm_owner(ownership, self.threshold)

    def settle(self, game: Game) -> Settlement:
        """``game``'s board counted as it stands and without the stones the playouts judge dead."""
        dead = dead_stones(game, self.ownership(game), self.threshold)
        return Settlement(settled_score(game, []), settled_score(game, dead), tuple(dead))

    def pass_is_safe(self, game: Game, ownership: np.ndarray | None = None) -> bool:
        """Whether the side to move may pass: no dead stone of its own makes its result worse
        (by ``ownership`` of ``game``, estimated afresh when None)."""
        color = game.to_play
        board = game.board.ravel()
        ownership = self.ownership(game) if ownership is None else ownership
        own = [point for point in dead_stones(game, ownership, self.threshold) if board[point] == color]
        if not own:
            return True  # no count to make: the raw one stands
        return _result(settled_score(game, own), color) >= _result(settled_score(game, []), color)

    def move(self, game: Game, search: TreeSearch, ownership: np.ndarray | None = None) -> int:
        """Pass if that is safe, else the best move but pass of ``search`` (which has just
        searched ``game``): the most visited, then the best valued, then the likeliest; never
        one filling an eye of the player's own. Pass when there is no such move."""
        if self.pass_is_safe(game, ownership):
            return game.pass_move
        return best_move_but_pass(game, search)


def best_move_but_pass(game: Game, search: TreeSearch) -> int:
    """The root's best move other than pass and filling an own eye (by visits, value, prior),
    or pass where there is none."""
    assert search.tree is not None, "search first"
    legal = search.tree.children[ROOT] != ILLEGAL
    state, geometry, color = game.state, game.geometry, game.to_play
    moves = [
        int(a)
        for a in np.flatnonzero(legal)
        if a != game.pass_move and not K.is_eye(state, geometry, int(a), color)
    ]
    if not moves:
        return game.pass_move
    visits, values, priors = search.visit_counts(), search.values(), search.priors()
    return max(moves, key=lambda a: (visits[a], values[a], priors[a]))
