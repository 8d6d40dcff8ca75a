"""How fast the AlphaGo planes are made, and the random mid-game batches the network benches
time on: ``goarena bench networks`` prints these figures; alone,
``python -m goarena.benchmarks.bench.feature_speed [--size 9] [--batch 256]``.

Prints positions per second for one position at a time and for a batch, over mid-game
positions of random games (compilation excluded). It lived in ``go_env.features`` until it
made the features stand on ``go_env.batch``, above them.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from go_env.batch import GameBatch
from go_env.core import state_item
from go_env.features.alphago import alphago_planes, batch_alphago_planes, new_alphago_planes


def random_batch(size: int, batch_size: int, moves: int, seed: int = 0) -> GameBatch:
    """``batch_size`` games after ``moves`` random moves each (no passes while others are legal)."""
    batch = GameBatch(size, batch_size, seed=seed)
    weights = np.ones((batch_size, batch.num_actions))
    weights[:, -1] = 1e-9
    for _ in range(moves):
        batch.sample_and_play(weights, strict=False)
    return batch


def measure(size: int, batch_size: int, seconds: float = 1.0) -> tuple[float, float]:
    """(positions per second one at a time, positions per second in batches)."""
    batch = random_batch(size, batch_size, moves=size * size // 2)
    one = new_alphago_planes(size)
    out = new_alphago_planes(size, batch=batch_size)
    states = [state_item(batch.state, b) for b in range(batch_size)]
    alphago_planes(states[0], batch.geometry, one)  # compile outside the clock
    batch_alphago_planes(batch.state, batch.geometry, out)

    def rate(step: Callable[[], None], per_step: int) -> float:
        done, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            step()
            done += per_step
        return done / (time.perf_counter() - start)

    def each() -> None:
        for state in states:
            alphago_planes(state, batch.geometry, one)

    def together() -> None:
        batch_alphago_planes(batch.state, batch.geometry, out)

    return rate(each, batch_size), rate(together, batch_size)


def main() -> None:
    parser = argparse.ArgumentParser(description="How fast the AlphaGo planes are made.")
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--batch", type=int, default=256)
    args = parser.parse_args()
    single, batched = measure(args.size, args.batch)
    print(
        f"{args.size}x{args.size} AlphaGo planes: {single:,.0f} positions/s one at a time, "
        f"{batched:,.0f} positions/s in batches of {args.batch}"
    )


if __name__ == "__main__":
    main()
