"""The web board's page in a real browser: Playwright for Python drives the system's chromium
(no browser download) against the real server, run on a free port over small stored leagues.

Walks through the page: a whole 9x9 game against ``random`` played by clicking, its shown
result and dead stones checked against the server's count of the same moves (``settle_final``);
a stored league game stepped through with the arrow keys (before and after choosing a win-rate
reader), each position's stones checked against its SGF replayed in go_env; live analysis that
arrives while a player searches, and that the "Show analysis" switch hides; the person's turn
analysed until they move, and a hint; each of the person's moves coloured by what it cost; a
game saved as SGF, opened again and replayed to the same position; a reload that keeps the
game; star points; a league page with no two elements overlapping at 1024, 1280 and 1600 px;
a league watched while it plays, its game in progress on a board that grows, then in the table,
and one that was killed, whose left-over files show no game; and a page of another origin whose
WebSocket to the server is refused.

They take the README's screenshots: into ``$GOARENA_SCREENSHOTS`` when it names a folder
(``GOARENA_SCREENSHOTS=docs/images pytest tests/benchmarks/web/test_browser.py -m slow``),
else into a temporary folder.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import random
import re
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from web_fixtures import make_league

from go_env import Game, coords
from go_env.game import result_string
from go_env.rules import Rules
from go_env.sgf import load_sgf, read_sgf
from goarena.benchmarks.league.config import LeagueConfig
from goarena.benchmarks.league.live import clear_live, live_file, write_live
from goarena.benchmarks.league.play import run_league
from goarena.benchmarks.league.store import LeagueStore
from goarena.benchmarks.web.sessions import settle_final
from goarena.search.settle import settled_board

sync_api = pytest.importorskip("playwright.sync_api", reason="the browser tests need playwright")
uvicorn = pytest.importorskip("uvicorn", reason="the web board needs goarena[web]")
web_app = pytest.importorskip("goarena.benchmarks.web.app", reason="the web board needs goarena[web]")
Address = pytest.importorskip("goarena.benchmarks.web.guard").Address
expect = sync_api.expect
expect.set_options(timeout=30_000)  # a search, a network's first load or a busy machine may take a while

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
pytestmark = [
    pytest.mark.slow,  # a league, a server, a browser and some hundred moves
    pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="no chromium to drive (apt-get install chromium)"),
]

LEAGUE = "demo/nine"  # a league id with a folder in it, as a browser's URLs carry it
# zero searches for three seconds: long enough for several analysis reports, with its ownership;
# zero-1 reads a stored game quickly (one simulation: its network's value of each position).
PLAYERS = {
    "random": "random",
    "zero": "zero:seconds=3",
    "zero-1": "zero:simulations=1",
    "greedy": "ownership-greedy",  # counts points: its review says what each move cost in points
}
COLOR_NAMES = {0: "", 1: "black", 2: "white"}

# The page's state of play, from the board's data attributes: true once the person may move
# (or the game is over) in a position other than `previous`'s moves.
TURN_CAME = """previous => {
  const board = document.querySelector("#play-board").dataset;
  const settled = board.turn === "human" || board.turn === "over";
  return board.moves !== undefined && board.moves !== previous && settled;
}"""
# Once the search shown has 60 visits, or is over (on a slow machine).
SEARCHED_A_WHILE = """() => document.querySelector("#analysis-summary").dataset.visits >= 60
  || document.querySelector("#play-board").dataset.turn !== 'agent'"""
STONES = "points => Object.fromEntries(points.map(p => [p.dataset.vertex, p.dataset.color]))"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of leagues holding one small 9x9 league."""
    root = tmp_path_factory.mktemp("runs")
    players = {"random": "random", "uct-20": "uct:simulations=20", "uct-100": "uct:simulations=100"}
    config = LeagueConfig(players=players, size=9, games_per_pair=2, seed=24)
    run_league(config, root / LEAGUE, workers=1).close()
    # A league with a player named as one of the server's, another spec: offered as "zero (demo/zeros)".
    make_league(root / "demo" / "zeros", {"zero": "zero:simulations=2", "random": "random"}, games=0, size=9)
    return root


