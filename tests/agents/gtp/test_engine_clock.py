"""The GTP engine's clock (``time_settings``, ``kgs-time_settings``, ``time_left``, each move's
budget given to the player) and its smaller commands: ``stop``, ``clear_cache``,
``kata-set-rule``, ``help``. Whole games on the clock are in ``test_timed_games``."""

from __future__ import annotations

import threading
import time
from types import SimpleNamespace

import pytest

from go_env import BLACK, WHITE, Game, Rules
from goarena.agents.gtp.clock import DEFAULT_LAG, TimeControl, expected_moves
from goarena.agents.gtp.engine import GTPEngine
from goarena.agents.players.minimax import MinimaxAgent
from goarena.agents.players.random import RandomAgent
from goarena.agents.players.search import UCTAgent
from goarena.agents.protocols import GameContext, MoveTimeAgent
from goarena.agents.specs import make_agent
from tests.agents.gtp.test_engine import FakeAnalyst, ScriptedAgent, Wire, answer_of, ok


class Thinker:
    """Takes ``think`` seconds of a fake clock per move (the first legal point) and keeps the
    move times it is given."""

    def __init__(self, now: list[float], think: float):
        self.name = "thinker"
        self.now = now
        self.think = think
        self.move_times: list[float | None] = []
        self.resets = 0

    def reset(self, context: GameContext) -> None:
        self.resets += 1

    def set_move_time(self, seconds: float | None) -> None:
        self.move_times.append(seconds)

    def select_move(self, game: Game) -> int:
        self.now[0] += self.think
        return int(game.legal_moves()[0])


@pytest.fixture
def now(monkeypatch) -> list[float]:
    """A fake ``time.perf_counter``: what the list holds."""
    now = [1000.0]
    monkeypatch.setattr(time, "perf_counter", lambda: now[0])
    return now


def test_the_player_is_given_its_clocks_budget_and_the_engine_counts_its_time(now):
    player = Thinker(now, think=2.0)
    assert isinstance(player, MoveTimeAgent)
    engine = GTPEngine(player, size=9, lag=0.25)
    assert engine.handle("genmove b").startswith("= ") and player.move_times == [None]  # no clock
    assert answer_of(engine, "clear_board", "time_settings 60 0 0", "genmove b").startswith("= ")
    assert player.move_times[-1] == pytest.approx(60 / expected_moves(81, 0) - 0.25)
    assert engine.clock.left(BLACK) == (58, 0) and engine.clock.left(WHITE) == (60, 0)

    answer_of(engine, "play w E5", "genmove b")  # no time_left: the engine's own count
    assert player.move_times[-1] == pytest.approx(58 / expected_moves(81, 2) - 0.25)
    assert engine.clock.left(BLACK) == (56, 0)
    answer_of(engine, "play w E6", "time_left b 30 0", "genmove b")  # the controller's count wins
    assert player.move_times[-1] == pytest.approx(30 / expected_moves(81, 4) - 0.25)
    assert engine.clock.left(BLACK) == (28, 0)

    assert engine.handle("reg_genmove b").startswith("= ") and player.move_times[-1] is None  # not played
    assert engine.clock.left(BLACK) == (28, 0)
    assert engine.handle("clear_board") == ok() and engine.clock.left(BLACK) == (60, 0)  # a new game


def test_a_move_in_overtime_gets_what_overtime_gives(now):
    player = Thinker(now, think=1.0)
    engine = GTPEngine(player, size=9)
    answer_of(engine, "kgs-time_settings byoyomi 0 10 3", "genmove w")
    assert player.move_times[-1] == pytest.approx(10 - DEFAULT_LAG)
    answer_of(engine, "kgs-time-settings canadian 0 12 4", "time_left b 9 3", "genmove b")
    assert player.move_times[-1] == pytest.approx(9 / 3 - DEFAULT_LAG)
    assert engine.clock.left(BLACK) == (8, 2)


def test_kgs_time_settings_reach_a_player_with_its_own_clock_as_time_settings():
    agent = ScriptedAgent()
    engine = GTPEngine(agent, size=9)
    answers = [engine.handle(c) for c in ("kgs-time_settings byoyomi 300 30 5", "kgs-time-settings none")]
    assert answers == [ok()] * 2
    assert agent.clock == [("settings", 300, 30, 1), ("settings", 0, 1, 0)]
    assert engine.clock.control == TimeControl()


