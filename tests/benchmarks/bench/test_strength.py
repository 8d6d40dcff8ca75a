import shutil
from pathlib import Path

import pytest

from goarena.benchmarks.bench.strength import AGENT, OPPONENT, report, run, wilson_interval
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
