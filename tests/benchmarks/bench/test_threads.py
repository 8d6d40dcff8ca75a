"""``goarena bench threads`` (``goarena.benchmarks.bench.threads``): each batch kernel serial
against parallel, the variant a call runs and the measured crossover."""

from __future__ import annotations

from goarena.benchmarks.bench import threads
from goarena.benchmarks.bench.threads import Row, crossover, kernels, measure, positions, report


def test_the_crossover_is_the_smallest_batch_from_which_parallel_always_won():
    rows = [Row(1, 1.0, 2.0, False), Row(2, 1.0, 0.5, False), Row(4, 1.0, 1.5, False), Row(8, 2.0, 1.0, True)]
    assert crossover(rows) == 8  # faster at 2, not at 4: only from 8
    assert crossover(rows[:2]) == 2
    assert crossover([Row(1, 1.0, 2.0, False)]) is None


def test_positions_are_mid_game_boards():
    batch = positions(5, 3)
    stones = (batch.state.board[:, :25] != 0).sum(axis=1)  # a capture can take some back
    assert batch.batch_size == 3 and (stones > 0).all() and (stones <= 12).all()


def test_each_kernel_is_timed_both_ways_and_reported_with_the_variant_it_runs():
    kernel = kernels()[0]
    rows = measure(kernel, 5, [1, 2], seconds=0.01)
    assert [row.batch for row in rows] == [1, 2] and all(row.serial > 0 and row.parallel > 0 for row in rows)
    text = report(kernel.name, kernel.kernel, 5, rows)
    assert text.startswith(f"{kernel.name}: parallel from batch ") and len(text.splitlines()) == 4
    assert tuple(sorted(threads.BATCHES)) == threads.BATCHES
