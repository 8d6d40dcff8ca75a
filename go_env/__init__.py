"""goarena's Go environment: a numba rules core with PettingZoo and Gymnasium APIs.

``go_env`` imports nothing else of goarena and never imports torch, so any RL project can
use it alone.
"""

from go_env.game import BLACK, EMPTY, WHITE, Game, IllegalMoveError
from go_env.rules import RULES_PRESETS, Rules

__all__ = ["BLACK", "EMPTY", "WHITE", "Game", "IllegalMoveError", "RULES_PRESETS", "Rules"]
