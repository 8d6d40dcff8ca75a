"""The league database: games stored with their SGF once, the directory's lock, damaged or
unwritable storage refused with one clear error, a corrupt or lost database never started over."""

from __future__ import annotations

import errno
import pathlib
import sqlite3
import subprocess
import sys

import pytest

from goarena.benchmarks.league.config import LeagueConfig
from goarena.benchmarks.league.play import run_league
from goarena.benchmarks.league.store import LeagueStore, LeagueStoreError, StoredGame
from tests.benchmarks.league.test_play import FAST

CONFIG = {"players": {"zeta": "random", "alpha": "uct:simulations=20"}, "games_per_pair": 2}


def finished(game_id: int, moves: str = "1 2 3") -> StoredGame:
    return StoredGame(
        id=game_id,
        black="zeta",
        white="alpha",
        seed=game_id,
        result="B+1",
        winner="black",
        margin=1.0,
        reason="two passes",
        cleanup_from=None,
        moves=moves,
        move_count=len(moves.split()),
        black_seconds=0.1,
        white_seconds=0.1,
        sgf=f"games/{game_id:04d}-zeta-vs-alpha.sgf",
        finished_at="2026-01-01T00:00:00+00:00",
    )


@pytest.fixture
def store(tmp_path):
    store = LeagueStore(tmp_path)
    store.add_config(CONFIG)
    yield store
    store.close()


def test_a_game_is_stored_with_its_sgf_once_and_never_rewritten(store, tmp_path):
    store.add_game(finished(0), "(;SZ[5]RE[B+1])")
    assert (tmp_path / "games/0000-zeta-vs-alpha.sgf").read_text() == "(;SZ[5]RE[B+1])"
    with pytest.raises(LeagueStoreError, match="game 0 is stored already"):
        store.add_game(finished(0, moves="4 5"), "(;SZ[5]RE[W+9])")
    assert (tmp_path / "games/0000-zeta-vs-alpha.sgf").read_text() == "(;SZ[5]RE[B+1])"
    assert [game.moves for game in store.games()] == ["1 2 3"]


def test_a_full_disk_while_the_sgf_is_written_stores_nothing(store, tmp_path, monkeypatch):
    def full(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pathlib.Path, "write_text", full)
    with pytest.raises(LeagueStoreError, match=r"cannot write the league in .*No space left on device"):
        store.add_game(finished(0), "(;SZ[5])")
    assert store.games() == [] and not list((tmp_path / "games").iterdir())


def test_a_full_or_read_only_database_is_one_clear_error(store):
    store.add_game(finished(0), "(;SZ[5])")
    pages = store.connection.execute("PRAGMA page_count").fetchone()[0]
    store.connection.execute(f"PRAGMA max_page_count = {pages}")
    with pytest.raises(LeagueStoreError, match="cannot write the league in .*full"):
        store.add_game(finished(1, moves=" ".join(["7"] * 20_000)), "(;SZ[5])")
    assert [game.id for game in store.games()] == [0]
    assert not (store.directory / finished(1).sgf).exists()
    store.connection.execute("PRAGMA query_only = ON")  # as a read-only file would be
    with pytest.raises(LeagueStoreError, match="cannot write the league in .*readonly"):
        store.add_player("zeta", "random", "v2")


def test_a_second_league_on_a_directory_is_refused_while_the_first_holds_it(store, tmp_path):
    with pytest.raises(LeagueStoreError, match="in use: another league is playing there"):
        LeagueStore(tmp_path)
    script = f"from benchmarks.league.store import LeagueStore; LeagueStore({str(tmp_path)!r})"
    other_process = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert other_process.returncode != 0 and "in use" in other_process.stderr
    reader = LeagueStore.open_existing(tmp_path)  # the standings may be read meanwhile
    assert reader.config() == CONFIG
    reader.close()
    store.close()
    LeagueStore(tmp_path).close()  # free again once the first is closed


def _run(path: pathlib.Path, *statements: str) -> None:
    connection = sqlite3.connect(path)
    with connection:
        for statement in statements:
            connection.execute(statement)
    connection.close()


