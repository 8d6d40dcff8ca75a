"""Networks as one evaluator of search leaves: the features made once per leaf batch and kind,
one forward pass per network, the results remembered by position.

``NetworkEvaluator`` serves every network of the house, each of which declares what it reads
(``features``: ``nets.features.Features``, AlphaGo's 48 or 49 planes or the 17 history planes
in a layout, with the rules planes or not) and what it gives (``heads``: "policy" logits, a
"value" for the side to move, "ownership" per point, a "score" in points). Of each kind of
features, the planes of a batch of leaves are made in one kernel call
(``inference.features.FeatureBuilder``), as many as its networks read; each network runs once
on its own view of them::

    NetworkEvaluator(policy, value)                      # AlphaGo's networks
    NetworkEvaluator(policy, values=PatternRolloutEvaluator(rollout))
    MixedEvaluator(NetworkEvaluator(policy, value), rollouts, mix=0.5)   # AlphaGo's blend
    NetworkEvaluator(policy=zero_net, value=zero_net)    # AlphaZero's: priors, value, ownership
    NetworkEvaluator(value=ownership_net)                # values 2p − 1 from V, ownership, score
    NetworkEvaluator(policy=policy_net, value=win_net)   # the win baseline's w as the value
    NetworkEvaluator(policy=SB3Network(model), value=SB3Network(model))  # (one module: once)

One module given as both ``policy`` and ``value`` runs once for both, as OpenSpiel's
AlphaZero evaluator does (a module that declares no ``heads`` is then read as giving
``(logits, values)``). Without a policy network the priors are uniform; without a value
network the values come from ``values`` (rollouts, say) or are 0.

``outputs(leaves)`` gives ``LeafOutputs``: the priors (the softmax's weights ``exp(logit -
max)`` on the legal moves, 0 elsewhere: the search normalises them once, as it does every
evaluator's), the values, and, where the value network has an ownership head, the ownership
and the score V = Σ v + the leaf's komi from its side to move's view; a network with a score
head gives the score itself (the expected final margin for the side to move, in points). An
ownership network (heads ``("ownership",)``) values a leaf by its own
``probability(ownership, komi_terms)``, 2p − 1. Under an expansion threshold
(``Leaves.expanding``) a policy network of its own runs only on the leaves whose priors are
wanted.

With ``score_utility`` u > 0 a leaf's value is KataGo's utility, the win value plus a bounded
score term, scaled back into [-1, 1]::

    value = (w + u * score_value(score, N)) / (1 + u),   score_value = 2/π · atan(score / (2·N))

(KataGo's static score utility, its ``staticScoreUtilityFactor`` u = 0.1 in self-play; N·N the
board's area, so a lead of 2N points is worth half of u): among won (or lost) lines the search
prefers the larger margin, where the win value alone is flat.

A network's outputs are functions of its planes alone, so the evaluator keeps them by
position (a digest of the planes): a leaf evaluated again, as under an expansion threshold,
costs a look-up. What depends on more than the planes (the komi in an ownership network's
value and score) is computed from the kept outputs on every call. A network that changes
(one in training, a function) is evaluated with ``cache=0``.

A module that is no ``nn.Module`` forward (an SB3 model, a player's function) is served
through an adapter that declares its features and heads and gives them with
``run(planes, legal)`` (``inference.sb3.SB3Network``, ``inference.function.FunctionNetwork``).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from typing import Any, NamedTuple, cast

import numpy as np
import torch
from torch import nn

from go_env import core as K
from go_env.core import GoState
from go_env.features.alphago import NUM_ALPHAGO_PLANES, NUM_VALUE_PLANES
from goarena.agents.inference.features import FeatureBuilder, arrange
from goarena.agents.nets.features import Features, alphago_features
from goarena.agents.nets.ownership import komi_term
from goarena.agents.nets.predict import forward
from goarena.agents.protocols import UnsupportedGame
from goarena.search import LeafValues, Leaves
from goarena.search.evaluator import uniform_priors

HEADS = ("policy", "value", "ownership", "score")
SCORE_VALUE_SCALE = 2.0  # KataGo's static score value: atan(score / (2 sqrt(area)))


def score_value(score: np.ndarray, size: int) -> np.ndarray:
    """float64[B] in (-1, 1): KataGo's bounded value of a margin ``score`` (points, for the side
    to move) on a ``size`` board, 2/π · atan(score / (2 · size))."""
    return (2.0 / np.pi) * np.arctan(np.asarray(score, np.float64) / (SCORE_VALUE_SCALE * size))


class LeafOutputs(NamedTuple):
    """What the evaluator's networks say of a batch of B leaves, each for its side to move."""

    priors: (
        np.ndarray
    )  # float32[B, A]: exp(logit - max) over the legal moves, 0 elsewhere (uniform without a policy)
    values: np.ndarray  # float64[B] in [-1, 1]
    ownership: np.ndarray | None  # float32[B, N*N]: +1 the side to move's at the end; None without the head
    score: (
        np.ndarray | None
    )  # float64[B]: the expected final margin (a score head's, else V = Σ v + komi); None without


