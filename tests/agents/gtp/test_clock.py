"""The GTP engine's clocks: time controls from GTP's and KGS's commands, ``time_left``, the
charge of a move, and each move's budget."""

from __future__ import annotations

import math

import pytest

from go_env import BLACK, WHITE
from goarena.agents.gtp.clock import MIN_MOVE_TIME, Clock, TimeControl, expected_moves

NO_LIMIT = TimeControl()
SUDDEN_DEATH = TimeControl(300)
CANADIAN = TimeControl(300, 30, stones=5)
JAPANESE = TimeControl(300, 30, periods=5)


@pytest.mark.parametrize(
    ("main", "byo_yomi", "stones", "control"),
    [
        (300, 0, 0, SUDDEN_DEATH),
        (300, 30, 5, CANADIAN),
        (0, 30, 0, NO_LIMIT),  # GTP's way of saying "no time limit"
        (300, 0, 5, SUDDEN_DEATH),  # stones without a period: none
    ],
)
def test_time_settings(main, byo_yomi, stones, control):
    assert TimeControl.from_gtp(main, byo_yomi, stones) == control


@pytest.mark.parametrize(
    ("words", "control"),
    [
        ("none", NO_LIMIT),
        ("absolute 300", SUDDEN_DEATH),
        ("byoyomi 300 30 5", JAPANESE),
        ("BYOYOMI 300 30 0", SUDDEN_DEATH),
        ("canadian 300 30 5", CANADIAN),
        ("canadian 300 30 0", NO_LIMIT),
        ("canadian 300 0 0", SUDDEN_DEATH),
    ],
)
def test_kgs_time_settings(words, control):
    assert TimeControl.from_kgs(words.split()) == control


@pytest.mark.parametrize(
    "words",
    [
        "",
        "fischer 300 10",
        "absolute",
        "absolute 300 30",
        "byoyomi 300 30",
        "absolute soon",
        "byoyomi 300 30 -1",
    ],
)
def test_bad_kgs_time_settings_are_refused(words):
    with pytest.raises(ValueError):
        TimeControl.from_kgs(words.split())


