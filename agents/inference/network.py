"""Networks as one evaluator of search leaves: the features made once per leaf batch, one
forward pass per network, the results remembered by position.

``NetworkEvaluator`` makes AlphaGo's planes of a batch of leaves in one kernel call, as many
as its networks read (49: the value network reads them all, the policy network the first
48), and serves both from them: priors from the policy network's logits over each leaf's
legal moves, values from the value network. A dual-head network (one module whose forward
gives ``(logits, values)``, passed as both ``policy`` and ``value``) runs once for both, as
OpenSpiel's AlphaZero evaluator does. Without a policy network the priors are uniform;
without a value network the values come from ``values`` (rollouts, say) or are 0::

    NetworkEvaluator(policy, value)                      # AlphaGo's networks
    NetworkEvaluator(policy, values=PatternRolloutEvaluator(rollout))
    MixedEvaluator(NetworkEvaluator(policy, value), rollouts, mix=0.5)   # AlphaGo's blend

The priors are the softmax's weights ``exp(logit - max)`` on the legal moves, 0 elsewhere:
the search normalises them once, as it does every evaluator's. Under an expansion threshold
(``Leaves.expanding``) the policy network runs only on the leaves whose priors are wanted.

A network's outputs are functions of the planes alone, so the evaluator keeps them by
position (a digest of the planes): a leaf evaluated again, as under an expansion threshold,
costs a look-up.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np
from torch import nn

from go_env.features.alphago import (
    NUM_ALPHAGO_PLANES,
    NUM_VALUE_PLANES,
    batch_alphago_planes,
    new_alphago_planes,
)
from goarena.agents.nets.predict import forward
from goarena.agents.protocols import UnsupportedGame
from goarena.search import LeafValues, Leaves
from goarena.search.evaluator import uniform_priors


@dataclass
class _Known:
    """What the evaluator has computed of one position."""

    value: float | None = None
    logits: np.ndarray | None = None  # float32[A]


def _planes_read(model: nn.Module, default: int) -> int:
    """How many of the planes ``model`` reads: its ``planes``, else AlphaGo's for its role."""
    planes = getattr(model, "planes", default)
    if not isinstance(planes, int) or not 0 < planes <= NUM_VALUE_PLANES:
        raise ValueError(
            f"{type(model).__name__} reads {planes!r} planes: AlphaGo's are 1 to {NUM_VALUE_PLANES}"
        )
    return planes


def legal_weights(logits: np.ndarray, legal: np.ndarray) -> np.ndarray:
    """float32[B, A]: ``exp(logits - max)`` over each row's legal moves, 0 elsewhere: the
    softmax's weights, left for the search to normalise."""
    allowed = legal != 0
    masked = np.where(allowed, logits, -np.inf)
    top = masked.max(axis=1, keepdims=True)
    return np.exp(masked - np.where(np.isfinite(top), top, 0.0)).astype(np.float32)


