"""The input planes of a batch of positions, one builder per kind of features.

A ``FeatureBuilder`` makes one kind's planes (``nets.features.Features.kind``) of a batch of
positions in one kernel call, into a buffer it keeps and reuses: AlphaGo's planes uint8
``[B, C, N, N]`` (as many as the networks it serves read), or the history planes int8
``[B, N, N, 17]``. ``arrange`` gives each network its own view of them: the first ``planes``
of AlphaGo's, or the history planes in the network's layout, axis order and dtype::

    builder = FeatureBuilder("history")
    raw = builder.build(leaves.states, leaves.geometry)       # int8[B, N, N, 17]
    planes = arrange(raw, ZeroNet.features)                   # int8[B, 17, N, N]

``planes_of`` does both for one network's features.
"""

from __future__ import annotations

import numpy as np

from go_env.core import Geometry, GoState
from go_env.features import NUM_HISTORY_PLANES, batch_history_planes, planes_in_layout
from go_env.features.alphago import NUM_ALPHAGO_PLANES, batch_alphago_planes, new_alphago_planes
from goarena.agents.nets.features import KINDS, Features


class FeatureBuilder:
    """One kind of planes of a batch of positions, in one kernel call into a reused buffer.

    Args:
        kind: ``"alphago"`` or ``"history"``.
        planes: of AlphaGo's planes, how many to make (48, or 49 with the player's colour).
    """

    def __init__(self, kind: str, planes: int = NUM_ALPHAGO_PLANES):
        if kind not in KINDS:
            raise ValueError(f"features are of kind {' or '.join(KINDS)}, got {kind!r}")
        self.kind = kind
        self.planes = planes if kind == "alphago" else NUM_HISTORY_PLANES
        self._buffer: np.ndarray | None = None
        self.calls = 0  # kernel calls

    def build(self, states: GoState, geometry: Geometry) -> np.ndarray:
        """The planes of the batched positions ``states`` (a view of the buffer, valid until
        the next call): uint8[B, C, N, N] of AlphaGo's, int8[B, N, N, 17] history planes."""
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
        self.calls += 1
        return out


def arrange(raw: np.ndarray, features: Features) -> np.ndarray:
    """A network's planes from its kind's (``FeatureBuilder.build``): the first
    ``features.planes`` of AlphaGo's, or the history planes in ``features``' layout, axis
    order and dtype (a new, contiguous array)."""
    if features.kind == "alphago":
        planes = raw[:, : features.planes]
        return planes if features.dtype is None else planes.astype(features.dtype)
    return planes_in_layout(raw, features.channels_first, features.dtype, features.layout)


def planes_of(states: GoState, geometry: Geometry, features: Features) -> np.ndarray:
    """The planes ``features`` declares of the batched positions ``states`` (a new array)."""
    raw = FeatureBuilder(features.kind, features.planes).build(states, geometry)
    return np.array(arrange(raw, features))
