"""The ownership value network as an evaluator of search leaves, and its estimates of a
game's position.

``OwnershipEvaluator`` builds the history planes of all leaves in one kernel call, runs the
network once, and turns each leaf's ownership into its value: V = Σ v + the komi of the leaf's
rules from its side to move's view, p = sigmoid(a·V + b) the network's calibrated win
probability, value = 2p − 1. Its priors are uniform over the legal moves, or a policy
network's (``NetworkEvaluator``, which makes that network's own planes) when given one::

    PUCT(OwnershipEvaluator(model))                      # priors uniform, values from V
    PUCT(OwnershipEvaluator(model, policy=policy_net))   # a policy network's priors

``estimate`` gives the ownership, V and p of a batch of positions; ``ownership_map`` and
``position_score`` those of a ``Game``'s position.

The win-probability baseline (``OwnershipNet(head="win")``) serves the same callers: its p is
its output's (1 + w) / 2, so its leaf values are w; its estimates have no ownership and no V
(None), and ``ownership_map`` and ``position_score`` refuse it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import torch
from torch import nn

from go_env import Game
from go_env import core as K
from go_env.core import Geometry, GoState
from go_env.features import NUM_HISTORY_PLANES, batch_history_planes
from goarena.agents.inference.network import NetworkEvaluator
from goarena.agents.nets.ownership import NO_OWNERSHIP, OwnershipNet, has_ownership, komi_term
from goarena.agents.nets.predict import forward
from goarena.agents.protocols import check_board_size
from goarena.search import Leaves
from goarena.search.evaluator import uniform_priors


class OwnershipEstimate(NamedTuple):
    """What the ownership network says of B positions, each from its side to move's view (a
    win network: its win probability alone, ``ownership`` and ``score`` None)."""

    ownership: np.ndarray | None  # float32[B, N*N]: v(s, i), +1 the side to move's at the end
    score: np.ndarray | None  # float64[B]: V = Σ v + the komi term; > 0: the side to move wins the count
    win_probability: np.ndarray  # float64[B]: sigmoid(a·V + b), calibrated; a win network's (1 + w) / 2


def komi_terms(states: GoState) -> np.ndarray:
    """float64[B]: each batched position's komi (its rules') from its side to move's view."""
    komi = 0.5 * states.info[:, K.INFO_KOMI].astype(np.float64)
    return komi_term(komi, states.info[:, K.INFO_TO_PLAY] == K.BLACK)


class _Planes:
    """A reused buffer for the history planes of a batch of positions."""

    def __init__(self, size: int):
        self.size = size
        self._buffer = np.zeros((0, size, size, NUM_HISTORY_PLANES), np.int8)

    def __call__(self, states: GoState, geometry: Geometry) -> np.ndarray:
        """int8[B, 17, N, N]: the positions' history planes, channels first."""
        count = states.info.shape[0]
        if geometry.size != self.size:
            raise ValueError(f"the ownership network plays {self.size}x{self.size}, not {geometry.size}")
        if self._buffer.shape[0] < count:
            self._buffer = np.zeros((count, self.size, self.size, NUM_HISTORY_PLANES), np.int8)
        out = self._buffer[:count]
        batch_history_planes(states, geometry, out)
        return np.ascontiguousarray(np.moveaxis(out, -1, 1))


def _estimate(model: OwnershipNet, planes: np.ndarray, states: GoState) -> OwnershipEstimate:
    if not has_ownership(model):
        wins = forward(model, planes).float()
        return OwnershipEstimate(None, None, ((1.0 + wins) / 2.0).double().cpu().numpy())
    ownership = forward(model, planes).float()
    terms = komi_terms(states)
    scores = model.score(ownership, torch.as_tensor(terms, dtype=torch.float32, device=ownership.device))
    p = model.win_probability(scores)
    return OwnershipEstimate(
        ownership.cpu().numpy(),
        ownership.sum(dim=1).double().cpu().numpy() + terms,  # V in float64, the komi exact
        p.double().cpu().numpy(),
    )


def estimate(model: OwnershipNet, states: GoState, geometry: Geometry) -> OwnershipEstimate:
    """The network's ownership, V and win probability of the batched positions ``states``
    (every field with a leading axis B), one forward pass."""
    return _estimate(model, _Planes(geometry.size)(states, geometry), states)


def _single(game: Game) -> GoState:
    return GoState(*(field[None] for field in game.state))


def _found(model: OwnershipNet, game: Game) -> OwnershipEstimate:
    """The estimate of ``game``'s position by an ownership network (not a win network)."""
    if not has_ownership(model):
        raise ValueError(NO_OWNERSHIP)
    check_board_size(model.board_size, game.size, "the ownership network was")
    return estimate(model, _single(game), game.geometry)


def ownership_map(model: OwnershipNet, game: Game) -> np.ndarray:
    """float32[N*N]: v(s, i) of ``game``'s position, from its side to move's view.

    Raises:
        ValueError: a win network, which has no ownership head.
        UnsupportedGame: a board the network was not trained for.
    """
    ownership = _found(model, game).ownership
    assert ownership is not None  # an ownership network's
    return ownership[0]


def position_score(model: OwnershipNet, game: Game) -> float:
    """V of ``game``'s position (Σ v + the komi term), from its side to move's view.

    Raises:
        ValueError: a win network, which has no V.
        UnsupportedGame: a board the network was not trained for.
    """
    score = _found(model, game).score
    assert score is not None  # an ownership network's
    return float(score[0])


class OwnershipEvaluator:
    """Priors and values of search leaves from an ``OwnershipNet``, either head (see the module
    documentation).

    Args:
        model: the ownership network (its device and dtype are the inference's).
        policy: a policy network (a ``PolicyNet``) for the priors; None: uniform priors.
    """

    def __init__(self, model: nn.Module, policy: nn.Module | None = None):
        self.model = model
        self.board_size: int = model.board_size  # type: ignore[assignment]
        self._planes = _Planes(self.board_size)
        self._priors = NetworkEvaluator(policy) if policy is not None else None
        self.evaluations = 0  # positions evaluated

    def outputs(self, leaves: Leaves) -> OwnershipEstimate:
        """The network's ownership, V and win probability of each leaf."""
        self.evaluations += len(leaves)
        return _estimate(self.model, self._planes(leaves.states, leaves.geometry), leaves.states)  # type: ignore[arg-type]

    def values(self, leaves: Leaves) -> np.ndarray:
        """float64[B] in [-1, 1]: 2p − 1 of each leaf, for its side to move (``LeafValues``)."""
        return 2.0 * self.outputs(leaves).win_probability - 1.0

    def evaluate(self, leaves: Leaves) -> tuple[np.ndarray, np.ndarray]:
        priors = uniform_priors(leaves.legal) if self._priors is None else self._priors.evaluate(leaves)[0]
        return priors, self.values(leaves)
