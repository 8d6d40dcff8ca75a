"""Batched PUCT: one evaluator call per step for all games, each game's tree as PUCT grows it
(PUCT's golden trees included)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from go_env import Game, Rules, coords
from go_env import core as K
from go_env.batch import GameBatch
from goarena.search import PUCT, BatchedPUCT, EvaluatorError, Leaves, UniformEvaluator
from goarena.search.batched_puct import collect_all, expand_backup_all
from tests.boards import position
from tests.go_env.core.test_parallel import (  # the batch kernels' checks
    check_compiled_both_ways,
    check_large_batches_run_in_parallel,
    check_search_batches_run_serially,
)
from tests.search.test_puct import CASES as GOLDEN_CASES
from tests.search.test_puct import GOLDEN as PUCT_GOLDEN
from tests.search.test_puct import FixedEvaluator, _keyed


class FakeNetwork:
    """A torch-free stand-in for a policy-value network: deterministic priors and values per
    leaf, and a record of every call."""

    def __init__(self) -> None:
        self.calls: list[int] = []

    def evaluate(self, leaves: Leaves) -> tuple[np.ndarray, np.ndarray]:
        self.calls.append(len(leaves))
        return _keyed(leaves)


def _opened(batch_size: int, size: int = 5, moves: int = 4, seed: int = 0) -> GameBatch:
    """A batch whose games have played a few random moves each, so that they differ."""
    batch = GameBatch(size, batch_size, seed=seed)
    for _ in range(moves):
        batch.sample_and_play(np.ones((batch_size, batch.num_actions)))
    return batch


def _single(batch: GameBatch, b: int) -> Game:
    """Game ``b`` of the batch as a ``Game`` (its moves unknown: a fresh search either way)."""
    return batch.game(b)


@pytest.mark.slow
def test_one_evaluator_call_per_simulation_step_over_64_games():
    batch = _opened(64, size=9)
    network = FakeNetwork()
    search = BatchedPUCT(network, seed=0)
    moves = search.search(batch, simulations=50)
    assert search.steps == search.evaluations == len(network.calls) == 50
    assert network.calls[0] == 64 and max(network.calls) == 64
    assert search.simulations.tolist() == [50] * 64
    assert (search.visit_counts().sum(axis=1) == 49).all()  # the root's own evaluation aside
    assert batch.legal_masks()[np.arange(64), moves].all()


@pytest.mark.parametrize("leaves_per_game", [1, 8])
def test_each_game_grows_the_tree_puct_grows_alone(leaves_per_game):
    batch = _opened(3)
    search = BatchedPUCT(_keyed, leaves_per_game=leaves_per_game, seed=0)
    moves = search.search(batch, simulations=120)
    for b in range(3):
        puct = PUCT(_keyed, batch=leaves_per_game, seed=0)
        assert puct.search(_single(batch, b), simulations=120) == moves[b]
        np.testing.assert_array_equal(search.visit_counts()[b], puct.visit_counts())
        np.testing.assert_allclose(search.values()[b], puct.values(), atol=1e-12)


def test_one_game_with_noise_matches_puct_with_the_same_seed():
    batch = _opened(1)
    search = BatchedPUCT(_keyed, leaves_per_game=4, noise=0.25, seed=7)
    search.search(batch, simulations=100)
    puct = PUCT(_keyed, batch=4, noise=0.25, seed=7)
    puct.search(_single(batch, 0), simulations=100)
    assert search.trees is not None and puct.tree is not None
    np.testing.assert_allclose(search.trees.prior[0, 0], puct.tree.prior[0])
    np.testing.assert_array_equal(search.visit_counts()[0], puct.visit_counts())


def test_self_play_to_the_end_skips_finished_games():
    batch = GameBatch(5, 8, Rules(max_moves=30), seed=1)
    search = BatchedPUCT(_keyed, seed=1)
    while not batch.is_over.all():
        over = batch.is_over
        search.search(batch, simulations=16)
        assert (search.simulations[over] == 0).all() and (search.simulations[~over] == 16).all()
        distributions = search.visit_distributions(1.0)
        assert np.allclose(distributions.sum(axis=1), np.where(over, 0.0, 1.0))
        np.testing.assert_array_equal(search.policy_targets(), distributions)  # the training target
        search.play(batch, search.choose_moves(temperature=1.0))
    assert (batch.state.info[:, 3] <= 30).all()


def test_the_evaluator_contract_is_checked():
    def logits(leaves: Leaves) -> tuple[np.ndarray, np.ndarray]:
        priors, values = _keyed(leaves)
        return np.log(priors + 1e-12), values

    with pytest.raises(EvaluatorError, match="not logits"):
        BatchedPUCT(logits).search(GameBatch(5, 4), simulations=4)


def test_threads_change_the_speed_only():
    batch = _opened(8)
    counts = []
    for threads in (1, 2, 64):
        search = BatchedPUCT(_keyed, leaves_per_game=4, threads=threads, seed=0)
        search.search(batch, simulations=60)
        counts.append(search.visit_counts())
    np.testing.assert_array_equal(counts[0], counts[1])
    np.testing.assert_array_equal(counts[0], counts[2])
    with pytest.raises(ValueError):
        BatchedPUCT(threads=0)


@pytest.mark.parametrize("leaves_per_game", [1, 4])
def test_a_kept_tree_is_the_subtree_puct_keeps_topped_up_to_the_simulations(leaves_per_game):
    batch = _opened(3)
    games = [_single(batch, b) for b in range(3)]
    search = BatchedPUCT(_keyed, leaves_per_game=leaves_per_game, reuse=True, seed=0)
    puct = [PUCT(_keyed, batch=leaves_per_game, reuse=True, seed=0) for _ in range(3)]
    for b in range(3):
        puct[b].search(games[b], simulations=120)
    moves = search.search(batch, simulations=120)
    kept = search.visit_counts()[np.arange(3), moves]
    search.play(batch, moves)
    for b in range(3):
        games[b].play(int(moves[b]))
    search.search(batch, simulations=120)
    np.testing.assert_array_equal(search.simulations, 120 - kept)  # the kept visits are not paid twice
    assert (search.visit_counts().sum(axis=1) == 119).all()  # the root's own evaluation aside
    for b in range(3):
        puct[b].search(games[b], simulations=int(120 - kept[b]))  # PUCT adds, keeping its subtree too
        np.testing.assert_array_equal(search.visit_counts()[b], puct[b].visit_counts())
        np.testing.assert_allclose(search.values()[b], puct[b].values(), atol=1e-12)


def test_a_tree_is_kept_only_for_the_position_play_left():
    batch = _opened(2)
    search = BatchedPUCT(_keyed, reuse=True, seed=0)
    moves = search.search(batch, simulations=60)
    search.play(batch, moves)
    batch.play(search.search(batch, simulations=60))  # played past the search: no tree is kept
    search.search(batch, simulations=60)
    assert search.simulations.tolist() == [60, 60]
    plain = BatchedPUCT(_keyed, seed=0)
    plain.search(batch, simulations=60)
    plain.play(batch, plain.best_moves())
    plain.search(batch, simulations=60)
    assert plain.simulations.tolist() == [60, 60]  # without reuse, every search starts afresh


def test_self_play_with_reuse_and_noise_fits_the_trees_and_ends():
    batch = GameBatch(5, 8, Rules(max_moves=40), seed=3)
    search = BatchedPUCT(_keyed, reuse=True, noise=0.25, seed=3)
    spent = 0
    while not batch.is_over.all():
        over = batch.is_over
        search.search(batch, simulations=32)
        spent += int(search.simulations.sum())
        assert (search.visit_counts()[~over].sum(axis=1) == 31).all()
        assert np.allclose(search.trees.prior[~over, 0].sum(axis=1), 1.0, atol=1e-5)
        search.play(batch, search.choose_moves(temperature=1.0))
    moves = int(batch.state.info[:, 3].sum())
    assert spent < 32 * moves  # kept subtrees paid part of the visits


@pytest.mark.parametrize("name", [name for name, case in GOLDEN_CASES.items() if not case.replies])
def test_a_batch_of_one_grows_puct_s_golden_tree(name):
    case = GOLDEN_CASES[name]
    game = Game(case.board, case.rules) if isinstance(case.board, int) else position(case.board, case.rules)
    batch = GameBatch(game.size, 1, game.rules)
    K.copy_into(K.state_item(batch.state, 0), game.state)
    evaluator = UniformEvaluator() if case.evaluator == "uniform" else FixedEvaluator()
    search = BatchedPUCT(evaluator, leaves_per_game=case.batch, seed=0)
    move = search.search(batch, simulations=case.simulations)[0]
    expected = json.loads(PUCT_GOLDEN.read_text())[name]
    counts, values = search.visit_counts()[0], search.values()[0]
    visited = np.flatnonzero(counts)
    assert coords.to_gtp(int(move), game.size) == expected["move"]
    assert {coords.to_gtp(int(a), game.size): int(counts[a]) for a in visited} == expected["visits"]
    for a in visited:
        assert values[a] == pytest.approx(expected["values"][coords.to_gtp(int(a), game.size)], abs=1e-9)
    assert search.trees is not None and search.trees.num_nodes[0, 0] == expected["nodes"]


# ---------------------------------------------------------------------------------------
# The search's batch kernels run in parallel only where the batch pays for waking numba's
# threads, as the rules core's do (tests/go_env/core/test_parallel.py).
# ---------------------------------------------------------------------------------------

KERNELS = {"collect_all": collect_all, "expand_backup_all": expand_backup_all}


@pytest.mark.parametrize("name", KERNELS)
def test_every_batch_kernel_is_compiled_serial_and_parallel(name):
    check_compiled_both_ways(KERNELS[name], name)


@pytest.mark.parametrize("name", KERNELS)
@pytest.mark.parametrize("size", [9, 19])
def test_a_search_batch_runs_serially_even_with_many_threads(many_threads, name, size):
    check_search_batches_run_serially(KERNELS[name], size)


@pytest.mark.parametrize("name", KERNELS)
def test_a_large_batch_runs_in_parallel_given_threads(many_threads, name):
    check_large_batches_run_in_parallel(KERNELS[name])
