"""AlphaGo's fast rollout policy: a linear softmax over the pattern features of each move.

A move's logit is the sum of the weights of its active features (``go_env.features.patterns``):
one ``EmbeddingBag`` row per feature, summed per candidate; the softmax runs over the legal
moves (pass included). The weights are exported as ``rollout.npz`` (``export_weights``), which
the numba playouts of ``goarena.search.rollout`` and the ``rollout-policy`` player read.
"""

from __future__ import annotations

from os import PathLike
from typing import Any

import torch
from torch import nn

from go_env.features.patterns import save_weights


class RolloutPolicy(nn.Module):
    """Logits ``[B, A]`` of candidate moves from their active features ``[B, A, K]``.

    Args:
        num_features: F, the feature layout's size; index F pads a short feature list.
        board_size: the board the policy is trained on (kept with the exported weights).
    """

    arch = "rollout-policy"

    def __init__(self, num_features: int, board_size: int):
        super().__init__()
        for name, value, least in (("num_features", num_features, 1), ("board_size", board_size, 2)):
            if not isinstance(value, int) or isinstance(value, bool) or value < least:
                raise ValueError(f"{name} must be an integer >= {least}, got {value!r}")
        self.kwargs: dict[str, Any] = {"num_features": num_features, "board_size": board_size}
        self.num_features = num_features
        self.board_size = board_size
        # Starts at zero: the uniform policy over the legal moves.
        self.weights = nn.EmbeddingBag(num_features + 1, 1, mode="sum", padding_idx=num_features)
        nn.init.zeros_(self.weights.weight)

    def forward(self, features: torch.Tensor, legal: torch.Tensor) -> torch.Tensor:
        """``features`` int[B, A, K] (padded with F), ``legal`` bool[B, A] -> logits float[B, A],
        ``-inf`` on the illegal moves (softmax outside)."""
        if features.dim() != 3 or legal.shape != features.shape[:2]:
            raise ValueError(
                f"expected features [B, A, K] and legal [B, A], "
                f"got {list(features.shape)} and {list(legal.shape)}"
            )
        count, moves, width = features.shape
        logits = self.weights(features.reshape(count * moves, width).long()).reshape(count, moves)
        return logits.masked_fill(~legal.bool(), float("-inf"))

    def export_weights(self, path: str | PathLike[str]) -> None:
        """Write the weights as ``rollout.npz`` for the numba playouts."""
        weights = self.weights.weight.detach()[: self.num_features, 0].cpu().numpy()
        save_weights(path, weights, self.board_size)
