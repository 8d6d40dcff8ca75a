"""``goarena bench threads``: each batch kernel serial against parallel, by batch size.

Every kernel over a batch of games is compiled twice (``go_env.core.parallel``): a call runs
the parallel variant only when numba has several threads and the batch's games times board
points reach the kernel's threshold. This bench times both variants on the same mid-game
positions (random games, half the board played) for each batch size, and prints per kernel:

- the mean time of a call, serial and parallel, and their ratio (above 1: parallel is faster);
- the variant a call of that size runs (``*``);
- the crossover: the smallest batch from which the parallel variant was faster at every
  larger size measured, against the threshold in use.

    goarena bench threads
    goarena bench threads --size 19 --batches 1 4 16 64 --seconds 0.5

Parallel calls wake numba's thread pool; on busy cores they wait for the operating system to
run every worker, so the figures depend on how busy the machine is (the bench prints the
load average before and after).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

import numba
import numpy as np

from go_env import core as K
from go_env.batch import GameBatch
from go_env.core import GoState
from go_env.core.parallel import BatchKernel
from go_env.features.alphago import batch_alphago_planes, new_alphago_planes
from go_env.features.history import batch_history_planes, new_history_planes
from goarena.benchmarks.bench import add_seconds

BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256)


@dataclass
class Row:
    """One kernel at one batch size: mean seconds a call, serial and parallel."""

    batch: int
    serial: float
    parallel: float
    picks_parallel: bool

    @property
    def speedup(self) -> float:
        return self.serial / self.parallel


# ``prepare(batch)`` gives ``timed(variant)``: the seconds of one call of a variant.
Prepare = Callable[[GameBatch], Callable[[Callable[..., object]], float]]


@dataclass
class Kernel:
    """A kernel to time, on the arguments ``prepare`` makes for a batch (a kernel that
    changes the batch gets a copy made before the clock starts)."""

    name: str
    kernel: BatchKernel
    prepare: Prepare


def _time(variant: Callable[..., object], *args: object) -> float:
    start = time.perf_counter()
    variant(*args)
    return time.perf_counter() - start


def _reads(make_args: Callable[[GameBatch], tuple]) -> Prepare:
    """A kernel that only reads the batch: the same arguments every call."""

    def prepare(batch: GameBatch) -> Callable[[Callable[..., object]], float]:
        args = make_args(batch)
        return lambda variant: _time(variant, *args)

    return prepare


def _writes(make_args: Callable[[GameBatch], tuple]) -> Prepare:
    """A kernel that changes the batch's state (its first argument): a copy for each call."""

    def prepare(batch: GameBatch) -> Callable[[Callable[..., object]], float]:
        state, *rest = make_args(batch)
        return lambda variant: _time(variant, GoState(*(field.copy() for field in state)), *rest)

    return prepare


def kernels() -> list[Kernel]:
    """The batch kernels the environments, the searches and the networks' inputs call."""
    return [
        Kernel(
            "alphago planes",
            batch_alphago_planes,
            _reads(lambda b: (b.state, b.geometry, new_alphago_planes(b.size, True, b.batch_size))),
        ),
        Kernel(
            "history planes",
            batch_history_planes,
            _reads(lambda b: (b.state, b.geometry, np.stack([new_history_planes(b.size)] * b.batch_size))),
        ),
        Kernel(
            "legal masks",
            K.batch_legal_mask,
            _reads(lambda b: (b.state, b.geometry, np.zeros((b.batch_size, b.num_actions), np.int8))),
        ),
        Kernel("scores", K.batch_score, _reads(lambda b: (b.state, b.geometry, np.zeros(b.batch_size)))),
        Kernel(
            "play a move",
            K.batch_play,
            _writes(
                lambda b: (
                    b.state,
                    b.geometry,
                    np.full(b.batch_size, b.num_actions - 1, np.int64),
                    np.zeros(b.batch_size, np.int64),
                )
            ),
        ),
        Kernel(
            "sample and play",
            K.batch_sample_and_play,
            _writes(
                lambda b: (
                    b.state,
                    b.geometry,
                    np.ones((b.batch_size, b.num_actions)),
                    np.arange(1, b.batch_size + 1, dtype=np.uint64),
                    np.zeros(b.batch_size, np.int64),
                )
            ),
        ),
        Kernel(
            "random playouts",
            K.batch_random_playout,
            _writes(
                lambda b: (
                    b.state,
                    b.geometry,
                    np.arange(1, b.batch_size + 1, dtype=np.uint64),
                    np.zeros(b.batch_size, np.int64),
                )
            ),
        ),
    ]


