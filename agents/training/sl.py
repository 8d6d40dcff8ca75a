"""``goarena train sl``: AlphaGo's SL policy network, trained on expert moves.

Stochastic gradient ascent on the log-likelihood of the expert's move (cross-entropy on the
move, pass included), each minibatch position under a random one of the board's 8 symmetries.
The optimizer is Adam, not the paper's plain SGD: a run of a few thousand steps on a CPU has
no budget for tuning a learning-rate schedule, and Adam's per-weight steps train a small
network well; its rate decays along a half cosine over the run (``--lr-schedule constant``
keeps it fixed). Games are split into training and held-out games (positions of
one game are never on both sides); the best checkpoint by held-out top-1 is exported as
``policy.pt`` (a small weights file for the ``sl-policy`` player), and its held-out loss, top-1 and
top-5 on every held-out position are printed and saved as ``metrics.json``.

Top-1 and top-5 count the expert's move among the network's best moves over all N*N+1 moves,
legal or not, as the papers count them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from goarena.agents.data.dataset import ShardDataset
from goarena.agents.nets.checkpoint import save_model
from goarena.agents.nets.policy import PolicyNet
from goarena.agents.training import loop
from goarena.agents.training.config import NetworkConfig
from goarena.agents.training.loop import run_training
from goarena.agents.training.supervised import SupervisedJob, summary

DESCRIPTION = "Train AlphaGo's SL policy network on expert moves (resumable)."
WEIGHTS = "policy.pt"


@dataclass(frozen=True, kw_only=True)
class SLConfig(NetworkConfig):
    """A run of the SL job (the run's config.json): ``NetworkConfig``'s fields, the network a
    ``PolicyNet``; the seed draws the weights, the split, the data order and the augmentation."""


def accuracy(logits: torch.Tensor, moves: torch.Tensor) -> dict[str, float]:
    """Top-1 and top-5: how often the expert's move is the network's best, or among its 5 best."""
    best = logits.topk(min(5, logits.shape[1]), dim=1).indices
    hits = best == moves[:, None]
    return {"top1": hits[:, 0].float().mean().item(), "top5": hits.any(dim=1).float().mean().item()}


class SLJob(SupervisedJob):
    """The SL policy network on ``dataset``'s positions, for ``loop.train``."""

    target, target_dtype = "moves", torch.int64

    def __init__(self, dataset: ShardDataset, config: SLConfig, device: torch.device):
        model = PolicyNet(dataset.board_size, layers=config.layers, filters=config.filters)
        super().__init__(dataset, config, device, model)

    def loss(self, indices: np.ndarray, step: int) -> tuple[torch.Tensor, dict[str, float]]:
        planes, moves = self.planes_and_targets(indices, step)
        logits = self.model(planes)
        loss = F.cross_entropy(logits, moves)
        return loss, {"loss": loss.item(), **accuracy(logits.detach(), moves)}

    def sums(self, indices: np.ndarray) -> tuple[dict[str, float], int]:
        """Loss, top-1 and top-5 summed over the positions."""
        planes, moves = self.planes_and_targets(indices)
        logits = self.model(planes)
        count = len(moves)
        sums = {name: value * count for name, value in accuracy(logits, moves).items()}
        return {"loss": F.cross_entropy(logits, moves, reduction="sum").item(), **sums}, count

    def export(self, directory: Path, best: dict[str, Any]) -> dict[str, Any]:
        """``policy.pt`` and its loss, top-1 and top-5 on every held-out position."""
        save_model(directory / WEIGHTS, self.model)
        return {**self.held_out_metrics(), "weights": WEIGHTS}


def train_sl(config: SLConfig, run_dir: Path | str, **run: Any) -> dict[str, Any]:
    """Train (or resume) the SL run in ``run_dir``, export ``policy.pt`` and return (and save as
    metrics.json) the exported network's held-out metrics. ``run``: ``loop.run_training``'s
    keywords (device, threads, progress)."""

    def build(device: torch.device) -> SLJob:
        return SLJob(ShardDataset(config.data), config, device)

    return run_training(config, run_dir, build, "top1", data=config.data, **run)


COMMAND = loop.Command("sl", DESCRIPTION, SLConfig, train_sl, summary)

main = COMMAND.main  # ``goarena train sl ...``: train, then print the held-out metrics.
parser = COMMAND.parser