@pytest.mark.parametrize(
    ("command", "error"),
    [
        ("kgs-time_settings fischer 300 10", "syntax error: expected none, absolute"),
        ("kgs-time_settings absolute -5", "syntax error"),
        ("time_settings -1 0 0", "syntax error"),
        ("time_left b 10 2", "invalid time left: stones left, but the time control has no overtime"),
        ("time_left b nan 0", "invalid time left"),
        ("kata-set-rule ko superko", "unsupported rules"),
        ("kata-set-rule hasButton true", "unsupported rules"),
        ("kata-set-rule button true", "unsupported rules: unknown rule 'button'"),
        ("kata-set-rule suicide maybe", "syntax error"),
        ("kata-set-rule komi 6.4", "unsupported rules: komi must be"),
        ("kata-set-rule ko", "wrong number of arguments"),
        ("stop", "unknown command"),  # for an analysis player only
    ],
)
def test_bad_commands_fail(command, error):
    engine = GTPEngine(RandomAgent(seed=0), size=9)
    engine.handle("time_settings 300 0 0")
    assert engine.handle(command).startswith(f"? {error}")
    assert engine.handle("genmove b").startswith("= ")


def test_lag_is_seconds():
    with pytest.raises(ValueError, match="lag"):
        GTPEngine(RandomAgent(), lag=-0.1)


# -- the search players keep to it ---------------------------------------------------------


def searched_seconds(agent, monkeypatch) -> list[float | None]:
    """The ``seconds`` each of ``agent``'s searches is given (the searches run as they would)."""
    seen: list[float | None] = []
    search = agent.searcher.search

    def spy(game, *args, seconds=None, **options):
        seen.append(seconds)
        return search(game, *args, seconds=seconds, **options)

    monkeypatch.setattr(agent.searcher, "search", spy)
    return seen


@pytest.mark.parametrize(
    ("own", "move_time", "searched"), [(None, 0.3, 0.3), (2.0, 0.3, 0.3), (0.1, 0.3, 0.1)]
)
def test_a_search_player_stops_at_the_first_of_its_own_budget_and_the_move_time(
    own, move_time, searched, now, monkeypatch
):
    agent = UCTAgent(simulations=50, seconds=own, seed=0)
    agent.reset(GameContext(9, Rules()))
    seen = searched_seconds(agent, monkeypatch)
    game = Game(9, Rules())
    agent.set_move_time(move_time)
    agent.select_move(game)
    agent.set_move_time(None)
    game.play(game.pass_move)
    agent.select_move(game)
    assert seen == [searched, own]
    with pytest.raises(ValueError, match="positive"):
        agent.set_move_time(0)


def test_the_clock_stops_a_search_that_has_simulations_to_spare():
    agent = UCTAgent(simulations=10**7, seed=0)
    agent.reset(GameContext(9, Rules()))
    agent.set_move_time(0.05)
    agent.select_move(Game(9, Rules()))
    assert 0 < agent.searcher.simulations < 10**7


def test_alphagos_mixed_search_stops_on_the_clock():
    """Its leaves wait on the networks' batches and the rollouts: the clock still stops it."""
    agent = make_agent("alphago:simulations=1000000,seed=0")
    agent.reset(GameContext(9, Rules(komi=7)))
    agent.set_move_time(0.2)
    game = Game(9, Rules(komi=7))
    for _ in range(2):  # a first move, then one in the tree kept
        move = agent.select_move(game)
        assert 0 < agent.searcher.simulations < 10**6
        game.play(move)
        agent.observe_move(game, move)


def test_minimax_deepens_until_the_move_time(monkeypatch):
    agent = MinimaxAgent(depth=None, seconds=5.0)
    seen: list[float | None] = []

    def spy(game: Game, depth: int | None, seconds: float | None) -> SimpleNamespace:
        seen.append(seconds)
        return SimpleNamespace(move=game.pass_move)

    monkeypatch.setattr(agent.searcher, "search", spy)
    for move_time in (0.5, 10.0, None):
        agent.set_move_time(move_time)
        agent.select_move(Game(5, Rules()))
    assert seen == [0.5, 5.0, 5.0]


# -- stop, clear_cache, kata-set-rule, help ------------------------------------------------


def test_stop_ends_an_analysis_and_is_listed_for_analysts_only():
    assert "stop" not in GTPEngine(RandomAgent(), size=9).commands()
    wire = Wire()
    engine = GTPEngine(FakeAnalyst(reports=None), size=9)
    assert "stop" in engine.commands()
    session = threading.Thread(target=engine.run, args=(wire, wire), daemon=True)
    session.start()
    wire.send("1 lz-analyze b 1")
    assert wire.receive() == "=1"
    assert wire.receive().startswith("info move D4 ")
    wire.send("2 stop")
    while (line := wire.receive()).startswith("info"):
        pass
    assert line == ""
    assert [wire.receive(), wire.receive()] == ["=2", ""]
    wire.send("3 stop")  # nothing running: nothing to do
    assert [wire.receive(), wire.receive()] == ["=3", ""]
    wire.send("quit")
    session.join(timeout=10)


