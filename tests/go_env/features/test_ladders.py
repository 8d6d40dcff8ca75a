"""The ladder reader, against drawn ladders and a plain recursive reader over list boards."""

from __future__ import annotations

import numpy as np
import pytest

from go_env import EMPTY, WHITE, Game
from go_env.coords import from_gtp, to_gtp
from go_env.features.ladders import ladder_capture, ladder_escape
from tests.boards import LADDER, LADDER_BREAKER, SNAPBACK, position
from tests.go_env.features.test_liberties import chain, neighbours


def play(
    board: list[int], p: int, color: int, size: int, ko: int | None
) -> tuple[list[int], int | None] | None:
    """(board, ko point) after ``color`` plays ``p`` with its captures; None for a suicide or a
    retake of ``ko``."""
    if p == ko:
        return None
    board = board.copy()
    board[p] = color
    taken: list[int] = []
    for n in neighbours(p, size):
        if board[n] == 3 - color:
            stones, libs = chain(board, n, size)
            if not libs:
                taken += stones
                for s in stones:
                    board[s] = EMPTY
    stones, libs = chain(board, p, size)
    if not libs:
        return None
    lone = len(taken) == 1 and len(stones) == 1 and len(libs) == 1
    return board, taken[0] if lone else None


def liberties(board: list[int], p: int, size: int) -> set[int]:
    return chain(board, p, size)[1]


ESCAPED, CAPTURED, UNDECIDED = "escaped", "captured", "undecided"


def read(board: list[int], target: int, size: int, escaper_to_move: bool, ko: int | None, plies: int) -> str:
    """The fate of the chain on ``target`` (in atari if the escaper is to move, else on two
    liberties) after ``plies`` plies: the escaper extends or captures a chaser chain in atari
    next to it; the chaser ataris from either side; undecided past 2 N^2 plies."""
    if plies >= 2 * size * size:
        return UNDECIDED
    escaper = board[target]
    stones, libs = chain(board, target, size)
    moves = set(libs)
    if escaper_to_move:
        for s in stones:
            for n in neighbours(s, size):
                if board[n] == 3 - escaper and len(liberties(board, n, size)) == 1:
                    moves |= liberties(board, n, size)
        mover, wins, fails = escaper, ESCAPED, CAPTURED
    else:
        mover, wins, fails = 3 - escaper, CAPTURED, ESCAPED
    outcomes = []
    for move in moves:
        played = play(board, move, mover, size, ko)
        if played is None:
            continue
        after, next_ko = played
        count = len(liberties(after, target, size))
        if escaper_to_move and count != 2:
            outcome = ESCAPED if count >= 3 else CAPTURED
        elif not escaper_to_move and count >= 2:
            outcome = ESCAPED
        else:
            outcome = read(after, target, size, not escaper_to_move, next_ko, plies + 1)
        if outcome == wins:
            return wins
        outcomes.append(outcome)
    return UNDECIDED if UNDECIDED in outcomes else fails


def plain_ladder_capture(game: Game, p: int) -> bool:
    if not game.is_legal(p) or p == game.pass_move:
        return False
    size, color = game.size, game.to_play
    played = play([int(c) for c in game.board.reshape(-1)], p, color, size, None)
    if played is None:
        return False
    after, ko = played
    return any(
        after[n] == 3 - color
        and len(liberties(after, n, size)) == 1
        and read(after, n, size, True, ko, 1) == CAPTURED
        for n in neighbours(p, size)
    )


def plain_ladder_escape(game: Game, p: int) -> bool:
    if not game.is_legal(p) or p == game.pass_move:
        return False
    size, color = game.size, game.to_play
    board = [int(c) for c in game.board.reshape(-1)]
    in_atari = []
    for n in neighbours(p, size):
        if board[n] == color and len(liberties(board, n, size)) == 1:
            in_atari.append(p)  # it joins the new stone's chain
        if board[n] == 3 - color and len(liberties(board, n, size)) == 1:
            for s in chain(board, n, size)[0]:
                in_atari += [m for m in neighbours(s, size) if board[m] == color]
    in_atari = [s for s in in_atari if s == p or len(liberties(board, s, size)) == 1]
    played = play(board, p, color, size, None)
    if played is None:
        return False
    after, ko = played
    for s in in_atari:
        count = len(liberties(after, s, size))
        if count >= 3 or (count == 2 and read(after, s, size, False, ko, 1) == ESCAPED):
            return True
    return False


