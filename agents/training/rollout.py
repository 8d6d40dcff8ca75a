"""``goarena train rollout``: AlphaGo's fast rollout policy, trained on expert moves.

A linear softmax over each legal move's pattern features (``RolloutPolicy``), fitted by
maximum likelihood of the expert's move (cross-entropy over the legal moves, pass included)
with Adam. Features are computed from each position's record (board, side to move, last move)
by the same numba code the playouts run; they are the same under the board's symmetries, so
no augmentation is drawn. Games are split into training and held-out games; the best
checkpoint by held-out top-1 is exported as ``rollout.npz`` (the numpy weights that
``goarena.search.rollout`` and the ``rollout-policy`` player read), and its held-out loss and
top-1 on every held-out position are printed and saved as ``metrics.json``.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, cast

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from go_env.features.patterns import pattern_tables, record_features
from goarena.agents.nets.rollout import RolloutPolicy
from goarena.agents.training.loop import (
    Schedule,
    add_config_options,
    check_config,
    held_out_split,
    run_job,
    run_training,
)

EVAL_BATCH = 1024
WEIGHTS = "rollout.npz"


class PositionRecords(Protocol):
    """Positions as records (``PositionBatch`` is one)."""

    @property
    def boards(self) -> np.ndarray: ...  # int8[B, N*N], absolute colours

    @property
    def to_play(self) -> np.ndarray: ...  # int8[B]

    @property
    def last_moves(self) -> np.ndarray: ...  # int16[B], -1 none, N*N pass

    @property
    def moves(self) -> np.ndarray: ...  # int64[B], the expert's move, N*N pass


class PositionDataset(Protocol):
    """What the job reads (``goarena.agents.data.dataset.ShardDataset`` is one)."""

    board_size: int

    def __len__(self) -> int: ...

    def split_by_game(self, held_out_fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]: ...

    def batch(self, indices: np.ndarray) -> PositionRecords: ...


@dataclass(frozen=True)
class RolloutConfig:
    """A run of the rollout job (the run's config.json).

    Attributes:
        data: the shard directory.
        steps, batch_size, lr: minibatches, positions per minibatch, Adam's learning rate.
        seed: of the split and the data order.
        held_out: the fraction of games held out.
        checkpoint_every: steps between checkpoints (each scored on held-out positions).
        log_every: steps between TensorBoard points of the training metrics.
        eval_positions: held-out positions scored at each checkpoint (all of them at the end).
    """

    data: str
    steps: int = 4000
    batch_size: int = 256
    lr: float = 0.01
    seed: int = 0
    held_out: float = 0.05
    checkpoint_every: int = 500
    log_every: int = 50
    eval_positions: int = 8192

    def __post_init__(self) -> None:
        check_config(self, ("steps", "batch_size", "checkpoint_every", "log_every", "eval_positions"))


def candidate_tensors(
    records: PositionRecords, size: int, device: torch.device
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(features int64[B, A, K], legal bool[B, A], moves int64[B]) of the records whose expert
    move is a candidate (a record of no position of Go, or of a suicide, is left out)."""
    features, legal = record_features(records.boards, records.to_play, records.last_moves, size)
    moves = np.asarray(records.moves, np.int64)
    keep = legal[np.arange(len(moves)), moves] == 1
    return (
        torch.as_tensor(features[keep], dtype=torch.int64, device=device),
        torch.as_tensor(legal[keep] == 1, device=device),
        torch.as_tensor(moves[keep], device=device),
    )


class RolloutJob:
    """The rollout policy on ``dataset``'s positions, for ``loop.train``."""

    def __init__(self, dataset: PositionDataset, config: RolloutConfig, device: torch.device):
        self.dataset = dataset
        self.config = config
        self.device = device
        split = held_out_split(
            dataset, config.held_out, config.batch_size, config.eval_positions, config.seed
        )
        self.sampler, self.held_out, self.eval_sample = split.sampler, split.held_out, split.eval_sample
        self.model: nn.Module = RolloutPolicy(pattern_tables().num_features, dataset.board_size).to(device)
        self.optimizer: torch.optim.Optimizer = torch.optim.Adam(self.model.parameters(), lr=config.lr)

    def _tensors(self, indices: np.ndarray) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return candidate_tensors(self.dataset.batch(indices), self.dataset.board_size, self.device)

    def train_step(self, step: int) -> dict[str, float]:
        features, legal, moves = self._tensors(self.sampler.batch(step))
        logits = self.model(features, legal)
        loss = F.cross_entropy(logits, moves)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.optimizer.step()
        return {"loss": loss.item(), "top1": (logits.argmax(1) == moves).float().mean().item()}

    def export(self, directory: Path, best: dict[str, Any]) -> dict[str, Any]:
        """``rollout.npz`` and its loss and top-1 on every held-out position."""
        cast(RolloutPolicy, self.model).export_weights(directory / WEIGHTS)
        return {
            "held_out": self.evaluate(self.held_out),
            "held_out_positions": len(self.held_out),
            "weights": WEIGHTS,
        }

    def evaluate(self, indices: np.ndarray | None = None) -> dict[str, float]:
        """Loss and top-1 on held-out positions (default: the checkpoints' sample)."""
        indices = self.eval_sample if indices is None else indices
        loss = hits = 0.0
        count = 0
        with torch.inference_mode():
            for start in range(0, len(indices), EVAL_BATCH):
                features, legal, moves = self._tensors(indices[start : start + EVAL_BATCH])
                logits = self.model(features, legal)
                loss += F.cross_entropy(logits, moves, reduction="sum").item()
                hits += (logits.argmax(1) == moves).sum().item()
                count += len(moves)
        if count == 0:
            raise ValueError("no held-out position has its expert move among the candidates")
        return {"loss": loss / count, "top1": hits / count}


def train_rollout(
    config: RolloutConfig,
    run_dir: Path | str,
    *,
    device: str = "cpu",
    threads: int = 1,
    dataset: PositionDataset | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """Train (or resume) the rollout run in ``run_dir``, export ``rollout.npz`` and return (and
    save as metrics.json) the exported policy's held-out metrics (``loop.run_training``).
    ``dataset`` defaults to the shards in ``config.data``."""
    schedule = Schedule(config.steps, config.checkpoint_every, config.log_every, best_metric="top1")

    def build(where: torch.device) -> RolloutJob:
        from goarena.agents.data.dataset import ShardDataset

        return RolloutJob(dataset if dataset is not None else ShardDataset(config.data), config, where)

    data = config.data if dataset is None else None
    return run_training(
        config, run_dir, build, schedule, device=device, threads=threads, progress=progress, data=data
    )


def parser() -> argparse.ArgumentParser:
    defaults = RolloutConfig(data="")
    parser = argparse.ArgumentParser(
        prog="goarena train rollout",
        description="Train AlphaGo's fast rollout policy (pattern features, linear softmax) on expert moves.",
    )
    parser.add_argument("--data", required=True, help="the shard directory (goarena data ...)")
    parser.add_argument("--run", required=True, type=Path, help="the run directory (the same one resumes)")
    add_config_options(
        parser,
        defaults,
        (
            ("steps", "minibatches to train on"),
            ("batch-size", "positions per minibatch"),
            ("lr", "Adam's learning rate"),
            ("seed", "seed of the split and the data order"),
            ("held-out", "fraction of the games held out"),
            ("checkpoint-every", "steps between checkpoints"),
            ("log-every", "steps between TensorBoard points"),
            ("eval-positions", "held-out positions scored at each checkpoint"),
        ),
    )
    return parser


def main(argv: list[str]) -> None:
    """``goarena train rollout ...``: train, then print the held-out metrics."""
    args = parser().parse_args(argv)
    metrics = run_job("rollout", args, RolloutConfig, train_rollout)
    held_out = metrics["held_out"]
    print(
        f"held-out ({metrics['held_out_positions']} positions, best checkpoint at step {metrics['step']}): "
        f"loss {held_out['loss']:.4f}  top-1 {held_out['top1']:.2%}"
    )
    print(f"weights {args.run / WEIGHTS}, metrics {args.run / 'metrics.json'}")
