"""A value network as a source of leaf values: the leaves' 49 planes in one batch, one forward
pass for all of them, each leaf's value for its side to move.

``ValueNetEvaluator`` has ``values(leaves)`` (``goarena.search.LeafValues``), so a search takes
it where it takes rollouts: ``PolicyNetEvaluator(policy, values=ValueNetEvaluator(value))``
for priors from the policy network and values from this one, or inside ``MixedEvaluator``
for AlphaGo's mix of the two with rollouts.

A network's value is a function of the planes alone, so the evaluator keeps the values of
the positions it has seen (as AlphaGo keeps ``v`` in the node): a leaf evaluated again, as
under an expansion threshold, costs a look-up.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from pathlib import Path

import numpy as np

from go_env.features.alphago import batch_alphago_planes, new_alphago_planes
from goarena.agents.base import UnsupportedGame
from goarena.agents.nets.load import load_network
from goarena.agents.nets.predict import forward
from goarena.agents.nets.value import ValueNet
from goarena.search import Leaves


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


def network_values(model: ValueNet, planes: np.ndarray) -> np.ndarray:
    """float64[B]: the network's values of positions ``planes`` (uint8 or float [B, 49, N, N])."""
    return forward(model, planes).double().cpu().numpy()


class ValueNetEvaluator:
    """Leaf values from a value network, remembered by position.

    Args:
        model: a ``ValueNet``.
        cache: how many positions' values to keep (the oldest go first); 0 keeps none.
    """

    def __init__(self, model: ValueNet, cache: int = 1 << 16):
        if cache < 0:
            raise ValueError(f"cache counts positions: at least 0, got {cache}")
        self.model = model.eval()
        self.cache = cache
        self._known: OrderedDict[bytes, float] = OrderedDict()
        self._planes = new_alphago_planes(model.board_size, player_colour=True, batch=1)

    def values(self, leaves: Leaves) -> np.ndarray:
        """float64[B] in (-1, 1): each leaf's value for its side to move."""
        size = leaves.geometry.size
        if size != self.model.board_size:
            raise UnsupportedGame(
                f"the value network was trained for {self.model.board_size}x"
                f"{self.model.board_size}, not {size}x{size}"
            )
        count = len(leaves)
        if self._planes.shape[0] < count:
            self._planes = new_alphago_planes(size, player_colour=True, batch=count)
        planes = self._planes[:count]
        batch_alphago_planes(leaves.states, leaves.geometry, planes)
        if not self.cache:
            return network_values(self.model, planes)
        keys = [hashlib.blake2b(row.tobytes(), digest_size=16).digest() for row in planes]
        known = self._known
        values = np.array([known.get(key, np.nan) for key in keys])
        new = np.flatnonzero(np.isnan(values))
        if len(new):
            values[new] = network_values(self.model, planes[new])
            for b in new:
                known[keys[b]] = values[b]
            while len(known) > self.cache:
                known.popitem(last=False)
        return values
