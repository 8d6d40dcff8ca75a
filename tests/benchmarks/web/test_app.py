"""The web board's server through its HTTP routes and WebSockets: the contract's answers, whole
games against a player, bad input that never stops the server, and an event loop that keeps
serving while a player thinks."""

from __future__ import annotations

import time

import numpy as np
import pytest

pytest.importorskip("fastapi")

import web_fixtures  # noqa: E402
from fastapi.testclient import TestClient  # noqa: E402
from web_fixtures import make_league  # noqa: E402

from go_env import Game, Rules, coords  # noqa: E402
from go_env.game import result_string  # noqa: E402
from go_env.sgf import MAX_SGF_NODES, read_sgf, write_sgf  # noqa: E402
from goarena.benchmarks.league.live import clear_live, live_file, remove_live, write_live  # noqa: E402
from goarena.benchmarks.league.store import LeagueStore  # noqa: E402
from goarena.benchmarks.web import app as web  # noqa: E402
from goarena.benchmarks.web import leagues  # noqa: E402
from goarena.benchmarks.web.app import create_app  # noqa: E402
from goarena.benchmarks.web.guard import Address  # noqa: E402
from goarena.benchmarks.web.sessions import settle_final  # noqa: E402
from goarena.search.settle import settled_board  # noqa: E402

PLAYERS = {"random": "random", "uct": "uct:simulations=50"}
TESTSERVER = Address("testserver", 80)  # the TestClient's address: the only Host the app answers


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    make_league(root / "small")
    make_league(
        root / "mixed",
        {"rnd": "random", "engine": "gtp:gnugo --mode gtp", "mine": "web_fixtures:Slow"},
        games=0,
        anchor="rnd",
    )
    (root.parent / "outside").mkdir(exist_ok=True)
    make_league(root.parent / "outside" / "league", games=1)
    (root / "escape").symlink_to(root.parent / "outside" / "league")
    return root


@pytest.fixture
def client(root):
    with TestClient(create_app(root, PLAYERS, address=TESTSERVER)) as client:  # one event loop for every call
        yield client


def until_turn(socket) -> tuple[dict, list[dict]]:
    """Messages until the person is to move or the game is over: that state, and all of them."""
    seen = []
    while True:
        message = socket.receive_json()
        seen.append(message)
        if message["type"] == "state" and (
            message["over"] or (not message["thinking"] and message["to_play"] == message["human"])
        ):
            return message, seen


def next_error(socket) -> str:
    """The next error's message (analysis on the way is skipped)."""
    while (message := socket.receive_json())["type"] == "analysis":
        pass
    assert message["type"] == "error", message
    return message["message"]


def test_the_players_are_listed_with_what_they_can_show(client):
    answer = client.get("/api/players").json()
    strength = {player["name"]: player.pop("strength") for player in answer["players"]}
    assert strength == {
        "random": "the anchor in league small (2 games)",  # rated where it played most
        "uct": "not rated: UCT search with random or pattern playouts (MC-RAVE too) (simulations=50)",
        "uct-20": strength["uct-20"],
    }
    assert strength["uct-20"].startswith("Elo ") and "in league small (2 games)" in strength["uct-20"]
    assert answer["players"] == [
        {"name": "random", "spec": "random", "analysis": False, "ownership": False, "policy": True},
        {"name": "uct", "spec": "uct:simulations=50", "analysis": True, "ownership": False, "policy": True},
        {
            "name": "uct-20",
            "spec": "uct:simulations=20",
            "analysis": True,
            "ownership": False,
            "policy": True,
        },
    ]  # the server's, then the leagues'
    assert answer["allow_spec"] is False and "chinese" in answer["rules"] and 9 in answer["sizes"]