@pytest.fixture(scope="module")
def server(runs: Path) -> Iterator[str]:
    """The real server on a free port of 127.0.0.1, in a thread; yields its URL."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    address = Address("127.0.0.1", listener.getsockname()[1])
    app = web_app.create_app(runs, PLAYERS, address=address)
    served = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=served.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not served.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/"
    served.should_exit = True
    thread.join(timeout=10)
    listener.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM)
        yield browser
        browser.close()


@pytest.fixture
def page(browser: Any, server: str) -> Iterator[Any]:
    """A fresh page; the test fails if the page's scripts raise."""
    page = browser.new_page(viewport={"width": 1280, "height": 860})
    page.set_default_timeout(30_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    page.close()
    assert not errors, f"the page's scripts raised: {errors}"


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    """Where the screenshots go."""
    folder = Path(os.environ.get("GOARENA_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def new_game(page: Any, server: str, player: str) -> None:
    page.goto(server + "#/play")
    expect(page.locator(f'#player option[value="{player}"]')).to_be_attached()
    page.select_option("#player", player)
    page.select_option("#size", "9")
    page.select_option("#rules", "chinese")
    page.fill("#komi", "7")
    page.select_option("#color", "black")
    page.click("#new-game")


def wait_for_turn(page: Any, previous: str | None) -> dict[str, str]:
    """The board's data attributes once the person is to move (or the game is over)."""
    page.wait_for_function(TURN_CAME, arg=previous)
    return page.locator("#play-board").evaluate("board => ({...board.dataset})")


def stones_shown(page: Any, board: str) -> dict[str, str]:
    """Vertex -> "black", "white" or "" for each point of the page's board ``board``."""
    return page.eval_on_selector_all(f"{board} [data-vertex]", STONES)


def stones_of(game: Game) -> dict[str, str]:
    colors = game.board.ravel()
    return {coords.to_gtp(point, game.size): COLOR_NAMES[int(color)] for point, color in enumerate(colors)}


def legal_vertices(page: Any) -> list[str]:
    """The points the page offers to play (from the server's ``legal``)."""
    return page.eval_on_selector_all("#play-board [data-legal]", "ps => ps.map(p => p.dataset.vertex)")


def test_a_whole_game_against_random_played_by_clicking_ends_with_the_settled_score(page, server):
    new_game(page, server, "random")
    rng = random.Random(24)
    previous = None
    while True:
        board = wait_for_turn(page, previous)
        if board["over"] == "true":
            break
        legal = legal_vertices(page)
        if board["moves"].endswith("pass") or not legal:  # random passed: passing ends the game
            page.click("#pass")
        else:
            page.click(f'#play-board [data-vertex="{rng.choice(legal)}"]')
        previous = board["moves"]

    moves = board["moves"].split()
    game = Game(9, Rules.preset("chinese", komi=7.0))
    game.replay([coords.from_gtp(vertex, 9) for vertex in moves])
    assert game.is_over
    settled = settle_final(game)  # the dead stones off, as the server counts
    result = page.locator("#result")
    expect(result).to_be_visible()
    expect(result).to_have_attribute("data-result", result_string(settled.margin))
    expect(result).to_contain_text(result_string(settled.margin))
    expect(result).to_have_attribute("data-counted-by", settled.how)
    assert stones_shown(page, "#play-board") == stones_of(game)
    expect(page.locator("#play-board .stone.dead")).to_have_count(len(settled.dead))
    expect(page.locator("#play-board .dead-mark")).to_have_count(len(settled.dead))
    # The final owners shaded: each point counted for a colour that has no living stone of it there.
    owners, stones = settled_board(game, settled.dead).area_owner().ravel(), game.board.ravel()
    dead = np.isin(np.arange(game.num_points), settled.dead)
    shaded = int(((owners != 0) & ((stones != owners) | dead)).sum())
    expect(page.locator("#play-board .territory")).to_have_count(shaded)
    expect(page.locator("#pass")).to_be_disabled()
    expect(page.locator("#error")).to_be_hidden()


def test_a_league_game_stepped_with_the_arrow_keys_shows_the_stones_of_its_sgf(page, server, runs, shots):
    page.goto(server + "#/leagues")
    page.click(f'#leagues tr[data-league="{LEAGUE}"] a >> nth=0')
    expect(page.locator("#standings tr[data-player]")).to_have_count(3)
    expect(page.locator("#elo-graph path.line")).to_have_count(3)
    with LeagueStore.open_existing(runs / LEAGUE) as store:
        stored = store.games()
    expect(page.locator("#games tr[data-game]")).to_have_count(len(stored))
    page.screenshot(path=shots / "web-league.png", full_page=True)

    chosen = max((g for g in stored if "random" not in (g.black, g.white)), key=lambda g: g.move_count)
    page.click(f'#games tr[data-game="{chosen.id}"] a')
    number = page.locator("#move-number")
    expect(number).to_have_attribute("data-index", "0")
    record = load_sgf(runs / LEAGUE / chosen.sgf)
    game = Game(record.game.size, record.rules)
    assert stones_shown(page, "#replay-board") == stones_of(game)
    for index, move in enumerate(record.moves, 1):
        page.keyboard.press("ArrowRight")
        game.replay([move], resume=True)
        expect(number).to_have_attribute("data-index", str(index))
        assert stones_shown(page, "#replay-board") == stones_of(game), f"after move {index}"
    assert stones_of(game) == stones_of(record.game)
    page.keyboard.press("ArrowRight")  # past the end: stays there
    expect(number).to_have_attribute("data-index", str(len(record.moves)))
    page.keyboard.press("Home")
    expect(number).to_have_attribute("data-index", "0")
    assert set(stones_shown(page, "#replay-board").values()) == {""}
    page.keyboard.press("End")
    page.keyboard.press("ArrowLeft")
    expect(number).to_have_attribute("data-index", str(len(record.moves) - 1))

    # Black's win rate along the game, at move 30.
    page.keyboard.press("Home")
    for _ in range(30):
        page.keyboard.press("ArrowRight")
    readers = page.locator("#winrate-player option").all_text_contents()
    assert readers.count("zero") == 1 and not [r for r in readers if r.startswith("zero (")]  # once
    assert len(readers) == len(set(readers)) and "random" not in readers  # only analysts
    page.select_option("#winrate-player", "zero-1")
    graph = page.locator("#replay-winrate-graph")
    # Smoothed, and each position as read in dots; the first network player of the process may
    # wait for its kernels to compile.
    expect(graph.locator("path.line")).to_have_count(1, timeout=240_000)
    expect(graph.locator(".dots circle")).not_to_have_count(0)
    expect(graph.locator(".chart-legend li")).to_have_count(2)
    expect(graph.locator(".cursor")).to_have_count(1)
    expect(page.locator("#move-cost")).not_to_have_text("")
    page.keyboard.press("ArrowRight")  # the keys move through the game, not through the list
    expect(number).to_have_attribute("data-index", "31")
    expect(page.locator("#winrate-player")).to_have_value("zero-1")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#replay-sgf")).to_have_attribute("href", re.compile(r"/games/\d+/sgf$"))
    page.screenshot(path=shots / "web-replay.png")
    expect(page.locator("#error")).to_be_hidden()


def click_first_legal(page: Any, vertices: str) -> None:
    """Click the first of ``vertices`` (space-separated) that the page offers as legal."""
    legal = set(legal_vertices(page))
    page.click(f'#play-board [data-vertex="{next(v for v in vertices.split() if v in legal)}"]')


def test_analysis_arrives_while_a_player_searches_and_the_switch_hides_it(page, server):
    analyses = []  # the analysis messages the page heard

    def listen(websocket: Any) -> None:
        def received(frame: str | bytes) -> None:
            if json.loads(frame)["type"] == "analysis":
                analyses.append(frame)

        websocket.on("framereceived", received)

    page.on("websocket", listen)
    new_game(page, server, "zero")
    board = wait_for_turn(page, None)
    candidates = page.locator("#play-board [data-candidate]")
    best = page.locator("#play-board [data-candidate].best")
    for vertices in ("E5", "C3 C7 G3", "G7 G3 C7"):  # a few moves, each answered by a search shown live
        click_first_legal(page, vertices)
        expect(best).to_have_count(1)  # while zero searches
        expect(page.locator("#play-board .ownership").first).to_be_attached()
        if vertices == "E5":  # the best move under the pointer: its principal variation instead
            page.hover(f'#play-board [data-vertex="{best.get_attribute("data-candidate")}"]')
            expect(page.locator("#play-board .pv-number").first).to_have_text("1")
            expect(page.locator("#play-board g.candidates")).to_have_class(re.compile("hidden"))
            page.mouse.move(0, 0)
        board = wait_for_turn(page, board["moves"])
    assert len(analyses) >= 3
    line = page.locator("#winrate-graph path.line").get_attribute("d")
    assert line.count("L") >= 2, line  # a win rate for each move searched, joined
    expect(page.locator("#candidates tr")).not_to_have_count(0)

    # Zero searching, some visits in (or done on a slow machine).
    click_first_legal(page, "C7 G3 F4 D6")
    expect(best).to_have_count(1)
    page.wait_for_function(SEARCHED_A_WHILE)
    board = wait_for_turn(page, board["moves"])

    page.uncheck("#analysis-toggle")
    expect(page.locator("#analysis")).to_be_hidden()
    expect(page.locator("#play-board .ownership")).to_have_count(0)
    heard = len(analyses)
    click_first_legal(page, "D4 F6 D6 F4 B2 H8")
    board = wait_for_turn(page, board["moves"])
    assert len(analyses) == heard, "analysis came while the switch was off"
    expect(candidates).to_have_count(0)

    page.check("#analysis-toggle")
    expect(page.locator("#analysis")).to_be_visible()
    click_first_legal(page, "B8 H2 B2 H8 A1 J9")
    expect(candidates.first).to_be_attached()
    expect(page.locator("#error")).to_be_hidden()


def test_a_watched_league_shows_its_game_in_progress_on_a_board_of_its_own(page, server, runs, shots):
    # A slow player (a third of a second a move, in the league's worker) against random, on 5x5.
    players = {"random": "random", "slow": "web_fixtures:Slow:seconds=0.3"}
    config = LeagueConfig(players=players, size=5, games_per_pair=1)
    directory = runs / "demo" / "live"
    league = threading.Thread(target=lambda: run_league(config, directory, workers=1).close())
    league.start()
    try:
        deadline = time.monotonic() + 60
        while not list(directory.glob("live/game-*.json")):
            assert league.is_alive() and time.monotonic() < deadline, "the game did not begin"
            time.sleep(0.05)
        page.goto(server + "#/watch/demo/live")
        shown = page.locator("#live-games figure.live-game")
        expect(shown).to_have_count(1)
        page.wait_for_function(
            "() => document.querySelector('#live-games figure')?.dataset.moves >= 4"
        )  # it grows as moves are played
        expect(shown.locator(".stone").first).to_be_attached()
        expect(shown.locator("figcaption")).to_contain_text("random")
        page.screenshot(path=shots / "web-watch.png")
    finally:
        league.join()
    expect(shown).to_have_count(0)  # stored: in the table now
    expect(page.locator("#games tr[data-game]")).to_have_count(1)
    expect(page.locator("#watch-note")).to_contain_text("No game in progress")
    expect(page.locator("#error")).to_be_hidden()


ATTACK = """<!doctype html><title>another site</title><script>
const socket = new WebSocket("ws://127.0.0.1:PORT/ws/play");
socket.onopen = () => {
  document.title = "open";
  socket.send(JSON.stringify({ type: "new", player: "random", size: 5 }));
};
socket.onmessage = (event) => (document.title = "answered " + event.data.slice(0, 40));
socket.onerror = () => (document.title = "refused");
</script>"""


def test_a_page_of_another_origin_cannot_use_the_server(browser, server, tmp_path):
    # The page another site would serve, here from a second origin: another port of 127.0.0.1.
    port = server.rsplit(":", 1)[1].strip("/")
    (tmp_path / "index.html").write_text(ATTACK.replace("PORT", port))
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) as other:
        threading.Thread(target=other.serve_forever, daemon=True).start()
        page = browser.new_page()
        try:
            page.goto(f"http://127.0.0.1:{other.server_address[1]}/index.html")
            page.wait_for_function("() => document.title !== 'another site'")
            assert page.title() == "refused"
        finally:
            page.close()
            other.shutdown()


# -- the person's turn, review, games kept, league pages, watching: issue 34 ----------------------

BOARD = "() => ({...document.querySelector('#play-board').dataset})"
# The position's analysis on the person's turn (as the search player ponders it), past `visits`.
PONDERED = """([at, visits]) => {
  const board = document.querySelector("#play-board").dataset;
  return board.turn === "human" && board.pondering === "true" && board.analysisAt === at
    && Number(board.analysisVisits) > visits;
}"""


ANALYSED = """() => {
  const board = document.querySelector("#play-board").dataset;
  return board.analysisAt === String(board.moves.split(" ").filter(Boolean).length);
}"""


def play_moves(page: Any, count: int, seed: int = 3, analysed: bool = False) -> dict[str, str]:
    """Play ``count`` random legal moves of the person's (the player answering each), each once
    the position is analysed if ``analysed``; the board's data attributes after."""
    rng = random.Random(seed)
    board = wait_for_turn(page, None)
    for _ in range(count):
        if analysed:
            page.wait_for_function(ANALYSED)
        page.click(f'#play-board [data-vertex="{rng.choice(sorted(legal_vertices(page)))}"]')
        board = wait_for_turn(page, board["moves"])
    return board


def test_a_search_player_analyses_the_persons_turn_until_they_move_and_gives_a_hint(page, server, shots):
    new_game(page, server, "zero")  # the person (Black) moves first: zero ponders the empty board
    page.wait_for_function(PONDERED, arg=["0", 0])
    first = int(page.locator("#play-board").get_attribute("data-analysis-visits"))
    page.wait_for_function(PONDERED, arg=["0", first])  # it goes on: more visits come
    best = page.locator("#play-board [data-candidate].best")
    expect(best).to_have_count(1)
    expect(page.locator("#play-board .ownership").first).to_be_attached()
    expect(page.locator("#candidates tr")).not_to_have_count(0)
    page.click("#hint")
    hint = page.locator("#play-board circle.hint")
    expect(hint).to_have_count(1)
    assert hint.get_attribute("data-vertex") in legal_vertices(page)
    page.click('#play-board [data-vertex="E5"]')
    # The move is played: the analysis of the empty board is gone, and the hint with it.
    page.wait_for_function("() => document.querySelector('#play-board').dataset.analysisAt !== '0'")
    expect(hint).to_have_count(0)
    board = wait_for_turn(page, "")
    page.wait_for_function(PONDERED, arg=["2", 60])  # the person's turn again: analysed again
    assert page.evaluate(BOARD)["moves"] == board["moves"]
    page.screenshot(path=shots / "web-play.png")
    expect(page.locator("#error")).to_be_hidden()


def test_each_of_the_persons_moves_is_coloured_by_what_it_cost(page, server, shots):
    new_game(page, server, "greedy")  # counts points: the cost of each move in points
    play_moves(page, 6, analysed=True)
    rows = page.locator("#review tr[data-quality]")
    expect(rows).to_have_count(6)
    qualities = [int(q) for q in rows.evaluate_all("rows => rows.map(r => r.dataset.quality)")]
    assert all(0 <= q <= 5 for q in qualities)
    assert rows.first.get_attribute("data-move") == "11"  # the newest first
    expect(rows.first).to_have_class("quality-" + str(qualities[0]))
    dots = page.locator("#play-board circle.quality")
    assert 1 <= dots.count() <= 6  # on the person's stones still on the board
    expect(page.locator("#score-panel")).to_be_visible()
    expect(page.locator("#score-graph path.line")).to_have_count(1)
    page.screenshot(path=shots / "web-review.png", full_page=True)
    expect(page.locator("#error")).to_be_hidden()


def test_a_game_saved_as_sgf_opens_again_and_replays_to_the_same_position(page, server, tmp_path):
    new_game(page, server, "random")
    board = play_moves(page, 5)
    shown = stones_shown(page, "#play-board")
    with page.expect_download() as downloading:
        page.click("#save-sgf")
    saved = tmp_path / downloading.value.suggested_filename
    downloading.value.save_as(saved)
    record = read_sgf(saved.read_bytes())
    assert [coords.to_gtp(move, 9) for move in record.moves] == board["moves"].split()
    assert record.black == "You" and record.white == "random"

    page.set_input_files("#open-sgf", str(saved))
    expect(page).to_have_url(server + "#/sgf")
    number = page.locator("#move-number")
    expect(number).to_have_attribute("data-index", "0")
    page.keyboard.press("End")
    expect(number).to_have_attribute("data-index", str(len(record.moves)))
    assert stones_shown(page, "#replay-board") == shown
    assert page.locator("#replay-sgf").get_attribute("href").startswith("blob:")
    page.select_option("#winrate-player", "zero-1")  # read by a player, as a league game is
    graph = page.locator("#replay-winrate-graph")
    expect(graph.locator("path.line")).to_have_count(1, timeout=240_000)
    expect(graph.locator(".dots circle")).to_have_count(len(record.moves) + 1)
    page.reload()  # the record stays open in the tab
    expect(number).to_have_attribute("data-index", "0")

    bad = tmp_path / "bad.sgf"
    bad.write_text("(;GM[1]SZ[9];B[ee];W[ee])")  # a move on a stone
    page.set_input_files("#open-sgf", str(bad))
    expect(page.locator("#error")).to_be_visible()
    expect(page.locator("#error")).to_contain_text("bad.sgf")


def test_a_reload_keeps_the_game_in_progress(page, server):
    new_game(page, server, "random")
    board = play_moves(page, 3)
    shown = stones_shown(page, "#play-board")
    page.reload()
    page.wait_for_function(TURN_CAME, arg="")
    assert page.evaluate(BOARD)["moves"] == board["moves"]
    assert stones_shown(page, "#play-board") == shown
    play_moves(page, 1)  # and it goes on
    assert len(page.evaluate(BOARD)["moves"].split()) == len(board["moves"].split()) + 2


@pytest.mark.parametrize(("size", "stars"), [(9, 5), (13, 5), (19, 9), (7, 1)])
def test_star_points_are_drawn_as_sabaki_and_ogs_draw_them(page, server, size, stars):
    page.goto(server + "#/play")
    expect(page.locator('#size option[value="9"]')).to_be_attached()
    page.select_option("#size", str(size))
    expect(page.locator("#play-board .grid circle.star")).to_have_count(stars)


# A league of ten players, names long and short, for the layout of its page.
WIDE = {
    name: f"random:seed={i}"
    for i, name in enumerate(
        [
            "random",
            "gnugo-10-stand-in",
            "zero-generation-12",
            "uct-5000",
            "sl-policy",
            "rl-policy",
            "ownership-greedy",
            "value-greedy",
            "puct-rollouts-800",
            "zero",
        ]
    )
}
BOXES = """() => [...document.querySelectorAll(
  "#page-league h3, #page-league .note, #page-league .table-box, #elo-graph svg, #elo-graph .chart-legend,"
  + " #page-league .links")].map(e => { const r = e.getBoundingClientRect();
    const what = e.id || e.className || e.tagName;
    return {what, left: r.left, right: r.right, top: r.top, bottom: r.bottom}; })"""


@pytest.mark.parametrize("width", [1024, 1280, 1600, 1920])
def test_a_league_page_has_nothing_overlapping_from_1024_to_1920_px(page, server, runs, shots, width):
    league = runs / "demo" / "wide"
    if not (league / LeagueStore.FILENAME).exists():
        make_league(league, WIDE, games_per_pair=1, komi=0.0, anchor="random")  # some drawn
    page.set_viewport_size({"width": width, "height": 1000})
    page.goto(server + "#/league/demo/wide")
    expect(page.locator("#standings tr[data-player]")).to_have_count(len(WIDE))
    boxes = page.evaluate(BOXES)
    for i, a in enumerate(boxes):
        assert a["right"] <= width + 0.5, f"{a} runs off the page at {width} px"
        for b in boxes[i + 1 :]:
            apart = (
                a["right"] <= b["left"] + 0.5
                or b["right"] <= a["left"] + 0.5
                or a["bottom"] <= b["top"] + 0.5
                or b["bottom"] <= a["top"] + 0.5
            )
            assert apart, f"{a} overlaps {b} at {width} px"
    # The anchor's interval, the draws, the colours and the ticks.
    anchor = page.locator('#standings tr[data-player="random"] td').last
    expect(anchor).to_have_text("anchor")
    with LeagueStore.open_existing(league) as store:
        for game in store.games():
            cell = page.locator(f'#games tr[data-game="{game.id}"] td').nth(3)
            expect(cell).to_have_text("Draw" if game.winner == "draw" else game.result)
    colors = page.locator("#elo-graph path.line").evaluate_all("ps => ps.map(p => p.getAttribute('stroke'))")
    assert len(colors) == len(WIDE) == len(set(colors))
    ticks = [int(t.rstrip("%")) for t in page.locator("#elo-graph .y-label").all_text_contents()]
    steps = {b - a for a, b in zip(ticks, ticks[1:], strict=False)}
    assert len(steps) == 1 and str(steps.pop()).rstrip("0") in ("1", "2", "5"), ticks
    assert all(t % min(abs(t) for t in ticks if t) == 0 for t in ticks), ticks
    legend, plot = (page.locator(f"#elo-graph {e}").bounding_box() for e in (".chart-legend", "svg"))
    assert legend["y"] >= plot["y"] + plot["height"]  # below the plot, off its lines
    if width == 1280:
        page.screenshot(path=shots / "web-league.png", full_page=True)


def test_a_killed_leagues_left_over_games_are_not_shown_as_in_progress(page, server, runs):
    league = make_league(runs / "demo" / "killed", games=1)
    clear_live(league)
    # The file of a game in progress, left behind by a league that was killed.
    write_live(live_file(league, 1), 1, ("random", "uct-20"), 5, Rules(), [coords.from_gtp("B2", 5)])
    page.goto(server + "#/watch/demo/killed")
    expect(page.locator("#live")).to_be_visible()  # watching
    expect(page.locator("#watch-note")).to_contain_text("No game in progress")
    expect(page.locator("#live-games figure")).to_have_count(0)
    expect(page.locator("#games tr[data-game]")).to_have_count(1)
