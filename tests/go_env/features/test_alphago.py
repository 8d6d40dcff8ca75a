"""AlphaGo's 48 (+1) planes against a plain reference, drawn positions and board symmetries."""

from __future__ import annotations

import numpy as np
import pytest

from go_env import BLACK, EMPTY, WHITE, Game, GameBatch, Rules
from go_env.coords import from_gtp
from go_env.core import state_item
from go_env.features import (
    NUM_ALPHAGO_PLANES,
    NUM_VALUE_PLANES,
    alphago_planes,
    batch_alphago_planes,
    game_planes,
    new_alphago_planes,
)
from go_env.features.symmetry import SYMMETRIES, symmetry_maps, transform_planes
from tests.boards import CAPTURE, LADDER, SELF_ATARI, SNAPBACK, position
from tests.go_env.features.test_ladders import plain_ladder_capture, plain_ladder_escape
from tests.go_env.features.test_liberties import chain, neighbours, place, random_positions

# First plane of each group (the module docstring's table).
OWN, OPPONENT, EMPTY_POINT, ONES = 0, 1, 2, 3
TURNS_SINCE, LIBERTIES, CAPTURE_SIZE, SELF_ATARI_SIZE, LIBERTIES_AFTER = 4, 12, 20, 28, 36
LADDER_CAPTURE, LADDER_ESCAPE, SENSIBLENESS, ZEROS, PLAYER_COLOUR = 44, 45, 46, 47, 48


def diagonals(p: int, size: int) -> list[int]:
    row, col = divmod(p, size)
    steps = ((row - 1, col - 1), (row - 1, col + 1), (row + 1, col - 1), (row + 1, col + 1))
    return [r * size + c for r, c in steps if 0 <= r < size and 0 <= c < size]


def own_eye(board: list[int], p: int, color: int, size: int) -> bool:
    """A one-point eye: own stones all round, and at most one enemy diagonal (none at the edge)."""
    if any(board[n] != color for n in neighbours(p, size)):
        return False
    enemy = sum(board[d] == 3 - color for d in diagonals(p, size))
    return enemy == 0 if len(diagonals(p, size)) < 4 else enemy <= 1


def reference_planes(game: Game) -> np.ndarray:
    """All 49 planes, point by point, with flood fills, the game's move list and the plain
    ladder reader."""
    size = game.size
    board = [int(c) for c in game.board.reshape(-1)]
    color = game.to_play
    planes = np.zeros((NUM_VALUE_PLANES, size * size), np.uint8)
    last_played = {move: i for i, move in enumerate(game.moves)}
    for p in range(size * size):
        planes[ONES, p] = 1
        if board[p] != EMPTY:
            planes[OWN if board[p] == color else OPPONENT, p] = 1
            age = len(game.moves) - last_played[p] if p in last_played else 8
            planes[TURNS_SINCE + min(age, 8) - 1, p] = 1
            planes[LIBERTIES + min(len(chain(board, p, size)[1]), 8) - 1, p] = 1
            continue
        planes[EMPTY_POINT, p] = 1
        if not game.is_legal(p):
            continue
        after, captured = place(board, p, color, size)
        stones, libs = chain(after, p, size)
        planes[CAPTURE_SIZE + min(captured, 7), p] = 1
        if libs:
            planes[LIBERTIES_AFTER + min(len(libs), 8) - 1, p] = 1
        if len(libs) == 1:
            planes[SELF_ATARI_SIZE + min(len(stones), 8) - 1, p] = 1
        planes[LADDER_CAPTURE, p] = plain_ladder_capture(game, p)
        planes[LADDER_ESCAPE, p] = plain_ladder_escape(game, p)
        planes[SENSIBLENESS, p] = not own_eye(board, p, color, size)
    planes[PLAYER_COLOUR] = color == BLACK
    return planes.reshape(NUM_VALUE_PLANES, size, size)


def plane_names(index: int) -> str:
    groups = [(0, "colour"), (3, "ones"), (4, "turns since"), (12, "liberties"), (20, "capture size")]
    groups += [(28, "self-atari"), (36, "liberties after"), (44, "ladder capture")]
    groups += [(45, "ladder escape"), (46, "sensibleness"), (47, "zeros"), (48, "player colour")]
    return [name for first, name in groups if first <= index][-1] + f" (plane {index})"


@pytest.mark.parametrize(
    "size, rules",
    [(5, None), (7, None), (9, None), (7, Rules(ko="simple", suicide=True)), (5, Rules(ko="situational"))],
)
def test_planes_match_the_reference_on_random_positions(size, rules):
    positions = random_positions(size, 10, seed=1000 + size, rules=rules)
    assert len(positions) > 40
    for game in positions:
        planes = game_planes(game, player_colour=True)
        expected = reference_planes(game)
        for c in np.flatnonzero((planes != expected).any(axis=(1, 2))):
            pytest.fail(f"{game}\n{plane_names(c)}:\n{planes[c]}\nexpected\n{expected[c]}")


