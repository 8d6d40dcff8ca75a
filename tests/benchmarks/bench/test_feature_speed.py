"""The feature-plane timing and the random mid-game batches the network benches share."""

import numpy as np

from goarena.benchmarks.bench.feature_speed import measure, random_batch


def test_a_random_batch_is_in_mid_game_and_reproducible():
    one, two = random_batch(5, 3, moves=6, seed=1), random_batch(5, 3, moves=6, seed=1)
    assert np.array_equal(one.state.board, two.state.board)
    assert (one.state.board[:, :25] != 0).sum(axis=1).min() > 0  # stones on every board (the pass slot apart)


def test_measure_gives_two_rates():
    single, batched = measure(5, 4, seconds=0.01)
    assert single > 0 and batched > 0
