"""The input planes of a batch of positions, one builder per kind of features.

A ``FeatureBuilder`` makes one kind's planes (``nets.features.Features.kind``) of a batch of
positions in one kernel call, into a buffer it keeps and reuses: AlphaGo's planes uint8
``[B, C, N, N]`` (as many as the networks it serves read), or the history planes int8
``[B, N, N, 17]``, followed by the two rules planes (``nets.features.RULES_PLANES``: the komi
for the side to move in half points, territory scoring) when a network reads 19.
``arrange`` gives each network its own view of them: the first ``planes`` of AlphaGo's, or
the history planes in the network's layout, axis order and dtype (the rules planes after them)::

    builder = FeatureBuilder("history")
    raw = builder.build(leaves.states, leaves.geometry)       # int8[B, N, N, 17]
    planes = arrange(raw, ZeroNet.features)                   # int8[B, 17, N, N]

``planes_of`` does both for one network's features.
"""

from __future__ import annotations

import numpy as np

from go_env import core as K
from go_env.core import Geometry, GoState
from go_env.features import NUM_HISTORY_PLANES, batch_history_planes, planes_in_layout
from go_env.features.alphago import NUM_ALPHAGO_PLANES, batch_alphago_planes, new_alphago_planes
from goarena.agents.nets.features import KINDS, RULES_PLANES, Features

MAX_KOMI_PLANE = 127  # int8: komi within ±63.5


class FeatureBuilder:
    """One kind of planes of a batch of positions, in one kernel call into a reused buffer.

    Args:
        kind: ``"alphago"`` or ``"history"``.
        planes: how many to make: of AlphaGo's 48, or 49 with the player's colour; of the
            history planes 17, or 19 with the rules planes. None: 48, or 17.
    """

    def __init__(self, kind: str, planes: int | None = None):
        if kind not in KINDS:
            raise ValueError(f"features are of kind {' or '.join(KINDS)}, got {kind!r}")
        self.kind = kind
        history = NUM_HISTORY_PLANES
        self.planes = planes or (NUM_ALPHAGO_PLANES if kind == "alphago" else history)
        if kind == "history" and self.planes not in (history, history + RULES_PLANES):
            raise ValueError(f"history planes are {history}, or {history + RULES_PLANES} with the rules")
        self._buffer: np.ndarray | None = None
        self._with_rules: np.ndarray | None = None
        self.calls = 0  # kernel calls

    def build(self, states: GoState, geometry: Geometry) -> np.ndarray:
        """The planes of the batched positions ``states`` (a view of the buffer, valid until
        the next call): uint8[B, C, N, N] of AlphaGo's, int8[B, N, N, 17 or 19] history planes
        (and rules planes)."""
        count, size = states.info.shape[0], geometry.size
        buffer = self._buffer
        if self.kind == "alphago":
            if buffer is None or buffer.shape[0] < count or buffer.shape[2] != size:
                colour = self.planes > NUM_ALPHAGO_PLANES
                buffer = self._buffer = new_alphago_planes(size, colour, batch=max(count, 8))
            out = buffer[:count]
            batch_alphago_planes(states, geometry, out)
        else:
            if buffer is None or buffer.shape[0] < count or buffer.shape[1] != size:
                buffer = self._buffer = np.zeros((max(count, 8), size, size, NUM_HISTORY_PLANES), np.int8)
            out = buffer[:count]
            batch_history_planes(states, geometry, out)
            if self.planes > NUM_HISTORY_PLANES:
                out = self._rules(out, states)
        self.calls += 1
        return out

    def _rules(self, history: np.ndarray, states: GoState) -> np.ndarray:
        """``history`` int8[B, N, N, 17] followed by the rules planes of ``states``."""
        count, size = history.shape[0], history.shape[1]
        wide = self._with_rules
        if wide is None or wide.shape[0] < count or wide.shape[1] != size:
            wide = self._with_rules = np.zeros((max(count, 8), size, size, self.planes), np.int8)
        out = wide[:count]
        out[..., :NUM_HISTORY_PLANES] = history
        out[..., NUM_HISTORY_PLANES:] = rules_planes(states)[:, None, None, :]
        return out


def rules_planes(states: GoState) -> np.ndarray:
    """int8[B, 2]: each batched position's rules-plane values: its komi from the side to move's
    view in half points (White to move receives the komi: +; Black to move: −), and 1 under
    territory scoring.

    Raises:
        ValueError: a komi beyond ±63.5 (int8 half points).
    """
    info = states.info
    half_points = np.where(info[:, K.INFO_TO_PLAY] == K.BLACK, -info[:, K.INFO_KOMI], info[:, K.INFO_KOMI])
    if len(half_points) and np.abs(half_points).max() > MAX_KOMI_PLANE:
        raise ValueError(f"the rules planes hold a komi within ±{MAX_KOMI_PLANE / 2}")
    territory = info[:, K.INFO_SCORING] == K.SCORING_TERRITORY
    return np.stack([half_points, territory], axis=1).astype(np.int8)


def arrange(raw: np.ndarray, features: Features) -> np.ndarray:
    """A network's planes from its kind's (``FeatureBuilder.build``): the first
    ``features.planes`` of AlphaGo's, or the history planes in ``features``' layout, axis
    order and dtype (a new, contiguous array)."""
    if features.kind == "alphago":
        planes = raw[:, : features.planes]
        return planes if features.dtype is None else planes.astype(features.dtype)
    history = planes_in_layout(
        raw[..., :NUM_HISTORY_PLANES], features.channels_first, features.dtype, features.layout
    )
    if features.planes == NUM_HISTORY_PLANES:
        return history
    rules = raw[..., NUM_HISTORY_PLANES : features.planes].astype(history.dtype)
    if features.channels_first:
        return np.concatenate([history, np.moveaxis(rules, -1, -3)], axis=-3)
    return np.concatenate([history, rules], axis=-1)


def planes_of(states: GoState, geometry: Geometry, features: Features) -> np.ndarray:
    """The planes ``features`` declares of the batched positions ``states`` (a new array)."""
    raw = FeatureBuilder(features.kind, features.planes).build(states, geometry)
    return np.array(arrange(raw, features))
