"""A policy network as a search evaluator: the leaves' 48 AlphaGo planes in one batch, one
forward pass for all of them, and a softmax over each leaf's legal moves as its priors.

The value of a leaf comes from ``values`` (any object with ``values(leaves)``, such as the
random or pattern rollout evaluators of ``goarena.search``), or is 0 without one.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from go_env.features.alphago import batch_alphago_planes, new_alphago_planes
from goarena.agents.base import UnsupportedGame
from goarena.agents.nets.load import load_network
from goarena.agents.nets.policy import PolicyNet
from goarena.agents.nets.predict import (
    masked_softmax,
    policy_logits,
    set_torch_threads,
)
from goarena.search import LeafValues, Leaves
from goarena.search.evaluator import uniform_priors


def load_policy_net(
    weights: Path | str, device: str = "cpu", precision: str = "float32"
) -> tuple[PolicyNet, str]:
    """The policy network saved at ``weights`` (in eval mode, its weights in ``precision``)
    and its weights' sha256 (``nets.load.load_network``)."""
    network = load_network(weights, "policy", device, precision)
    return network.model, network.digest


def policy_net_size(weights: Path | str) -> int:
    """The board size the policy network at ``weights`` was trained for (the file checked)."""
    return load_network(weights, "policy").board_size


class PolicyNetEvaluator:
    """Priors from a policy network, values from ``values`` (or 0).

    Args:
        model: a ``PolicyNet``.
        values: gives each leaf's value for its side to move (e.g. rollouts); None: 0.
    """

    def __init__(self, model: PolicyNet, values: LeafValues | None = None):
        self.model = model.eval()
        self.values = values
        self._planes = new_alphago_planes(model.board_size, batch=1)

    def evaluate(self, leaves: Leaves) -> tuple[np.ndarray, np.ndarray]:
        size = leaves.geometry.size
        if size != self.model.board_size:
            raise UnsupportedGame(
                f"the policy network was trained for {self.model.board_size}x"
                f"{self.model.board_size}, not {size}x{size}"
            )
        count = len(leaves)
        wanted = leaves.wants_priors()
        if wanted.all():
            priors = self._priors(leaves)
        else:  # the search will not use the others' priors (an expansion threshold)
            priors = uniform_priors(leaves.legal)
            if wanted.any():
                priors[wanted] = self._priors(leaves.subset(wanted))
        values = self.values.values(leaves) if self.values is not None else np.zeros(count)
        return priors, values

    def _priors(self, leaves: Leaves) -> np.ndarray:
        count = len(leaves)
        if self._planes.shape[0] < count:
            self._planes = new_alphago_planes(leaves.geometry.size, batch=count)
        planes = self._planes[:count]
        batch_alphago_planes(leaves.states, leaves.geometry, planes)
        return masked_softmax(policy_logits(self.model, planes), leaves.legal)


def set_inference_threads(threads: int = 1) -> None:
    """One thread for torch: league workers and search players run one game per process."""
    set_torch_threads(threads)
