"""What the jobs on expert shards share (``sl``, ``rollout``, ``value``): a split by game,
minibatches by step, Adam on a learning-rate schedule, held-out scores summed over batches.

A job subclasses ``SupervisedJob`` and gives its model, ``loss`` (one training minibatch's
loss and metrics) and ``sums`` (a held-out batch's metrics summed over its positions), and its
export; ``loop.run_training`` does the rest.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from goarena.agents.training.loop import Positions, cosine_lr, held_out_split, set_lr, step_rng


class SupervisedJob:
    """A model trained on ``dataset``'s positions, split by game (``config`` a ``SupervisedConfig``).

    Attributes:
        sampler: the training positions' minibatches by step.
        held_out: every held-out position; ``eval_sample`` those scored at each checkpoint.
    """

    eval_batch = 512  # held-out positions per forward pass
    target: str  # the batch's field the network learns (``planes_and_targets``), as ``target_dtype``
    target_dtype: torch.dtype
    data_command = "goarena data shards"  # writes the positions the job reads (named when they do not fit)

    def __init__(self, dataset: Positions, config: Any, device: torch.device, model: nn.Module):
        # Checked here, in the job's build, so that the loop refuses data that do not fit the
        # network before the run directory is touched (and not at the first step, after).
        planes, wanted = getattr(dataset, "num_planes", None), getattr(model, "planes", None)
        if planes is not None and wanted is not None and planes != wanted:
            raise ValueError(
                f"the shards in {getattr(dataset, 'directory', '?')} hold {planes} planes, not the "
                f"network's {wanted}: {self.data_command} writes the positions this job reads"
            )
        self.dataset = dataset
        self.config = config
        self.device = device
        split = held_out_split(
            dataset, config.held_out, config.batch_size, config.eval_positions, config.seed
        )
        self.sampler, self.held_out, self.eval_sample = split.sampler, split.held_out, split.eval_sample
        self.model = model.to(device)
        self.optimizer: torch.optim.Optimizer = torch.optim.Adam(self.model.parameters(), lr=config.lr)

    def loss(self, indices: np.ndarray, step: int) -> tuple[torch.Tensor, dict[str, float]]:
        """The mean loss of training step ``step``'s minibatch (positions ``indices``; any
        random draw from ``step_rng(seed, step)``), and the minibatch's metrics."""
        raise NotImplementedError

    def sums(self, indices: np.ndarray) -> tuple[dict[str, float], int]:
        """The held-out metrics of positions ``indices`` summed over them, and how many were scored."""
        raise NotImplementedError

    def planes(self, indices: np.ndarray, step: int | None = None) -> tuple[torch.Tensor, Any]:
        """The planes of positions ``indices`` as a float tensor, and their batch (with the
        targets); training step ``step``'s under a random symmetry (``step_rng(seed, step)``)."""
        augment = {} if step is None else {"rng": step_rng(self.config.seed, step), "augment": True}
        batch = self.dataset.batch(indices, **augment)
        return torch.as_tensor(batch.planes, dtype=torch.float32, device=self.device), batch

    def planes_and_targets(
        self, indices: np.ndarray, step: int | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """``planes`` and the batch's ``target`` field as a ``target_dtype`` tensor."""
        planes, batch = self.planes(indices, step)
        targets = getattr(batch, self.target)
        return planes, torch.as_tensor(targets, dtype=self.target_dtype, device=self.device)

    def train_step(self, step: int) -> dict[str, float]:
        if getattr(self.config, "lr_schedule", "constant") == "cosine":
            set_lr(self.optimizer, cosine_lr(self.config.lr, step, self.config.steps))
        loss, metrics = self.loss(self.sampler.batch(step), step)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        self.optimizer.step()
        return metrics

    def evaluate(self, indices: np.ndarray | None = None) -> dict[str, float]:
        """The held-out metrics, means over the positions (default: the checkpoints' sample)."""
        indices = self.eval_sample if indices is None else indices
        totals: dict[str, float] = {}
        count = 0
        with torch.inference_mode():
            for start in range(0, len(indices), self.eval_batch):
                sums, scored = self.sums(indices[start : start + self.eval_batch])
                for name, value in sums.items():
                    totals[name] = totals.get(name, 0.0) + value
                count += scored
        if count == 0:
            raise ValueError(f"none of the {len(indices)} held-out positions could be scored")
        return {name: total / count for name, total in totals.items()}

    def held_out_metrics(self) -> dict[str, Any]:
        """metrics.json's entries of the model as it stands: its metrics on every held-out position."""
        return {"held_out": self.evaluate(self.held_out), "held_out_positions": len(self.held_out)}


_SHOWN = {"loss": "loss {:.4f}", "top1": "top-1 {:.2%}", "top5": "top-5 {:.2%}"}


def summary(metrics: dict[str, Any], run: Path) -> list[str]:
    """The line a job of ``held_out_metrics`` prints: its loss and accuracies on every held-out position."""
    held_out = metrics["held_out"]
    scores = "  ".join(shown.format(held_out[name]) for name, shown in _SHOWN.items() if name in held_out)
    where = f"{metrics['held_out_positions']} positions, best checkpoint at step {metrics['step']}"
    return [f"held-out ({where}): {scores}"]
