"""goarena's Go environment: a numba rules core with PettingZoo and Gymnasium APIs.

``go_env`` imports nothing else of goarena and never imports torch, so any RL project can
use it alone. Importing it registers the Gymnasium environment ``goarena/Go-v0`` (``GoEnv``,
vectorised by ``GoVectorEnv``), and points numba's cache at a directory keyed on the kernels'
sources (``go_env._cache``).
"""

from go_env import _cache  # noqa: F401  (first: before any kernel is compiled or loaded)
from go_env.aec import env, raw_env
from go_env.batch import GameBatch
from go_env.game import BLACK, EMPTY, WHITE, Game, IllegalMoveError
from go_env.gym_env import GoEnv, OpponentError, register_envs
from go_env.rules import RULES_PRESETS, Rules, default_komi
from go_env.vector import GoVectorEnv, action_masks

register_envs()

__all__ = [
    "BLACK",
    "EMPTY",
    "WHITE",
    "Game",
    "GameBatch",
    "GoEnv",
    "GoVectorEnv",
    "IllegalMoveError",
    "OpponentError",
    "RULES_PRESETS",
    "Rules",
    "action_masks",
    "default_komi",
    "env",
    "raw_env",
]
