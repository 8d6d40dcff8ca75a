"""What a network reads: a ``Features`` declaration, one per network class (its ``features``).

Two kinds of input planes exist, each made by one batched kernel (``go_env.features``) and
served by one builder (``goarena.agents.inference.features``):

- ``"alphago"``: AlphaGo's feature planes, uint8 ``[B, C, N, N]`` (``go_env.features.alphago``):
  48 for the policy network, 49 (the player's colour too) for the value network; a network
  that reads ``planes`` of them reads the first ``planes``.
- ``"history"``: the 17 history planes of ``go_env.features.history_planes`` (the side to
  move's and the opponent's stones over the last 8 positions, and who is to move), in a
  ``layout`` ("goarena", "pgx" or "go_v5", ``go_env.features.planes_in_layout``), channels
  first or last, in a ``dtype`` (None: the kernel's own, int8). A network that reads 19 reads
  two constant planes after them, the game's rules (``RULES_PLANES``): the komi from the side
  to move's view in half points (+15: the side to move receives 7.5), and 1 under territory
  scoring (0 under area scoring). They are what makes one network play any komi.

The networks' declarations::

    PolicyNet.features == Features("alphago", 48)
    ValueNet.features == Features("alphago", 49)
    OwnershipNet.features == WinNet.features == HISTORY
    ZeroNet(...).features == HISTORY, or HISTORY_AND_RULES with rules_input=True
"""

from __future__ import annotations

from dataclasses import dataclass

from go_env.features import NUM_HISTORY_PLANES, check_layout
from go_env.features.alphago import NUM_VALUE_PLANES

KINDS = ("alphago", "history")
RULES_PLANES = 2  # after the history planes: the komi for the side to move (half points), territory scoring
KOMI_PLANE, SCORING_PLANE = NUM_HISTORY_PLANES, NUM_HISTORY_PLANES + 1


@dataclass(frozen=True)
class Features:
    """The input planes a network reads.

    Attributes:
        kind: ``"alphago"`` or ``"history"`` (see the module documentation).
        planes: how many planes: 1 to 49 of AlphaGo's (the first ones), 17 history planes
            (19 with the rules planes after them).
        layout: the history planes' order, ``"goarena"``, ``"pgx"`` or ``"go_v5"``
            (AlphaGo's planes have one, ``"goarena"``).
        channels_first: ``[B, C, N, N]`` (True) or ``[B, N, N, C]`` (history planes only).
        dtype: the planes' numpy dtype by name (``"float32"``); None: the kernel's own
            (uint8 for AlphaGo's, int8 for the history planes).
    """

    kind: str
    planes: int
    layout: str = "goarena"
    channels_first: bool = True
    dtype: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"features are of kind {' or '.join(KINDS)}, got {self.kind!r}")
        planes = self.planes
        if not isinstance(planes, int) or isinstance(planes, bool):
            raise ValueError(f"planes must be an integer, got {planes!r}")
        if self.kind == "alphago":
            if not 0 < planes <= NUM_VALUE_PLANES:
                raise ValueError(f"reads {planes} of AlphaGo's planes: they are 1 to {NUM_VALUE_PLANES}")
            if self.layout != "goarena" or not self.channels_first:
                raise ValueError("AlphaGo's planes have one layout: goarena, channels first")
        else:
            if planes not in (NUM_HISTORY_PLANES, NUM_HISTORY_PLANES + RULES_PLANES):
                raise ValueError(
                    f"the history planes are {NUM_HISTORY_PLANES}, or {NUM_HISTORY_PLANES + RULES_PLANES} "
                    f"with the rules planes, got {planes}"
                )
            check_layout(self.layout, "layout")


ALPHAGO_POLICY = Features("alphago", 48)
ALPHAGO_VALUE = Features("alphago", NUM_VALUE_PLANES)
HISTORY = Features("history", NUM_HISTORY_PLANES)
HISTORY_AND_RULES = Features("history", NUM_HISTORY_PLANES + RULES_PLANES)


def alphago_features(planes: int) -> Features:
    """The declaration of a network reading the first ``planes`` of AlphaGo's planes."""
    return Features("alphago", planes)
