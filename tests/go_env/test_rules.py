"""``Rules`` refuses fields that would crash, hang or quietly change a game: every bad
field is a ``ValueError`` saying which."""

from __future__ import annotations

import dataclasses

import pytest

from go_env.game import Game
from go_env.rules import MAX_MOVES, RULES_PRESETS, Rules, board_rules, default_komi


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"komi": float("inf")}, "komi must be a multiple of 0.5 from -1000 to 1000"),
        ({"komi": float("-inf")}, "komi must be a multiple of 0.5 from -1000 to 1000"),
        ({"komi": float("nan")}, "komi must be a multiple of 0.5 from -1000 to 1000"),
        ({"komi": 0.25}, "komi must be a multiple of 0.5 from -1000 to 1000"),
        ({"komi": 1000.5}, "komi must be a multiple of 0.5 from -1000 to 1000"),
        ({"komi": -(10**400)}, "komi must be a multiple of 0.5 from -1000 to 1000"),
        ({"komi": "7.5"}, "komi must be a number"),
        ({"komi": True}, "komi must be a number"),
        ({"komi": None}, "komi must be a number"),
        ({"max_moves": 0}, f"max_moves must be between 1 and {MAX_MOVES}"),
        ({"max_moves": MAX_MOVES + 1}, f"max_moves must be between 1 and {MAX_MOVES}"),
        ({"max_moves": 10**12}, f"max_moves must be between 1 and {MAX_MOVES}"),
        ({"max_moves": True}, "max_moves must be an integer"),
        ({"max_moves": 100.0}, "max_moves must be an integer"),
        ({"max_moves": "100"}, "max_moves must be an integer"),
        ({"ko": ["simple"]}, "unknown ko rule"),
        ({"ko": "none"}, "unknown ko rule"),
        ({"scoring": ["area"]}, "unknown scoring"),
        ({"suicide": "yes"}, "suicide must be True or False"),
        ({"suicide": 1}, "suicide must be True or False"),
        ({"name": 5}, "name must be text"),
    ],
    ids=repr,
)
def test_bad_fields_are_value_errors(fields, message):
    with pytest.raises(ValueError, match=message):
        Rules(**fields)
    with pytest.raises(ValueError, match=message):
        dataclasses.replace(Rules(), **fields)


@pytest.mark.parametrize("komi", [7.5, 7, -3.5, 0, 0.0, 361.5, -1000, 1000.0])
def test_komi_multiples_of_a_half(komi):
    assert Rules(komi=komi).komi == komi


def test_the_longest_cap_makes_a_game():
    game = Game(5, Rules(max_moves=MAX_MOVES))
    assert game.rules.move_cap(5) == MAX_MOVES
    game.play(12)


def test_presets_are_valid():
    for name, rules in RULES_PRESETS.items():
        assert Rules.preset(name) == rules == Rules(**rules.to_dict())


def test_an_env_board_plays_its_sizes_komi_unless_told_another():
    assert board_rules(9) == Rules(komi=default_komi(9)) and board_rules(13).komi == default_komi(13)
    japanese = Rules(scoring="territory", ko="simple")
    assert board_rules(9, japanese) == japanese
    assert board_rules(9, japanese, komi=6.5) == dataclasses.replace(japanese, komi=6.5)
    assert board_rules(19, komi=0.5) == Rules(komi=0.5)
