"""``goarena train value``: AlphaGo's value network, regressed on self-play outcomes.

Stochastic gradient descent on the mean squared error between the network's tanh output and
the outcome ``z`` of the position's game for its side to move, on the positions of
``goarena data value`` (one per game, so that the network cannot learn games by heart), each
minibatch position under a random one of the board's 8 symmetries. The optimizer is Adam, its
rate decayed along a half cosine over the run (``--lr-schedule constant`` keeps it fixed),
as in ``train sl``. Games are split into training and held-out games; since every game gives
one position, that is a split of positions. The checkpoint with the lowest held-out MSE (the
loop keeps the highest ``negative_mse``) is exported as ``value.pt``; its MSE on every
held-out position is printed and saved as ``metrics.json``, beside the MSE of the best
constant guess (the training outcomes' mean), the floor a network has to beat.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from goarena.agents.data.dataset import PositionBatch, ShardDataset
from goarena.agents.nets.checkpoint import save_model
from goarena.agents.nets.value import VALUE_PLANES, ValueNet
from goarena.agents.training.loop import (
    Schedule,
    add_config_options,
    check_config,
    cosine_lr,
    held_out_split,
    run_job,
    run_training,
    set_lr,
    step_rng,
)

EVAL_BATCH = 512
WEIGHTS = "value.pt"


@dataclass(frozen=True)
class ValueConfig:
    """A run of the value job: its data, network and schedule (the run's config.json).

    Attributes:
        data: the shard directory (``goarena data value``).
        layers, filters, hidden: the network (``ValueNet``).
        steps, batch_size, lr: minibatches, positions per minibatch, Adam's learning rate.
        lr_schedule: "cosine" (decayed to 2% of ``lr`` by the last step) or "constant".
        seed: of the weights, the split, the data order and the augmentation.
        held_out: the fraction of games (positions) held out.
        checkpoint_every: steps between checkpoints (each scored on held-out positions).
        log_every: steps between TensorBoard points of the training loss.
        eval_positions: held-out positions scored at each checkpoint (all of them at the end).
    """

    data: str
    layers: int = 6
    filters: int = 64
    hidden: int = 256
    steps: int = 4000
    batch_size: int = 64
    lr: float = 1e-3
    lr_schedule: str = "cosine"
    seed: int = 0
    held_out: float = 0.05
    checkpoint_every: int = 500
    log_every: int = 50
    eval_positions: int = 4096

    def __post_init__(self) -> None:
        check_config(
            self,
            (
                "layers",
                "filters",
                "hidden",
                "steps",
                "batch_size",
                "checkpoint_every",
                "log_every",
                "eval_positions",
            ),
        )


class ValueJob:
    """The value network on ``dataset``'s positions, for ``loop.train``."""

    def __init__(self, dataset: ShardDataset, config: ValueConfig, device: torch.device):
        if dataset.num_planes != VALUE_PLANES:
            raise ValueError(
                f"the shards in {dataset.directory} hold {dataset.num_planes} planes, not the value "
                f"network's {VALUE_PLANES}: generate them with goarena data value"
            )
        self.dataset = dataset
        self.config = config
        self.device = device
        split = held_out_split(
            dataset, config.held_out, config.batch_size, config.eval_positions, config.seed
        )
        self.sampler, self.held_out, self.eval_sample = split.sampler, split.held_out, split.eval_sample
        self.model = ValueNet(
            dataset.board_size, layers=config.layers, filters=config.filters, hidden=config.hidden
        ).to(device)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=config.lr)

    def _tensors(self, batch: PositionBatch) -> tuple[torch.Tensor, torch.Tensor]:
        planes = torch.as_tensor(batch.planes, dtype=torch.float32, device=self.device)
        return planes, torch.as_tensor(batch.outcomes, dtype=torch.float32, device=self.device)

    def train_step(self, step: int) -> dict[str, float]:
        batch = self.dataset.batch(
            self.sampler.batch(step), rng=step_rng(self.config.seed, step), augment=True
        )
        planes, outcomes = self._tensors(batch)
        if self.config.lr_schedule == "cosine":
            set_lr(self.optimizer, cosine_lr(self.config.lr, step, self.config.steps))
        loss = F.mse_loss(self.model(planes), outcomes)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.optimizer.step()
        return {"mse": loss.item()}

    def evaluate(self, indices: np.ndarray | None = None) -> dict[str, float]:
        """MSE (and its negative, which the loop maximises) on held-out positions (default:
        the checkpoints' sample)."""
        indices = self.eval_sample if indices is None else indices
        total = 0.0
        with torch.inference_mode():
            for start in range(0, len(indices), EVAL_BATCH):
                planes, outcomes = self._tensors(self.dataset.batch(indices[start : start + EVAL_BATCH]))
                total += F.mse_loss(self.model(planes), outcomes, reduction="sum").item()
        mse = total / len(indices)
        return {"mse": mse, "negative_mse": -mse}

    def export(self, directory: Path, best: dict[str, Any]) -> dict[str, Any]:
        """``value.pt``, its MSE on every held-out position and the best constant's."""
        save_model(directory / WEIGHTS, self.model)
        return {
            "held_out_mse": self.evaluate(self.held_out)["mse"],
            "constant_mse": self.constant_mse(),
            "held_out_positions": len(self.held_out),
            "weights": WEIGHTS,
        }

    def constant_mse(self) -> float:
        """The held-out MSE of the best constant: the mean outcome of the training positions."""
        outcomes = self.dataset.batch(self.sampler.indices).outcomes
        held_out = self.dataset.batch(self.held_out).outcomes
        return float(np.mean((held_out - outcomes.mean()) ** 2))


