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

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, cast

import numpy as np
import torch
import torch.nn.functional as F

from go_env.features.patterns import pattern_tables, record_features
from goarena.agents.declared import redefault
from goarena.agents.nets.rollout import RolloutPolicy
from goarena.agents.training import loop
from goarena.agents.training.config import SupervisedConfig
from goarena.agents.training.loop import run_training
from goarena.agents.training.supervised import SupervisedJob, summary

DESCRIPTION = "Train AlphaGo's fast rollout policy (pattern features, linear softmax) on expert moves."
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


@dataclass(frozen=True, kw_only=True)
class RolloutConfig(SupervisedConfig):
    """A run of the rollout job (the run's config.json): ``SupervisedConfig``'s fields, with
    larger minibatches and rate for a linear model; the seed draws the split and the data order."""

    batch_size: int = redefault(SupervisedConfig, "batch_size", 256)
    lr: float = redefault(SupervisedConfig, "lr", 0.01)
    eval_positions: int = redefault(SupervisedConfig, "eval_positions", 8192)


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


class RolloutJob(SupervisedJob):
    """The rollout policy on ``dataset``'s positions, for ``loop.train``."""

    eval_batch = 1024

    def __init__(self, dataset: PositionDataset, config: RolloutConfig, device: torch.device):
        super().__init__(
            dataset, config, device, RolloutPolicy(pattern_tables().num_features, dataset.board_size)
        )

    def _tensors(self, indices: np.ndarray) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return candidate_tensors(self.dataset.batch(indices), self.dataset.board_size, self.device)

    def loss(self, indices: np.ndarray, step: int) -> tuple[torch.Tensor, dict[str, float]]:
        features, legal, moves = self._tensors(indices)  # the same under symmetries: no augmentation
        logits = self.model(features, legal)
        loss = F.cross_entropy(logits, moves)
        return loss, {"loss": loss.item(), "top1": (logits.argmax(1) == moves).float().mean().item()}

    def sums(self, indices: np.ndarray) -> tuple[dict[str, float], int]:
        """Loss and top-1 summed over the positions whose expert move is a candidate."""
        features, legal, moves = self._tensors(indices)
        logits = self.model(features, legal)
        loss = F.cross_entropy(logits, moves, reduction="sum").item()
        return {"loss": loss, "top1": (logits.argmax(1) == moves).sum().item()}, len(moves)

    def export(self, directory: Path, best: dict[str, Any]) -> dict[str, Any]:
        """``rollout.npz`` and its loss and top-1 on every held-out position."""
        cast(RolloutPolicy, self.model).export_weights(directory / WEIGHTS)
        return {**self.held_out_metrics(), "weights": WEIGHTS}


def train_rollout(
    config: RolloutConfig, run_dir: Path | str, *, dataset: PositionDataset | None = None, **run: Any
) -> dict[str, Any]:
    """Train (or resume) the rollout run in ``run_dir``, export ``rollout.npz`` and return (and
    save as metrics.json) the exported policy's held-out metrics. ``dataset`` defaults to the
    shards in ``config.data``; ``run``: ``loop.run_training``'s keywords (device, threads, progress)."""

    def build(device: torch.device) -> RolloutJob:
        from goarena.agents.data.dataset import ShardDataset

        return RolloutJob(dataset if dataset is not None else ShardDataset(config.data), config, device)

    data = config.data if dataset is None else None
    return run_training(config, run_dir, build, "top1", data=data, **run)


COMMAND = loop.Command("rollout", DESCRIPTION, RolloutConfig, train_rollout, summary)

main = COMMAND.main  # ``goarena train rollout ...``: train, then print the held-out metrics.
parser = COMMAND.parser