def komi_terms(states: GoState) -> np.ndarray:
    """float64[B]: each batched position's komi (its rules') from its side to move's view."""
    komi = 0.5 * states.info[:, K.INFO_KOMI].astype(np.float64)
    return komi_term(komi, states.info[:, K.INFO_TO_PLAY] == K.BLACK)


def _planes_read(model: nn.Module, default: int) -> int:
    """How many of AlphaGo's planes a module without ``features`` reads: its ``planes``, else
    AlphaGo's for its role."""
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


class _Network:
    """One module as the evaluator runs it: what it reads, what it gives, where its outputs go."""

    def __init__(self, index: int, module: nn.Module, policy: bool, value: bool):
        self.index = index
        self.module = module
        self.policy = policy  # gives the priors
        self.value = value  # gives the values (all leaves)
        declared = getattr(module, "heads", None)
        if declared is None:  # a module that declares nothing: its roles' heads, in this order
            declared = (("policy",) if policy else ()) + (("value",) if value else ())
        self.heads: tuple[str, ...] = tuple(declared)
        unknown = set(self.heads) - set(HEADS)
        if unknown:
            raise ValueError(f"{type(module).__name__} declares heads {sorted(unknown)}: known are {HEADS}")
        if policy and "policy" not in self.heads:
            raise ValueError(f"{type(module).__name__} has no policy head (its heads: {self.heads})")
        if value and not {"value", "ownership"} & set(self.heads):  # a score head alone values nothing
            raise ValueError(
                f"{type(module).__name__} has no value or ownership head (its heads: {self.heads})"
            )
        features = getattr(module, "features", None)
        if not isinstance(features, Features):  # AlphaGo's planes, as many as the module's role reads
            features = alphago_features(
                _planes_read(module, NUM_VALUE_PLANES if value else NUM_ALPHAGO_PLANES)
            )
        self.features = features
        self.board_size: int | None = getattr(module, "board_size", None)

    def run(self, planes: np.ndarray, legal: np.ndarray) -> dict[str, np.ndarray]:
        """The module's heads on ``planes`` (its own view), each as a numpy array."""
        run = getattr(self.module, "run", None)  # an adapter's: numpy in and out
        output = run(planes, legal) if run is not None else forward(self.module, planes)
        parts = output if isinstance(output, (tuple, list)) else (output,)
        parts = [part for part in parts if part is not None]  # a head the network lacks (ZeroOutput's score)
        if len(parts) != len(self.heads):
            raise ValueError(
                f"{type(self.module).__name__} gave {len(parts)} outputs for its heads {self.heads}"
            )
        return {head: _numpy(part) for head, part in zip(self.heads, parts, strict=True)}

    def probability(self, ownership: np.ndarray, terms: np.ndarray) -> np.ndarray:
        """float64[B]: the side to move's win probability from the ownership and komi terms, by
        the module's own ``probability`` (an ownership network's calibrated map of V)."""
        device = _device_of(self.module)
        with torch.inference_mode():
            p = self.module.probability(  # type: ignore[operator]
                torch.as_tensor(ownership, device=device),
                torch.as_tensor(terms, dtype=torch.float32, device=device),
            )
        return p.double().cpu().numpy()


