"""The GTP vocabulary that the client (``client.py``) and the engine (``engine.py``) share.

Colour names, the longest line either side reads, error-message quoting, and KataGo's JSON
form of the rules (``kata-get-rules``, ``kata-set-rules``).
"""

from __future__ import annotations

from typing import Any

from go_env.game import BLACK, WHITE
from go_env.rules import Rules

COLOR_LETTERS = {BLACK: "b", WHITE: "w"}  # as the client writes colours
COLORS = {"b": BLACK, "black": BLACK, "w": WHITE, "white": WHITE}  # as GTP lets colours be written
LINE_LIMIT = 1 << 16  # longest line read (bytes from an engine, characters from a controller)

KATA_KO = {"simple": "SIMPLE", "positional": "POSITIONAL", "situational": "SITUATIONAL"}
KATA_FIXED = ("tax", "hasButton", "whiteHandicapBonus")  # axes goarena has a single setting of


def shorten(text: str, limit: int) -> str:
    """``text``, cut to about ``limit`` characters for an error message (it may quote a huge argument)."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


def kata_rules(rules: Rules) -> dict[str, Any]:
    """``rules`` in the JSON form of KataGo's ``kata-get-rules`` and ``kata-set-rules``."""
    return {
        "ko": KATA_KO[rules.ko],
        "scoring": rules.scoring.upper(),
        "tax": "NONE",  # every point counts, in seki too
        "suicide": rules.suicide,
        "hasButton": False,
        "whiteHandicapBonus": "0",
    }
