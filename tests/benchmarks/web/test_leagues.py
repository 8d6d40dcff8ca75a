"""The leagues as the web board reads them: found at any depth, never through a link out of
the root; standings, crosstable and Elo history as the league's own report says; replays that
go_env's own replay of the SGF confirms."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from web_fixtures import make_league

from go_env import Game, Rules
from go_env.sgf import read_sgf, write_sgf
from goarena.benchmarks.league.config import LeagueConfig
from goarena.benchmarks.league.standings import build_report
from goarena.benchmarks.league.store import LeagueStore, StoredGame
from goarena.benchmarks.web import leagues
from goarena.benchmarks.web.paths import OutsideRoot

THREE = {"random": "random", "uct-20": "uct:simulations=20", "uct-5": "uct:simulations=5"}


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    """Two leagues: ``small`` at the top, ``deep/er/three`` (three players) further down."""
    root = tmp_path_factory.mktemp("runs")
    make_league(root / "small")
    make_league(root / "deep" / "er" / "three", THREE, games_per_pair=2)
    return root


def stored(id_: int, black: str, white: str, winner: str) -> StoredGame:
    return StoredGame(id_, black, white, 0, "", winner, None, "two passes", None, "", 0, 0.0, 0.0, "", "")


def test_every_league_is_found_at_any_depth_by_its_path(root):
    found = {league["id"]: league for league in leagues.find_leagues(root)}
    assert set(found) == {"small", "deep/er/three"}
    assert found["small"]["games"] == 2 and found["small"]["players"] == ["random", "uct-20"]
    assert found["deep/er/three"]["games"] == 6
    assert found["small"]["updated"] == (root / "small" / LeagueStore.FILENAME).stat().st_mtime


def test_the_root_itself_may_be_a_league(tmp_path):
    make_league(tmp_path, games=1)
    assert [league["id"] for league in leagues.find_leagues(tmp_path)] == ["."]
    assert leagues.league_view(tmp_path, ".")["games"][0]["id"] == 0


def test_leagues_behind_links_out_of_the_root_are_neither_listed_nor_read(root, tmp_path):
    served = tmp_path / "served"
    served.mkdir()
    (served / "away").symlink_to(root / "small")  # a directory link: the walk does not follow it
    (served / "linked").mkdir()
    (served / "linked" / LeagueStore.FILENAME).symlink_to(root / "small" / LeagueStore.FILENAME)
    assert leagues.find_leagues(served) == []
    for league_id in ("away", "linked", "../runs/small"):
        with pytest.raises(OutsideRoot):
            leagues.league_view(served, league_id)


def test_the_view_holds_the_leagues_own_standings_and_a_consistent_crosstable(root):
    view = leagues.league_view(root, "deep/er/three")
    with LeagueStore.open_existing(root / "deep" / "er" / "three") as store:
        report = build_report(store)
        games = store.games()
    names = [row["name"] for row in view["standings"]]
    assert names == [row.name for row in report.standings]
    for row, expected in zip(view["standings"], report.standings, strict=True):
        assert (row["elo"], row["elo_low"], row["elo_high"]) == (expected.elo, expected.low, expected.high)
        assert row["spec"] == THREE[row["name"]]
        assert row["wins"] + row["losses"] + row["draws"] == row["games"] == 4
        assert row["points"] == row["wins"] + row["draws"] / 2
    cells = view["crosstable"]["cells"]
    assert view["crosstable"]["names"] == names
    for i in range(3):
        assert cells[i][i] is None
        for j in range(3):
            if i != j:
                assert cells[i][j]["games"] == 2
                assert cells[i][j]["points"] + cells[j][i]["points"] == 2
        assert sum(cell["points"] for cell in cells[i] if cell) == view["standings"][i]["points"]
    assert [game["id"] for game in view["games"]] == [game.id for game in games]
    assert view["games"][0]["moves"] == games[0].move_count and view["games"][0]["result"] == games[0].result
    last = view["elo_history"][-1]
    assert last["game"] == 6
    assert last["ratings"] == pytest.approx({row["name"]: row["elo"] for row in view["standings"]}, abs=0.05)


def test_the_elo_history_has_at_most_twenty_fits_and_starts_once_the_anchor_played():
    games = [stored(0, "a", "b", "black")] + [
        stored(i, "anchor", "a" if i % 2 else "b", "white" if i % 3 else "black") for i in range(1, 45)
    ]
    history = leagues.elo_history(games, "anchor", 100.0)
    assert len(history) <= leagues.HISTORY_POINTS
    assert history[0]["game"] > 1  # the first game did not have the anchor
    assert history[-1]["game"] == 45
    assert [point["game"] for point in history] == sorted({point["game"] for point in history})
    assert all(point["ratings"]["anchor"] == 100.0 for point in history)
    assert leagues.elo_history([], "anchor", 0.0) == []


def test_a_replay_is_the_sgf_replayed_by_go_env_position_by_position(root):
    replay = leagues.replay(root, "small", "1")
    record = read_sgf(replay["sgf"])
    positions = replay["positions"]
    assert len(positions) == len(record.moves) + 1
    assert positions[0] == {"board": [0] * 25, "move": None, "color": None, "captures": [0, 0], "comment": ""}
    game = Game(5, record.rules)
    for move, position in zip(record.moves, positions[1:], strict=True):
        color = game.to_play
        game.play(move)
        assert (position["move"], position["color"]) == (move, color)
        assert position["board"] == game.board.ravel().tolist()
        assert position["captures"] == [game.captures(1), game.captures(2)]
    assert positions[-1]["move"] == 25  # the game ended by two passes, both kept
    assert (replay["black"], replay["white"]) == (record.black, record.white)
    assert replay["result"] == record.result and replay["komi"] == record.komi and replay["size"] == 5


def test_a_replay_resumes_after_the_passes_that_opened_a_clean_up_phase(tmp_path):
    config = LeagueConfig(players={"a": "random", "b": "random"}, size=5, games_per_pair=1)
    rules = dataclasses.replace(config.game_rules(), max_moves=60)
    game = Game(5, rules)
    game.replay([12, 25, 25, 6, 25, 25], resume=True)  # the clean-up phase opens at move 3
    with LeagueStore(tmp_path) as store:
        store.add_config(config.to_dict())
        text = write_sgf(game, black="a", white="b", comments={3: "clean-up"}).decode()
        store.add_game(dataclasses.replace(stored(0, "a", "b", "black"), sgf="games/0.sgf"), text)
    positions = leagues.replay(tmp_path, ".", "0")["positions"]
    assert [p["move"] for p in positions] == [None, 12, 25, 25, 6, 25, 25]
    assert positions[4]["comment"] == "clean-up" and positions[4]["color"] == 2
    assert np.count_nonzero(positions[-1]["board"]) == 2


def test_unknown_leagues_and_games_are_not_found(root):
    for league_id in ("nowhere", "deep", "small/games"):
        with pytest.raises(leagues.NotFound):
            leagues.league_view(root, league_id)
    for game_id in ("99", "-1", "one", ""):
        with pytest.raises(leagues.NotFound):
            leagues.replay(root, "small", game_id)


def test_a_database_that_points_a_game_outside_the_root_is_refused(tmp_path):
    config = LeagueConfig(players={"a": "random", "b": "random"}, size=5, games_per_pair=1)
    (tmp_path / "served").mkdir()
    (tmp_path / "secret.sgf").write_bytes(write_sgf(Game(5, Rules())))
    with LeagueStore(tmp_path / "served") as store:
        store.add_config(config.to_dict())
        store.add_game(dataclasses.replace(stored(0, "a", "b", "black"), sgf="games/0.sgf"), "(;SZ[5])")
        store.connection.execute("UPDATE games SET sgf = '../secret.sgf'")
        store.connection.commit()
    with pytest.raises(OutsideRoot):
        leagues.replay(tmp_path / "served", ".", "0")


def test_the_view_is_read_again_once_the_league_grows(tmp_path):
    make_league(tmp_path / "growing", games=1)
    before = leagues.signature(tmp_path, "growing")
    assert len(leagues.league_view(tmp_path, "growing")["games"]) == 1
    make_league(tmp_path / "growing", games=1)
    assert leagues.signature(tmp_path, "growing") != before
    assert len(leagues.league_view(tmp_path, "growing")["games"]) == 2
