"""AlphaZero's network as an evaluator of search leaves: one forward pass per leaf batch.

``ZeroEvaluator`` builds the history planes of all leaves in one kernel call, runs the
network once, and serves the priors (the softmax's weights on each leaf's legal moves, left
for the search to normalise) and the values (the tanh head, for each leaf's side to move).
"""

from __future__ import annotations

from typing import cast

import numpy as np
from torch import nn

from go_env.features import NUM_HISTORY_PLANES, batch_history_planes
from goarena.agents.inference.network import legal_weights
from goarena.agents.nets.predict import forward
from goarena.agents.nets.zero import ZeroOutput
from goarena.search import Leaves


class ZeroEvaluator:
    """Priors and values of search leaves from a ``ZeroNet``.

    Args:
        model: the network (its device and dtype are the inference's).
    """

    def __init__(self, model: nn.Module):
        self.model = model
        self.board_size: int = model.board_size  # type: ignore[assignment]
        self._planes = np.zeros((0, self.board_size, self.board_size, NUM_HISTORY_PLANES), np.int8)
        self.evaluations = 0  # positions evaluated

    def planes(self, leaves: Leaves) -> np.ndarray:
        """int8[B, 17, N, N]: the leaves' history planes, channels first."""
        count = len(leaves)
        if leaves.geometry.size != self.board_size:
            raise ValueError(
                f"the network plays {self.board_size}x{self.board_size}, not {leaves.geometry.size}"
            )
        if self._planes.shape[0] < count:
            self._planes = np.zeros((count, self.board_size, self.board_size, NUM_HISTORY_PLANES), np.int8)
        out = self._planes[:count]
        batch_history_planes(leaves.states, leaves.geometry, out)
        return np.ascontiguousarray(np.moveaxis(out, -1, 1))

    def evaluate(self, leaves: Leaves) -> tuple[np.ndarray, np.ndarray]:
        output = cast(ZeroOutput, forward(self.model, self.planes(leaves)))
        logits = output.logits.float().cpu().numpy()
        self.evaluations += len(leaves)
        values = output.value.float().cpu().numpy().astype(np.float64)
        return legal_weights(logits, leaves.legal), values