def test_leagues_are_listed_and_read_inside_the_root_only(client, root):
    listed = client.get("/api/leagues").json()["leagues"]
    assert {league["id"] for league in listed} == {"small", "mixed"}
    view = client.get("/api/leagues/small").json()
    assert [row["name"] for row in view["standings"]] == view["crosstable"]["names"]
    assert len(view["games"]) == 2 and view["elo_history"][-1]["game"] == 2
    for path, status in [
        ("/api/leagues/nowhere", 404),
        ("/api/leagues/escape", 403),
        ("/api/leagues/%2e%2e/outside/league", 403),
        ("/api/leagues//etc", 403),
        ("/api/leagues/small/games/7", 404),
        ("/api/leagues/small/games/seven", 404),
        ("/api/leagues/escape/games/0", 403),
        ("/api/nothing", 404),
    ]:
        answer = client.get(path)
        assert answer.status_code == status, path
        assert set(answer.json()) == {"error"} and answer.json()["error"], path


def test_a_replay_shows_the_stones_of_the_sgf_at_every_position(client):
    replay = client.get("/api/leagues/small/games/0").json()
    record = read_sgf(replay["sgf"])
    game = Game(record.game.size, record.rules)
    boards = [game.board.ravel().tolist()]
    for move in record.moves:
        game.play(move)
        boards.append(game.board.ravel().tolist())
    assert [position["board"] for position in replay["positions"]] == boards
    assert replay["size"] == 5 and replay["result"] == record.result


def test_win_rates_along_a_replay_come_from_offered_players_only(client):
    positions = len(client.get("/api/leagues/small/games/1").json()["positions"])
    winrates = client.post("/api/leagues/small/games/1/analysis", json={"player": "uct"}).json()["winrates"]
    assert len(winrates) == positions and winrates[-1] is None  # the game is over there
    assert all(0 <= value <= 1 for value in winrates[:-1])
    refused = client.post("/api/leagues/small/games/1/analysis", json={"player": "gnugo"})
    assert refused.status_code == 403 and "not offered" in refused.json()["error"]
    assert client.post("/api/leagues/small/games/1/analysis", json={}).status_code == 400
    assert client.post("/api/leagues/small/games/9/analysis", json={"player": "uct"}).status_code == 404
    got = client.get("/api/leagues/small/games/1/analysis", params={"player": "uct"})  # what an <img> sends
    assert got.status_code == 404 and "winrates" not in got.json()  # a GET runs no player


def test_the_leagues_built_in_players_are_offered_but_no_engine_and_no_plug_in(client):
    offered = {player["name"]: player["spec"] for player in client.get("/api/players").json()["players"]}
    assert offered == {**PLAYERS, "uct-20": "uct:simulations=20"}  # random was offered already


def test_the_page_and_its_files_are_served(client):
    if not (web.STATIC / "index.html").is_file():
        pytest.skip("the page is not installed")
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert client.get("/static/index.html").text == page.text
    assert client.get("/static/../app.py").status_code == 404


def test_a_whole_game_against_random_is_counted_as_settle_final_counts_it(client):
    rng = np.random.default_rng(5)
    with client.websocket_connect("/ws/play") as socket:
        socket.send_json({"type": "new", "player": "random", "size": 5, "komi": 0.5, "rules": "chinese"})
        state, _ = until_turn(socket)
        while not state["over"]:
            legal = state["legal"]
            ending = state["last"] == "pass" or len(state["moves"]) > 30 or not legal
            move = "pass" if ending else legal[rng.integers(len(legal))]
            socket.send_json({"type": "play", "move": move})
            state, _ = until_turn(socket)
        while state["result"] is None:  # the dead stones being judged
            state, _ = until_turn(socket)
    game = Game(5, Rules.preset("chinese", komi=0.5))
    game.replay([coords.from_gtp(move, 5) for move in state["moves"]])
    settled = settle_final(game)
    assert game.is_over and state["score"] == settled.margin
    assert state["result"] == result_string(settled.margin) and state["counted_by"] == settled.how
    assert state["dead"] == [coords.to_gtp(point, 5) for point in settled.dead]
    assert state["owners"] == settled_board(game, settled.dead).area_owner().ravel().tolist()
    assert state["board"] == game.board.ravel().tolist() and state["legal"] == []


