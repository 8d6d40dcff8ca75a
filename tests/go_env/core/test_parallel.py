"""Batch kernels run in parallel only where the batch pays for waking numba's threads: a
search's few leaves a call run on the serial variant, whatever numba's thread count. (The
search's own batch kernels are checked alike in ``tests/search/test_batched_puct.py``.)"""

from __future__ import annotations

import numba
import numpy as np
import pytest

from go_env import core as K
from go_env.batch import GameBatch
from go_env.core.parallel import BatchKernel, batch_kernel
from go_env.features.alphago import batch_alphago_planes, new_alphago_planes
from go_env.features.history import batch_history_planes

KERNELS = {
    "batch_reset": K.batch_reset,
    "batch_reset_where": K.batch_reset_where,
    "batch_play": K.batch_play,
    "batch_legal_mask": K.batch_legal_mask,
    "batch_random_playout": K.batch_random_playout,
    "batch_score": K.batch_score,
    "batch_sample_and_play": K.batch_sample_and_play,
    "batch_alphago_planes": batch_alphago_planes,
    "batch_history_planes": batch_history_planes,
}


def check_compiled_both_ways(kernel: BatchKernel, name: str) -> None:
    assert isinstance(kernel, BatchKernel) and kernel.__name__ == name
    # numba names its cache files after the function, not its flags: the variants must differ.
    assert kernel.serial._cache._cache_file._index_name != kernel.parallel._cache._cache_file._index_name


def check_search_batches_run_serially(kernel: BatchKernel, size: int) -> None:
    for leaves in (1, 8, 16):  # PUCT's batches: 8 by default, 16 at most in the benches
        assert kernel.variant(leaves, size * size) is kernel.serial


def check_large_batches_run_in_parallel(kernel: BatchKernel) -> None:
    assert kernel.variant(4096, 19 * 19) is kernel.parallel


@pytest.mark.parametrize("name", KERNELS)
def test_every_batch_kernel_is_compiled_serial_and_parallel(name):
    check_compiled_both_ways(KERNELS[name], name)


# What searches and players call on a few positions at a time (random playouts of a batch
# are the environments' and the benches').
SEARCH_KERNELS = [name for name in KERNELS if name != "batch_random_playout"]


@pytest.mark.parametrize("name", SEARCH_KERNELS)
@pytest.mark.parametrize("size", [9, 19])
def test_a_search_batch_runs_serially_even_with_many_threads(many_threads, name, size):
    check_search_batches_run_serially(KERNELS[name], size)


@pytest.mark.parametrize("name", KERNELS)
def test_a_large_batch_runs_in_parallel_given_threads(many_threads, name):
    check_large_batches_run_in_parallel(KERNELS[name])


def test_one_thread_always_runs_serially(monkeypatch):
    monkeypatch.setattr(numba, "get_num_threads", lambda: 1)
    assert batch_alphago_planes.variant(4096, 361) is batch_alphago_planes.serial


def test_a_call_runs_the_variant_its_batch_picks(many_threads, monkeypatch):
    picked = []
    original = BatchKernel.variant

    def spy(self, games, points):
        chosen = original(self, games, points)
        picked.append((games, points, chosen is self.parallel))
        return chosen

    batch = GameBatch(9, 3, seed=0)
    planes = new_alphago_planes(9, batch=3)
    monkeypatch.setattr(BatchKernel, "variant", spy)
    batch_alphago_planes(batch.state, batch.geometry, planes)
    assert picked == [(3, 81, False)]


def test_both_variants_give_the_same_planes_and_playouts():
    batch = GameBatch(7, 5, seed=1)
    weights = np.ones((5, batch.num_actions))
    for _ in range(12):
        batch.sample_and_play(weights, strict=False)
    planes = [new_alphago_planes(7, True, 5) for _ in range(2)]
    batch_alphago_planes.serial(batch.state, batch.geometry, planes[0])
    batch_alphago_planes.parallel(batch.state, batch.geometry, planes[1])
    np.testing.assert_array_equal(*planes)
    seeds = np.arange(1, 6, dtype=np.uint64)
    boards = []
    for variant in (K.batch_random_playout.serial, K.batch_random_playout.parallel):
        state = K.GoState(*(field.copy() for field in batch.state))
        variant(state, batch.geometry, seeds, np.zeros(5, np.int64))
        boards.append(state.board)
    np.testing.assert_array_equal(*boards)


def test_a_threshold_must_be_positive():
    with pytest.raises(ValueError, match="min_work counts games times points"):
        batch_kernel(0)(lambda batch: None)
