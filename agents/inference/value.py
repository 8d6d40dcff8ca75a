"""A value network as a source of leaf values (``ValueNetEvaluator``: a ``NetworkEvaluator``
with a value network alone), and its loader.

``ValueNetEvaluator`` has ``values(leaves)`` (``goarena.search.LeafValues``), so a search takes
it where it takes rollouts. A player with a policy network too takes one ``NetworkEvaluator``
for both, which makes each leaf batch's planes once.

A network's value is a function of the planes alone, so the evaluator keeps the values of
the positions it has seen (as AlphaGo keeps ``v`` in the node): a leaf evaluated again, as
under an expansion threshold, costs a look-up.
"""

from __future__ import annotations

from pathlib import Path
from typing import cast

from goarena.agents.inference.network import NetworkEvaluator
from goarena.agents.nets.load import load_network
from goarena.agents.nets.value import ValueNet


def load_value_net(
    weights: Path | str, device: str = "cpu", precision: str = "float32"
) -> tuple[ValueNet, str]:
    """The value network saved at ``weights`` (in eval mode, on ``device``, its weights in
    ``precision``) and its weights' sha256 (``nets.load.load_network``)."""
    network = load_network(weights, "value", device, precision)
    return network.model, network.digest


def value_net_size(weights: Path | str) -> int:
    """The board size the value network at ``weights`` was trained for (the file checked)."""
    return load_network(weights, "value").board_size


class ValueNetEvaluator(NetworkEvaluator):
    """Leaf values from a value network, remembered by position: a ``NetworkEvaluator`` with a
    value network alone (``values(leaves)``; ``evaluate`` gives uniform priors beside them).

    Args:
        model: a ``ValueNet``.
        cache: how many positions' values to keep (the oldest go first); 0 keeps none.
    """

    def __init__(self, model: ValueNet, cache: int = 1 << 16):
        super().__init__(value=model, cache=cache)

    @property
    def model(self) -> ValueNet:
        assert self.value is not None
        return cast(ValueNet, self.value)