def test_bad_messages_get_errors_and_the_game_goes_on(client):
    with client.websocket_connect("/ws/play") as socket:
        socket.send_json({"type": "new", "player": "random", "size": 5})
        until_turn(socket)
        for bad, said in [
            ("{not json", "malformed JSON"),
            ('"play"', "JSON object"),
            ('{"type": "fly"}', "unknown message type"),
            ('{"type": "play", "move": "A9"}', "off a 5x5 board"),
            ('{"type": "new", "player": "alphago"}', "unknown player"),
        ]:
            socket.send_text(bad)
            assert said in next_error(socket), bad
        socket.send_bytes(b'{"type": "pass"}')
        assert "JSON text" in next_error(socket)
        socket.send_json({"type": "play", "move": "C3"})
        state, _ = until_turn(socket)
        assert state["moves"][0] == "C3"


def test_a_flood_is_answered_once_and_dropped_and_the_connection_goes_on(client):
    with client.websocket_connect("/ws/play") as socket:
        for _ in range(200):
            socket.send_json({"type": "analysis", "on": False})  # answered by nothing
        socket.send_json({"type": "play", "move": "C3"})
        answer = socket.receive_json()
        assert answer == {"type": "error", "message": "too many messages: the rest are dropped"}
        time.sleep(1.0)  # the flood's second is over
        socket.send_json({"type": "new", "player": "random", "size": 5})
        state, seen = until_turn(socket)
        assert state["moves"] == [] and [message["type"] for message in seen] == ["state"]


def test_two_games_at_once_do_not_touch_each_other(client):
    with client.websocket_connect("/ws/play") as first, client.websocket_connect("/ws/play") as second:
        first.send_json({"type": "new", "player": "random", "size": 5})
        second.send_json({"type": "new", "player": "uct", "size": 7, "color": "white"})
        one, _ = until_turn(first)
        two, _ = until_turn(second)
        first.send_json({"type": "play", "move": "A1"})
        second.send_json({"type": "play", "move": "G7" if two["moves"][0] != "G7" else "A1"})
        one, _ = until_turn(first)
        two, _ = until_turn(second)
        assert (one["size"], len(one["moves"]), one["moves"][0]) == (5, 2, "A1")
        assert (two["size"], len(two["moves"]), two["human"]) == (7, 3, "white")


def test_the_server_answers_while_a_player_thinks(root):
    web_fixtures.RELEASE.clear()
    web_fixtures.ANSWERED.clear()
    client = TestClient(create_app(root, {"slow": "web_fixtures:Slow"}, address=TESTSERVER))
    with client, client.websocket_connect("/ws/play") as socket:
        socket.send_json({"type": "new", "player": "slow", "size": 5, "color": "white"})
        assert socket.receive_json()["thinking"]
        assert client.get("/api/players").status_code == 200  # on the loop the search is not on
        assert client.get("/api/leagues/small").status_code == 200
        socket.send_json({"type": "pass"})
        assert "not your turn" in next_error(socket)
        assert not web_fixtures.ANSWERED.is_set()
        web_fixtures.RELEASE.set()
        state, _ = until_turn(socket)
        assert state["moves"] == ["A5"]


def test_any_spec_is_played_only_with_allow_spec(root):
    with TestClient(create_app(root, PLAYERS, allow_spec=True, address=TESTSERVER)) as client:
        assert client.get("/api/players").json()["allow_spec"] is True
        with client.websocket_connect("/ws/play") as socket:
            socket.send_json({"type": "new", "spec": "uct:simulations=10", "size": 5})
            state, _ = until_turn(socket)
            assert state["player"] == "uct:simulations=10" and not state["over"]
        offered = {player["name"] for player in client.get("/api/players").json()["players"]}
        assert "mine" in offered and "rnd" not in offered  # rnd's spec is offered already


