"""The history planes (``go_env.features.history``): the side to move's stones and the
opponent's over the last 8 positions, seen from either side, in the layouts the envs offer."""

from __future__ import annotations

import numpy as np
import pytest

from go_env import BLACK, WHITE, Game, GameBatch
from go_env.features.history import (
    NUM_HISTORY_PLANES,
    batch_history_planes,
    check_observation_options,
    history_planes,
    new_history_planes,
    other_side_view,
    planes_in_layout,
)


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
