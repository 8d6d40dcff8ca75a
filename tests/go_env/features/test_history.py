"""The history planes (``go_env.features.history``): the side to move's stones and the
opponent's over the last 8 positions, seen from either side, in the layouts the envs offer."""

from __future__ import annotations

import numpy as np
import pytest

from go_env import BLACK, WHITE, Game, GameBatch, Rules
from go_env.features.history import (
    NUM_HISTORY_PLANES,
    after_a_pass,
    batch_history_planes,
    black_to_play,
    check_observation_options,
    children_planes,
    history_planes,
    new_history_planes,
    occupied,
    other_side_view,
    planes_from_boards,
    planes_in_layout,
    play_and_observe,
)
from tests.boards import random_records


def planes_of(game: Game) -> np.ndarray:
    out = new_history_planes(game.size)
    history_planes(game.state, game.geometry, out)
    return out


def test_the_planes_hold_each_sides_stones_move_by_move():
    game = Game(5)
    game.play(6)  # Black
    game.play(18)  # White: Black to move
    planes = planes_of(game).reshape(25, NUM_HISTORY_PLANES)
    assert game.to_play == BLACK
    assert np.flatnonzero(planes[:, 0]).tolist() == [6]  # Black's stones now
    assert np.flatnonzero(planes[:, 8]).tolist() == [18]  # White's now
    assert np.flatnonzero(planes[:, 9]).tolist() == []  # White's a move ago: none yet
    assert np.flatnonzero(planes[:, 1]).tolist() == [6]  # Black's a move ago
    assert not planes[:, 3:8].any() and not planes[:, 11:16].any()  # before the first position
    assert planes[:, 16].all()  # Black to move


def test_the_other_sides_view_swaps_the_sides_and_the_colour_plane():
    game = Game(5)
    for move in (6, 18, 7):
        game.play(move)
    white_view = planes_of(game)  # White to move
    assert game.to_play == WHITE and not white_view[..., 16].any()
    black_view = other_side_view(white_view)
    np.testing.assert_array_equal(black_view[..., :8], white_view[..., 8:16])
    np.testing.assert_array_equal(black_view[..., 8:16], white_view[..., :8])
    assert black_view[..., 16].all()


def test_the_pgx_layout_interleaves_the_sides_channels_first():
    game = Game(5)
    for move in (6, 18):
        game.play(move)
    planes = planes_of(game)
    pgx = planes_in_layout(planes, True, np.float32, "pgx")
    assert pgx.shape == (17, 5, 5) and pgx.dtype == np.float32 and pgx.flags.c_contiguous
    for k in range(8):
        np.testing.assert_array_equal(pgx[2 * k], planes[..., k])  # own stones k moves ago
        np.testing.assert_array_equal(pgx[2 * k + 1], planes[..., 8 + k])  # the opponent's
    assert not pgx[16].any()  # all ones only if the observer is White
    np.testing.assert_array_equal(planes_in_layout(planes, False, None), planes)  # goarena's own


def test_unknown_layouts_and_dtypes_are_refused():
    with pytest.raises(ValueError, match="observation_layout must be one of goarena, pgx, go_v5"):
        check_observation_options("alphago", "uint8")
    with pytest.raises(ValueError, match="observation_dtype must be one of"):
        check_observation_options("pgx", "float64")


def test_a_batch_gives_each_games_planes():
    batch = GameBatch(5, 3, seed=2)
    weights = np.ones((3, batch.num_actions))
    for _ in range(4):
        batch.sample_and_play(weights, strict=False)
    out = np.empty((3, 5, 5, NUM_HISTORY_PLANES), np.int8)
    batch_history_planes(batch.state, batch.geometry, out)
    for b in range(3):
        np.testing.assert_array_equal(out[b], planes_of(batch.game(b)))


# -- stored planes, channels first ------------------------------------------------------

SIZE = 5


def channels_first(game: Game) -> np.ndarray:
    return np.moveaxis(planes_of(game), -1, 0).copy()


def random_games(count: int, seed: int) -> list[list[tuple[Game, int]]]:
    return random_records(count, seed, SIZE)


