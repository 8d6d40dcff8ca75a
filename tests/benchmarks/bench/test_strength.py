import shutil
from pathlib import Path

import pytest

from go_env import Rules
from goarena.benchmarks.bench.strength import (
    AGENT,
    OPPONENT,
    Venue,
    misjudged,
    raw_margin_at_passes,
    report,
    run,
    strength_league,
    wilson_interval,
)
from goarena.benchmarks.bench.strength import GNUGO as GNUGO_GTP
from goarena.benchmarks.league.store import LeagueStore, StoredGame

GNUGO = shutil.which("gnugo") or ("/usr/games/gnugo" if Path("/usr/games/gnugo").exists() else None)


def test_wilson_interval_matches_the_formula_by_hand():
    low, high = wilson_interval(95, 100)
    assert low == pytest.approx(0.8882, abs=1e-3) and high == pytest.approx(0.9785, abs=1e-3)
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0


def _game(black, white, result, winner, moves, black_seconds, white_seconds):
    count = len(moves.split())
    return StoredGame(
        0, black, white, 0, result, winner, None, "", None, moves, count, black_seconds, white_seconds, "", ""
    )


def test_the_report_times_every_move_we_were_asked_for_the_resignation_included():
    games = [
        _game(AGENT, OPPONENT, "B+3", "black", "0 1 2 81 81", 6.0, 1.0),  # ours: 0, 2 and a pass
        _game(OPPONENT, AGENT, "B+R", "black", "0 1 2 3", 1.0, 6.0),  # ours: 1, 3 and the resignation
        _game(AGENT, OPPONENT, "B+R", "black", "0 1 2", 4.0, 1.0),  # ours: 0, 2; White resigned
    ]
    text = report(games, "ours", "theirs")
    assert "2/3 = 67%" in text and "as Black 2/2, as White 0/1" in text
    assert text.endswith("2.00 s per move")  # 16 s over 8 moves asked for


@pytest.mark.skipif(GNUGO is None, reason="GNU Go (gnugo) is not installed")
def test_match_against_gnugo_writes_sgf_alternates_colours_and_resumes(tmp_path):
    opponent = f"gtp:{GNUGO} --mode gtp --level 1"
    games = run("random:seed=1", opponent, 2, 5, 0.5, tmp_path, workers=1)
    assert [AGENT in (g.black, g.white) for g in games] == [True, True]
    assert [g.black == AGENT for g in games] == [True, False]
    assert all(g.result.startswith(("B+", "W+")) for g in games)
    for game in games:
        assert f"RE[{game.result}]" in (tmp_path / game.sgf).read_text()
    again = run("random:seed=1", opponent, 3, 5, 0.5, tmp_path, workers=1)
    assert again[:2] == games and len(again) == 3
    with LeagueStore.open_existing(tmp_path) as store:
        assert len(store.games()) == 3
    assert "vs" in report(again, "random", opponent)


@pytest.mark.skipif(GNUGO is None, reason="GNU Go (gnugo) is not installed")
def test_opening_moves_give_two_deterministic_players_different_games(tmp_path):
    opponent = f"gtp:{GNUGO} --mode gtp --level 1"
    venue = Venue(opening_moves=2)
    games = run("zero:simulations=8", opponent, 4, 9, 7.0, tmp_path, workers=1, venue=venue)
    openings = [tuple(game.moves.split()[:2]) for game in games]
    assert openings[0] == openings[1] and openings[2] == openings[3]  # a pair: one game each colour
    assert openings[0] != openings[2]
    assert [game.black == AGENT for game in games] == [True, False, True, False]


def _ended(black, white, winner, moves, reason, cleanup_from=None, result=""):
    count = len(moves.split())
    return StoredGame(
        0, black, white, 0, result, winner, None, reason, cleanup_from, moves, count, 1.0, 1.0, "", ""
    )


def test_two_pass_games_lost_that_the_raw_count_called_won_and_illegal_moves_are_counted():
    rules, pass_move = Rules(komi=0.5), 25
    walls = [point for x in range(5) for point in (5 * x + 2, 5 * x + 3)]  # Black column C, White D
    passed = walls + [pass_move, pass_move]
    text = " ".join(map(str, passed))
    black_margin = 15 - 10 - 0.5  # Black owns columns A-C, White D-E
    won_then_lost = _ended(AGENT, OPPONENT, "white", f"{text} 0 1", "two passes after clean-up", len(passed))
    lost_as_counted = _ended(OPPONENT, AGENT, "black", text, "two passes")
    forfeit = _ended(AGENT, OPPONENT, "white", "0 1 0", "illegal move: A5 repeats a position", result="W+F")
    assert raw_margin_at_passes(won_then_lost, 5, rules) == pytest.approx(black_margin)
    assert raw_margin_at_passes(lost_as_counted, 5, rules) == pytest.approx(-black_margin)
    assert raw_margin_at_passes(forfeit, 5, rules) is None
    assert misjudged([won_then_lost, lost_as_counted, forfeit], 5, rules) == (
        "two-pass games 2, lost though the raw count at the passes said won 1; our illegal-move forfeits 1"
    )


VENUES = pytest.mark.parametrize(
    ("agent", "rules"),
    [("gtp:goarena gtp --agent zero:simulations=200", "goarena"), ("zero:simulations=200", "chinese")],
    ids=["tromp-taylor-through-gtp", "chinese"],
)


def against_gnugo_10(tmp_path: Path, agent: str, rules: str) -> str:
    """Two games (a colour each) refereed as ``goarena bench strength`` plays them (GNU Go:
    positional superko, its own count after a clean-up phase): how they were counted."""
    venue = Venue(rules)
    games = run(agent, f"gtp:{GNUGO_GTP} --level 10", 2, 9, None, tmp_path, 1, venue)
    assert len(games) == 2
    return misjudged(games, 9, strength_league(agent, "gnugo", 2, 9, None, venue).game_rules())


@pytest.mark.slow
@pytest.mark.skipif(GNUGO is None, reason="GNU Go (gnugo) is not installed")
@VENUES
def test_zero_against_gnugo_level_10_repeats_no_board(tmp_path: Path, agent: str, rules: str):
    """GNU Go forfeits a repeated board, whatever our rules' ko: none, nor any illegal move."""
    assert against_gnugo_10(tmp_path, agent, rules).endswith("our illegal-move forfeits 0")


@pytest.mark.slow
@pytest.mark.skipif(GNUGO is None, reason="GNU Go (gnugo) is not installed")
@pytest.mark.xfail(
    reason="not yet safe: GNU Go's clean-up captures stones that our ownership and playouts call alive "
    "(10 of 36 two-pass games with resigning off, docs/alphazero.md)",
    strict=False,
)
@VENUES
def test_zero_against_gnugo_level_10_loses_no_game_its_count_won(tmp_path: Path, agent: str, rules: str):
    """A game lost though the raw count at the passes said won is a pass on dead stones."""
    assert "said won 0;" in against_gnugo_10(tmp_path, agent, rules)