class NetworkEvaluator:
    """Priors and values of search leaves from a policy and a value network (or one
    dual-head network), over one batch of planes per call.

    Args:
        policy: gives move logits ``float[B, N*N + 1]`` from its first ``policy.planes``
            planes (a ``PolicyNet``); None: uniform priors over the legal moves.
        value: gives values ``float[B]`` in (-1, 1) for the side to move from its first
            ``value.planes`` planes (a ``ValueNet``); the same module as ``policy`` if one
            network has both heads, its forward then giving ``(logits, values)``.
        values: the leaves' values where there is no value network (e.g. rollouts); None: 0.
        cache: how many positions' outputs to keep (the oldest go first); 0 keeps none.
    """

    def __init__(
        self,
        policy: nn.Module | None = None,
        value: nn.Module | None = None,
        values: LeafValues | None = None,
        cache: int = 1 << 16,
    ):
        if cache < 0:
            raise ValueError(f"cache counts positions: at least 0, got {cache}")
        if value is not None and values is not None:
            raise ValueError("the values come from the value network or from values=, not both")
        networks = [model for model in (policy, value) if model is not None]
        # Networks of different boards are refused when a game is searched (players name their
        # files first, at reset and in check_options).
        sizes: set[int] = {model.board_size for model in networks}  # type: ignore[misc]
        self.policy = policy.eval() if policy is not None else None
        self.value = value.eval() if value is not None else None
        self.values_from = values
        self.cache = cache
        self.board_sizes = sizes
        # Unless a network says: the policy network reads the first 48 planes, a value network
        # (or a dual-head one) all 49.
        own_policy = NUM_VALUE_PLANES if policy is not None and policy is value else NUM_ALPHAGO_PLANES
        self._policy_planes = _planes_read(policy, own_policy) if policy is not None else 0
        self._value_planes = _planes_read(value, NUM_VALUE_PLANES) if value is not None else 0
        self.num_planes = max(self._policy_planes, self._value_planes)
        self._known: OrderedDict[bytes, _Known] = OrderedDict()
        self._planes = np.zeros((0, self.num_planes, 0, 0), np.uint8)

    @property
    def dual(self) -> bool:
        """One network gives both the priors and the values."""
        return self.policy is not None and self.policy is self.value

    def evaluate(self, leaves: Leaves) -> tuple[np.ndarray, np.ndarray]:
        """(priors float32[B, A], values float64[B]) for the leaves (see the module documentation)."""
        priors = uniform_priors(leaves.legal)
        wanted = leaves.wants_priors() if self.policy is not None else np.zeros(len(leaves), bool)
        values = self._evaluate(leaves, wanted, priors)
        if values is None:
            values = (
                self.values_from.values(leaves) if self.values_from is not None else np.zeros(len(leaves))
            )
        return priors, values

    def values(self, leaves: Leaves) -> np.ndarray:
        """float64[B]: each leaf's value for its side to move (``LeafValues``)."""
        if self.value is None:
            raise TypeError("values(leaves) needs a value network; evaluate(leaves) gives the others' values")
        values = self._evaluate(leaves, np.zeros(len(leaves), bool), None)
        assert values is not None
        return values

    def _evaluate(self, leaves: Leaves, wanted: np.ndarray, priors: np.ndarray | None) -> np.ndarray | None:
        """The value network's values of every leaf (None without one), and the policy's
        weights into ``priors`` for the ``wanted`` leaves; the planes made once, for the
        leaves either needs."""
        rows = np.arange(len(leaves)) if self.value is not None else np.flatnonzero(wanted)
        if not len(rows):
            return None
        self._check_size(leaves)
        planes = self._make_planes(leaves, rows)
        known = self._look_up(planes)
        need_value = [i for i, entry in enumerate(known) if self.value is not None and entry.value is None]
        need_logits = [i for i, entry in enumerate(known) if wanted[rows[i]] and entry.logits is None]
        self._run(planes, known, need_value, need_logits)
        if priors is not None and wanted.any():
            picked = [i for i, row in enumerate(rows) if wanted[row]]
            logits = np.stack([known[i].logits for i in picked])  # type: ignore[misc]
            priors[rows[picked]] = legal_weights(logits, leaves.legal[rows[picked]])
        if self.value is None:
            return None
        return np.array([entry.value for entry in known], np.float64)

    def _run(
        self, planes: np.ndarray, known: list[_Known], need_value: list[int], need_logits: list[int]
    ) -> None:
        """One forward pass per network over the positions that need it (one in all for a
        dual-head network)."""
        if self.dual:
            needed = sorted(set(need_value) | set(need_logits))
            if needed:
                logits, values = _outputs(self.policy, planes[needed, : self._policy_planes])
                for j, i in enumerate(needed):
                    known[i].logits, known[i].value = logits[j], float(values[j])
            return
        if need_value:
            values = _outputs(self.value, planes[need_value, : self._value_planes])
            for j, i in enumerate(need_value):
                known[i].value = float(values[j])
        if need_logits:
            logits = _outputs(self.policy, planes[need_logits, : self._policy_planes])
            for j, i in enumerate(need_logits):
                known[i].logits = logits[j]

    def _check_size(self, leaves: Leaves) -> None:
        size = leaves.geometry.size
        wrong = sorted(self.board_sizes - {size})
        if wrong:
            which = "policy network was" if self.value is None else "value network was"
            if self.policy is not None and self.value is not None:
                which = "network was" if self.dual else "networks were"
            trained = " and ".join(f"{each}x{each}" for each in wrong)
            raise UnsupportedGame(f"the {which} trained for {trained}, not {size}x{size}")

    def _make_planes(self, leaves: Leaves, rows: np.ndarray) -> np.ndarray:
        """uint8[len(rows), C, N, N]: the planes of leaves ``rows``, in one kernel call."""
        count, size = len(rows), leaves.geometry.size
        if self._planes.shape[0] < count or self._planes.shape[2] != size:
            self._planes = new_alphago_planes(size, self.num_planes > 48, batch=max(count, 8))
        planes = self._planes[:count]
        states = leaves.states if count == len(leaves) else leaves.subset(rows).states
        batch_alphago_planes(states, leaves.geometry, planes)
        return planes

    def _look_up(self, planes: np.ndarray) -> list[_Known]:
        """Each position's entry: the remembered one, or a new one (remembered if ``cache``)."""
        if not self.cache:
            return [_Known() for _ in range(len(planes))]
        known = self._known
        entries = []
        for row in planes:
            key = hashlib.blake2b(row.tobytes(), digest_size=16).digest()
            entry = known.get(key)
            if entry is None:
                entry = known[key] = _Known()
            else:
                known.move_to_end(key)
            entries.append(entry)
        while len(known) > self.cache:
            known.popitem(last=False)
        return entries


def _outputs(model: nn.Module | None, planes: np.ndarray) -> Any:
    """The model's outputs (each as float32 numpy) on ``planes``."""
    assert model is not None
    output = forward(model, planes)
    if isinstance(output, tuple):
        return tuple(part.float().cpu().numpy() for part in output)
    return output.float().cpu().numpy()