def positions(size: int, batch_size: int, seed: int = 0) -> GameBatch:
    """``batch_size`` games with half the board played at random (no passes while others are legal)."""
    batch = GameBatch(size, batch_size, seed=seed)
    weights = np.ones((batch_size, batch.num_actions))
    weights[:, -1] = 1e-9
    for _ in range(size * size // 2):
        batch.sample_and_play(weights, strict=False)
    return batch


def _mean_seconds(timed: Callable[[Callable], float], variant: Callable, seconds: float) -> float:
    """The median over five rounds of a call's mean time, each round about ``seconds / 5``."""
    timed(variant)  # compile (or load) outside the clock
    means = []
    for _ in range(5):
        spent, calls = 0.0, 0
        while spent < seconds / 5 or calls < 3:
            spent += timed(variant)
            calls += 1
        means.append(spent / calls)
    return statistics.median(means)


def measure(kernel: Kernel, size: int, batches: list[int], seconds: float) -> list[Row]:
    """Both variants of ``kernel`` at every batch size, on the same positions."""
    rows = []
    for batch_size in batches:
        call = kernel.prepare(positions(size, batch_size))
        serial = _mean_seconds(call, kernel.kernel.serial, seconds)
        parallel = _mean_seconds(call, kernel.kernel.parallel, seconds)
        picks = kernel.kernel.variant(batch_size, size * size) is kernel.kernel.parallel
        rows.append(Row(batch_size, serial, parallel, picks))
    return rows


def crossover(rows: list[Row]) -> int | None:
    """The smallest batch from which the parallel variant was faster at every larger size
    (None: it never was, up to the last)."""
    found = None
    for row in reversed(rows):
        if row.speedup <= 1.0:
            break
        found = row.batch
    return found


def report(name: str, kernel: BatchKernel, size: int, rows: list[Row]) -> str:
    points = size * size
    threshold = -(-kernel.min_work // points)  # the smallest batch that runs in parallel
    found = crossover(rows)
    lines = [
        f"{name}: parallel from batch {threshold} (min_work {kernel.min_work:,} game-points); "
        + (f"measured crossover at batch {found}" if found is not None else "parallel was never faster")
    ]
    lines.append(f"  {'batch':>6s} {'serial µs':>12s} {'parallel µs':>12s} {'serial/parallel':>16s}")
    for row in rows:
        mark = "*" if row.picks_parallel else " "
        lines.append(
            f"  {row.batch:6d} {row.serial * 1e6:12,.1f} {row.parallel * 1e6:12,.1f}"
            f" {row.speedup:15.2f}x {mark}"
        )
    return "\n".join(lines)


def show(size: int = 9, batches: list[int] | None = None, seconds: float = 0.2) -> None:
    """Measure and print every kernel (see the module documentation)."""
    batches = sorted(batches or BATCHES)
    threads = numba.get_num_threads()
    load = os.getloadavg()[0]
    print(
        f"{size}x{size} batch kernels, serial against parallel on {threads} numba thread(s); "
        f"{os.cpu_count()} cores, load average {load:.2f}"
    )
    if threads == 1:
        print("  (one numba thread: the parallel variant runs on it alone; NUMBA_NUM_THREADS sets more)")
    print("  * the variant a call of that batch runs is the parallel one")
    for kernel in kernels():
        print()
        print(report(kernel.name, kernel.kernel, size, measure(kernel, size, batches, seconds)))
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")


# -- the command: ``goarena bench threads`` ----------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``goarena bench threads``."""
    parser.add_argument("--size", type=int, default=9, help="board size (default 9)")
    parser.add_argument(
        "--batches", type=int, nargs="+", default=None, help="batch sizes (default 1 2 4 ... 256)"
    )
    add_seconds(parser, 0.2, "time per measurement: a variant at a batch size")


def command(args: argparse.Namespace) -> None:
    """``goarena bench threads``: measure and print."""
    show(args.size, args.batches, args.seconds)
