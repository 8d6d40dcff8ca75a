"""The batch facade agrees with single games played move by move."""

import numpy as np
import pytest

from go_env import Game, IllegalMoveError, Rules
from go_env.batch import GameBatch, owners_for_mover


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


def test_sample_and_play_draws_legal_moves_in_proportion():
    batch = GameBatch(5, 4000, seed=0)
    batch.play(np.full(4000, 12))  # Black in the centre: 12 is occupied now
    probabilities = np.zeros((4000, 26))
    probabilities[:, [0, 12, 25]] = [1.0, 5.0, 3.0]  # 12 illegal: drawn as 0 or pass, 1 : 3
    moves = batch.sample_and_play(probabilities)
    assert set(moves.tolist()) == {0, 25}
    assert abs((moves == 0).mean() - 0.25) < 0.03
    assert (batch.to_play == 1).all() and (batch.legal_masks()[moves == 0, 0] == 0).all()


def test_sample_and_play_matches_playing_the_moves_and_is_seeded():
    probabilities = np.random.default_rng(0).random((6, 26))
    first, second = GameBatch(5, 6, seed=3), GameBatch(5, 6, seed=3)
    replay = GameBatch(5, 6)
    for _ in range(60):
        moves = first.sample_and_play(probabilities, strict=False)
        np.testing.assert_array_equal(second.sample_and_play(probabilities, strict=False), moves)
        over = replay.is_over
        assert (moves[over] == -1).all() and (moves[~over] >= 0).all()
        replay.play(np.where(moves < 0, 0, moves))
        np.testing.assert_array_equal(first.observations(), replay.observations())


def test_sample_and_play_refuses_weights_on_illegal_moves_only():
    batch = GameBatch(5, 2)
    batch.play(np.array([0, 1]))
    probabilities = np.zeros((2, 26))
    probabilities[0, 0] = probabilities[1, 2] = 1.0  # game 0: only an occupied point
    with pytest.raises(ValueError, match="game 0 puts no probability on a legal move"):
        batch.sample_and_play(probabilities)
    assert batch.state.board[1, 2] != 0  # the other game played
    with pytest.raises(ValueError, match="shape"):
        batch.sample_and_play(np.ones((2, 25)))


def test_sample_and_play_draws_again_after_an_empty_but_illegal_point():
    batch = GameBatch(5, 64, seed=0)
    batch.play(np.full(64, 24))  # Black in a corner
    batch.play(np.full(64, 1))  # White
    batch.play(np.full(64, 23))  # Black
    batch.play(np.full(64, 5))  # White: point 0, empty, is suicide for Black
    probabilities = np.zeros((64, 26))
    probabilities[:, 0] = 1000.0
    probabilities[:, 25] = 1.0
    assert (batch.sample_and_play(probabilities) == 25).all()


def test_area_owners_give_the_score_and_the_mover_view_flips_with_the_side():
    batch = GameBatch(5, 6, Rules(komi=0.5), seed=3)
    batch.random_playouts(seed=4)
    owners = batch.area_owners()
    black_minus_white = (owners == 1).sum(axis=1) - (owners == 2).sum(axis=1)
    np.testing.assert_allclose(black_minus_white - 0.5, batch.scores())
    as_black = owners_for_mover(owners, np.full(6, 1))
    as_white = owners_for_mover(owners, np.full(6, 2))
    np.testing.assert_array_equal(as_black, -as_white)
    np.testing.assert_array_equal(as_black.sum(axis=1), black_minus_white)
    assert as_black.dtype == np.int8 and set(np.unique(as_black)) <= {-1, 0, 1}


def test_take_copies_the_games_asked_in_their_order():
    batch = GameBatch(5, 3, Rules(komi=0.5), seed=0)
    batch.play(np.array([0, 6, 12]))
    batch.play(np.array([1, 25, 13]))
    taken = batch.take(np.array([2, 0]))
    assert (taken.batch_size, taken.size, taken.rules) == (2, 5, Rules(komi=0.5))
    for b, original in enumerate((2, 0)):
        np.testing.assert_array_equal(taken.game(b).board, batch.game(original).board)
    np.testing.assert_array_equal(taken.legal_masks(), batch.legal_masks()[[2, 0]])
    taken.play(np.array([18, 2]))  # a copy: the batch is left alone
    assert batch.state.info[:, 3].tolist() == [2, 2, 2] and taken.state.info[:, 3].tolist() == [3, 3]
    with pytest.raises(IllegalMoveError, match=r"occupied \(game 0\)"):
        taken.play(np.array([12, 0]))  # game 0 of the copy is game 2: 12 is taken
