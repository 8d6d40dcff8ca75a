"""Seki: chains that live without two eyes because neither side can fill a shared liberty.

A judge of a finished game's dead stones (GNU Go's ``final_status_list dead``, an ownership
estimate) can call a chain in seki dead; taking it off turns the count (in two held-out games
a raw W+7 became B+20). ``in_seki`` lets such a judge keep the chain, and ``seki_liberties``
names the shared liberties that a clean-up phase must not fill.

A chain is in seki when the other side cannot attack it and it cannot attack the other side:

- it has two liberties or more, each of them shared (next to a stone of the other side) or an
  eye of its own (every neighbour a stone of the chain), so that it can neither connect out
  nor be approached from outside;
- on every one of them the other side's stone would capture nothing and be left with at most
  one liberty (a self-atari or a suicide);
- it shares a liberty with an enemy chain of which the same holds the other way round.

That is the classic seki (two chains sharing their two liberties) and the one with an eye on
each side and one shared liberty; a chain that can be approached from outside, or that wins a
race, is not in seki. Plain numpy and sets over the board, not a kernel: it runs once per
finished game, on a handful of chains.
"""

from __future__ import annotations

import numpy as np

from go_env.game import BLACK, EMPTY, WHITE, Game


class ChainBoard:
    """A flat board (``EMPTY``, ``BLACK``, ``WHITE``) and its neighbour table, for chain walks in
    plain Python (where a few chains are looked at: a seki, a pass's clean-up)."""

    def __init__(self, game: Game):
        self.board = game.board.ravel().copy()
        self.neighbors = game.geometry.neighbors  # int64[P, 4]; P where off the board
        self.num_points = game.num_points

    def around(self, point: int) -> list[int]:
        return [int(n) for n in self.neighbors[point] if n < self.num_points]

    def chain(self, point: int) -> set[int]:
        """The stones of the chain on ``point``."""
        color, stones, todo = self.board[point], {point}, [point]
        while todo:
            for n in self.around(todo.pop()):
                if self.board[n] == color and n not in stones:
                    stones.add(n)
                    todo.append(n)
        return stones

    def liberties(self, stones: set[int]) -> set[int]:
        return {n for s in stones for n in self.around(s) if self.board[n] == EMPTY}

    def harmless(self, point: int, color: int) -> bool:
        """Whether ``color``'s stone on the empty ``point`` captures nothing and is left with at
        most one liberty: a move that attacks no one (it is captured, or is not even legal)."""
        self.board[point] = color
        try:
            for n in self.around(point):
                if self.board[n] == 3 - color and not self.liberties(self.chain(n)):
                    return False  # it captures
            return len(self.liberties(self.chain(point))) <= 1
        finally:
            self.board[point] = EMPTY

    def safe(self, stones: set[int]) -> bool:
        """Whether ``stones`` (a chain) are locked in: two liberties or more, each shared with
        the other side or an eye of the chain's own, and no move of the other side on one of
        them attacks them. A liberty of neither kind lets a side connect out or approach."""
        color = int(self.board[next(iter(stones))])
        liberties = self.liberties(stones)
        if len(liberties) < 2:
            return False
        for point in liberties:
            around = self.around(point)
            shared = any(self.board[n] == 3 - color for n in around)
            if not shared and not all(n in stones for n in around):
                return False
        return all(self.harmless(p, 3 - color) for p in liberties)

    def in_seki(self, point: int) -> bool:
        stones = self.chain(point)
        if not self.safe(stones):
            return False
        enemy = 3 - int(self.board[point])
        for liberty in self.liberties(stones):
            for n in self.around(liberty):
                if self.board[n] == enemy and self.safe(self.chain(n)):
                    return True
        return False


def in_seki(game: Game, point: int) -> bool:
    """Whether the chain on ``point`` (a stone of ``game``'s board) lives in seki."""
    board = ChainBoard(game)
    if board.board[point] == EMPTY:
        raise ValueError(f"point {point} holds no stone")
    return board.in_seki(point)


def seki_chains(game: Game) -> list[tuple[int, ...]]:
    """Every chain of ``game``'s board that lives in seki, as its sorted points."""
    board = ChainBoard(game)
    seen: set[int] = set()
    found = []
    for point in np.flatnonzero(board.board != EMPTY):
        if int(point) in seen:
            continue
        stones = board.chain(int(point))
        seen |= stones
        if board.in_seki(int(point)):
            found.append(tuple(sorted(stones)))
    return found


def seki_liberties(game: Game) -> list[int]:
    """The empty points next to chains of both colours in seki: the shared liberties that
    neither side may fill (a clean-up move that does is captured, or kills a living chain)."""
    board = ChainBoard(game)
    sides: dict[int, set[int]] = {}
    for chain in seki_chains(game):
        color = int(board.board[chain[0]])
        sides.setdefault(color, set()).update(board.liberties(set(chain)))
    return sorted(sides.get(BLACK, set()) & sides.get(WHITE, set()))


def keep_seki_alive(game: Game, dead: list[int]) -> list[int]:
    """``dead`` (points a judge named dead) without the stones of chains in seki.

    Each named chain is judged on the board without the other named stones: a side that can
    capture dead stones next to a seki gains liberties and may then fill the shared ones, so
    a seki that rests on stones the judge called dead is none."""
    named = set(dead)
    living: set[int] = set()
    for point in dead:
        board = ChainBoard(game)
        if point in living or board.board[point] == EMPTY:
            continue
        chain = board.chain(point)
        board.board[list(named - chain)] = EMPTY
        if board.in_seki(point):
            living |= chain
    return [p for p in dead if p not in living]
