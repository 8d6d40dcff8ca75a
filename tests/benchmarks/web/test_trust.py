"""What the web board refuses to do for a page that is not its own (issue 31): answer another
site's page or a rebound name, build or import a league's player on a GET, run more games
and analyses than its caps, show a killed league's games, or say where its folder is. The host
check alone: ``test_guard.py``; a search killed when its browser leaves: ``test_remote.py``."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient  # noqa: E402
from web_fixtures import make_league  # noqa: E402

from go_env import Rules, coords  # noqa: E402
from goarena.benchmarks.league.live import clear_live, live_file, write_live  # noqa: E402
from goarena.benchmarks.league.store import LeagueStore  # noqa: E402
from goarena.benchmarks.web import app as web  # noqa: E402
from goarena.benchmarks.web.app import Busy, Quota, create_app  # noqa: E402
from goarena.benchmarks.web.guard import Address  # noqa: E402

PLAYERS = {"random": "random"}
TESTSERVER = Address("testserver", 80)  # the TestClient's address


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    make_league(root / "small", games=1)
    return root


def test_a_page_of_another_origin_or_a_rebound_name_is_refused(root):
    with TestClient(create_app(root, PLAYERS, address=TESTSERVER)) as client:
        own = {"origin": "http://testserver", "sec-fetch-site": "same-origin"}
        assert client.get("/api/leagues", headers=own).status_code == 200
        assert client.get("/api/leagues", headers={"sec-fetch-site": "none"}).status_code == 200  # typed
        for headers in [
            {"origin": "http://evil.example"},
            {"origin": "http://testserver:8080"},  # another server of this machine
            {"origin": "https://testserver"},
            {"origin": "null"},  # a sandboxed page, a file
            {"sec-fetch-site": "cross-site"},  # an <img> of another site: no Origin
            {"sec-fetch-site": "same-site"},
            {"host": "evil.example"},  # a name rebound to this machine
        ]:
            answer = client.get("/api/leagues/small", headers=headers)
            assert answer.status_code == 403, headers
            assert answer.json()["error"].startswith("refused"), headers
            with pytest.raises(Exception) as refused, client.websocket_connect("/ws/play", headers=headers):
                pass
            assert getattr(refused.value, "code", None) == 1008, headers  # closed before it opened
        with client.websocket_connect("/ws/play", headers=own) as socket:
            socket.send_json({"type": "new", "player": "random", "size": 5})
            assert socket.receive_json()["type"] == "state"
        linked = client.get("/", headers={"sec-fetch-site": "cross-site"})  # a link to the page
        assert linked.status_code != 403


MODULE = """
from pathlib import Path

Path({marker!r}).write_text("imported")


def make(**options):
    raise RuntimeError("built")
