"""AlphaZero's network as an evaluator of search leaves, under its old name.

``ZeroEvaluator(model)`` is ``NetworkEvaluator(policy=model, value=model, cache=0)``: the
history planes of all leaves in one kernel call, one forward pass for the priors, the values
and the ownership (``NetworkEvaluator.outputs``). It stays for the players and benches that
still ask for it by name, with their ``model`` and ``planes(leaves)``.
"""

from __future__ import annotations

import numpy as np
from torch import nn

from goarena.agents.inference.features import FeatureBuilder, arrange
from goarena.agents.inference.network import NetworkEvaluator
from goarena.agents.nets.features import HISTORY
from goarena.search import Leaves


class ZeroEvaluator(NetworkEvaluator):
    """Priors, values and ownership of search leaves from a ``ZeroNet``, every leaf run (no
    cache: ``evaluations`` counts the network's work, as self-play reports it).

    Args:
        model: the network (its device and dtype are the inference's).
    """

    def __init__(self, model: nn.Module):
        super().__init__(policy=model, value=model, cache=0)
        self.model = model
        self._history = FeatureBuilder("history")

    def planes(self, leaves: Leaves) -> np.ndarray:
        """int8[B, 17, N, N]: the leaves' history planes, channels first."""
        size = leaves.geometry.size
        if size != self.board_size:
            raise ValueError(f"the network plays {self.board_size}x{self.board_size}, not {size}")
        return arrange(self._history.build(leaves.states, leaves.geometry), HISTORY)