def train_value(
    config: ValueConfig,
    run_dir: Path | str,
    *,
    device: str = "cpu",
    threads: int = 1,
    progress: bool = True,
) -> dict[str, Any]:
    """Train (or resume) the value run in ``run_dir``, export ``value.pt`` and return (and
    save as metrics.json) the exported network's held-out metrics (``loop.run_training``)."""
    schedule = Schedule(config.steps, config.checkpoint_every, config.log_every, best_metric="negative_mse")

    def build(where: torch.device) -> ValueJob:
        return ValueJob(ShardDataset(config.data), config, where)

    return run_training(
        config, run_dir, build, schedule, device=device, threads=threads, progress=progress, data=config.data
    )


def parser() -> argparse.ArgumentParser:
    defaults = ValueConfig(data="")
    parser = argparse.ArgumentParser(
        prog="goarena train value",
        description="Train AlphaGo's value network on self-play outcomes (resumable).",
    )
    parser.add_argument("--data", required=True, help="the shard directory (goarena data value)")
    parser.add_argument("--run", required=True, type=Path, help="the run directory (the same one resumes)")
    add_config_options(
        parser,
        defaults,
        (
            ("layers", "convolutions in all"),
            ("filters", "channels of the convolutions"),
            ("hidden", "units of the fully connected layer"),
            ("steps", "minibatches to train on"),
            ("batch-size", "positions per minibatch"),
            ("lr", "Adam's learning rate"),
            ("lr-schedule", "cosine (decayed over the run) or constant"),
            ("seed", "seed of weights, split, data order and augmentation"),
            ("held-out", "fraction of the games held out"),
            ("checkpoint-every", "steps between checkpoints"),
            ("log-every", "steps between TensorBoard points"),
            ("eval-positions", "held-out positions scored at each checkpoint"),
        ),
    )
    return parser


def main(argv: list[str]) -> None:
    """``goarena train value ...``: train, then print the held-out MSE."""
    args = parser().parse_args(argv)
    metrics = run_job("value", args, ValueConfig, train_value)
    print(
        f"held-out ({metrics['held_out_positions']} positions, best checkpoint at step {metrics['step']}): "
        f"MSE {metrics['held_out_mse']:.4f} (the best constant: {metrics['constant_mse']:.4f})"
    )
    print(f"weights {args.run / 'value.pt'} (sha256 {metrics['sha256'][:16]}...)")
    print(f"metrics {args.run / 'metrics.json'}")