def test_the_planes_of_stored_boards_are_the_games_own():
    for record in random_games(3, seed=2):
        boards = [position.board.reshape(-1) for position, _ in record]
        for t, (position, _) in enumerate(record):
            stored = np.zeros((1, 8, SIZE * SIZE), np.int8)  # empty before the game's first board
            for i in range(min(8, t + 1)):
                stored[0, i] = boards[t - i]
            made = planes_from_boards(stored, np.array([position.to_play]))
            expected = channels_first(position).reshape(NUM_HISTORY_PLANES, SIZE * SIZE)
            np.testing.assert_array_equal(made[0], expected)


def test_the_side_to_move_the_stones_and_a_pass_are_read_from_the_planes():
    game = Game(SIZE)
    game.play(6)
    planes = channels_first(game)[None]
    assert black_to_play(planes).tolist() == [False]
    assert occupied(planes)[0].reshape(-1).nonzero()[0].tolist() == [6]
    assert after_a_pass(planes).tolist() == [False]
    game.play(SIZE * SIZE)
    assert black_to_play(channels_first(game)[None]).tolist() == [True]
    assert after_a_pass(channels_first(game)[None]).tolist() == [True]


def test_children_are_the_positions_after_the_moves():
    """Every move of every position of the games, against the game itself: the planes after a
    legal move (captures, passes), and illegal ones (occupied, suicide, ko) refused."""
    checked = captured = refused = 0
    for record in random_games(4, seed=1):
        for position, _ in record[:-1]:
            moves = np.arange(SIZE * SIZE + 1)[None]
            children, legal = children_planes(channels_first(position)[None], moves)
            mask = position.legal_mask()
            np.testing.assert_array_equal(legal[0], mask.astype(bool))
            refused += int((mask == 0).sum())
            for move in np.flatnonzero(mask):
                child = position.copy()
                before = int((child.board != 0).sum())
                child.play(int(move))
                captured += int((child.board != 0).sum()) < before + (move < SIZE * SIZE)
                np.testing.assert_array_equal(children[0, move], channels_first(child))
                checked += 1
    assert checked > 500 and captured > 0 and refused > 0


def test_a_ko_recapture_is_refused():
    game = Game(SIZE, Rules(komi=0.5, scoring="area"))
    # . B W . .
    # B W . W .   Black takes at (1, 2), White may not take back at (1, 1) at once
    # . B W . .
    for move in [(0, 1), (0, 2), (1, 0), (1, 1), (2, 1), (2, 2), (4, 4), (1, 3), (1, 2)]:
        game.play(move[0] * SIZE + move[1])
    assert game.legal_mask()[1 * SIZE + 1] == 0
    _, legal = children_planes(channels_first(game)[None], np.array([[1 * SIZE + 1, 4 * SIZE + 0]]))
    assert legal.tolist() == [[False, True]]


def test_a_move_played_with_its_planes_writes_those_of_the_position_it_leaves():
    game = Game(5)
    mask, legal, planes = np.empty(26, np.int8), np.empty(26, np.int64), planes_of(game)
    for move in (12, 7, 13, 25, 8):
        played = play_and_observe(game.state, game.geometry, move, mask, legal, planes)
        assert played & 7 == 0
        np.testing.assert_array_equal(planes, planes_of(game))
    before = planes.copy()
    assert play_and_observe(game.state, game.geometry, 12, mask, legal, planes) != 0  # occupied
    np.testing.assert_array_equal(planes, before)


def test_planes_moved_on_move_by_move_are_the_planes_made_afresh():
    """Ten random games of 60 moves on 5x5, passes and captures among them: the live planes,
    moved on by each move, equal the history planes of each position made from the board's
    history, a move played straight after an undo among them."""
    rng = np.random.default_rng(3)
    for _ in range(10):
        game = Game(5)
        live = game.live_observation()
        for number in range(60):
            legal = game.legal_moves()
            if not len(legal):
                break
            game.play(int(rng.choice(legal)))
            np.testing.assert_array_equal(live, planes_of(game))
            if number == 30:  # the planes are stale after an undo: the next move makes them again first
                game.undo()
                game.play(game.num_points)
                np.testing.assert_array_equal(live, planes_of(game))
