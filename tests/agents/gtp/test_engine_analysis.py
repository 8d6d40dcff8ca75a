"""Live analysis as KataGo gives it: ``lz-analyze`` and ``kata-analyze`` report at the asked
interval until ``stop`` (any next line), search players search on past their own budget, and
``search=gumbel`` analyses with the search its ``genmove`` runs, on the clock.

The last tests replay the command sequences that Sabaki and Lizzie send, with their timing,
and check the replies as those clients parse them.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable

import numpy as np
import pytest

from go_env import BLACK, WHITE, Game, GameBatch, Rules
from go_env.coords import from_gtp
from goarena.agents.gtp.engine import GTPEngine, PonderingAgent
from goarena.agents.protocols import GameContext, MoveInfo
from goarena.agents.specs import make_agent
from goarena.search import GumbelSearch, Leaves
from tests.agents.gtp.test_engine import FakeAnalyst, Wire

PV = r"pv(?: (?:[A-HJ-T]\d+|pass))+"
LZ_INFO = rf"info move (\S+) visits (\d+) winrate (\d+) prior (\d+) lcb (-?\d+) order (\d+) {PV}"
NUMBER = r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?"
KATA_INFO = (
    rf"info move (\S+) visits (\d+) utility {NUMBER} winrate ({NUMBER}) "
    rf"(?:scoreMean {NUMBER} scoreLead {NUMBER} )?"
    rf"prior ({NUMBER}) lcb ({NUMBER}) utilityLcb {NUMBER} order (\d+) {PV}"
)


class Session:
    """An engine served over an in-memory wire in a thread, as ``goarena gtp`` serves stdin:
    lines sent when the client would send them, lines received with their arrival times."""

    def __init__(self, engine: GTPEngine):
        self.wire = Wire()
        self.thread = threading.Thread(target=engine.run, args=(self.wire, self.wire), daemon=True)
        self.thread.start()
        self.started = time.perf_counter()

    def send(self, line: str) -> float:
        self.wire.send(line)
        return time.perf_counter()

    def receive(self, timeout: float = 180.0) -> tuple[float, str]:  # kernels may compile first
        line = self.wire.outbox.get(timeout=timeout)
        return time.perf_counter(), line

    def answer(self, timeout: float = 180.0) -> list[tuple[float, str]]:
        """The lines of the next answer, up to its empty line (not included)."""
        lines = []
        while (received := self.receive(timeout))[1] != "":
            lines.append(received)
        return lines

    def close(self) -> None:
        self.send("quit")
        assert [line for _, line in self.answer()] == ["="]
        self.thread.join(timeout=10)
        assert not self.thread.is_alive()


def visits_of(line: str) -> int:
    """The visits of all candidates of a report line."""
    return sum(int(v) for v in re.findall(r" visits (\d+)", line))


# -- reports go on until stop ----------------------------------------------------------------


def test_reports_go_on_after_the_players_budget_until_stop():
    """A player whose analysis ends (two reports) still reports every interval until ``stop``."""
    session = Session(GTPEngine(FakeAnalyst(reports=2), size=9))
    session.send("1 kata-analyze b 5")
    assert session.receive()[1] == "=1"
    arrivals = [session.receive() for _ in range(6)]  # two from the player, then repeats
    assert all(line.startswith("info move D4 visits ") for _, line in arrivals)
    assert [visits_of(line) for _, line in arrivals[2:]] == [visits_of(arrivals[1][1])] * 4
    sent = session.send("stop")
    lines = session.answer()
    assert all(line.startswith("info ") for _, line in lines)
    end = lines[-1][0] if lines else time.perf_counter()
    assert end - sent < 2.0  # promptly (generous: the machine may be busy)
    assert [line for _, line in session.answer()] == ["="]  # stop's own answer
    session.close()


def test_an_empty_line_ends_the_analysis_as_in_katago():
    session = Session(GTPEngine(FakeAnalyst(reports=None), size=9))
    session.send("lz-analyze b 2")
    assert session.receive()[1] == "="
    assert session.receive()[1].startswith("info move D4")
    session.send("")
    assert all(line.startswith("info ") for _, line in session.answer())
    session.send("2 name")
    assert [line for _, line in session.answer()] == ["=2 analyst"]
    session.close()


class Ponderer(FakeAnalyst):
    """A ``FakeAnalyst`` that searches on past its budget when asked to ``ponder``."""

    def __init__(self) -> None:
        super().__init__(reports=1)
        self.called: list[str] = []

    def analyze(self, game, stop, report, interval):  # type: ignore[no-untyped-def]
        self.called.append("analyze")
        return super().analyze(game, stop, report, interval)

    def ponder(
        self, game: Game, stop: Callable[[], bool], report: Callable[[list[MoveInfo]], None], interval: float
    ) -> int:
        self.called.append("ponder")
        visits = 0
        while not stop():
            visits += 10
            report(self.candidates(game, visits))
            threading.Event().wait(0.01)
        return from_gtp("D4", game.size)


def test_a_player_ponders_only_where_a_next_line_can_stop_it():
    agent = Ponderer()
    assert isinstance(agent, PonderingAgent)
    engine = GTPEngine(agent, size=9)
    answer = engine.handle("lz-analyze b 1")  # nothing can arrive: the player's own budget
    assert answer.count("info move D4") == 1 and agent.called == ["analyze"]
    assert engine.handle("lz-genmove_analyze b 1").endswith("play D4\n\n") and agent.called[-1] == "analyze"
    session = Session(engine)
    session.send("kata-analyze w 1")
    assert session.receive()[1] == "="
    growing = [visits_of(session.receive()[1]) for _ in range(5)]
    assert growing == sorted(growing) and growing[-1] > growing[0]
    session.send("stop")
    session.answer()
    assert agent.called[-1] == "ponder"
    session.answer()
    session.close()


@pytest.mark.parametrize(
    ("spec", "cap"),
    [
        ("uct:simulations=40,seed=1", 40),
        ("puct:simulations=40,seed=1", 40),
        pytest.param("zero:simulations=40", 40, marks=pytest.mark.slow),
        pytest.param("zero:search=gumbel,simulations=16", 16, marks=pytest.mark.slow),
    ],
)
def test_every_search_player_searches_on_past_its_cap_until_stop(spec, cap):
    """KataGo keeps searching and reporting until ``stop``: so do the search players, past
    their ``simulations`` (PUCT's tree grows; Gumbel's searches double)."""
    engine = GTPEngine(make_agent(spec), size=9, rules=Rules(komi=7))
    assert engine.handle("play b E5") == "=\n\n"
    session = Session(engine)
    session.send("lz-analyze w 5")
    assert session.receive()[1] == "="
    deadline = time.perf_counter() + 180  # kernels may compile first
    most = 0
    while most <= 2 * cap and time.perf_counter() < deadline:
        _, line = session.receive()
        assert re.fullmatch(rf"{LZ_INFO}(?: {LZ_INFO})*", line), line
        most = max(most, visits_of(line))
    assert most > 2 * cap  # searched on past its own budget
    sent = session.send("stop")
    lines = session.answer()
    assert (lines[-1][0] if lines else time.perf_counter()) - sent < 5.0
    assert [line for _, line in session.answer()] == ["="]
    assert engine.game.moves == [from_gtp("E5", 9)]  # analysis plays nothing
    session.close()


def test_pondering_stops_at_its_bound_on_the_tree(monkeypatch):
    """Live analysis runs until stop, within a bound on memory: a tree of at most
    ``analysis_nodes`` nodes (here the least, 1024); then the search returns and the engine
    repeats its last report."""
    from goarena.agents.players import search

    monkeypatch.setattr(search, "ANALYSIS_TREE_BYTES", 0)
    agent = make_agent("uct:simulations=10,seed=1")
    agent.reset(GameContext(9, Rules(komi=7)))
    reports: list[list[MoveInfo]] = []
    agent.ponder(Game(9, Rules(komi=7)), lambda: False, reports.append, 0.01)
    nodes = int(agent.searcher.tree.num_nodes[0])  # type: ignore[attr-defined]
    assert 1024 <= nodes < 1024 + 4096  # a chunk of simulations past the bound at most
    assert sum(info.visits for info in reports[-1]) > 10  # past its own budget


# -- search=gumbel analyses with its own search, on the clock ------------------------------


def test_gumbel_analysis_plays_what_genmove_plays():
    """``lz-genmove_analyze`` ran PUCT for ``search=gumbel`` (C3 where genmove played D3): now
    every analysis command runs the Gumbel search, its choice reported first."""
    engine = GTPEngine(make_agent("zero:search=gumbel,simulations=32"), size=9, rules=Rules(komi=7))
    for command in ("play b E5", "play w C3", "play b D4"):
        assert engine.handle(command) == "=\n\n"
    genmove = engine.handle("genmove w")[2:].strip()
    for command in ("lz-genmove_analyze w 100", "kata-genmove_analyze w 100"):
        assert engine.handle("undo") == "=\n\n"
        lines = engine.handle(command).split("\n")
        assert lines[-3:] == [f"play {genmove}", "", ""]
        assert lines[-4].startswith(f"info move {genmove} ") and " order 0 " in lines[-4]
    assert engine.handle("undo") == "=\n\n"
    last = engine.handle("lz-analyze w 100").split("\n")[-3]  # on its budget: no next line here
    assert last.startswith(f"info move {genmove} ")
    assert visits_of(last) == 32


def _fake_network(leaves: Leaves) -> tuple[np.ndarray, np.ndarray]:
    """Priors and values that differ by position, as a network's do, from the stones."""
    boards = leaves.states.board.reshape(len(leaves.legal), -1)[:, : leaves.legal.shape[1] - 1]
    weights = np.cos(np.arange(leaves.legal.shape[1]) * 1.7) + 1.1
    values = np.tanh(np.sin((boards * np.arange(boards.shape[1])).sum(axis=1) * 0.37))
    return leaves.legal * weights, values


