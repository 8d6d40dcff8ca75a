"""A policy network as a search evaluator (``PolicyNetEvaluator``: a ``NetworkEvaluator``
with a policy network alone), and its loader.

The value of a leaf comes from ``values`` (any object with ``values(leaves)``, such as the
random or pattern rollout evaluators of ``goarena.search``), or is 0 without one.
"""

from __future__ import annotations

from pathlib import Path
from typing import cast

from goarena.agents.inference.network import NetworkEvaluator
from goarena.agents.nets.load import load_network
from goarena.agents.nets.policy import PolicyNet
from goarena.agents.nets.predict import set_torch_threads
from goarena.search import LeafValues


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


class PolicyNetEvaluator(NetworkEvaluator):
    """Priors from a policy network, values from ``values`` (or 0): a ``NetworkEvaluator``
    with a policy network alone.

    Args:
        model: a ``PolicyNet``.
        values: gives each leaf's value for its side to move (e.g. rollouts); None: 0.
    """

    def __init__(self, model: PolicyNet, values: LeafValues | None = None):
        super().__init__(policy=model, values=values)

    @property
    def model(self) -> PolicyNet:
        assert self.policy is not None
        return cast(PolicyNet, self.policy)


def set_inference_threads(threads: int = 1) -> None:
    """One thread for torch: league workers and search players run one game per process."""
    set_torch_threads(threads)
