"""The value network against Monte Carlo rollouts: how well each predicts who wins, and at what cost.

On held-out positions of ``goarena data value`` (the games the training run held out, for the
same ``--held-out`` and ``--seed``), each estimator gives every position a value for its side
to move; its mean squared error against the game's outcome ``z`` is the paper's measure
(its Figure 2b: the value network approached the accuracy of rollouts with the RL policy at
15,000 times less computation). The rollouts are the fast pattern policy's
(``search.rollout``), ``N`` per position, their mean outcome the estimate. Both estimators
start from the positions as a search would hand them over (rebuilt by replaying the games),
so the network's time includes computing its 49 planes. The best constant guess (the mean
of ``z``) is printed as the floor::

    goarena bench value --data data/value-9x9 --weights runs/value/value.pt
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from go_env import Game
from go_env.core import GoState
from goarena.agents.data.dataset import ShardDataset
from goarena.agents.data.value import replay_positions
from goarena.agents.inference.value import ValueNetEvaluator, load_value_net
from goarena.agents.weights import ROLLOUT_9X9
from goarena.search import Leaves
from goarena.search.rollout import PatternRolloutEvaluator

BATCH = 256  # positions per forward pass


@dataclass(frozen=True)
class Estimate:
    """One estimator's accuracy and cost on the benchmark's positions."""

    name: str
    mse: float
    seconds_per_position: float


def leaves_of(games: list[Game]) -> Leaves:
    """Positions as one batch of search leaves."""
    states = GoState(*(np.stack([getattr(game.state, name) for game in games]) for name in GoState._fields))
    legal = np.stack([game.legal_mask() for game in games])
    return Leaves(states, legal, games[0].geometry)


def measure(
    data: Path | str,
    weights: Path | str,
    *,
    positions: int = 256,
    rollouts: int = 100,
    rollout_weights: Path | str = ROLLOUT_9X9,
    held_out: float = 0.05,
    seed: int = 0,
) -> tuple[int, list[Estimate]]:
    """The number of positions measured and the estimates of the value network, ``rollouts``
    pattern rollouts and the best constant on (up to) ``positions`` held-out positions."""
    if positions < 1 or rollouts < 1:
        raise ValueError(f"positions and rollouts must be positive, got {positions} and {rollouts}")
    dataset = ShardDataset(data)
    _, held = dataset.split_by_game(held_out, seed)
    if len(held) == 0:
        raise ValueError(f"held_out={held_out} holds out no game of {len(dataset)} positions")
    chosen = np.sort(np.random.default_rng([seed, 3]).permutation(held)[:positions])
    z = dataset.batch(chosen).outcomes.astype(np.float64)
    leaves = leaves_of(replay_positions(dataset, chosen))
    torch.set_num_threads(1)
    model, _ = load_value_net(weights)
    network = ValueNetEvaluator(model, cache=0)  # each position is timed through the network
    rollout = PatternRolloutEvaluator(rollout_weights, rollouts=rollouts, seed=seed)
    first = leaves_of([replay_positions(dataset, chosen[:1])[0]])
    network.values(first), rollout.values(first)  # compiles and warms up, untimed
    estimates = []
    for name, evaluator in (("value network", network), (f"{rollouts} pattern rollouts", rollout)):
        start = time.perf_counter()
        values = np.concatenate(
            [evaluator.values(_slice(leaves, at, at + BATCH)) for at in range(0, len(chosen), BATCH)]
        )
        seconds = time.perf_counter() - start
        estimates.append(Estimate(name, float(np.mean((values - z) ** 2)), seconds / len(chosen)))
    estimates.append(Estimate("best constant (mean z)", float(np.var(z)), 0.0))
    return len(chosen), estimates


def _slice(leaves: Leaves, start: int, stop: int) -> Leaves:
    states = GoState(*(field[start:stop] for field in leaves.states))
    return Leaves(states, leaves.legal[start:stop], leaves.geometry)


def show(data: Path | str, weights: Path | str, **options: Any) -> None:
    """``goarena bench value``: measure and print the table (``options``: ``measure``'s keywords)."""
    count, estimates = measure(data, weights, **options)
    print(f"Value estimates of {count} held-out positions of {data}, against the games' outcomes (one core)")
    print(f"  {'estimator':<28s} {'MSE':>7s} {'ms/position':>12s}")
    for estimate in estimates:
        print(f"  {estimate.name:<28s} {estimate.mse:7.4f} {estimate.seconds_per_position * 1e3:12.3f}")


# -- the command: ``goarena bench value`` ----------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``goarena bench value``."""
    parser.add_argument("--data", type=Path, required=True, help="value positions (goarena data value)")
    parser.add_argument("--weights", type=Path, required=True, help="the value net (value.pt)")
    parser.add_argument("--positions", type=int, default=256, help="held-out positions scored (default 256)")
    parser.add_argument(
        "--rollouts", type=int, default=100, help="pattern rollouts per position (default 100)"
    )
    parser.add_argument(
        "--rollout-weights", type=Path, default=None, help="rollout policy (default: the shipped 9x9 one)"
    )
    parser.add_argument(
        "--held-out", type=float, default=0.05, help="fraction held out in training (default 0.05)"
    )
    parser.add_argument(
        "--seed", type=int, default=0, help="the training run's seed, for its split (default 0)"
    )


def command(args: argparse.Namespace) -> None:
    """``goarena bench value``: measure and print."""
    show(
        args.data,
        args.weights,
        positions=args.positions,
        rollouts=args.rollouts,
        rollout_weights=args.rollout_weights or ROLLOUT_9X9,
        held_out=args.held_out,
        seed=args.seed,
    )
