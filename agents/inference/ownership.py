"""A position network's estimates of positions: the ownership map, V and the win probability.

``estimate`` gives the ownership, V and p of a batch of positions from an ``OwnershipNet`` (V =
Σ v + the komi of each position's rules from its side to move's view, p = sigmoid(a·V + b)) or
a ``WinNet`` (p = (1 + w) / 2; no ownership, no V: None); ``ownership_map`` and
``position_score`` those of a ``Game``'s position, from an ownership network. The search's
evaluator over either network is ``NetworkEvaluator`` (``inference.network``)::

    PUCT(NetworkEvaluator(value=model))                  # priors uniform, values 2p − 1
    PUCT(NetworkEvaluator(policy=policy_net, value=model))   # a policy network's priors
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import torch

from go_env import Game
from go_env.core import Geometry, GoState
from goarena.agents.inference.features import planes_of
from goarena.agents.inference.network import komi_terms
from goarena.agents.nets.ownership import NO_OWNERSHIP, PositionNet
from goarena.agents.nets.predict import forward
from goarena.agents.protocols import check_board_size

__all__ = [
    "OwnershipEstimate",
    "estimate",
    "komi_terms",
    "ownership_map",
    "position_score",
]


class OwnershipEstimate(NamedTuple):
    """What a position network says of B positions, each from its side to move's view (a
    win network: its win probability alone, ``ownership`` and ``score`` None)."""

    ownership: np.ndarray | None  # float32[B, N*N]: v(s, i), +1 the side to move's at the end
    score: np.ndarray | None  # float64[B]: V = Σ v + the komi term; > 0: the side to move wins the count
    win_probability: np.ndarray  # float64[B]: sigmoid(a·V + b), calibrated; a win network's (1 + w) / 2


def estimate(model: PositionNet, states: GoState, geometry: Geometry) -> OwnershipEstimate:
    """The network's ownership, V and win probability of the batched positions ``states``
    (every field with a leading axis B), one forward pass."""
    output = forward(model, planes_of(states, geometry, model.features)).float()
    terms = komi_terms(states)
    p = model.probability(output, torch.as_tensor(terms, dtype=torch.float32, device=output.device))
    win_probability = p.double().cpu().numpy()
    if "ownership" not in model.heads:
        return OwnershipEstimate(None, None, win_probability)
    return OwnershipEstimate(
        output.cpu().numpy(),
        output.sum(dim=1).double().cpu().numpy() + terms,  # V in float64, the komi exact
        win_probability,
    )


def _found(model: PositionNet, game: Game) -> OwnershipEstimate:
    """The estimate of ``game``'s position by an ownership network (not a win network)."""
    if "ownership" not in model.heads:
        raise ValueError(NO_OWNERSHIP)
    check_board_size(model.board_size, game.size, "the ownership network was")
    return estimate(model, GoState(*(field[None] for field in game.state)), game.geometry)


def ownership_map(model: PositionNet, game: Game) -> np.ndarray:
    """float32[N*N]: v(s, i) of ``game``'s position, from its side to move's view.

    Raises:
        ValueError: a win network, which has no ownership head.
        UnsupportedGame: a board the network was not trained for.
    """
    ownership = _found(model, game).ownership
    assert ownership is not None  # an ownership network's
    return ownership[0]


def position_score(model: PositionNet, game: Game) -> float:
    """V of ``game``'s position (Σ v + the komi term), from its side to move's view.

    Raises:
        ValueError: a win network, which has no V.
        UnsupportedGame: a board the network was not trained for.
    """
    score = _found(model, game).score
    assert score is not None  # an ownership network's
    return float(score[0])
