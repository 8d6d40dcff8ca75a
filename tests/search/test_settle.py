"""The settle module: the count without the dead stones, the pass check, named dead lists
(players, an arbiter, a row of judges) that keep the chains in seki alive, and the clean-up
move that never fills a seki's shared liberty."""

from __future__ import annotations

import random

import pytest

from go_env import BLACK, Game, Rules
from goarena.search import UCT
from goarena.search.settle import (
    AS_IT_STANDS,
    PassCheck,
    Settled,
    best_move_but_pass,
    check_settle,
    cleanup_move,
    count_without,
    settle_by_dead_stones,
    settle_by_judges,
    settled_score,
)
from tests.boards import (
    DEAD_IN_AREA,
    DEAD_IN_BOTH_AREAS,
    LIVE_IN_AREA,
    SEKI,
    SEKI_RACE,
    SEKI_WITH_EYES,
    after_black_passed,
    points,
    position,
)

KOMI_7 = Rules(komi=7.5)
HALF = Rules(komi=0.5)
WHITE_SEKI = ("C9", "C8", "C7", "D7")


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


def test_a_dead_list_that_names_a_seki_keeps_it_alive():
    """GNU Go once called a seki dead and turned W+7 into B+20: the chains in seki stay."""
    game = after_black_passed(SEKI)
    assert game.score() == -3.5 and settled_score(game, points(*WHITE_SEKI)) == 6.5
    settled = count_without(game, points(*WHITE_SEKI), "GNU Go")
    assert settled == Settled(-3.5, "GNU Go; in seki, alive: C9 C8 C7 D7", ())
    race = after_black_passed(SEKI_RACE)  # no seki: the named stones come off
    assert count_without(race, points(*WHITE_SEKI), "GNU Go").dead == tuple(points(*WHITE_SEKI))


def test_agreed_and_arbiters_dead_stones_keep_a_seki_alive():
    game = after_black_passed(SEKI)
    named = sorted(points(*WHITE_SEKI))
    agreed = settle_by_dead_stones(game, [named, named], None)
    assert agreed.margin == -3.5 and agreed.dead == ()
    assert agreed.how == "dead stones agreed by both (none); in seki, alive: C9 C8 C7 D7"
    arbiter = settle_by_dead_stones(game, [named], lambda: named)
    assert arbiter.margin == -3.5 and arbiter.how.startswith("dead stones named by the arbiter (none)")
    dead = after_black_passed(DEAD_IN_AREA, KOMI_7)
    assert settle_by_dead_stones(dead, [points("B8")] * 2, None) == Settled(
        1.5, "dead stones agreed by both (B8)", tuple(points("B8"))
    )


def test_disputed_dead_stones_without_an_arbiter_are_counted_as_they_stand():
    game = after_black_passed(DEAD_IN_AREA, KOMI_7)
    settled = settle_by_dead_stones(game, [points("B8"), []], None)
    assert settled.margin == -8.5 and "no arbiter" in settled.how


def test_the_first_judge_that_can_judge_counts_and_a_failing_one_is_said(capsys):
    game = after_black_passed(DEAD_IN_AREA, KOMI_7)

    def broken(game: Game) -> list[int]:
        raise RuntimeError("no engine")

    judges = {"broken": broken, "cannot": lambda game: None, "seki-blind": lambda game: points("B8")}
    assert settle_by_judges(game, judges) == Settled(1.5, "seki-blind", tuple(points("B8")))
    assert "broken could not judge the dead stones: RuntimeError: no engine" in capsys.readouterr().err
    assert settle_by_judges(game, {"cannot": lambda game: None}) == Settled(-8.5, AS_IT_STANDS)
    seki = after_black_passed(SEKI)
    assert settle_by_judges(seki, {"GNU Go": lambda game: points(*WHITE_SEKI)}).margin == -3.5


@pytest.mark.parametrize("diagram", [SEKI, SEKI_WITH_EYES], ids=["shared liberties", "eyes"])
def test_a_cleanup_move_never_fills_a_sekis_shared_liberty(diagram: str):
    """Every other legal move of both sides fills an own eye: the clean-up passes."""
    for to_play in (BLACK, 3 - BLACK):
        game = position(diagram, HALF, to_play=to_play)
        moves = {cleanup_move(game, random.Random(seed), default=game.pass_move) for seed in range(20)}
        assert moves == {game.pass_move}


def test_a_cleanup_move_still_captures_what_is_dead():
    game = after_black_passed(SEKI_RACE)  # White's four are dead: Black fills the shared liberties
    black = position(SEKI_RACE, HALF, to_play=BLACK)
    moves = {cleanup_move(black, random.Random(seed), default=black.pass_move) for seed in range(20)}
    assert moves and game.pass_move not in moves
    assert moves <= set(points("D9", "D8", "E6"))


def test_settle_modes():
    check_settle("status", Rules())
    with pytest.raises(ValueError, match="unknown settle mode"):
        check_settle("agree", Rules())
    with pytest.raises(ValueError, match="area scoring"):
        check_settle("status", Rules(scoring="territory"))
