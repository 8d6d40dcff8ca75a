"""``goarena bench search`` (``goarena.benchmarks.bench.search_speed``): simulations per second
of each search, batched PUCT's rate, and the Python objects a search leaves behind."""

from __future__ import annotations

from go_env import Game
from goarena.benchmarks.bench.search_speed import SEARCHES, allocations, batched_rate, simulations_per_second


def test_each_search_is_timed_from_a_fresh_tree():
    game = Game(5)
    for name in ("UCT", "PUCT, uniform evaluator, batch 8"):
        assert simulations_per_second(SEARCHES[name](), game, simulations=50, repeat=2) > 0, name


def test_batched_puct_counts_the_simulations_of_every_game_and_its_evaluator_calls():
    simulations, calls = batched_rate(5, games=2, simulations=10, repeat=1, threads=1)
    assert simulations > 0 and 0 < calls <= simulations


def test_a_search_leaves_no_python_object_a_node():
    objects, _ = allocations(Game(5), 400)
    assert objects < 100  # the tree is numba arrays: nothing grows with the simulations