def vertices(game: Game, points: list[int]) -> list[str]:
    return sorted(to_gtp(p, game.size) for p in points)


def capturing(game: Game) -> list[str]:
    empty = np.flatnonzero(game.board.reshape(-1) == EMPTY)
    return vertices(game, [int(p) for p in empty if ladder_capture(game.state, game.geometry, int(p))])


def escaping(game: Game) -> list[str]:
    empty = np.flatnonzero(game.board.reshape(-1) == EMPTY)
    return vertices(game, [int(p) for p in empty if ladder_escape(game.state, game.geometry, int(p))])


ESCAPE_BY_CAPTURE = """
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . X . . . .
. . . X O . . . .
. . . O X O . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
"""


def test_a_ladder_to_the_edge_works_from_both_sides():
    game = position(LADDER)
    assert capturing(game) == ["E4", "F5"]


def test_a_breaker_stone_spoils_the_ladder_running_into_it():
    game = position(LADDER_BREAKER)
    assert capturing(game) == ["F5"]


def test_the_escaper_runs_only_where_a_breaker_waits():
    game = position(LADDER)
    game.play(from_gtp("E4", 9))
    assert escaping(game) == []  # F5 is the only way out, and it does not get out
    game = position(LADDER_BREAKER)
    game.play(from_gtp("E4", 9))
    assert escaping(game) == ["F5"]


@pytest.mark.parametrize("breaker, works", [([], True), (["R16"], False)])
def test_a_ladder_across_the_19x19_board_is_read_to_the_end(breaker, works):
    # Black B1 ataris White B2 from below; White runs up and right to the top edge, some 35
    # plies on, unless a White stone waits on the way.
    game = Game(19)
    game.setup([from_gtp(v, 19) for v in ("B3", "A2", "C1")], [from_gtp(v, 19) for v in ["B2", *breaker]])
    assert ladder_capture(game.state, game.geometry, from_gtp("B1", 19)) == works


def test_escape_by_capturing_a_chaser_in_atari():
    # White E5 is in atari; Black E4 next to it is in atari too. White escapes by taking E4 at
    # E3 (the chaser's re-atari at F5 fails) or by joining F4 at F5.
    game = position(ESCAPE_BY_CAPTURE, to_play=WHITE)
    assert escaping(game) == ["E3", "F5"]


def test_a_snapback_throw_in_reads_as_a_capture():
    # A1 throws in and takes three back after White captures; B1 is an atari with no way out.
    game = position(SNAPBACK)
    assert capturing(game) == ["A1", "B1"]


@pytest.mark.parametrize("size", [5, 7, 9])
def test_reader_matches_the_plain_reader_on_random_positions(size):
    rng = np.random.default_rng(100 + size)
    checked = ladders = escapes = 0
    for _ in range(12):
        game = Game(size)
        for _ in range(int(rng.integers(size * size // 2, 2 * size * size))):
            moves = game.legal_moves()
            game.play(int(rng.choice(moves[:-1] if len(moves) > 1 else moves)))
            if game.is_over:
                break
            if rng.random() > 0.15:
                continue
            for p in np.flatnonzero(game.board.reshape(-1) == EMPTY):
                p = int(p)
                capture = ladder_capture(game.state, game.geometry, p)
                escape = ladder_escape(game.state, game.geometry, p)
                assert capture == plain_ladder_capture(game, p), f"{game}\ncapture at {p}"
                assert escape == plain_ladder_escape(game, p), f"{game}\nescape at {p}"
                checked += 1
                ladders += capture
                escapes += escape
    assert checked > 500 and ladders > 5 and escapes > 5