DAMAGES = {
    "missing": lambda path: path.unlink(),
    "emptied": lambda path: path.write_bytes(b""),
    "without tables": lambda path: _run(path, *(f"DROP TABLE {t}" for t in ("meta", "players", "games"))),
    "without its games table": lambda path: _run(path, "DROP TABLE games"),
    "without its configuration": lambda path: _run(path, "DELETE FROM meta"),
}


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_database_beside_stored_games_is_refused_not_started_over(tmp_path, damage):
    with LeagueStore(tmp_path) as store:
        store.add_config(CONFIG)
        store.add_game(finished(0), "(;SZ[5])")
    database = tmp_path / LeagueStore.FILENAME
    DAMAGES[damage](database)
    before = database.read_bytes() if database.exists() else None
    with pytest.raises(LeagueStoreError, match="holds 1 games|no table games|holds no league configuration"):
        LeagueStore(tmp_path)
    assert (database.read_bytes() if database.exists() else None) == before
    assert (tmp_path / finished(0).sgf).read_text() == "(;SZ[5])"


def test_the_configurations_a_league_grew_through_are_kept_in_order(store):
    grown = {**CONFIG, "games_per_pair": 4, "players": {**CONFIG["players"], "beta": "random"}}
    store.add_config(grown)
    assert store.configs() == [CONFIG, grown] and store.config() == grown
    assert list(store.config()["players"]) == ["zeta", "alpha", "beta"]  # as listed, not sorted


def test_the_file_of_a_game_cut_short_by_a_kill_is_cleared_when_the_league_resumes(store, tmp_path):
    store.close()
    (tmp_path / "games").mkdir()
    cut_short = tmp_path / "games/.0000-zeta-vs-alpha.sgf.k1ll3d.tmp"
    cut_short.write_text("(;SZ[5]")
    LeagueStore.open_existing(tmp_path).close()  # a reader leaves it
    assert cut_short.exists()
    with LeagueStore(tmp_path) as resumed:
        assert not cut_short.exists() and resumed.games() == []


def test_players_weights_digests_are_kept_and_older_databases_gain_the_column(store, tmp_path):
    store.add_player("net", "nets:player", "v1", "ab12")
    store.add_player("net", "nets:player", "v2")  # a game that did not say keeps the digest
    store.add_player("zeta", "random", "v1")
    assert store.weights() == {"net": "ab12"} and store.players()["net"] == ("nets:player", "v2")
    store.close()
    _run(tmp_path / LeagueStore.FILENAME, "ALTER TABLE players DROP COLUMN weights")
    with LeagueStore.open_existing(tmp_path) as old:  # read as it is
        assert old.weights() == {} and set(old.players()) == {"net", "zeta"}
    with LeagueStore(tmp_path) as resumed:  # brought up to date when played again
        resumed.add_player("net", "nets:player", "v3", "cd34")
        assert resumed.weights() == {"net": "cd34"}


def test_a_corrupt_database_is_refused_not_overwritten(tmp_path):
    (tmp_path / LeagueStore.FILENAME).write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(LeagueStoreError, match="not a league database"):
        run_league(LeagueConfig(players=FAST, games_per_pair=1), tmp_path, workers=1)
    assert (tmp_path / LeagueStore.FILENAME).read_bytes().startswith(b"this is not sqlite")


@pytest.mark.parametrize("damage", ["emptied", "missing"])
def test_a_league_whose_database_is_lost_is_not_started_over_its_games(tmp_path, damage):
    config = LeagueConfig(players={"random": "random", "random-2": "random"}, size=5, games_per_pair=1)
    run_league(config, tmp_path, workers=1).close()
    database = tmp_path / LeagueStore.FILENAME
    if damage == "emptied":
        database.write_bytes(b"")
    else:
        database.unlink()
    sgf = next((tmp_path / "games").glob("*.sgf"))
    with pytest.raises(LeagueStoreError, match="holds 1 games"):
        run_league(config, tmp_path, workers=1)
    assert database.exists() == (damage == "emptied") and list((tmp_path / "games").iterdir()) == [sgf]