@pytest.mark.parametrize(
    ("arguments", "message"),
    [((-1, 0, 0), "at least 0"), ((300, 30, -5), "at least 0"), ((math.nan, 0, 0), "at least 0")],
)
def test_bad_time_settings_are_refused(arguments, message):
    with pytest.raises(ValueError, match=message):
        TimeControl.from_gtp(*arguments)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: TimeControl.from_gtp(1e306, 0, 0), "main time 1e[+]306 s is more than a year"),
        (lambda: TimeControl.from_kgs(["byoyomi", "0", "1e-320", "5"]), "period .* s is less than 0.001 s"),
        (lambda: TimeControl.from_gtp(300, 30, 10**400), "at most 10000 periods or stones"),
        (lambda: Clock(SUDDEN_DEATH).set_left(BLACK, -1e306, 0), "time left 1e[+]306 s is more than a year"),
    ],
)
def test_absurd_clocks_are_refused_when_they_are_set(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_a_time_control_says_itself_as_time_settings():
    assert CANADIAN.gtp() == (300, 30, 5) and SUDDEN_DEATH.gtp() == (300, 0, 0)
    assert JAPANESE.gtp() == (300, 30, 1)  # one Canadian period of one stone: a period, safely
    assert NO_LIMIT.gtp() == (0, 1, 0) and TimeControl.from_gtp(*NO_LIMIT.gtp()) == NO_LIMIT
    assert str(JAPANESE) == "300 s + 5 x 30 s byo-yomi"


# -- time left ------------------------------------------------------------------------------


def test_time_left_in_main_time_and_in_overtime():
    clock = Clock(CANADIAN)
    assert clock.left(BLACK) == clock.left(WHITE) == (300, 0)
    clock.set_left(BLACK, 120.5, 0)
    assert clock.left(BLACK) == (120.5, 0) and clock.left(WHITE) == (300, 0)
    clock.set_left(BLACK, 20, 3)  # Canadian: 3 stones to play in 20 s
    assert clock.left(BLACK) == (20, 3) and clock.sides[BLACK].overtime
    clock.set_left(BLACK, 20, 9)  # never more stones than a period has
    assert clock.left(BLACK) == (20, 5)
    clock.set_left(BLACK, 0, 0)  # "0 0": main time is over, the first period begins
    assert clock.left(BLACK) == (30, 5)


def test_kgs_sends_the_periods_left_as_stones_in_japanese_byo_yomi():
    clock = Clock(JAPANESE)
    clock.set_left(WHITE, 25, 2)
    side = clock.sides[WHITE]
    assert side.overtime and side.periods == 2 and side.period == 25 and clock.left(WHITE) == (25, 2)


def test_time_left_without_a_time_limit_starts_one_and_stones_need_overtime():
    clock = Clock()
    assert clock.left(BLACK) is None and clock.budget(BLACK, 81, 0) is None
    clock.set_left(BLACK, 100, 0)  # the controller's clock is trusted
    assert clock.left(BLACK) == (100, 0) and clock.budget(BLACK, 81, 0) is not None
    with pytest.raises(ValueError, match="no overtime"):
        Clock(SUDDEN_DEATH).set_left(BLACK, 10, 1)
    with pytest.raises(ValueError):
        clock.set_left(BLACK, math.nan, 0)


def test_no_main_time_starts_in_overtime():
    assert Clock(TimeControl(0, 10, periods=3)).left(BLACK) == (10, 3)
    assert Clock(TimeControl(0, 10, stones=1)).left(BLACK) == (10, 1)


# -- charging moves ----------------------------------------------------------------------


def test_sudden_death_is_lost_when_main_time_runs_out():
    clock = Clock(TimeControl(10))
    assert clock.spend(BLACK, 9.5) and clock.left(BLACK) == (0.5, 0)
    assert not clock.spend(BLACK, 0.6) and clock.sides[BLACK].lost
    assert clock.left(WHITE) == (10, 0)  # the other side's clock is its own


def test_japanese_periods_are_lost_only_by_moves_longer_than_a_period():
    clock = Clock(TimeControl(10, 5, periods=3))
    assert clock.spend(BLACK, 12)  # 10 s of main time, then 2 s of the first period
    assert clock.left(BLACK) == (5, 3)
    assert clock.spend(BLACK, 4.9) and clock.left(BLACK) == (5, 3)
    assert clock.spend(BLACK, 11) and clock.left(BLACK) == (5, 1)  # two periods used up
    assert not clock.spend(BLACK, 5.1)


def test_canadian_stones_must_be_played_within_their_period():
    clock = Clock(TimeControl(10, 8, stones=2))
    assert clock.spend(BLACK, 11)  # main time spills into the period: this move is its first stone
    assert clock.left(BLACK) == (7, 1)
    assert clock.spend(BLACK, 6) and clock.left(BLACK) == (8, 2)  # both stones: a new period
    assert clock.spend(BLACK, 7) and clock.left(BLACK) == (1, 1)
    assert not clock.spend(BLACK, 1.5)


# -- budgets ----------------------------------------------------------------------------------


def test_the_expected_moves_shrink_with_the_game_to_a_floor():
    assert expected_moves(81, 0) == pytest.approx((0.9 * 81 + 20) / 2)
    assert expected_moves(81, 40) < expected_moves(81, 0)
    assert expected_moves(81, 500) == expected_moves(81, 80) == pytest.approx((0.2 * 81 + 20) / 2)
    assert expected_moves(361, 0) > expected_moves(81, 0)


def test_main_time_is_spread_over_the_expected_moves():
    moves = expected_moves(81, 10)
    assert Clock(SUDDEN_DEATH).budget(BLACK, 81, 10, lag=0.5) == pytest.approx(300 / moves - 0.5)
    assert Clock(CANADIAN).budget(BLACK, 81, 10, lag=0.5) == pytest.approx(300 / moves + 30 / 5 - 0.5)
    assert Clock(JAPANESE).budget(BLACK, 81, 10, lag=0) == pytest.approx(300 / moves + 30)


def test_overtime_budgets():
    canadian = Clock(CANADIAN)
    canadian.set_left(BLACK, 20, 4)
    assert canadian.budget(BLACK, 81, 100, lag=0.5) == pytest.approx(20 / 4 - 0.5)
    canadian.set_left(BLACK, 3, 1)  # the last stone: what is left of the period
    assert canadian.budget(BLACK, 81, 100, lag=0.5) == pytest.approx(2.5)
    japanese = Clock(JAPANESE)
    japanese.set_left(BLACK, 30, 1)  # the last period: one period, as with five
    assert japanese.budget(BLACK, 81, 100, lag=0.5) == pytest.approx(29.5)
    japanese.set_left(BLACK, 12, 3)  # a controller counting from earlier: what is left of it
    assert japanese.budget(BLACK, 81, 100, lag=0.5) == pytest.approx(11.5)


def test_a_budget_never_falls_under_the_least():
    clock = Clock(TimeControl(1))
    assert clock.budget(BLACK, 81, 0, lag=0.5) == MIN_MOVE_TIME
    clock.spend(BLACK, 2)  # lost: still an answer, as fast as it goes
    assert clock.budget(BLACK, 81, 0, lag=0.5, minimum=0.01) == 0.01


@pytest.mark.parametrize(
    ("control", "moves"),
    [
        (TimeControl(60), 140),  # sudden death: well past a typical game's length
        (TimeControl(5, 1, periods=1), 1000),  # with overtime: for ever
        (TimeControl(5, 4, stones=5), 1000),
    ],
)
def test_a_side_that_spends_its_budget_and_the_lag_on_every_move_keeps_time(control, moves):
    clock = Clock(control)
    for move in range(0, moves, 2):
        budget = clock.budget(BLACK, 81, move, lag=0.2)
        assert budget is not None and clock.spend(BLACK, budget + 0.2), move


# -- KataGo's kata-time_settings: Fischer time ------------------------------------------------

FISCHER = TimeControl(300, increment=10)


@pytest.mark.parametrize(
    ("words", "control"),
    [
        ("none", NO_LIMIT),
        ("absolute 300", SUDDEN_DEATH),
        ("byoyomi 300 30 5", JAPANESE),
        ("byo-yomi 300 30 5", JAPANESE),  # as kata-list_time_settings spells it
        ("canadian 300 30 5", CANADIAN),
        ("fischer 300 10", FISCHER),
        ("FISCHER 2.5 0.25", TimeControl(2.5, increment=0.25)),  # fractions of seconds
        ("fischer-capped 300 10 600 60", TimeControl(300, increment=10, main_limit=600, move_limit=60)),
        ("fischer-capped 300 10 -1 -1", FISCHER),  # a negative limit: none
        ("fischer-capped 300 10 -1 5.5", TimeControl(300, increment=10, move_limit=5.5)),
    ],
)
def test_kata_time_settings(words, control):
    assert TimeControl.from_kata(words.split()) == control


@pytest.mark.parametrize(
    ("words", "message"),
    [
        ("", "expected none"),
        ("sudden 300", "expected none"),
        ("fischer 300", "expected fischer"),
        ("fischer 300 10 600", "expected fischer"),
        ("fischer-capped 300 10 600", "expected fischer"),
        ("fischer 300 -10", "increment '-10' is not a time"),
        ("fischer -300 10", "main time '-300' is not a time"),
        ("fischer 300 nan", "is not a time"),
        ("fischer-capped 300 10 200 -1", "cap 200 s is under the main time 300 s"),
        ("fischer-capped 300 10 -1 0", "time per move is positive"),
        ("fischer-capped 300 10 -1 inf", "is not a time"),
        ("fischer 300 1e306", "increment 1e[+]306 s is more than a year"),
    ],
)
def test_bad_kata_time_settings_are_refused(words, message):
    with pytest.raises(ValueError, match=message):
        TimeControl.from_kata(words.split())


def test_fischer_adds_the_increment_after_each_move_up_to_its_cap():
    clock = Clock(TimeControl(10, increment=3, main_limit=15))
    assert clock.spend(BLACK, 2.0) and clock.left(BLACK) == (11, 0)
    assert clock.spend(BLACK, 0.5) and clock.left(BLACK) == (13.5, 0)
    assert clock.spend(BLACK, 0.5) and clock.left(BLACK) == (15, 0)  # capped
    assert clock.left(WHITE) == (10, 0)
    assert not clock.spend(WHITE, 10.5)  # the increment comes too late for a move past the clock
    clock.set_left(BLACK, 7.5, 0)  # time_left: always in main time
    assert clock.left(BLACK) == (7.5, 0)
    with pytest.raises(ValueError, match="no overtime"):
        clock.set_left(BLACK, 7.5, 1)


def test_fischer_loses_a_move_over_its_time_per_move():
    clock = Clock(TimeControl(100, increment=1, move_limit=5))
    assert clock.spend(BLACK, 4.9)
    assert not clock.spend(BLACK, 5.1)


def test_a_fischer_budget_adds_the_increment_within_half_the_clock_and_the_move_cap():
    lag, points = 0.5, 81
    clock = Clock(TimeControl(100, increment=4))
    assert clock.budget(BLACK, points, 0, lag) == pytest.approx(100 / expected_moves(points, 0) + 4 - lag)
    clock.set_left(BLACK, 6, 0)  # little left: never more than half of it, the increment comes after
    assert clock.budget(BLACK, points, 40, lag) == pytest.approx(3 - lag)
    capped = Clock(TimeControl(100, increment=4, move_limit=2))
    assert capped.budget(BLACK, points, 0, lag) == pytest.approx(2 - lag)


def test_fischer_by_budget_never_runs_out():
    clock = Clock(TimeControl(5, increment=1))
    for move in range(200):
        budget = clock.budget(BLACK, 81, 2 * move, lag=0.0)
        assert budget is not None
        assert clock.spend(BLACK, budget)
    side = clock.left(BLACK)
    assert side is not None and side[0] > 1  # it settles near twice the increment


def test_fischer_reads_as_text_and_as_gtp():
    control = TimeControl.from_kata(["fischer-capped", "300", "10", "600", "60"])
    assert str(control) == "300 s + 10 s a move (Fischer), main time at most 600 s, at most 60 s a move"
    assert control.gtp() == (300, 0, 0)  # sudden death, for a player with its own clock
