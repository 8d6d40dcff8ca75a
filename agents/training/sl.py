"""``goarena train sl``: AlphaGo's SL policy network, trained on expert moves.

Stochastic gradient ascent on the log-likelihood of the expert's move (cross-entropy on the
move, pass included), each minibatch position under a random one of the board's 8 symmetries.
The optimizer is Adam, not the paper's plain SGD: a run of a few thousand steps on a CPU has
no budget for tuning a learning-rate schedule, and Adam's per-weight steps train a small
network well; its rate decays along a half cosine over the run (``--lr-schedule constant``
keeps it fixed). Games are split into training and held-out games (positions of
one game are never on both sides); the best checkpoint by held-out top-1 is exported as
``policy.pt`` (a small weights file for ``SLPolicyAgent``), and its held-out loss, top-1 and
top-5 on every held-out position are printed and saved as ``metrics.json``.

Top-1 and top-5 count the expert's move among the network's best moves over all N*N+1 moves,
legal or not, as the papers count them.
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
from goarena.agents.nets.policy import PolicyNet
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
WEIGHTS = "policy.pt"


@dataclass(frozen=True)
class SLConfig:
    """A run of the SL job: its data, network and schedule (the run's config.json).

    Attributes:
        data: the shard directory.
        layers, filters: the network (``PolicyNet``).
        steps, batch_size, lr: minibatches, positions per minibatch, Adam's learning rate.
        lr_schedule: "cosine" (decayed to 2% of ``lr`` by the last step) or "constant".
        seed: of the weights, the split, the data order and the augmentation.
        held_out: the fraction of games held out.
        checkpoint_every: steps between checkpoints (each scored on held-out positions).
        log_every: steps between TensorBoard points of the training metrics.
        eval_positions: held-out positions scored at each checkpoint (all of them at the end).
    """

    data: str
    layers: int = 6
    filters: int = 64
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
                "steps",
                "batch_size",
                "checkpoint_every",
                "log_every",
                "eval_positions",
            ),
        )


def accuracy(logits: torch.Tensor, moves: torch.Tensor) -> dict[str, float]:
    """Top-1 and top-5: how often the expert's move is the network's best, or among its 5 best."""
    best = logits.topk(min(5, logits.shape[1]), dim=1).indices
    hits = best == moves[:, None]
    return {"top1": hits[:, 0].float().mean().item(), "top5": hits.any(dim=1).float().mean().item()}


class SLJob:
    """The SL policy network on ``dataset``'s positions, for ``loop.train``."""

    def __init__(self, dataset: ShardDataset, config: SLConfig, device: torch.device):
        self.dataset = dataset
        self.config = config
        self.device = device
        split = held_out_split(
            dataset, config.held_out, config.batch_size, config.eval_positions, config.seed
        )
        self.sampler, self.held_out, self.eval_sample = split.sampler, split.held_out, split.eval_sample
        self.model = PolicyNet(dataset.board_size, layers=config.layers, filters=config.filters).to(device)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=config.lr)

    def _tensors(self, batch: PositionBatch) -> tuple[torch.Tensor, torch.Tensor]:
        planes = torch.as_tensor(batch.planes, dtype=torch.float32, device=self.device)
        return planes, torch.as_tensor(batch.moves, dtype=torch.int64, device=self.device)

    def train_step(self, step: int) -> dict[str, float]:
        batch = self.dataset.batch(
            self.sampler.batch(step), rng=step_rng(self.config.seed, step), augment=True
        )
        planes, moves = self._tensors(batch)
        if self.config.lr_schedule == "cosine":
            set_lr(self.optimizer, cosine_lr(self.config.lr, step, self.config.steps))
        logits = self.model(planes)
        loss = F.cross_entropy(logits, moves)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.optimizer.step()
        return {"loss": loss.item(), **accuracy(logits.detach(), moves)}

    def export(self, directory: Path, best: dict[str, Any]) -> dict[str, Any]:
        """``policy.pt`` and its loss, top-1 and top-5 on every held-out position."""
        save_model(directory / WEIGHTS, self.model)
        held_out = self.evaluate(self.held_out)
        return {"held_out": held_out, "held_out_positions": len(self.held_out), "weights": WEIGHTS}

    def evaluate(self, indices: np.ndarray | None = None) -> dict[str, float]:
        """Loss, top-1 and top-5 on held-out positions (default: the checkpoints' sample)."""
        indices = self.eval_sample if indices is None else indices
        totals = {"loss": 0.0, "top1": 0.0, "top5": 0.0}
        with torch.inference_mode():
            for start in range(0, len(indices), EVAL_BATCH):
                planes, moves = self._tensors(self.dataset.batch(indices[start : start + EVAL_BATCH]))
                logits = self.model(planes)
                count = len(moves)
                totals["loss"] += F.cross_entropy(logits, moves, reduction="sum").item()
                for name, value in accuracy(logits, moves).items():
                    totals[name] += value * count
        return {name: total / len(indices) for name, total in totals.items()}


def train_sl(
    config: SLConfig,
    run_dir: Path | str,
    *,
    device: str = "cpu",
    threads: int = 1,
    progress: bool = True,
) -> dict[str, Any]:
    """Train (or resume) the SL run in ``run_dir``, export ``policy.pt`` and return (and save as
    metrics.json) the exported network's held-out metrics (``loop.run_training``)."""
    schedule = Schedule(config.steps, config.checkpoint_every, config.log_every, best_metric="top1")

    def build(where: torch.device) -> SLJob:
        return SLJob(ShardDataset(config.data), config, where)

    return run_training(
        config, run_dir, build, schedule, device=device, threads=threads, progress=progress, data=config.data
    )


def parser() -> argparse.ArgumentParser:
    defaults = SLConfig(data="")
    parser = argparse.ArgumentParser(
        prog="goarena train sl", description="Train AlphaGo's SL policy network on expert moves (resumable)."
    )
    parser.add_argument("--data", required=True, help="the shard directory (goarena data ...)")
    parser.add_argument("--run", required=True, type=Path, help="the run directory (the same one resumes)")
    add_config_options(
        parser,
        defaults,
        (
            ("layers", "convolutions in all"),
            ("filters", "channels of the hidden layers"),
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
    """``goarena train sl ...``: train, then print the held-out metrics."""
    args = parser().parse_args(argv)
    metrics = run_job("sl", args, SLConfig, train_sl)
    held_out = metrics["held_out"]
    print(
        f"held-out ({metrics['held_out_positions']} positions, best checkpoint at step {metrics['step']}): "
        f"loss {held_out['loss']:.4f}  top-1 {held_out['top1']:.2%}  top-5 {held_out['top5']:.2%}"
    )
    print(f"weights {args.run / 'policy.pt'} (sha256 {metrics['sha256'][:16]}...)")
    print(f"metrics {args.run / 'metrics.json'}")