class NetworkEvaluator:
    """Priors, values, ownership and scores of search leaves from a policy and a value network
    (or one network with both heads), over one batch of planes per kind of features per call.

    Args:
        policy: gives move logits ``float[B, N*N + 1]`` (its "policy" head); None: uniform
            priors over the legal moves.
        value: gives each leaf's value for its side to move: its "value" head, else its
            "ownership" head through its ``probability`` (2p − 1); its ownership head, if any,
            gives the ownership and the score. The same module as ``policy`` if one network
            has both heads.
        values: the leaves' values where there is no value network (e.g. rollouts); None: 0.
        cache: how many positions' outputs to keep, per network (the oldest go first); 0
            keeps none.
        score_utility: u of KataGo's utility (see the module documentation); 0: the win
            value alone. Needs a value network with a score or an ownership head.
    """

    def __init__(
        self,
        policy: nn.Module | None = None,
        value: nn.Module | None = None,
        values: LeafValues | None = None,
        cache: int = 1 << 16,
        score_utility: float = 0.0,
    ):
        if cache < 0:
            raise ValueError(f"cache counts positions: at least 0, got {cache}")
        if not 0.0 <= score_utility < float("inf"):
            raise ValueError(f"score_utility is a weight: at least 0, got {score_utility}")
        if value is not None and values is not None:
            raise ValueError("the values come from the value network or from values=, not both")
        self.policy = policy.eval() if policy is not None else None
        self.value = value.eval() if value is not None else None
        self.values_from = values
        self.cache = cache
        modules = [module for module in (policy, value) if module is not None]
        unique = [
            module for i, module in enumerate(modules) if all(module is not other for other in modules[:i])
        ]
        self.networks: tuple[nn.Module, ...] = tuple(unique)
        self._networks = [
            _Network(i, module, module is policy, module is value) for i, module in enumerate(unique)
        ]
        # Networks of different boards are refused when a game is searched (players name their
        # files first, at reset and in check_options).
        self.board_sizes: set[int] = {net.board_size for net in self._networks if net.board_size is not None}
        self._builders: dict[str, FeatureBuilder] = {}
        for net in self._networks:
            kind = net.features.kind
            planes = max(net.features.planes, self._builders[kind].planes if kind in self._builders else 0)
            self._builders[kind] = FeatureBuilder(kind, planes)
        if score_utility > 0 and not any(
            net.value and {"score", "ownership"} & set(net.heads) for net in self._networks
        ):
            raise ValueError("score_utility needs a value network with a score or an ownership head")
        self.score_utility = float(score_utility)
        self._known: OrderedDict[bytes, dict[str, np.ndarray]] = OrderedDict()
        self.evaluations = 0  # positions the networks ran on (the value network's, else the policy's)

    @property
    def dual(self) -> bool:
        """One network gives both the priors and the values."""
        return self.policy is not None and self.policy is self.value

    @property
    def board_size(self) -> int:
        """The board the networks were trained for."""
        if len(self.board_sizes) != 1:
            raise ValueError(f"the networks were trained for {sorted(self.board_sizes)}")
        return next(iter(self.board_sizes))

    @property
    def num_planes(self) -> int:
        """How many of AlphaGo's planes the evaluator makes (0: none)."""
        builder = self._builders.get("alphago")
        return builder.planes if builder is not None else 0

    def evaluate(self, leaves: Leaves) -> tuple[np.ndarray, np.ndarray]:
        """(priors float32[B, A], values float64[B]) for the leaves (see the module documentation)."""
        found = self.outputs(leaves)
        return found.priors, found.values

    def values(self, leaves: Leaves) -> np.ndarray:
        """float64[B]: each leaf's value for its side to move (``LeafValues``)."""
        if self.value is None:
            raise TypeError("values(leaves) needs a value network; evaluate(leaves) gives the others' values")
        return self._outputs(leaves, np.zeros(len(leaves), bool)).values

    def outputs(self, leaves: Leaves) -> LeafOutputs:
        """The priors, values, ownership and scores of the leaves (``LeafOutputs``)."""
        wanted = leaves.wants_priors() if self.policy is not None else np.zeros(len(leaves), bool)
        return self._outputs(leaves, wanted)

    def _outputs(self, leaves: Leaves, wanted: np.ndarray) -> LeafOutputs:
        count = len(leaves)
        rows = {
            net.index: np.arange(count) if net.value else np.flatnonzero(wanted) for net in self._networks
        }
        found = self._run(leaves, rows)
        priors = uniform_priors(leaves.legal)
        values: np.ndarray | None = None
        ownership = score = None
        for net in self._networks:
            parts = found[net.index]
            if net.policy and "policy" in parts:
                given = rows[net.index]
                priors[given] = legal_weights(parts["policy"], leaves.legal[given])
            if not net.value:
                continue
            if "ownership" in parts:
                ownership = parts["ownership"]
                terms = komi_terms(leaves.states)
                score = ownership.sum(axis=1).astype(np.float64) + terms  # the komi exact
                if "value" not in parts:
                    values = 2.0 * net.probability(ownership, terms) - 1.0
            if "score" in parts:
                score = parts["score"].astype(np.float64)
            if "value" in parts:
                values = parts["value"].astype(np.float64)
        if values is None:
            values = self.values_from.values(leaves) if self.values_from is not None else np.zeros(count)
        elif self.score_utility > 0 and score is not None:
            u = self.score_utility
            values = (values + u * score_value(score, leaves.geometry.size)) / (1.0 + u)
        return LeafOutputs(priors, values, ownership, score)

    def _run(self, leaves: Leaves, rows: dict[int, np.ndarray]) -> dict[int, dict[str, np.ndarray]]:
        """Each network's heads on its ``rows`` of the leaves: its kind's planes made once for
        the rows its networks need, the known positions looked up, the others run in one
        forward pass per network."""
        found: dict[int, dict[str, np.ndarray]] = {}
        if any(len(each) for each in rows.values()):
            self._check_size(leaves)
        for kind, builder in self._builders.items():
            nets = [net for net in self._networks if net.features.kind == kind]
            needed = np.unique(np.concatenate([rows[net.index] for net in nets]))
            if not len(needed):
                for net in nets:
                    found[net.index] = {}
                continue
            states = leaves.states if len(needed) == len(leaves) else leaves.subset(needed).states
            raw = builder.build(states, leaves.geometry)
            digests = self._digests(raw)
            for net in nets:
                at = np.searchsorted(needed, rows[net.index])
                found[net.index] = self._network(net, raw, at, digests, leaves.legal[rows[net.index]])
        return found

    def _network(
        self, net: _Network, raw: np.ndarray, at: np.ndarray, digests: list[bytes] | None, legal: np.ndarray
    ) -> dict[str, np.ndarray]:
        """The network's heads at rows ``at`` of its kind's planes ``raw``, stacked."""
        if not len(at):
            return {}
        if digests is None:  # no cache: every position run
            if net.value or not any(other.value for other in self._networks):
                self.evaluations += len(at)
            return net.run(arrange(raw if len(at) == len(raw) else raw[at], net.features), legal)
        prefix = bytes([net.index])
        known = self._known
        entries: list[dict[str, np.ndarray] | None] = [known.get(prefix + digests[i]) for i in at]
        missing = [j for j, entry in enumerate(entries) if entry is None]
        if missing:
            computed = net.run(arrange(raw[at[missing]], net.features), legal[missing])
            for n, j in enumerate(missing):
                entry = {head: part[n] for head, part in computed.items()}
                entries[j] = known[prefix + digests[at[j]]] = entry
            if net.value or not any(other.value for other in self._networks):
                self.evaluations += len(missing)
        for i in at:
            known.move_to_end(prefix + digests[i])
        while len(known) > self.cache * len(self._networks):
            known.popitem(last=False)
        rows = cast(list[dict[str, np.ndarray]], entries)
        return {head: np.stack([entry[head] for entry in rows]) for head in rows[0]}

    def _digests(self, raw: np.ndarray) -> list[bytes] | None:
        """Each position's key: a digest of its planes (None without a cache)."""
        if not self.cache:
            return None
        return [hashlib.blake2b(row.tobytes(), digest_size=16).digest() for row in raw]

    def _check_size(self, leaves: Leaves) -> None:
        size = leaves.geometry.size
        wrong = sorted(self.board_sizes - {size})
        if wrong:
            which = "policy network was" if self.value is None else "value network was"
            if self.policy is not None and self.value is not None:
                which = "network was" if self.dual else "networks were"
            trained = " and ".join(f"{each}x{each}" for each in wrong)
            raise UnsupportedGame(f"the {which} trained for {trained}, not {size}x{size}")


def _numpy(part: Any) -> np.ndarray:
    """A head's output as numpy (float32 from a tensor)."""
    if isinstance(part, torch.Tensor):
        return part.float().cpu().numpy()
    return np.asarray(part)


def _device_of(module: nn.Module) -> torch.device:
    weight = next(module.parameters(), None)
    return weight.device if weight is not None else torch.device("cpu")