def test_a_watched_league_sends_its_table_at_once_and_again_as_it_grows(tmp_path, monkeypatch):
    monkeypatch.setattr(web, "WATCH_SECONDS", 0.05)
    make_league(tmp_path / "live", games=1)
    with TestClient(create_app(tmp_path, PLAYERS, address=TESTSERVER)) as client:
        with client.websocket_connect("/ws/watch/live") as socket:
            first = socket.receive_json()
            assert first["type"] == "table" and len(first["games"]) == 1
            assert first["standings"] == client.get("/api/leagues/live").json()["standings"]
            assert socket.receive_json() == {"type": "live", "games": []}  # no game in progress
            make_league(tmp_path / "live", games=1)
            grown = socket.receive_json()
            assert grown["type"] == "table" and len(grown["games"]) == 2
        with client.websocket_connect("/ws/watch/nowhere") as socket:
            answer = socket.receive_json()
            assert answer["type"] == "error" and "no league" in answer["message"]


def test_a_watched_league_sends_its_games_in_progress_as_go_env_replays_them(tmp_path, monkeypatch):
    monkeypatch.setattr(web, "WATCH_SECONDS", 0.05)
    league = make_league(tmp_path / "live", games=1)
    rules = Rules.preset("chinese", komi=0.5)
    game = (("random", "uct-20"), 5, rules)  # names, size, rules
    moves = [coords.from_gtp(vertex, 5) for vertex in ("B1", "A1", "A2")]  # A2 takes A1
    clear_live(league)
    write_live(live_file(league, 1), 1, *game, moves)
    folder = league / "live"
    (folder / "game-0002.json").write_text("{not json")
    (folder / "game-0003.json").write_text(" " * (leagues.LIVE_BYTES + 1) + "{}")
    write_live(folder / "game-0004.json", 4, *game, [coords.from_gtp("B1", 5)] * 2)  # illegal
    write_live(tmp_path / "elsewhere.json", 5, *game, moves)
    (folder / "game-0005.json").symlink_to(tmp_path / "elsewhere.json")  # out of the league
    expected = Game(5, rules)
    expected.replay(moves)
    playing = LeagueStore(league)  # holds the league's lock, as a league that plays does
    with playing, TestClient(create_app(tmp_path, PLAYERS, address=TESTSERVER)) as client:
        assert client.get("/api/leagues/live").json()["live"] == 1
        with client.websocket_connect("/ws/watch/live") as socket:
            assert socket.receive_json()["type"] == "table"
            first = socket.receive_json()
            assert first == {
                "type": "live",
                "games": [
                    {
                        "id": 1,
                        "black": "random",
                        "white": "uct-20",
                        "size": 5,
                        "komi": 0.5,
                        "moves": ["B1", "A1", "A2"],
                        "board": expected.board.ravel().tolist(),
                        "to_play": "white",
                        "last": "A2",
                    }
                ],
            }
            assert first["games"][0]["board"][coords.from_gtp("A1", 5)] == 0  # captured
            write_live(live_file(league, 1), 1, *game, [*moves, 25])
            grown = socket.receive_json()["games"][0]
            assert (grown["moves"][-1], grown["last"], grown["to_play"]) == ("pass", "pass", "black")
            remove_live(league, 1)
            assert socket.receive_json() == {"type": "live", "games": []}


# -- games you keep: SGF out and in --------------------------------------------------------------


def test_a_league_games_sgf_is_downloaded_as_its_file(client, root):
    answer = client.get("/api/leagues/small/games/0/sgf")
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("application/x-go-sgf")
    assert answer.headers["content-disposition"] == 'attachment; filename="small-game-0.sgf"'
    with LeagueStore.open_existing(root / "small") as store:
        stored = next(game for game in store.games() if game.id == 0)
    assert answer.text == (root / "small" / stored.sgf).read_text()
    assert client.get("/api/leagues/small/games/99/sgf").status_code == 404
    assert client.get("/api/leagues/escape/games/0/sgf").status_code == 403


