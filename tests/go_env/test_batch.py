"""The batch facade agrees with single games played move by move."""

import numpy as np
import pytest

from go_env import Game, IllegalMoveError, Rules
from go_env.batch import GameBatch


def _random_moves(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    moves = np.empty(len(masks), np.int64)
    for b, mask in enumerate(masks):
        legal = np.flatnonzero(mask)
        moves[b] = rng.choice(legal) if legal.size else 0
    return moves


@pytest.mark.parametrize("rules", [Rules(), Rules.preset("tromp-taylor"), Rules.preset("japanese-like")])
def test_batch_matches_single_games(rules):
    size, batch_size = 5, 6
    batch = GameBatch(size, batch_size, rules)
    games = [Game(size, rules) for _ in range(batch_size)]
    rng = np.random.default_rng(0)
    for _ in range(80):
        masks = batch.legal_masks()
        observations = batch.observations()
        for b, game in enumerate(games):
            expected_mask = game.legal_mask() if not game.is_over else np.zeros(size * size + 1, np.int8)
            np.testing.assert_array_equal(masks[b], expected_mask)
            np.testing.assert_array_equal(observations[b], game.observation())
        moves = _random_moves(masks, rng)
        batch.play(moves)
        for b, game in enumerate(games):
            if not game.is_over:
                game.play(int(moves[b]))
        np.testing.assert_array_equal(batch.is_over, [g.is_over for g in games])
    np.testing.assert_allclose(batch.scores(), [g.score() for g in games])
    for b, game in enumerate(games):
        np.testing.assert_array_equal(batch.game(b).board, game.board)
        assert batch.game(b).key == game.key


def test_illegal_move_in_a_batch_names_the_game_and_the_reason():
    batch = GameBatch(5, 3)
    batch.play(np.array([12, 12, 12]))
    with pytest.raises(IllegalMoveError, match=r"occupied \(game 1\)"):
        batch.play(np.array([13, 12, 13]))
    statuses = batch.play(np.array([14, 12, 14]), strict=False)
    assert list(statuses != 0) == [False, True, False]


def test_random_playouts_finish_every_game_and_reset_empties_the_boards():
    batch = GameBatch(9, 8)
    moves = batch.random_playouts(seed=1)
    assert batch.is_over.all() and (moves > 0).all()
    batch.reset()
    assert not batch.is_over.any()
    assert all(batch.game(b).board.sum() == 0 for b in range(8))