@pytest.fixture
def now(monkeypatch) -> list[float]:
    """A fake ``time.perf_counter``: what the list holds."""
    clock = [1000.0]
    monkeypatch.setattr(time, "perf_counter", lambda: clock[0])
    return clock


def test_gumbel_plans_its_simulations_from_the_time_it_is_given(now):
    """Each evaluation costs 10 ms of a fake clock: with 0.5 s, sequential halving plans the
    simulations the rate fits, and ends as a search of that many simulations does."""

    def slow(leaves: Leaves) -> tuple[np.ndarray, np.ndarray]:
        now[0] += 0.01
        return _fake_network(leaves)

    batch = GameBatch(9, 1)
    batch.play(np.array([40]))
    timed = GumbelSearch(slow, gumbel=False, seed=0)
    started = now[0]
    move = timed.search(batch, 1600, seconds=0.5)[0]
    assert now[0] - started <= 0.5 + 0.011  # within the time, one evaluation at most past it
    planned = int(timed.simulations[0])
    assert 16 < planned < 60  # about what 0.5 s holds at 100 evaluations a second
    plain = GumbelSearch(_fake_network, gumbel=False, seed=0)
    assert plain.search(batch, planned)[0] == move
    np.testing.assert_array_equal(plain.visit_counts(), timed.visit_counts())
    np.testing.assert_allclose(plain.policy_targets(), timed.policy_targets())