def test_an_sgf_of_ones_own_replays_as_go_env_reads_it_and_is_analysed(client):
    game = Game(5, Rules(komi=0.5))
    moves = [coords.from_gtp(vertex, 5) for vertex in ("C3", "B2", "D4", "pass", "pass")]
    game.replay(moves)
    text = write_sgf(game, black="me", white="a friend").decode()
    answer = client.post("/api/sgf", content=text, headers={"content-type": "application/x-go-sgf"})
    assert answer.status_code == 200, answer.text
    replayed = answer.json()
    assert (replayed["black"], replayed["white"], replayed["result"]) == ("me", "a friend", game.result())
    assert len(replayed["positions"]) == len(moves) + 1
    assert replayed["positions"][-1]["board"] == game.board.ravel().tolist()
    analysed = client.post("/api/sgf/analysis", json={"player": "uct", "sgf": text})
    assert analysed.status_code == 200
    assert len(analysed.json()["winrates"]) == len(analysed.json()["scores"]) == len(moves) + 1
    assert client.post("/api/sgf/analysis", json={"player": "gnugo", "sgf": text}).status_code == 403


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("(;GM[1]SZ[9];B[ee];W[ee])", "illegal"),  # a move on a stone
        ("not a record", "not an SGF record"),
        ("(;GM[2]SZ[9])", "not a game of Go"),
        ("(;GM[1]SZ[40])", "board size"),
        ("(;GM[1]SZ[9]" + ";" * (MAX_SGF_NODES + 1) + ")", "nodes"),
    ],
)
def test_an_sgf_that_cannot_be_read_is_refused_saying_why(client, text, said):
    answer = client.post("/api/sgf", content=text)
    assert answer.status_code == 400 and said in answer.json()["error"], answer.text
    answer = client.post("/api/sgf/analysis", json={"player": "uct", "sgf": text})
    assert answer.status_code == 400 and said in answer.json()["error"]


def test_an_sgf_past_the_upload_limit_is_refused_unread(client):
    big = "(;GM[1]SZ[9]C[" + "x" * web.UPLOAD_BYTES + "])"
    answer = client.post("/api/sgf", content=big)
    assert answer.status_code == 413 and "larger than" in answer.json()["error"]
    answer = client.post("/api/sgf/analysis", json={"player": "uct", "sgf": big})
    assert answer.status_code == 413


def test_the_game_in_play_is_saved_as_sgf_and_resumed_from_its_moves(client):
    with client.websocket_connect("/ws/play") as socket:
        socket.send_json({"type": "new", "player": "random", "size": 5, "komi": 0.5})
        state, _ = until_turn(socket)
        for _ in range(3):
            socket.send_json({"type": "play", "move": state["legal"][0]})
            state, _ = until_turn(socket)
        socket.send_json({"type": "sgf"})
        while (saved := socket.receive_json())["type"] != "sgf":
            pass
    record = read_sgf(saved["sgf"])
    assert [coords.to_gtp(move, 5) for move in record.moves] == state["moves"]
    assert (record.black, record.white, saved["name"]) == ("You", "random", "goarena-6-moves.sgf")
    with client.websocket_connect("/ws/play") as socket:  # a reload: the page sends the moves back
        socket.send_json({"type": "new", "player": "random", "size": 5, "komi": 0.5, "moves": state["moves"]})
        resumed, _ = until_turn(socket)
        assert resumed["moves"] == state["moves"] and resumed["board"] == state["board"]
        assert resumed["winrates"] == [None] * 6 and resumed["first"] == "black"


def test_the_league_view_says_which_games_are_drawn(client):
    games = client.get("/api/leagues/small").json()["games"]
    assert all(game["winner"] in ("black", "white", "draw") for game in games)


def test_an_analysis_of_ones_own_record_needs_a_player_and_a_record(client):
    for asked in [{"player": "uct"}, {"sgf": "(;GM[1]SZ[5])"}, [1, 2], "oops"]:
        answer = client.post("/api/sgf/analysis", json=asked)
        assert answer.status_code == 400 and "bad request" in answer.json()["error"], asked
