"""``OwnershipGreedyAgent``: the registry's ``ownership-greedy``, ``players.network.NetworkPlayer``
with the ownership network, one ply greedy by its value V (``agents.specs.builtin_factory``),
kept as a name for the callers that import it."""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    if name == "OwnershipGreedyAgent":
        from goarena.agents.specs import builtin_factory

        return builtin_factory("ownership-greedy")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