def test_gumbel_without_a_time_is_the_plain_search():
    batch = GameBatch(9, 1)
    plain, watched = GumbelSearch(_fake_network, gumbel=False), GumbelSearch(_fake_network, gumbel=False)
    reports: list[int] = []
    move = watched.search(batch, 48, report=lambda: reports.append(len(watched.candidates())), interval=0.0)
    assert plain.search(batch, 48)[0] == move
    np.testing.assert_array_equal(plain.visit_counts(), watched.visit_counts())
    assert reports and watched.candidates()[0].move == move  # its choice first


@pytest.mark.slow
def test_gumbel_keeps_the_clock_it_lost_on(now):
    """``zero:search=gumbel,simulations=1600`` under ``time_settings 5 1 1`` took 2.92 s in a
    1 s byo-yomi period at move 5 and lost on time: with 20 ms per evaluation (a fake clock),
    every move keeps to its budget and the clock is never lost."""
    player = make_agent("zero:search=gumbel,simulations=1600")
    evaluate = player.evaluator.evaluate

    def slow(leaves: Leaves):  # type: ignore[no-untyped-def]
        now[0] += 0.02
        return evaluate(leaves)

    player.evaluator.evaluate = slow
    engine = GTPEngine(player, size=9, rules=Rules(komi=7))
    assert engine.handle("time_settings 5 1 1") == "=\n\n"
    for move in range(8):
        color = (BLACK, WHITE)[move % 2]
        budget = engine.clock.budget(color, 81, move, engine.lag)
        started = now[0]
        assert engine.handle(f"genmove {'bw'[move % 2]}").startswith("= ")
        assert now[0] - started <= budget + 0.021  # one evaluation past it at most
        assert not engine.clock.sides[color].lost
    assert 0 < player._gumbel.simulations[0] < 1600  # type: ignore[attr-defined]


