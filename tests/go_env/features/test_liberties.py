"""Exact liberties and move effects, checked against plain flood fills over a list board."""

from __future__ import annotations

import numpy as np
import pytest

from go_env import BLACK, EMPTY, Game, Rules
from go_env.coords import from_gtp
from go_env.features.liberties import move_liberties, point_liberties
from tests.boards import CAPTURE, SELF_ATARI, SNAPBACK, position


def neighbours(p: int, size: int) -> list[int]:
    row, col = divmod(p, size)
    steps = ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
    return [r * size + c for r, c in steps if 0 <= r < size and 0 <= c < size]


def chain(board: list[int], p: int, size: int) -> tuple[set[int], set[int]]:
    """(stones, liberties) of the chain on ``p``."""
    stones, libs, todo = {p}, set(), [p]
    while todo:
        for n in neighbours(todo.pop(), size):
            if board[n] == EMPTY:
                libs.add(n)
            elif board[n] == board[p] and n not in stones:
                stones.add(n)
                todo.append(n)
    return stones, libs


def place(board: list[int], p: int, color: int, size: int) -> tuple[list[int], int]:
    """The board after ``color`` plays ``p`` with its captures (a suicide stays on the board),
    and the number of stones captured."""
    board = board.copy()
    board[p] = color
    captured = 0
    for n in neighbours(p, size):
        if board[n] == 3 - color:
            stones, libs = chain(board, n, size)
            if not libs:
                captured += len(stones)
                for s in stones:
                    board[s] = EMPTY
    return board, captured


def random_positions(size: int, games: int, seed: int, rules: Rules | None = None) -> list[Game]:
    """Positions met in random games (no passes until the board fills), several per game."""
    rng = np.random.default_rng(seed)
    positions = []
    for _ in range(games):
        game = Game(size, rules)
        for _ in range(int(rng.integers(size * size // 2, 3 * size * size))):
            moves = game.legal_moves()
            moves = moves[moves != game.pass_move] if len(moves) > 1 else moves
            game.play(int(rng.choice(moves)))
            if game.is_over:
                break
            if rng.random() < 0.2:
                positions.append(game.copy())
    return positions


def kernel_liberties(game: Game) -> tuple[np.ndarray, ...]:
    num_points = game.num_points
    mark = np.zeros(num_points + 1, np.int64)
    libs, after, captures, sizes = (np.full(num_points, -1, np.int32) for _ in range(4))
    point_liberties(game.state, game.geometry, mark, libs)
    move_liberties(game.state, game.geometry, libs, mark, after, captures, sizes)
    return libs, after, captures, sizes


@pytest.mark.parametrize("size", [5, 7, 9])
def test_kernels_match_flood_fills_on_random_positions(size):
    positions = random_positions(size, 12, seed=size)
    assert len(positions) > 50
    for game in positions:
        board = [int(c) for c in game.board.reshape(-1)]
        color = game.to_play
        libs, after, captures, sizes = kernel_liberties(game)
        for p in range(size * size):
            if board[p] != EMPTY:
                assert libs[p] == len(chain(board, p, size)[1])
                assert after[p] == captures[p] == sizes[p] == 0
                continue
            assert libs[p] == 0
            placed, captured = place(board, p, color, size)
            stones, new_libs = chain(placed, p, size)
            assert (after[p], captures[p], sizes[p]) == (len(new_libs), captured, len(stones)), (
                f"{game}\nat {p}"
            )


def at(game: Game, vertex: str) -> int:
    return from_gtp(vertex, game.size)


def test_drawn_captures_self_atari_and_snapback():
    game = position(CAPTURE)
    libs, after, captures, sizes = kernel_liberties(game)
    c2 = at(game, "C2")
    assert libs[at(game, "C4")] == 1  # White's two stones, in atari
    assert libs[at(game, "B4")] == 4
    assert (captures[c2], after[c2], sizes[c2]) == (2, 4, 1)  # C3 and C4 come back as liberties

    game = position(SELF_ATARI)
    _, after, captures, sizes = kernel_liberties(game)
    c5 = at(game, "C5")
    assert (captures[c5], after[c5], sizes[c5]) == (0, 1, 2)

    game = position(SNAPBACK)
    _, after, captures, sizes = kernel_liberties(game)
    a1 = at(game, "A1")
    assert (captures[a1], after[a1], sizes[a1]) == (0, 1, 1)  # the throw-in
    game.play(a1)
    _, after, captures, sizes = kernel_liberties(game)
    b1 = at(game, "B1")
    assert (captures[b1], after[b1], sizes[b1]) == (1, 1, 3)  # White takes, into atari
    game.play(b1)
    _, after, captures, _ = kernel_liberties(game)
    assert (captures[a1], after[a1]) == (3, 2)  # and Black takes back three
    assert game.to_play == BLACK