"""


def test_a_league_is_read_without_building_or_importing_its_players(tmp_path, monkeypatch):
    # A league whose players look built-in but are not: "uct :make" imports a module named
    # "uct " from the server's working directory, sb3: and torch: read a model file.
    marker = tmp_path / "imported"
    (tmp_path / "uct .py").write_text(MODULE.format(marker=str(marker)))
    monkeypatch.chdir(tmp_path)
    root = tmp_path / "runs"
    players = {
        "rnd": "random",
        "fake": "uct :make",
        "model": f"sb3:{tmp_path / 'missing.zip'}",
        "exported": f"torch:{tmp_path / 'missing.pt2'}",
    }
    league = make_league(root / "odd", players, games=0, anchor="rnd", size=9)
    for allow_spec in (False, True):
        with TestClient(create_app(root, PLAYERS, allow_spec=allow_spec, address=TESTSERVER)) as client:
            assert client.get("/api/leagues/odd").status_code == 200
            offered = {player["name"]: player for player in client.get("/api/players").json()["players"]}
        assert not marker.exists(), "a GET imported the league's module"
        if allow_spec:  # offered, shown from their class: not built (the file is missing), not imported
            assert offered["model"]["analysis"] and offered["fake"]["analysis"] is False
            assert {"fake", "model", "exported"} <= offered.keys()
        else:
            assert offered.keys() == {"random"}, offered  # rnd's spec is random's
    assert (league / "league.sqlite").is_file()


def test_games_and_analyses_are_capped_per_client_and_in_all():
    quota = Quota("games", per_client=2, total=3)
    with quota.place("a"), quota.place("a"):
        with pytest.raises(Busy, match="from your address"), quota.place("a"):
            pass
        with quota.place("b"), pytest.raises(Busy, match="on this server"), quota.place("c"):
            pass
    with quota.place("a"), quota.place("a"), quota.place("c"):  # all given back
        assert quota.held == {"a": 2, "c": 1}
    assert not quota.held


def test_a_client_past_its_games_is_told_and_the_others_play_on(root, monkeypatch):
    monkeypatch.setattr(web, "GAMES_PER_CLIENT", 2)
    with TestClient(create_app(root, PLAYERS, address=TESTSERVER)) as client:
        with client.websocket_connect("/ws/play") as one, client.websocket_connect("/ws/play") as two:
            with client.websocket_connect("/ws/play") as three:
                answer = three.receive_json()
                assert answer["type"] == "error" and "too many games" in answer["message"]
            for socket in (one, two):
                socket.send_json({"type": "new", "player": "random", "size": 5})
                assert socket.receive_json()["type"] == "state"
        with client.websocket_connect("/ws/play") as again:  # the places are given back
            again.send_json({"type": "new", "player": "random", "size": 5})
            assert again.receive_json()["type"] == "state"


def test_a_replay_analysis_is_made_once(root, monkeypatch):
    made = []

    def estimates_along(start, moves, spec):
        made.append(spec)
        return [(0.5, None)] * (len(moves) + 1)

    monkeypatch.setattr(web, "estimates_along", estimates_along)
    web._estimates_kept.cache_clear()
    players = {"rnd": "random", "uct": "uct:simulations=7"}
    with TestClient(create_app(root, players, address=TESTSERVER)) as client:
        for _ in range(3):
            answer = client.post("/api/leagues/small/games/0/analysis", json={"player": "uct"})
            assert answer.status_code == 200 and set(answer.json()["winrates"]) == {0.5}
    assert made == ["uct:simulations=7"]


def test_a_killed_leagues_files_are_no_games_in_progress(tmp_path):
    league = make_league(tmp_path / "killed", games=1)
    clear_live(league)
    moves = [coords.from_gtp("B2", 5)]
    write_live(live_file(league, 1), 1, ("random", "uct-20"), 5, Rules(), moves)  # left by a league killed
    with TestClient(create_app(tmp_path, PLAYERS, address=TESTSERVER)) as client:
        assert client.get("/api/leagues/killed").json()["live"] == 0
        with client.websocket_connect("/ws/watch/killed") as socket:
            assert socket.receive_json()["type"] == "table"
            assert socket.receive_json() == {"type": "live", "games": []}
        with LeagueStore(league):  # a league plays there: its lock is held
            assert client.get("/api/leagues/killed").json()["live"] == 1


def test_a_name_too_long_and_an_unreadable_league_are_said_without_the_folders_path(tmp_path):
    league = make_league(tmp_path / "small", games=1)
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / LeagueStore.FILENAME).write_text("not a database")
    with LeagueStore.open_existing(league) as store:
        (league / store.games()[0].sgf).unlink()
    app = create_app(tmp_path, PLAYERS, address=TESTSERVER)
    with TestClient(app, raise_server_exceptions=False) as client:
        for path, said in [
            ("/api/leagues/" + "a" * 300, "no league"),
            ("/api/leagues/" + "a/" * 3000 + "b/games/0", "no league"),
            ("/api/leagues/bad", "not a league database"),
            ("/api/leagues/small/games/0", "No such file or directory"),
        ]:
            answer = client.get(path)
            assert answer.status_code == 404, path
            error = answer.json()["error"]
            assert said in error and str(tmp_path) not in error and str(Path(tmp_path).resolve()) not in error
        with client.websocket_connect("/ws/watch/" + "a" * 300) as socket:
            assert "no league" in socket.receive_json()["message"]


def test_an_uploaded_sgf_is_read_as_data_and_only_from_the_servers_own_page(root):
    text = "(;GM[1]SZ[5]PB[<script>alert(1)</script>];B[cc];W[dd])"
    with TestClient(create_app(root, PLAYERS, address=TESTSERVER)) as client:
        for headers in [{"origin": "http://evil.example"}, {"sec-fetch-site": "cross-site"}]:
            assert client.post("/api/sgf", content=text, headers=headers).status_code == 403
            answer = client.post("/api/sgf/analysis", json={"player": "random", "sgf": text}, headers=headers)
            assert answer.status_code == 403
        own = {"origin": "http://testserver", "sec-fetch-site": "same-origin"}
        answer = client.post("/api/sgf", content=text, headers=own)
        assert answer.status_code == 200
        assert answer.json()["black"] == "<script>alert(1)</script>"  # a name, shown as text by the page
        for bad in ["", "(;GM[1]SZ[5];B[cc]", "(;GM[1]SZ[5];B[zz])", "\x00" * 100]:
            answer = client.post("/api/sgf", content=bad, headers=own)
            assert answer.status_code == 400 and answer.json()["error"], repr(bad)