def test_gumbel_takes_the_move_time_it_is_given():
    """The player's move time reaches Gumbel's search (``set_move_time``), as PUCT's does."""
    player = make_agent("zero:search=gumbel,simulations=200")
    game = Game(9, Rules(komi=7))
    player.reset(GameContext(9, game.rules))
    player.set_move_time(0.01)
    player.select_move(game)
    assert player._gumbel.simulations[0] < 200  # type: ignore[attr-defined]
    player.set_move_time(None)
    player.select_move(game)
    assert player._gumbel.simulations[0] == 200  # type: ignore[attr-defined]


# -- sessions as Sabaki and Lizzie drive them ------------------------------------------------

# Sabaki (0.52, src/modules/enginesyncer.js and @sabaki/gtp): numbered commands; on start name,
# version, protocol_version and list_commands at once; the board synced by boardsize,
# clear_board, komi and play; analysis as `kata-analyze COLOR INTERVAL` (50 cs by default);
# while the engine is busy, a `protocol_version` aborts it before the next sync.
SABAKI = [
    (0.0, "1 name"),
    (0.0, "2 version"),
    (0.0, "3 protocol_version"),
    (0.0, "4 list_commands"),
    (0.2, "5 boardsize 9"),
    (0.0, "6 clear_board"),
    (0.0, "7 komi 7"),
    (0.0, "8 play B E5"),
    (0.0, "9 play W C3"),
    (0.1, "10 kata-analyze B 50"),
    (1.6, "11 protocol_version"),  # the user clicks D4: abort, sync, analyse again
    (0.0, "12 play B D4"),
    (0.0, "13 kata-analyze W 50"),
    (1.6, "14 protocol_version"),  # analysis switched off
    (0.3, "15 genmove W"),
]

# Lizzie (0.7, Leelaz.java) with Leela Zero's commands: no ids; `lz-analyze INTERVAL` with no
# colour (10 cs), `name` to stop pondering, `undo` and `play` as the user browses.
LIZZIE = [
    (0.0, "name"),
    (0.0, "version"),
    (0.0, "boardsize 9"),
    (0.0, "komi 7"),
    (0.0, "clear_board"),
    (0.1, "lz-analyze 10"),
    (0.8, "play b C3"),  # a move played: it ends the analysis
    (0.0, "lz-analyze 10"),
    (0.8, "undo"),
    (0.0, "lz-analyze 10"),
    (0.8, "name"),  # pondering switched off
    (0.2, "kata-analyze 10 ownership true"),  # KataGo's mode, the estimate on
    (0.8, "name"),
]


Lines = list[tuple[float, str]]  # lines with their arrival times


def replay(engine: GTPEngine, script: list[tuple[float, str]]) -> list[tuple[float, str, Lines]]:
    """Send ``script``'s lines at their delays, as the client would, reading the answers as
    they come; each command with the time it was sent and its answer's lines (with arrival times)."""
    session = Session(engine)
    sent: list[float] = []

    def client() -> None:
        for delay, line in script:
            time.sleep(delay)
            sent.append(session.send(line))

    sender = threading.Thread(target=client, daemon=True)
    sender.start()
    answers = [session.answer() for _ in script]
    sender.join(timeout=10)
    session.close()
    return [(sent[i], line, answers[i]) for i, (_, line) in enumerate(script)]


