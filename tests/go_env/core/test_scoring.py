"""Scoring (``go_env.core.scoring``): area and territory counts, seki, komi and draws, on named
positions drawn as boards (see ``tests/go_env/core/test_rules.py``)."""

from __future__ import annotations

import numpy as np

from go_env import coords
from go_env import core as K
from go_env.game import BLACK, EMPTY, WHITE
from go_env.rules import Rules
from tests.boards import position
from tests.go_env.core.test_rules import play

# Each side has one eye (A5, E5); C5 and C1 are liberties both chains share.
SEKI = """
    . X . O .
    X X X O O
    X X X O O
    X X X O O
    X X . O O
"""


def test_seki_area_score() -> None:
    game = position(SEKI, Rules(komi=0.5))
    # Black: 12 stones and the eye A5; White: 9 stones and the eye E5. C5 and C1 touch
    # both colours, so they count for neither.
    assert game.score() == 13 - 10 - 0.5
    owner = game.area_owner()
    assert [owner.ravel()[coords.from_gtp(v, 5)] for v in ("A5", "E5", "C5", "C1")] == [
        BLACK,
        WHITE,
        EMPTY,
        EMPTY,
    ]
    assert game.result() == "B+2.5"


def test_seki_is_mutual() -> None:
    """Neither side can kill: whoever fills both shared liberties is captured."""
    game = position(SEKI, Rules(komi=0.5))
    play(game, "C5", "pass", "C1")  # Black fills both...
    play(game, "A5")  # ...and White captures through Black's last liberty
    assert game.captures(WHITE) == 14
    game = position(SEKI, Rules(komi=0.5), to_play=WHITE)
    play(game, "C5", "pass", "C1", "E5")
    assert game.captures(BLACK) == 11


# Black captures the White stone at B4 with A4.
TERRITORY = """
    . X X O .
    . O X O .
    . X X O .
    . . X O .
    . . X O .
"""


def test_territory_scoring_counts_territory_and_captures() -> None:
    game = position(TERRITORY, Rules(komi=0, scoring="territory"))
    play(game, "A4")
    # Black: territory A5, B4, and A3 A2 A1 B2 B1 (7) plus one prisoner; White: the E
    # column (5). Stones do not count.
    assert game.score() == 8 - 5
    assert game.result() == "B+3"


def test_area_scoring_of_the_same_position() -> None:
    game = position(TERRITORY, Rules(komi=0, scoring="area"))
    play(game, "A4")
    # Black: 8 stones + 7 points; White: 5 stones + 5 points. Prisoners do not count.
    assert game.score() == 15 - 10


def test_integer_komi_can_draw() -> None:
    game = position(TERRITORY, Rules(komi=5, scoring="area"))
    play(game, "A4")
    assert game.score() == 0
    assert game.result() == "0"
    assert game.winner() == EMPTY
    game = position(TERRITORY, Rules(komi=3, scoring="territory"))
    play(game, "A4")
    assert game.result() == "0"


def test_white_wins_on_komi() -> None:
    game = position(TERRITORY, Rules(komi=6.5, scoring="territory"))
    play(game, "A4")
    assert game.result() == "W+3.5" and game.winner() == WHITE


def test_the_state_carries_its_komi_and_scoring_and_counts_under_other_settings() -> None:
    game = position(TERRITORY, Rules(komi=-2.5, scoring="territory"))
    play(game, "A4")
    info = game.state.info
    assert info[K.INFO_KOMI] == -5 and info[K.INFO_SCORING] == K.SCORING_TERRITORY  # half points
    assert game.score() == 8 - 5 + 2.5
    marks, stack = np.empty(game.num_points, np.int8), np.empty(game.num_points, np.int64)
    assert K.count_points(game.state, game.geometry, True, marks, stack) == 8 - 5
    assert K.count_points(game.state, game.geometry, False, marks, stack) == 15 - 10  # as area
