"""Ownership playouts: who owns each point at the end, the dead stones read off them, and a
search that scores its finished games by them (the count and the pass check: test_settle)."""

from __future__ import annotations

import numpy as np
import pytest

from go_env import BLACK, WHITE, Game, Rules
from go_env.coords import from_gtp
from goarena.search import PUCT, UCT
from goarena.search.evaluator import random_state
from goarena.search.ownership import estimate_ownership
from goarena.search.settle import dead_stones, firm_owner
from tests.boards import DEAD_IN_AREA, LIVE_IN_AREA, SEKI, after_black_passed, points, position

KOMI_7 = Rules(komi=7.5)


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
