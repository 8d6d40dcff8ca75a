"""Network inputs as numba functions of the rules state.

``history`` holds the AlphaZero history planes the environments observe, ``symmetry`` the 8
dihedral maps of the board, ``liberties`` exact liberty counts, ``ladders`` a ladder reader and
``alphago`` the 48 feature planes of AlphaGo's policy network (``goarena bench networks``
times them).
"""

from __future__ import annotations

from go_env.features.alphago import (
    NUM_ALPHAGO_PLANES,
    NUM_VALUE_PLANES,
    alphago_planes,
    batch_alphago_planes,
    game_planes,
    new_alphago_planes,
)
from go_env.features.history import (
    NUM_HISTORY_PLANES,
    OBSERVATION_DTYPES,
    OBSERVATION_LAYOUTS,
    batch_history_planes,
    check_layout,
    check_observation_options,
    history_planes,
    new_history_planes,
    other_side_view,
    planes_in_layout,
)

__all__ = [
    "NUM_ALPHAGO_PLANES",
    "NUM_VALUE_PLANES",
    "alphago_planes",
    "batch_alphago_planes",
    "game_planes",
    "new_alphago_planes",
    "NUM_HISTORY_PLANES",
    "batch_history_planes",
    "history_planes",
    "new_history_planes",
    "other_side_view",
    "OBSERVATION_DTYPES",
    "OBSERVATION_LAYOUTS",
    "check_layout",
    "check_observation_options",
    "planes_in_layout",
]