def test_clear_cache_makes_the_player_start_afresh(now):
    player = Thinker(now, think=0.0)
    engine = GTPEngine(player, size=9)
    answer_of(engine, "genmove b", "genmove w")
    assert player.resets == 1
    assert answer_of(engine, "clear_cache", "genmove b").startswith("= ")
    assert player.resets == 2 and len(engine.game.moves) == 3  # the game goes on


def test_clear_cache_of_a_search_player_forgets_its_tree():
    engine = GTPEngine(UCTAgent(simulations=200, seed=0), size=9)
    answer_of(engine, "genmove b")
    assert engine.agent.searcher.tree.num_nodes[0] > 1
    answer_of(engine, "clear_cache", "play w E5")
    assert engine.agent.searcher.tree.num_nodes[0] <= 1


def test_kata_set_rule_changes_one_rule():
    engine = GTPEngine(RandomAgent(), size=9, rules=Rules(komi=7))
    changes = [
        ("ko simple", "ko", "simple"),
        ("ko POSITIONAL", "ko", "positional"),
        ("suicide true", "suicide", True),
        ("multiStoneSuicideLegal false", "suicide", False),
        ("scoring TERRITORY", "scoring", "territory"),
        ("score area", "scoring", "area"),
        ("komi 6.5", "komi", 6.5),
        ("tax NONE", "komi", 6.5),  # the one setting goarena has: no change
        ("friendlyPassOk true", "komi", 6.5),
    ]
    for command, field, value in changes:
        assert engine.handle(f"kata-set-rule {command}") == ok(), command
        assert getattr(engine.rules, field) == value, command
    assert engine.rules.name == "custom"


def test_help_lists_the_commands():
    engine = GTPEngine(RandomAgent(), size=9)
    assert engine.handle("help") == engine.handle("list_commands")
    listed = engine.handle("help")[2:].split()
    for name in ("help", "kgs-time_settings", "kgs-time-settings", "clear_cache", "kata-set-rule"):
        assert name in listed and engine.handle(f"known_command {name}") == ok("true")


# -- kata-time_settings --------------------------------------------------------------------


def test_kata_time_settings_fischer_budgets_and_charges_each_move(now):
    player = Thinker(now, think=1.0)
    engine = GTPEngine(player, size=9, lag=0.25)
    kinds = "none absolute byoyomi canadian fischer fischer-capped"
    assert engine.handle("kata-list_time_settings") == ok(kinds)
    assert engine.handle("kata-time_settings fischer 30 2.5") == ok()
    assert engine.clock.control == TimeControl(30, increment=2.5)
    assert engine.handle("genmove b").startswith("= ")
    assert player.move_times[-1] == pytest.approx(30 / expected_moves(81, 0) + 2.5 - 0.25)
    assert engine.clock.left(BLACK) == (31.5, 0)  # 30 - 1 + 2.5
    answer_of(engine, "play w E5", "time_left b 3.5 0", "genmove b")  # fractions, as KataGo takes them
    assert player.move_times[-1] == pytest.approx(3.5 / 2 - 0.25)  # half the clock at most
    assert engine.clock.left(BLACK) == (5.0, 0)


def test_kata_time_settings_takes_the_kgs_kinds_and_a_capped_fischer(now):
    player = Thinker(now, think=1.0)
    engine = GTPEngine(player, size=9, lag=0.25)
    answer_of(engine, "kata-time_settings byo-yomi 0 10 3", "genmove w")
    assert player.move_times[-1] == pytest.approx(10 - 0.25)
    answer_of(engine, "kata-time_settings fischer-capped 600 10 -1 4", "genmove b")
    assert player.move_times[-1] == pytest.approx(4 - 0.25)  # the cap per move
    assert engine.handle("kata-time_settings none") == ok() and engine.clock.control == TimeControl()


def test_kata_time_settings_reach_a_player_with_its_own_clock():
    agent = ScriptedAgent()
    engine = GTPEngine(agent, size=9)
    assert engine.handle("kata-time_settings fischer 300 5") == ok()
    assert agent.clock == [("settings", 300, 0, 0)]


@pytest.mark.parametrize(
    ("command", "error"),
    [
        ("kata-time_settings", "wrong number of arguments"),
        ("kata-time_settings fischer 300", "syntax error: expected fischer"),
        ("kata-time_settings hourglass 300", "syntax error: expected none"),
        ("kata-time_settings fischer-capped 300 10 100 -1", "syntax error: the main time's cap"),
    ],
)
def test_bad_kata_time_settings_fail_and_keep_the_clock(command, error):
    engine = GTPEngine(RandomAgent(seed=0), size=9)
    engine.handle("kata-time_settings fischer 300 10")
    assert engine.handle(command).startswith(f"? {error}")
    assert engine.clock.control == TimeControl(300, increment=10)
