"""Seki: chains that live by shared liberties neither side can fill (go_env.seki)."""

from __future__ import annotations

import pytest

from go_env.seki import in_seki, keep_seki_alive, seki_chains, seki_liberties
from tests.boards import (
    DEAD_IN_AREA,
    GNUGO_MISSES_SEKI,
    LIVE_IN_AREA,
    SEKI,
    SEKI_RACE,
    SEKI_WITH_EYES,
    points,
    position,
)


def test_two_chains_sharing_their_two_liberties_are_in_seki():
    game = position(SEKI)
    white, black = sorted(points("C9", "C8", "C7", "D7")), sorted(points("E9", "E8", "E7"))
    assert seki_chains(game) == [tuple(white), tuple(black)]
    assert seki_liberties(game) == sorted(points("D9", "D8"))
    assert in_seki(game, points("D7")[0]) and in_seki(game, points("E8")[0])


def test_an_eye_on_each_side_and_one_shared_liberty_is_a_seki():
    game = position(SEKI_WITH_EYES)
    assert seki_chains(game) == [
        tuple(sorted(points("B9", "A8", "B8", "C8"))),
        tuple(sorted(points("D9", "D8", "E8", "F8", "F9"))),
    ]
    assert seki_liberties(game) == points("C9")  # the eyes A9 and E9 are no shared liberties


def test_a_big_group_can_live_in_seki_with_a_lone_stone():
    game = position(GNUGO_MISSES_SEKI)
    white = next(chain for chain in seki_chains(game) if len(chain) > 1)
    assert len(white) == 22 and seki_chains(game) == [white, tuple(points("F6"))]
    assert seki_liberties(game) == sorted(points("E6", "F5"))


def test_a_race_a_dead_stone_and_a_living_group_are_no_seki():
    race = position(SEKI_RACE)  # Black's third liberty wins the race
    assert not in_seki(race, points("C9")[0]) and not in_seki(race, points("E9")[0])
    assert seki_chains(race) == [] and seki_liberties(race) == []
    assert not in_seki(position(DEAD_IN_AREA), points("B8")[0])
    assert seki_chains(position(LIVE_IN_AREA)) == []  # two eyes: alive, not seki


# Two final boards of GNU Go against random play (GNU Go called the chains named below dead,
# rightly). White's H8-J8-H7 and Black's H9 share J9, and either side filling J9 or J7 now would
# be a self-atari; but Black's H9 connects out at G9, and then White is dead: no seki.
CONNECTS_OUT = """
O O O . X X . X .
O X X O X . X O O
O . O X . X X O .
O O X . X X . X .
O X O X X . X O X
X X . X . X O . O
. O X . X X X X X
O X X X . O X X .
O . O X O X X X .
"""
# Black's H4-H3-H2-J2-H1 has the eye J1 and shares J3 with White's J4, which connects out at J5
# (the top row left empty).
APPROACHED = """
. . . . . . . . .
. X . O . O O O .
. X O O . O . O O
X O O X O X O O .
X . . X O . . O .
O O . O . O O X O
X O X O O . O X .
. O O . . . O X X
O . . . . . O X .
"""


def test_a_chain_next_to_one_that_can_connect_out_is_no_seki():
    assert not in_seki(position(CONNECTS_OUT), points("H8")[0])
    assert not in_seki(position(APPROACHED), points("H4")[0])
    assert seki_chains(position(CONNECTS_OUT)) == seki_chains(position(APPROACHED)) == []


def test_a_judges_dead_list_keeps_the_chains_in_seki():
    seki = points("C9", "C8", "C7", "D7")
    assert keep_seki_alive(position(SEKI), [*seki, *points("J8")]) == points("J8")  # far away: it stays
    race = position(SEKI_RACE)
    assert keep_seki_alive(race, seki) == seki


def test_a_seki_resting_on_stones_named_dead_is_none():
    """Each named chain is judged without the other named stones: with Black's E9-E8-E7 off,
    White's four have the corner to themselves, no seki; a judge that names both loses both."""
    both = points("C9", "C8", "C7", "D7", "E9", "E8", "E7")
    assert keep_seki_alive(position(SEKI), both) == both


def test_an_empty_point_is_no_chain():
    with pytest.raises(ValueError, match="no stone"):
        in_seki(position(SEKI), points("D9")[0])
