"""GTP, both ways: any GTP engine as a player (``client``), any player as a GTP engine (``engine``).

The two sides share only the protocol's vocabulary (``protocol``); neither imports the other.
``clock`` keeps a game's clocks and budgets the engine's moves from them.
"""

from goarena.agents.gtp.client import ANSWER_LIMIT, GTPAgent, GTPEngineError, find_engine
from goarena.agents.gtp.engine import GTPEngine, GTPError, PonderingAgent, TimedAgent
from goarena.agents.gtp.protocol import LINE_LIMIT, kata_rules

__all__ = [
    "ANSWER_LIMIT",
    "LINE_LIMIT",
    "GTPAgent",
    "GTPEngine",
    "GTPEngineError",
    "GTPError",
    "PonderingAgent",
    "TimedAgent",
    "find_engine",
    "kata_rules",
]