def warm(engine: GTPEngine) -> GTPEngine:
    """``engine`` with its player's kernels compiled and its network run once, as ``goarena
    gtp`` warms up before the client's first move: the replay times the protocol, not a compiler."""
    for command in ("boardsize 9", "reg_genmove b", "clear_board"):
        assert engine.handle(command).startswith("=")
    return engine


def check_framing(line: str, answer: list[tuple[float, str]]) -> None:
    """``=id`` on the first line of a successful answer (GTP's framing)."""
    id_ = line.split()[0] if line.split()[0].isdigit() else ""
    assert answer and answer[0][1].startswith(f"={id_}"), (line, answer)


def check_stream(
    sent: float, answer: list[tuple[float, str]], ended_by: float, interval: float, pattern: str
) -> list[str]:
    """An analysis answer: ``=id``, then only info lines (each candidate's fields as the
    client parses them), reports about every ``interval`` seconds until the next command
    line, and its end soon after that line; the info lines."""
    reports = [(at, line) for at, line in answer[1:]]
    assert reports, "no report"
    for _, report in reports:
        head, _, ownership = report.partition(" ownership ")
        assert re.fullmatch(rf"{pattern}(?: {pattern})*", head), report
        assert [int(order) for order in re.findall(r" order (\d+)", head)] == list(
            range(len(re.findall(" order ", head)))
        )
    times = [sent] + [at for at, _ in reports]
    window = ended_by - sent
    assert len(reports) >= min(2, int(window / interval) // 3)  # a busy machine: a third of them
    assert max(b - a for a, b in zip(times, times[1:], strict=False)) < interval + 3.0  # a cold network
    assert reports[-1][0] - ended_by < 2.0  # stopped promptly by the next line
    return [line for _, line in reports]


def test_a_sabaki_session_replayed():
    engine = warm(GTPEngine(make_agent("zero:simulations=60"), size=19))
    answers = replay(engine, SABAKI)
    for _, line, answer in answers:
        check_framing(line, answer)
    by_id = {line.split()[0]: (sent, answer) for sent, line, answer in answers}
    assert by_id["1"][1][0][1] == "=1 zero"
    listed = [by_id["4"][1][0][1].removeprefix("=4 ")] + [text for _, text in by_id["4"][1][1:]]
    assert {"kata-analyze", "lz-analyze", "stop"} <= set(listed)
    most = 0
    for analysis, abort in (("10", "11"), ("13", "14")):
        sent, answer = by_id[analysis]
        reports = check_stream(sent, answer, by_id[abort][0], 0.5, KATA_INFO)
        # Sabaki reads the win rate as a fraction (it has a '.') and the pv up to a pass
        for report in reports:
            for winrate in re.findall(rf" winrate ({NUMBER})", report):
                assert 0.0 <= float(winrate) <= 1.0
        most = max(most, *(visits_of(report) for report in reports))
        assert by_id[abort][1][0][1] == f"={abort} 2"
    assert most > 60  # on past its cap, as KataGo
    assert re.fullmatch(r"=15 ([A-HJ][1-9]|pass)", by_id["15"][1][0][1])
    assert len(engine.game.moves) == 4


def test_a_lizzie_session_replayed():
    engine = warm(GTPEngine(make_agent("uct:simulations=200,seed=3"), size=9))
    answers = replay(engine, LIZZIE)
    for _, line, answer in answers:
        assert answer and answer[0][1].startswith("="), (line, answer)  # no ids, no errors
    analyses = [i for i, (_, line, _) in enumerate(answers) if "analyze" in line]
    for i in analyses:
        sent, line, answer = answers[i]
        reports = check_stream(sent, answer, answers[i + 1][0], 0.1, KATA_INFO if "kata" in line else LZ_INFO)
        if "ownership true" in line:
            for report in reports:  # UCT has no ownership to give: the candidates alone
                assert " ownership " not in report
        else:
            # Lizzie reads winrate and prior as integers, ten-thousandths
            assert all(0 <= int(w) <= 10000 for r in reports for w in re.findall(r" winrate (\d+)", r))
    # the second analysis, after C3, is White's: C3 is no candidate
    assert all("info move C3 " not in line for _, line in answers[analyses[1]][2][1:])
    assert len(engine.game.moves) == 0  # played C3, undone
