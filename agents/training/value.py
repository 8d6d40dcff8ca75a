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

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from goarena.agents.data.dataset import ShardDataset
from goarena.agents.declared import option, positive
from goarena.agents.nets.checkpoint import save_model
from goarena.agents.nets.value import ValueNet
from goarena.agents.training import loop
from goarena.agents.training.config import NetworkConfig
from goarena.agents.training.loop import run_training
from goarena.agents.training.supervised import SupervisedJob

DESCRIPTION = "Train AlphaGo's value network on self-play outcomes (resumable)."
WEIGHTS = "value.pt"


@dataclass(frozen=True, kw_only=True)
class ValueConfig(NetworkConfig):
    """A run of the value job (the run's config.json): ``NetworkConfig``'s fields, the network
    a ``ValueNet``; the seed draws the weights, the split, the data order and the augmentation.

    Attributes:
        data: the shard directory (``goarena data value``).
        hidden: the units of the network's fully connected layer.
    """

    data: str = option(help="the shard directory (goarena data value)")
    hidden: int = option(256, "units of the fully connected layer", check=positive)


class ValueJob(SupervisedJob):
    """The value network on ``dataset``'s positions, for ``loop.train``."""

    data_command = "goarena data value"
    target, target_dtype = "outcomes", torch.float32

    def __init__(self, dataset: ShardDataset, config: ValueConfig, device: torch.device):
        model = ValueNet(
            dataset.board_size, layers=config.layers, filters=config.filters, hidden=config.hidden
        )
        super().__init__(dataset, config, device, model)

    def loss(self, indices: np.ndarray, step: int) -> tuple[torch.Tensor, dict[str, float]]:
        planes, outcomes = self.planes_and_targets(indices, step)
        loss = F.mse_loss(self.model(planes), outcomes)
        return loss, {"mse": loss.item()}

    def sums(self, indices: np.ndarray) -> tuple[dict[str, float], int]:
        planes, outcomes = self.planes_and_targets(indices)
        return {"mse": F.mse_loss(self.model(planes), outcomes, reduction="sum").item()}, len(outcomes)

    def evaluate(self, indices: np.ndarray | None = None) -> dict[str, float]:
        """MSE (and its negative, which the loop maximises) on held-out positions (default:
        the checkpoints' sample)."""
        mse = super().evaluate(indices)["mse"]
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


def train_value(config: ValueConfig, run_dir: Path | str, **run: Any) -> dict[str, Any]:
    """Train (or resume) the value run in ``run_dir``, export ``value.pt`` and return (and save
    as metrics.json) the exported network's held-out metrics. ``run``: ``loop.run_training``'s
    keywords (device, threads, progress)."""

    def build(device: torch.device) -> ValueJob:
        return ValueJob(ShardDataset(config.data), config, device)

    return run_training(config, run_dir, build, "negative_mse", data=config.data, **run)


def summary(metrics: dict[str, Any], run: Path) -> list[str]:
    return [
        f"held-out ({metrics['held_out_positions']} positions, best checkpoint at step {metrics['step']}): "
        f"MSE {metrics['held_out_mse']:.4f} (the best constant: {metrics['constant_mse']:.4f})",
    ]


COMMAND = loop.Command("value", DESCRIPTION, ValueConfig, train_value, summary)

main = COMMAND.main  # ``goarena train value ...``: train, then print the held-out MSE.
parser = COMMAND.parser