def test_the_48_planes_are_the_first_48_of_the_49():
    game = random_positions(7, 1, seed=3)[-1]
    assert np.array_equal(game_planes(game), game_planes(game, player_colour=True)[:NUM_ALPHAGO_PLANES])
    assert game_planes(game).shape == (NUM_ALPHAGO_PLANES, 7, 7)


def test_drawn_positions():
    game = position(CAPTURE)
    planes = game_planes(game)
    c2 = from_gtp("C2", 5)
    assert planes[CAPTURE_SIZE + 2].reshape(-1)[c2] == 1
    assert planes[CAPTURE_SIZE].sum() == 17  # the other 17 legal points capture nothing
    assert planes[TURNS_SINCE + 7].sum() == 7  # setup stones count as old

    planes = game_planes(position(SELF_ATARI))
    assert planes[SELF_ATARI_SIZE + 1].reshape(-1)[from_gtp("C5", 5)] == 1  # two stones
    assert planes[SELF_ATARI_SIZE].reshape(-1)[from_gtp("E5", 5)] == 1  # one stone, beside D5
    assert planes[SELF_ATARI_SIZE : SELF_ATARI_SIZE + 8].sum() == 2

    game = position(SNAPBACK)
    a1 = from_gtp("A1", 5)
    planes = game_planes(game).reshape(NUM_ALPHAGO_PLANES, -1)
    assert planes[[CAPTURE_SIZE, SELF_ATARI_SIZE, LIBERTIES_AFTER, LADDER_CAPTURE, SENSIBLENESS], a1].all()
    game.play(a1)
    game.play(from_gtp("B1", 5))
    planes = game_planes(game).reshape(NUM_ALPHAGO_PLANES, -1)
    assert planes[CAPTURE_SIZE + 3, a1] == 1
    assert planes[TURNS_SINCE, from_gtp("B1", 5)] == 1  # played a move ago
    assert planes[LIBERTIES, from_gtp("B1", 5)] == 1  # White's three stones, in atari

    planes = game_planes(position(LADDER))
    ladders = np.flatnonzero(planes[LADDER_CAPTURE].reshape(-1))
    assert sorted(ladders) == sorted(from_gtp(v, 9) for v in ("E4", "F5"))


def test_constant_and_colour_planes():
    game = Game(5)
    planes = game_planes(game, player_colour=True)
    assert planes[ONES].all() and not planes[ZEROS].any() and planes[PLAYER_COLOUR].all()
    assert planes[EMPTY_POINT].all() and planes[SENSIBLENESS].all()
    game.play(12)
    planes = game_planes(game, player_colour=True)
    assert not planes[PLAYER_COLOUR].any()
    assert planes[OPPONENT].reshape(-1)[12] == 1 and not planes[OWN].any()


def test_features_follow_the_board_symmetries():
    # Setup stones carry no history, so a turned position must give the turned planes.
    for game in random_positions(7, 2, seed=11)[:6]:
        board = game.board.reshape(-1)
        maps = symmetry_maps(7)
        original = Game(7)
        original.setup(np.flatnonzero(board == BLACK), np.flatnonzero(board == WHITE), game.to_play)
        planes = game_planes(original, player_colour=True)
        for k in range(SYMMETRIES):
            turned = Game(7)
            black, white = np.flatnonzero(board == BLACK), np.flatnonzero(board == WHITE)
            turned.setup(maps[k][black], maps[k][white], game.to_play)
            assert np.array_equal(game_planes(turned, player_colour=True), transform_planes(planes, k))


def test_a_batch_gives_each_game_its_planes():
    batch = GameBatch(9, 6, seed=5)
    uniform = np.ones((6, batch.num_actions))
    uniform[:, -1] = 0.0
    for _ in range(30):
        batch.sample_and_play(uniform)
    out = new_alphago_planes(9, batch=6)
    batch_alphago_planes(batch.state, batch.geometry, out)
    for b in range(6):
        one = new_alphago_planes(9)
        alphago_planes(state_item(batch.state, b), batch.geometry, one)
        assert np.array_equal(out[b], one)
    assert out[:, ONES].all()


def test_a_wrong_buffer_is_refused():
    game = Game(5)
    with pytest.raises(ValueError, match="48 or 49 planes"):
        alphago_planes(game.state, game.geometry, np.zeros((17, 5, 5), np.uint8))
    with pytest.raises(ValueError, match="board size"):
        alphago_planes(game.state, game.geometry, np.zeros((48, 9, 9), np.uint8))
