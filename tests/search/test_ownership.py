"""Dead stones from ownership playouts, the settled score, and the pass check built on them."""

from __future__ import annotations

import numpy as np
import pytest

from go_env import BLACK, WHITE, Game, Rules
from go_env.coords import from_gtp
from goarena.search import PUCT, UCT
from goarena.search.evaluator import random_state
from goarena.search.ownership import (
    PassCheck,
    best_move_but_pass,
    dead_stones,
    estimate_ownership,
    firm_owner,
    settled_score,
)
from tests.boards import DEAD_IN_AREA, DEAD_IN_BOTH_AREAS, LIVE_IN_AREA, SEKI, position

KOMI_7 = Rules(komi=7.5)
HALF = Rules(komi=0.5)


def after_black_passed(diagram: str, rules: Rules = HALF) -> Game:
    """The diagram with White to play, Black having just passed."""
    game = position(diagram, rules, to_play=BLACK)
    game.play(game.pass_move)
    return game


def points(*vertices: str) -> list[int]:
    return [from_gtp(vertex, 9) for vertex in vertices]


def test_a_stone_walled_in_the_other_sides_area_is_dead():
    game = after_black_passed(DEAD_IN_AREA, KOMI_7)
    ownership = estimate_ownership(game, rng=random_state(0))
    assert ownership[from_gtp("B8", 9)] == 1.0  # Black's in every playout
    assert dead_stones(game, ownership) == points("B8")


@pytest.mark.parametrize("diagram", [SEKI, LIVE_IN_AREA], ids=["seki", "live group"])
def test_seki_and_live_groups_are_not_dead(diagram: str):
    game = after_black_passed(diagram)
    assert dead_stones(game, estimate_ownership(game, rng=random_state(0))) == []


def test_seki_stones_keep_their_owner_in_the_playouts():
    """Neither side fills a shared liberty, which would put its own chain in atari."""
    ownership = estimate_ownership(after_black_passed(SEKI), rng=random_state(0))
    assert (ownership[points("C9", "C8", "C7", "D7")] == -1.0).all()
    assert (ownership[points("E9", "E8", "E7")] == 1.0).all()
    assert (ownership[points("D9", "D8")] == 0.0).all()


def test_ownership_is_deterministic_under_a_seed():
    game = after_black_passed(DEAD_IN_AREA, KOMI_7)
    first = estimate_ownership(game, 16, random_state(5))
    assert np.array_equal(first, estimate_ownership(game, 16, random_state(5)))


def test_playouts_ignore_the_games_move_cap():
    """A game one move from its cap is still played out to find its dead stones."""
    game = after_black_passed(DEAD_IN_AREA, Rules(komi=7.5, max_moves=2))
    assert dead_stones(game, estimate_ownership(game, rng=random_state(0))) == points("B8")


def test_settled_score_takes_the_dead_stones_off():
    game = after_black_passed(DEAD_IN_AREA, KOMI_7)
    assert game.score() == settled_score(game, []) == -8.5
    assert settled_score(game, points("B8")) == 1.5


def test_a_pass_is_unsafe_only_while_own_dead_stones_turn_the_result():
    check = PassCheck(seed=0)
    dead = after_black_passed(DEAD_IN_AREA, KOMI_7)
    assert check.settle(dead) == (-8.5, 1.5, tuple(points("B8")))
    assert not check.pass_is_safe(dead)
    black_to_play = position(DEAD_IN_AREA, KOMI_7, to_play=BLACK)  # the dead stone is White's
    assert check.pass_is_safe(black_to_play)
    assert check.pass_is_safe(after_black_passed(SEKI))
    assert check.pass_is_safe(after_black_passed(LIVE_IN_AREA))


def test_the_other_sides_dead_stones_do_not_make_up_for_own():
    """A clean-up phase takes off only what is captured in it: White must capture H2 itself."""
    game = after_black_passed(DEAD_IN_BOTH_AREAS, Rules(komi=10.5))
    check = PassCheck(seed=0)
    assert check.settle(game) == (-1.5, -1.5, tuple(points("B8", "H2")))
    assert not check.pass_is_safe(game)


def test_own_dead_stones_that_do_not_turn_the_result_allow_a_pass():
    """White's dead B8 costs it the game at komi 7.5, not at komi 20.5."""
    assert PassCheck(seed=0).pass_is_safe(after_black_passed(DEAD_IN_AREA, Rules(komi=20.5)))


def test_the_move_instead_of_a_pass_fills_no_own_eye():
    game = after_black_passed(DEAD_IN_AREA, KOMI_7)
    search = UCT(seed=0)
    search.search(game, simulations=200)
    corner = points("A9", "B9", "C9", "A8", "C8", "A7", "B7", "C7")
    assert PassCheck(seed=0).move(game, search) in corner
    assert best_move_but_pass(game, search) in corner


def test_pass_when_no_other_move_fills_no_own_eye():
    game = after_black_passed(LIVE_IN_AREA)  # White's every legal move fills an eye of its own
    search = UCT(seed=0)
    search.search(game, simulations=50)
    assert best_move_but_pass(game, search) == game.pass_move


@pytest.mark.parametrize("bad", [{"playouts": 0}, {"threshold": 1.0}, {"threshold": -0.1}])
def test_pass_check_refuses_bad_settings(bad: dict):
    with pytest.raises(ValueError):
        PassCheck(**bad)


def test_white_to_play_sees_the_same_dead_stones_as_black():
    game = position(DEAD_IN_AREA, KOMI_7, to_play=WHITE)
    assert dead_stones(game, estimate_ownership(game, rng=random_state(1))) == points("B8")


def pass_value(search: UCT | PUCT, game: Game, owner: np.ndarray | None) -> float:
    """The value for White of passing after Black's pass (the game ends there), as searched."""
    search.settle_finished_games(owner)
    search.search(game, simulations=300)
    return float(search.values()[game.pass_move])


@pytest.mark.parametrize("make_search", [lambda: UCT(seed=0), lambda: PUCT(seed=0)], ids=["uct", "puct"])
def test_a_search_scores_two_passes_without_the_dead_stones_where_told(make_search):
    """The raw count calls two passes a White win (-8.5); without White's dead B8 it is Black's (+1.5)."""
    game = after_black_passed(DEAD_IN_AREA, KOMI_7)
    owner = firm_owner(estimate_ownership(game, rng=random_state(0)))
    assert owner[from_gtp("B8", 9)] == BLACK
    assert pass_value(make_search(), game, None) == 1.0
    assert pass_value(make_search(), game, owner) == -1.0


@pytest.mark.parametrize("diagram", [SEKI, LIVE_IN_AREA], ids=["seki", "live group"])
def test_settling_leaves_seki_and_live_groups_counted(diagram: str):
    game = after_black_passed(diagram)
    owner = firm_owner(estimate_ownership(game, rng=random_state(0)))
    assert pass_value(UCT(seed=0), game, owner) == pass_value(UCT(seed=0), game, None)


def test_settling_needs_an_owner_for_every_point():
    search = UCT(seed=0)
    search.settle_finished_games(np.zeros(19 * 19, np.int8))
    with pytest.raises(ValueError, match="361 points"):
        search.search(after_black_passed(DEAD_IN_AREA, KOMI_7), simulations=10)
