"""``goarena bench networks``: the network stage's speeds, measured in one run.

- AlphaGo's feature planes: positions per second, one position at a time and in a batch;
- the SL policy network: evaluations per second at batch 1 and batch 64 (forward pass only,
  and with the planes made too), on one torch thread by default;
- the rollout policy: moves per second of whole pattern playouts in numba, against uniformly
  random playouts in the same run (the AlphaGo paper: 2 µs per rollout move, 3 ms per network call).

Positions are mid-game positions of random games on the board of the networks' size.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

import torch

from go_env.features.alphago import batch_alphago_planes, new_alphago_planes
from go_env.features.patterns import load_weights
from goarena.agents.inference import load_policy_net
from goarena.agents.nets.predict import policy_logits, set_torch_threads
from goarena.agents.weights import ROLLOUT_9X9, SL_POLICY_9X9
from goarena.benchmarks.bench import add_seconds
from goarena.benchmarks.bench.feature_speed import measure as feature_speed
from goarena.benchmarks.bench.feature_speed import random_batch
from goarena.search.rollout import playout_speed

BATCHES = (1, 64)


def rate(step: Callable[[], object], per_step: int, seconds: float) -> float:
    """Items per second of ``step`` (``per_step`` items each) run for about ``seconds``."""
    step()  # warm up outside the clock
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        step()
        done += per_step
    return done / (time.perf_counter() - start)


def policy_speed(
    weights: Path | str, batch_size: int, seconds: float, device: str = "cpu"
) -> tuple[float, float]:
    """(network evaluations per second, evaluations per second with the planes made too)."""
    model, _ = load_policy_net(weights, device)
    batch = random_batch(model.board_size, batch_size, moves=model.board_size**2 // 2)
    planes = new_alphago_planes(model.board_size, batch=batch_size)
    batch_alphago_planes(batch.state, batch.geometry, planes)

    def with_planes() -> None:
        batch_alphago_planes(batch.state, batch.geometry, planes)
        policy_logits(model, planes)

    return rate(lambda: policy_logits(model, planes), batch_size, seconds), rate(
        with_planes, batch_size, seconds
    )


def show(
    policy: Path | str | None = None,
    rollout: Path | str | None = None,
    seconds: float = 3.0,
    threads: int = 1,
    device: str = "cpu",
    playouts: int = 200,
) -> None:
    """Measure and print every figure (see the module documentation); the networks default to
    the shipped 9x9 ones."""
    policy = policy or SL_POLICY_9X9
    rollout = rollout or ROLLOUT_9X9
    set_torch_threads(threads)
    rollout_policy, size = load_weights(rollout)
    single, batched = feature_speed(size, 256, seconds)
    print(f"{size}x{size}, torch on {device} with {torch.get_num_threads()} thread(s)")
    print(
        f"  feature planes      {single:12,.0f} positions/s one at a time, {batched:,.0f} in batches of 256"
    )
    rates = {}
    for batch_size in BATCHES:
        network, whole = rates[batch_size] = policy_speed(policy, batch_size, seconds, device)
        print(
            f"  SL policy, batch {batch_size:<3d} {network:12,.0f} evaluations/s "
            f"({1e3 * batch_size / network:.2f} ms a call); {whole:,.0f}/s with the planes"
        )
    pattern, uniform = playout_speed(rollout_policy, size, playouts)
    print(f"  pattern playouts    {pattern:12,.0f} moves/s ({1e6 / pattern:.2f} µs a move)")
    print(f"  random playouts     {uniform:12,.0f} moves/s ({1e6 / uniform:.3f} µs a move)")
    print(
        f"  a pattern move costs {uniform / pattern:.1f} random moves; one batch-1 network call "
        f"with its planes, {pattern / rates[1][1]:,.0f} pattern moves"
    )


# -- the command: ``goarena bench networks`` ----------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``goarena bench networks``."""
    parser.add_argument("--policy", type=Path, default=None, help="policy.pt (default: the shipped 9x9)")
    parser.add_argument("--rollout", type=Path, default=None, help="rollout.npz (default: the shipped 9x9)")
    add_seconds(parser, 3.0)
    parser.add_argument("--threads", type=int, default=1, help="torch's CPU threads (default 1)")
    parser.add_argument("--device", default="cpu", help="cpu (default) or cuda")


def command(args: argparse.Namespace) -> None:
    """``goarena bench networks``: measure and print."""
    show(args.policy, args.rollout, args.seconds, args.threads, args.device)
