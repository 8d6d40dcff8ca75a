"""Tree-search speed: UCT playouts and PUCT simulations per second, on one core; batched PUCT
over B games against one game at a time; and the Python objects a search allocates (none
per node: the tree is numba arrays).

    goarena bench search
    goarena bench search --size 19 --simulations 5000

Each rate is the best of ``--repeat`` searches of ``--simulations`` from the empty board,
every one from a fresh tree, after a warm-up search that compiles the kernels. Batched PUCT
searches ``--batched-simulations`` in each of B games, one evaluator call per step for all.
"""

from __future__ import annotations

import argparse
import gc
import time
import tracemalloc
from collections.abc import Callable

import numba
import numpy as np

from go_env import Game
from go_env.batch import GameBatch
from goarena.search import PUCT, UCT, BatchedPUCT, RolloutEvaluator, TreeSearch, UniformEvaluator

SEARCHES: dict[str, Callable[[], TreeSearch]] = {
    "UCT": lambda: UCT(seed=0),
    "UCT, RAVE": lambda: UCT(rave=True, seed=0),
    "PUCT, uniform evaluator, batch 1": lambda: PUCT(UniformEvaluator(), batch=1, seed=0),
    "PUCT, uniform evaluator, batch 8": lambda: PUCT(UniformEvaluator(), batch=8, seed=0),
    "PUCT, uniform evaluator, batch 64": lambda: PUCT(UniformEvaluator(), batch=64, seed=0),
    "PUCT, rollout evaluator, batch 8": lambda: PUCT(RolloutEvaluator(seed=0), batch=8, seed=0),
}


def simulations_per_second(searcher: TreeSearch, game: Game, simulations: int, repeat: int) -> float:
    """Best rate over ``repeat`` searches, each from a fresh tree."""
    searcher.search(game, simulations=min(simulations, 100))
    best = 0.0
    for _ in range(repeat):
        searcher.reset()
        start = time.perf_counter()
        searcher.search(game, simulations=simulations)
        best = max(best, searcher.simulations / (time.perf_counter() - start))
    return best


def batched_rate(size: int, games: int, simulations: int, repeat: int, threads: int) -> tuple[float, float]:
    """(simulations/s over all games, evaluator calls/s): the best of ``repeat`` batched
    searches of ``simulations`` in each of ``games`` empty boards, uniform evaluator."""
    batch = GameBatch(size, games)
    search = BatchedPUCT(UniformEvaluator(), seed=0, threads=threads)
    search.search(batch, simulations=min(simulations, 20))
    best = (0.0, 0.0)
    for _ in range(repeat):
        start = time.perf_counter()
        search.search(batch, simulations=simulations)
        elapsed = time.perf_counter() - start
        best = max(best, (int(np.sum(search.simulations)) / elapsed, search.evaluations / elapsed))
    return best


def allocations(game: Game, simulations: int) -> tuple[int, int]:
    """(gc-tracked objects, bytes traced by tracemalloc) that one UCT search leaves behind,
    its tree allocated beforehand."""
    uct = UCT(seed=0, capacity=simulations + 1)
    uct.search(game, simulations=10)
    uct.reset()
    gc.collect()
    objects = len(gc.get_objects())
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    uct.search(game, simulations=simulations)
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    gc.collect()
    return len(gc.get_objects()) - objects, after - before


def show(size: int, simulations: int, repeat: int, batched_simulations: int) -> None:
    """``goarena bench search``: print every table of this module's documentation."""
    game = Game(size)
    print(f"Search speed on {size}x{size} from the empty board, one core")
    rates = {}
    for name, make in SEARCHES.items():
        rate = rates[name] = simulations_per_second(make(), game, simulations, repeat)
        unit = "playouts/s" if name.startswith("UCT") else "simulations/s"
        print(f"  {name:<36s} {rate:>10,.0f} {unit}")
    one_at_a_time = rates["PUCT, uniform evaluator, batch 1"]
    print(f"\nBatched PUCT over B games, uniform evaluator, {batched_simulations} simulations a game")
    row = "  {:>5} {:>7}  {:>13}  {:>17}  {:>9}  {}"
    print(row.format("games", "threads", "simulations/s", "evaluator calls/s", "vs PUCT", ""))
    print(
        row.format(
            1, 1, f"{one_at_a_time:,.0f}", f"{one_at_a_time:,.0f}", "1.00x", "one game at a time (PUCT)"
        )
    )
    for games in (1, 16, 64):
        for threads in sorted({1, min(2, numba.get_num_threads()), numba.get_num_threads()}):
            if threads > games:
                continue
            rate, calls = batched_rate(size, games, batched_simulations, repeat, threads)
            print(
                row.format(
                    games, threads, f"{rate:,.0f}", f"{calls:,.0f}", f"{rate / one_at_a_time:.2f}x", ""
                )
            )
    print("\nPython objects one UCT search leaves behind (tree preallocated)")
    print(f"  {'simulations':>11s}  {'gc objects':>10s}  {'traced bytes':>12s}")
    for count in (simulations // 10, simulations):
        objects, traced = allocations(game, count)
        print(f"  {count:>11,d}  {objects:>+10d}  {traced:>+12,d}")


# -- the command: ``goarena bench search`` ----------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``goarena bench search``."""
    parser.add_argument("--size", type=int, default=9, help="board size (default 9)")
    parser.add_argument("--simulations", type=int, default=20000, help="per timed search (default 20000)")
    parser.add_argument("--repeat", type=int, default=3, help="timed searches per row (default 3)")
    parser.add_argument(
        "--batched-simulations", type=int, default=400, help="per game in batched PUCT (default 400)"
    )


def command(args: argparse.Namespace) -> None:
    """``goarena bench search``: measure and print."""
    show(args.size, args.simulations, args.repeat, args.batched_simulations)
