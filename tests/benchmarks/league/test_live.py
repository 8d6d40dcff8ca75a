"""Games in progress (``goarena.benchmarks.league.live``): one JSON file a game, written whole,
removed once the game is stored; a league playing is one that holds the directory's lock."""

from __future__ import annotations

import json

from go_env import Rules
from goarena.benchmarks.league.live import clear_live, live_file, playing, remove_live, write_live
from goarena.benchmarks.league.store import LeagueStore


def test_a_game_in_progress_is_one_file_with_its_players_and_moves(tmp_path):
    clear_live(tmp_path)  # as a league that starts does
    path = live_file(tmp_path, 7)
    assert path == tmp_path / "live" / "game-0007.json"
    write_live(path, 7, ("uct-300", "random"), 9, Rules(komi=7.0), [40, 41, 30])
    data = json.loads(path.read_text())
    players = (data["id"], data["black"], data["white"], data["size"], data["komi"])
    assert players == (7, "uct-300", "random", 9, 7.0)
    assert data["moves"] == [40, 41, 30] and data["to_play"] == "white"
    assert [file.name for file in path.parent.iterdir()] == [path.name]  # no temporary file left
    remove_live(tmp_path, 7)
    assert not path.exists()
    remove_live(tmp_path, 7)  # already gone: nothing to say


def test_a_game_that_cannot_be_shown_plays_on_unseen(tmp_path):
    write_live(live_file(tmp_path / "nowhere", 1), 1, ("a", "b"), 5, Rules(), [])  # no folder: no error
    assert not (tmp_path / "nowhere").exists()


def test_a_league_that_starts_clears_the_games_a_killed_one_left(tmp_path):
    clear_live(tmp_path)
    for game in (1, 2):
        write_live(live_file(tmp_path, game), game, ("a", "b"), 5, Rules(), [12])
    clear_live(tmp_path)
    assert list((tmp_path / "live").iterdir()) == []


def test_a_league_is_playing_while_it_holds_the_directorys_lock(tmp_path):
    assert not playing(tmp_path)  # no league was ever played here
    store = LeagueStore(tmp_path)  # as a league playing there holds it
    assert playing(tmp_path)
    store.close()
    assert not playing(tmp_path)
