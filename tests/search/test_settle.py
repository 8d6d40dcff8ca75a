"""The settle module: the count without the dead stones, the pass check, named dead lists
(players, an arbiter, a row of judges) that keep the chains in seki alive, and the clean-up
move that never fills a seki's shared liberty."""

from __future__ import annotations

import numpy as np
import pytest

from go_env import BLACK, WHITE, Game, Rules, coords
from go_env.game import RESIGN
from goarena.search import UCT
from goarena.search.settle import (
    AS_IT_STANDS,
    PassCheck,
    Settled,
    best_move_but_pass,
    black_view,
    check_settle,
    clean_up_under_way,
    cleanup_move,
    count_without,
    settle_by_dead_stones,
    settle_by_judges,
    settled_score,
    settling_move,
)
from tests.boards import (
    ATARI_IN_AREA,
    DEAD_IN_AREA,
    DEAD_IN_BOTH_AREAS,
    LIVE_IN_AREA,
    SEKI,
    SEKI_RACE,
    SEKI_WITH_EYES,
    TRIPLE_KO,
    TRIPLE_KO_CYCLE,
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


def playouts(game: Game) -> np.ndarray:
    return PassCheck(seed=0).ownership(game)


def owned_by(game: Game, color: int, *vertices: str) -> np.ndarray:
    """An ownership map (Black's view) that gives ``vertices`` to ``color``, nothing else."""
    ownership = np.zeros(game.num_points)
    ownership[points(*vertices)] = 1.0 if color == BLACK else -1.0
    return ownership


@pytest.mark.parametrize("diagram", [SEKI, SEKI_WITH_EYES], ids=["shared liberties", "eyes"])
def test_a_cleanup_move_never_fills_a_sekis_shared_liberty(diagram: str):
    """Nothing is dead: both sides pass, even with a map that calls the other side's seki
    chain dead (the seki keeps it alive)."""
    for to_play in (BLACK, WHITE):
        game = position(diagram, HALF, to_play=to_play)
        assert cleanup_move(game, playouts(game)) == game.pass_move
        board = game.board.ravel()
        theirs = [coords.to_gtp(int(p), 9) for p in np.flatnonzero(board == 3 - to_play)]
        assert cleanup_move(game, owned_by(game, to_play, *theirs)) == game.pass_move


def test_a_cleanup_move_captures_what_is_dead():
    black = position(SEKI_RACE, HALF, to_play=BLACK)  # White's four are dead: Black fills their liberties
    assert cleanup_move(black, playouts(black)) in points("D9", "D8")
    black.play(points("D9")[0])
    black.play(black.pass_move)
    assert cleanup_move(black, playouts(black)) == points("D8")[0]  # the capture


def test_a_cleanup_move_fills_no_liberty_its_own_chain_needs_in_a_race():
    """A map that wrongly calls Black's E9-E8-E7 dead: White's C9-C8-C7-D7 shares D9 and D8
    with it and has no other liberty, so White filling either puts its own four in atari
    (the held-out game's lost 13 stones): White takes the outside liberty E6 instead."""
    white = position(SEKI_RACE, HALF, to_play=WHITE)
    wrong = owned_by(white, WHITE, "E9", "E8", "E7")
    assert cleanup_move(white, wrong) == points("E6")[0]
    white.play(points("E6")[0])
    white.play(white.pass_move)
    assert cleanup_move(white, wrong) == white.pass_move  # what is left is D9 and D8
    assert cleanup_move(white, np.zeros(white.num_points), default=RESIGN) == RESIGN  # nothing dead


def test_a_settling_move_captures_the_stones_in_atari_inside_its_area():
    game = position(ATARI_IN_AREA, HALF, to_play=BLACK)
    ownership = playouts(game)
    b6 = points("B6")[0]
    assert settling_move(game, ownership, captures_only=True) == b6
    assert settling_move(game, ownership) == b6
    game.play(b6)
    game.play(game.pass_move)
    assert settling_move(game, playouts(game)) is None  # nothing of White's is left inside
    white = position(ATARI_IN_AREA, HALF, to_play=WHITE)
    assert settling_move(white, playouts(white)) is None  # its own stones are not for it to take


def test_a_settling_move_attacks_a_dead_chain_from_outside_first_and_never_repeats():
    game = after_black_passed(DEAD_IN_BOTH_AREAS, Rules(komi=10.5))  # White to move: Black's H2 is dead
    ownership = playouts(game)
    move = settling_move(game, ownership)
    assert move in points("H3", "G2", "J2", "H1")
    assert settling_move(game, ownership, captures_only=True) is None  # H2 has four liberties


def test_counted_as_it_stands_the_other_sides_dead_stones_do_not_make_up_for_own():
    """White wins DEAD_IN_BOTH_AREAS as it stands and with both dead stones off, loses with
    its own B8 off: a referee takes B8 off and leaves H2 until White captures it: no pass."""
    game = after_black_passed(DEAD_IN_BOTH_AREAS, Rules(komi=10.5))
    assert game.score() < 0 and settled_score(game, points("B8", "H2")) < 0  # White ahead both ways
    assert settled_score(game, points("B8")) > 0
    assert not PassCheck(seed=0).pass_is_safe(game, as_it_stands=True)


def test_pass_check_counted_as_it_stands_needs_a_win_both_ways():
    """Tromp-Taylor: White wins DEAD_IN_AREA by the raw count but loses without its dead B8,
    a count GNU Go makes: no pass. A live group in the other's area counts either way."""
    check = PassCheck(seed=0)
    dead = after_black_passed(DEAD_IN_AREA, KOMI_7)
    assert not check.pass_is_safe(dead, as_it_stands=True)
    assert check.pass_is_safe(after_black_passed(LIVE_IN_AREA), as_it_stands=True)
    assert check.pass_is_safe(after_black_passed(SEKI), as_it_stands=True)
    lost = position(DEAD_IN_AREA, KOMI_7, to_play=BLACK)  # Black: won without B8, lost raw
    assert not check.pass_is_safe(lost, as_it_stands=True)


def test_lost_means_lost_by_both_counts():
    check = PassCheck(seed=0)
    black = position(DEAD_IN_AREA, KOMI_7, to_play=BLACK)  # raw: W+8.5; without B8: B+1.5
    assert not check.lost(black, check.ownership(black))
    white = after_black_passed(LIVE_IN_AREA)  # Black: W+7.5 both ways
    black_loses = position(LIVE_IN_AREA, HALF, to_play=BLACK)
    assert check.lost(black_loses, check.ownership(black_loses))
    assert not check.lost(white, check.ownership(white))


def test_the_move_instead_of_a_pass_never_repeats_a_board():
    game = position(TRIPLE_KO, Rules(komi=0.5, ko="simple"))
    for vertex in TRIPLE_KO_CYCLE:
        game.play(points(vertex)[0])
    search = UCT(seed=0)
    search.search(game, simulations=100)
    assert best_move_but_pass(game, search) not in game.repeating_moves()


def test_a_clean_up_phase_is_a_game_resumed_after_two_passes():
    game = after_black_passed(DEAD_IN_AREA)
    assert not clean_up_under_way(game)
    game.play(game.pass_move)
    game.resume()
    assert clean_up_under_way(game)


def test_black_view_turns_the_side_to_moves_map():
    ownership = np.array([0.5, -1.0])
    np.testing.assert_array_equal(black_view(ownership, BLACK), ownership)
    np.testing.assert_array_equal(black_view(ownership, WHITE), -ownership)


def test_settle_modes():
    check_settle("status", Rules())
    with pytest.raises(ValueError, match="unknown settle mode"):
        check_settle("agree", Rules())
    with pytest.raises(ValueError, match="area scoring"):
        check_settle("status", Rules(scoring="territory"))
