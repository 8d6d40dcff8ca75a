"""The GTP engine: ``GTPEngine.handle`` command by command, and live analysis (whole sessions
with ``goarena gtp`` through a pipe: ``tests/benchmarks/commands/test_gtp.py``)."""

from __future__ import annotations

import json
import os
import queue
import re
import sys
import threading
from collections.abc import Callable

import numpy as np
import pytest

from go_env import BLACK, WHITE, Game, Rules
from go_env.coords import from_gtp, to_gtp
from go_env.sgf import read_sgf, write_sgf
from goarena.agents.gtp.engine import GTPEngine, warm_up_in_background
from goarena.agents.players.random import RandomAgent
from goarena.agents.players.search import UCTAgent
from goarena.agents.protocols import RESIGN, GameContext, MoveInfo
from goarena.agents.specs import make_agent
from tests.boards import DEAD_IN_AREA, SEKI, position

REQUIRED = (
    "protocol_version name version known_command list_commands quit boardsize clear_board komi play genmove"
)


class ScriptedAgent:
    """Plays the given vertices in order (``"pass"``, ``"resign"`` too), then passes; remembers
    what it was told."""

    def __init__(self, *vertices: str):
        self.name = "scripted"
        self.vertices = list(vertices)
        self.resets: list[GameContext] = []
        self.observed: list[int] = []
        self.clock: list[tuple] = []

    def reset(self, context: GameContext) -> None:
        self.resets.append(context)

    def select_move(self, game: Game) -> int:
        vertex = self.vertices.pop(0) if self.vertices else "pass"
        return RESIGN if vertex == "resign" else from_gtp(vertex, game.size)

    def observe_move(self, game: Game, move: int) -> None:
        self.observed.append(move)

    def time_settings(self, main_time: float, byo_yomi_time: float, byo_yomi_stones: int) -> None:
        self.clock.append(("settings", main_time, byo_yomi_time, byo_yomi_stones))

    def time_left(self, color: int, seconds: float, stones: int) -> None:
        self.clock.append(("left", color, seconds, stones))


class FakeAnalyst:
    """An ``AnalysisAgent`` with canned candidates: D4 then E5 (9x9).

    ``reports`` bounds its own budget; ``None`` searches until ``stop()``.
    """

    def __init__(self, reports: int | None = 3):
        self.name = "analyst"
        self.reports = reports
        self.intervals: list[float] = []

    def reset(self, rules: Rules) -> None:
        pass

    def candidates(self, game: Game, visits: int) -> list[MoveInfo]:
        d4, e5, c3 = (from_gtp(vertex, game.size) for vertex in ("D4", "E5", "C3"))
        return [
            MoveInfo(d4, visits, 0.55, 0.125, 0.5, (d4, e5)),
            MoveInfo(e5, visits // 2, 0.4321, 0.25, 0.31, (e5, c3, d4)),
        ]

    def select_move(self, game: Game) -> int:
        return from_gtp("D4", game.size)

    def analyze(
        self,
        game: Game,
        stop: Callable[[], bool],
        report: Callable[[list[MoveInfo]], None],
        interval: float,
    ) -> int:
        self.intervals.append(interval)
        done = 0
        while not stop() and (self.reports is None or done < self.reports):
            done += 1
            report(self.candidates(game, 10 * done))
            if self.reports is None:
                threading.Event().wait(0.01)
        return from_gtp("D4", game.size)


@pytest.fixture
def engine() -> GTPEngine:
    return GTPEngine(RandomAgent(seed=1), size=9, rules=Rules(komi=6.5))


def ok(text: str = "") -> str:
    return f"= {text}\n\n" if text else "=\n\n"


def answer_of(engine: GTPEngine, *commands: str) -> str:
    """The answer to the last of ``commands``, the others having to succeed."""
    for command in commands[:-1]:
        answer = engine.handle(command)
        assert answer.startswith("="), f"{command!r} failed: {answer!r}"
    return engine.handle(commands[-1])


def stones(engine: GTPEngine, color: int) -> set[str]:
    board = engine.game.board.ravel()
    return {to_gtp(p, engine.size) for p in range(engine.size**2) if board[p] == color}


# -- administration ---------------------------------------------------------------------


def test_administrative_commands(engine):
    assert engine.handle("protocol_version") == ok("2")
    assert engine.handle("name") == ok("random")
    assert re.fullmatch(r"= \S+\n\n", engine.handle("version"))
    listed = engine.handle("list_commands")[2:].split()
    assert set(REQUIRED.split()) <= set(listed)
    assert {"fixed_handicap", "final_score", "kgs-genmove_cleanup", "loadsgf", "printsgf"} <= set(listed)
    assert "lz-analyze" not in listed  # a random player cannot analyse
    assert engine.handle("known_command genmove") == ok("true")
    assert engine.handle("known_command lz-analyze") == ok("false")
    assert engine.handle("known_command frobnicate") == ok("false")
    assert engine.handle("quit") == ok() and not engine.running


def test_ids_are_echoed_on_success_and_failure(engine):
    assert engine.handle("12 name") == "=12 random\n\n"
    assert engine.handle("13 frobnicate") == "?13 unknown command\n\n"
    assert engine.handle("14 play b E5") == "=14\n\n"
    assert engine.handle("15 play b E5").startswith("?15 illegal move")


def test_comments_blank_lines_and_control_characters(engine):
    assert engine.handle("") == ""
    assert engine.handle("   \n") == ""
    assert engine.handle("# just a comment") == ""
    assert engine.handle("name # with a comment\r\n") == ok("random")
    assert engine.handle("play\tb\x01 E5") == ok()
    assert engine.handle("5") == "?5 unknown command\n\n"


@pytest.mark.parametrize(
    ("command", "error"),
    [
        ("frobnicate", "unknown command"),
        ("lz-analyze", "unknown command"),
        ("boardsize 1", "unacceptable size"),
        ("boardsize 26", "unacceptable size"),
        ("boardsize nine", "syntax error"),
        ("play b Z9", "invalid vertex"),
        ("play b E10", "invalid vertex"),
        ("play b 5E", "invalid vertex"),
        ("play x E5", "syntax error: invalid color"),
        ("play b", "wrong number of arguments: play takes 2 arguments"),
        ("play b E5 E6", "wrong number of arguments"),
        ("genmove", "wrong number of arguments"),
        ("name please", "wrong number of arguments"),
        ("komi lots", "syntax error"),
        ("komi 6.4", "komi must be a"),
        ("undo", "cannot undo"),
        ("fixed_handicap 1", "invalid number of stones"),
        ("fixed_handicap 10", "invalid number of stones"),
        ("set_free_handicap E5", "bad vertex list"),
        ("set_free_handicap E5 E5", "bad vertex list"),
        ("set_free_handicap E5 Z1", "bad vertex list"),
        ("final_status_list maybe", "syntax error"),
        ("loadsgf /nonexistent/game.sgf", "cannot load file"),
        ("kgs-rules chess", "unknown rules"),
        ('kata-set-rules {"hasButton": true}', "unsupported rules"),
        ("time_settings 300 30", "wrong number of arguments"),
        ("time_left b soon 0", "syntax error"),
        ("lz-genmove_analyze b", "unknown command"),
    ],
)
def test_bad_commands_fail_and_the_engine_stays_up(engine, command, error):
    answer = engine.handle(command)
    assert answer.startswith(f"? {error}") and answer.endswith("\n\n") and "\n\n" not in answer[:-2]
    assert engine.handle("play b E5") == ok()
    assert engine.handle("name") == ok("random")


# -- playing ----------------------------------------------------------------------------


def test_play_genmove_undo(engine):
    assert answer_of(engine, "boardsize 9", "clear_board", "play b E5") == ok()
    vertex = engine.handle("genmove w")[2:].strip()
    assert vertex != "E5" and engine.game.moves[-1] == from_gtp(vertex, 9)
    assert engine.game.to_play == BLACK
    assert engine.handle("undo") == ok()
    assert engine.game.moves == [from_gtp("E5", 9)]
    assert engine.handle("play W E5") == "? illegal move\n\n"  # occupied
    assert engine.handle("play white pass") == ok()


def test_suicide_and_ko_are_illegal_moves(engine):
    # Black A2 and B1 take the corner A1's liberties: White A1 is suicide.
    assert answer_of(engine, "play b A2", "play w E5", "play b B1", "play w A1") == "? illegal move\n\n"
    # A ko: White E5 takes D5, and Black may not take back at D5 at once.
    ko = ["b E6", "w D6", "b D5", "w C5", "b E4", "w D4", "b F5", "w E5"]
    answer_of(engine, "clear_board", *(f"play {move}" for move in ko))
    assert engine.handle("play b D5") == "? illegal move\n\n"


def test_genmove_reports_the_players_resignation_and_illegal_choices():
    engine = GTPEngine(ScriptedAgent("resign", "E5", "E5"), size=9)
    assert engine.handle("genmove b") == ok("resign")
    assert engine.game.moves == []  # resigning plays nothing
    assert engine.handle("genmove b") == ok("E5")
    answer = engine.handle("genmove w")
    assert answer.startswith("? the player chose an illegal move") and "occupied" in answer


def test_a_crashing_player_is_an_error_not_a_dead_engine(capsys):
    class Crashing(ScriptedAgent):
        def select_move(self, game: Game) -> int:
            raise RuntimeError("out of cheese")

    engine = GTPEngine(Crashing(), size=9)
    assert engine.handle("genmove b") == "? internal error: RuntimeError: out of cheese\n\n"
    assert "Traceback" in capsys.readouterr().err
    assert engine.handle("play b E5") == ok()


def test_a_failed_command_leaves_the_board_as_it_was(capsys):
    class Failing(ScriptedAgent):  # chooses its move, then fails as the move is played
        def select_move(self, game: Game) -> int:
            if not self.vertices:
                raise RuntimeError("out of cheese")
            return super().select_move(game)

        def observe_move(self, game: Game, move: int) -> None:
            raise RuntimeError("cannot follow")

    engine = GTPEngine(Failing("E5", "E5"), size=9)
    assert answer_of(engine, "play b D4").startswith("? internal error: RuntimeError: cannot follow")
    assert engine.handle("genmove b").startswith("? internal error: RuntimeError: cannot follow")
    engine.agent.vertices = []
    assert engine.handle("genmove w") == "? internal error: RuntimeError: out of cheese\n\n"  # out of turn
    assert engine.game.moves == [] and engine.game.to_play == BLACK  # no move, no pass for Black
    assert "Traceback" in capsys.readouterr().err


@pytest.mark.parametrize(
    "clock",
    [
        "time_settings 1e306 0 0",
        "time_settings 300 30 1000000000000000000000",
        "kgs-time_settings byoyomi 0 1e-320 5",
        "kgs-time_settings canadian 1e400 30 5",
    ],
)
def test_absurd_clocks_are_refused_when_set_and_the_game_goes_on(clock):
    engine = GTPEngine(UCTAgent(simulations=20, seed=0), size=5)
    assert engine.handle(clock).startswith("? syntax error: ")
    refused = answer_of(engine, "time_settings 10 0 0", "time_left b 1e306 0")
    assert refused.startswith("? invalid time left: time left 1e+306 s is more than a year")
    vertex = engine.handle("genmove b")[2:].strip()
    assert engine.game.moves == [from_gtp(vertex, 5)]


def test_the_player_is_reset_and_told_every_move():
    agent = ScriptedAgent("E5", "C3")
    engine = GTPEngine(agent, size=9, rules=Rules(komi=5.5))
    assert answer_of(engine, "komi 7", "genmove b") == ok("E5")
    assert [context.rules.komi for context in agent.resets] == [7]
    assert answer_of(engine, "play w D4", "genmove b") == ok("C3")
    assert agent.observed == [from_gtp(v, 9) for v in ("E5", "D4", "C3")]
    answer_of(engine, "undo", "genmove b")
    assert len(agent.resets) == 2  # the history changed under it


def test_the_player_learns_the_engines_device():
    agent = ScriptedAgent("E5")
    engine = GTPEngine(agent, size=9, device="cuda:1")  # goarena gtp --device cuda:1
    assert engine.handle("genmove b") == ok("E5")
    assert [context.device for context in agent.resets] == ["cuda:1"]


def test_moves_out_of_turn(engine):
    assert engine.handle("play w E5") == ok()  # White may move first
    assert engine.game.first_to_play == WHITE and engine.game.to_play == BLACK
    assert engine.handle("play w D4") == ok()  # ... and again: Black is recorded passing between
    assert engine.game.moves == [from_gtp("E5", 9), engine.game.pass_move, from_gtp("D4", 9)]
    assert engine.handle("genmove w").startswith("= ")
    assert engine.game.moves[3] == engine.game.pass_move


def test_play_resumes_a_game_ended_by_two_passes(engine):
    answer_of(engine, "play b E5", "play w pass", "play b pass")
    assert engine.game.is_over
    assert engine.handle("play w D4") == ok()
    passes = [engine.game.pass_move] * 2  # kept: the record holds every move played
    assert engine.game.moves == [from_gtp("E5", 9), *passes, from_gtp("D4", 9)] and not engine.game.is_over


def test_play_after_a_pass_as_gnu_go_takes_it(engine):
    """White passes, then plays again: Black's pass in between ends no game."""
    assert [engine.handle(c) for c in ("play b D4", "play w pass", "play w E5")] == [ok()] * 3
    assert engine.game.moves == [from_gtp("D4", 9), 81, 81, from_gtp("E5", 9)]
    assert engine.game.to_play == BLACK and not engine.game.is_over


def test_play_and_genmove_go_on_beyond_the_move_cap():
    """The controller ends the game, not the rules' move cap (2 * 3 * 3 = 18 moves)."""
    engine = GTPEngine(RandomAgent(seed=3, pass_only_when_forced=True), size=3, rules=Rules(komi=0))
    chooser = RandomAgent(seed=4, pass_only_when_forced=True)
    for _ in range(30):
        black = "pass" if engine.game.is_over else to_gtp(chooser.select_move(engine.game), 3)
        assert engine.handle(f"play b {black}") == ok()
        assert re.fullmatch(r"= ([A-C][1-3]|pass)\n\n", engine.handle("genmove w"))
    assert len(engine.game.moves) > 2 * 18
    assert '"max_moves": null' in engine.handle("printsgf")  # the engine's own cap is not recorded


def test_a_game_past_the_longest_a_game_holds_is_an_error(monkeypatch):
    monkeypatch.setattr("goarena.agents.gtp.engine.MAX_MOVES", 60)
    engine = GTPEngine(RandomAgent(seed=3, pass_only_when_forced=True), size=3, rules=Rules(komi=0))
    answers = [engine.handle(f"genmove {'bw'[i % 2]}") for i in range(70)]
    assert len(engine.game.moves) == 60
    assert answers[-1] == "? the game is too long: a game holds at most 60 moves\n\n"
    assert engine.handle("undo") == ok() and engine.handle("genmove w").startswith("= ")  # the 60th again
    assert engine.handle("genmove w").startswith("? the game is too long")  # no room for Black's pass


def test_minimax_plays_2x2_perfectly_through_gtp():
    """2x2 under positional superko, komi 0, is B+1; its ko fight runs past 2 * N * N moves."""
    from goarena.agents.players.minimax import MinimaxAgent

    engine = GTPEngine(MinimaxAgent(depth=40), size=2, rules=Rules(komi=0))
    moves: list[str] = []
    while moves[-2:] != ["pass", "pass"] and len(moves) < 40:
        moves.append(engine.handle(f"genmove {'bw'[len(moves) % 2]}")[2:].strip())
    assert moves == ["B1", "A2", "B2", "A1", "B2", "pass", "B1", "A1", "pass", "pass"]
    assert engine.handle("final_score") == ok("B+1")


def test_reg_genmove_does_not_play(engine):
    engine.handle("play b E5")
    vertex = engine.handle("reg_genmove w")[2:].strip()
    assert from_gtp(vertex, 9) in engine.game.legal_moves()
    assert engine.game.moves == [from_gtp("E5", 9)]


def test_cleanup_captures_what_is_dead_then_passes(tmp_path):
    """DEAD_IN_AREA: White's B8 is dead in Black's corner. A player that always passes has its
    clean-up moves chosen for it: on B8's liberties, outside ones first (B9, A8 and B7 are no
    liberty of Black's own), until B8 is captured; then nothing is dead, and it passes."""
    path = tmp_path / "dead.sgf"
    path.write_bytes(write_sgf(position(DEAD_IN_AREA, Rules(komi=7.5))))
    engine = GTPEngine(ScriptedAgent(), size=9)
    assert engine.handle(f"loadsgf {path}") == ok()
    corner = {"A9", "B9", "C9", "A8", "C8", "A7", "B7", "C7"}
    played = []
    while (answer := engine.handle("kgs-genmove_cleanup b")) != ok("pass"):
        played.append(answer[2:].strip())
        assert engine.handle("play w pass") == ok()
        assert len(played) <= 4
    assert played and set(played) <= corner and played[0] in ("B9", "A8", "B7")
    assert "B8" not in stones(engine, WHITE)
    # Black's wall with four one-point eyes: nothing is dead, nothing to play but its eyes.
    engine = GTPEngine(ScriptedAgent(), size=3)
    walls = ["play b B1", "play b A2", "play b B2", "play b C2", "play b B3"]
    answer_of(engine, *walls)
    assert engine.handle("kgs-genmove_cleanup b") == ok("pass")


def test_cleanup_leaves_an_opponent_stone_that_is_not_dead():
    """A lone White stone on an empty board is nobody's dead stone: the clean-up no longer
    plays a random move next to it (which in a held-out game filled a race's liberty)."""
    engine = GTPEngine(ScriptedAgent(), size=3)
    answer_of(engine, "play w C3")
    assert engine.handle("kgs-genmove_cleanup b") == ok("pass")


class OwningAgent(ScriptedAgent):
    """Passes, and gives every point to the side to move (``OwnershipAgent``)."""

    def ownership(self, game: Game) -> np.ndarray:
        return np.ones(game.num_points, np.float32)


def test_cleanup_reads_the_dead_stones_off_the_players_ownership():
    """The lone White stone that playouts call nobody's, the player's map calls Black's: dead."""
    engine = GTPEngine(OwningAgent(), size=3)
    answer_of(engine, "play w C3")
    assert engine.handle("kgs-genmove_cleanup b") in (ok("B3"), ok("C2"))


def test_cleanup_never_plays_into_a_seki_and_status_names_it(tmp_path):
    """SEKI: every legal point is an own eye or a shared liberty of the seki (D9, D8)."""
    path = tmp_path / "seki.sgf"
    path.write_bytes(write_sgf(position(SEKI, Rules(komi=7.5))))
    engine = GTPEngine(ScriptedAgent("D9", "D8"), size=9)  # a player that would fill the seki
    assert engine.handle(f"loadsgf {path}") == ok()
    assert engine.handle("kgs-genmove_cleanup b") == ok("pass")
    assert engine.handle("kgs-genmove_cleanup w") == ok("pass")
    seki = engine.handle("final_status_list seki")[2:].split()
    assert sorted(seki) == sorted(["C9", "C8", "C7", "D7", "E9", "E8", "E7"])
    alive = engine.handle("final_status_list alive")[2:].split()
    assert not set(seki) & set(alive) and len(alive) + len(seki) == int((engine.game.board != 0).sum())
    assert engine.handle("final_status_list dead") == ok()


def test_timed_players_are_told_the_clock():
    agent = ScriptedAgent()
    engine = GTPEngine(agent, size=9)
    assert answer_of(engine, "time_settings 300 30 5", "time_left white 290.5 0") == ok()
    assert agent.clock == [("settings", 300, 30, 5), ("left", WHITE, 290.5, 0)]
    assert engine.clock.control.gtp() == (300, 30, 5) and engine.clock.left(WHITE) == (290.5, 0)


def test_time_commands_are_accepted_by_any_player(engine):
    assert answer_of(engine, "time_settings 0 10 1", "time_left b 10 1") == ok()


# -- handicap ---------------------------------------------------------------------------


def test_fixed_and_free_handicap(engine):
    assert engine.handle("fixed_handicap 4") == ok("C3 G7 C7 G3")
    assert stones(engine, BLACK) == {"C3", "G7", "C7", "G3"} and engine.game.to_play == WHITE
    assert engine.game.handicap == 4
    assert engine.handle("place_free_handicap 2") == "? board not empty\n\n"
    assert answer_of(engine, "clear_board", "place_free_handicap 2") == ok("C3 G7")
    assert answer_of(engine, "clear_board", "set_free_handicap A1 J9 E5") == ok()
    assert stones(engine, BLACK) == {"A1", "J9", "E5"} and engine.game.to_play == WHITE
    assert engine.handle("genmove w").startswith("= ")
    assert engine.handle("fixed_handicap 2") == "? board not empty\n\n"


# -- scoring ----------------------------------------------------------------------------


def test_final_score_and_status(engine):
    assert engine.handle("final_score") == ok("W+6.5")
    answer_of(engine, "play b E5", "play w C3")
    assert engine.handle("final_score") == ok(engine.game.result()) == ok("W+6.5")
    assert engine.handle("final_status_list alive") == "= E5\nC3\n\n"  # row by row from the top
    assert engine.handle("final_status_list dead") == ok()
    assert engine.handle("final_status_list seki") == ok()
    answer_of(engine, "clear_board", "komi 0", "play b E5", "play w pass")
    assert engine.handle("final_score") == ok("B+81")
    answer_of(engine, "clear_board", "komi 0")
    assert engine.handle("final_score") == ok("0")


def test_showboard(engine):
    answer_of(engine, "play b E5", "play w D4")
    answer = engine.handle("showboard")
    assert answer.startswith("= \n") and answer.endswith("\n\n")
    lines = answer.splitlines()
    assert lines[5].startswith(" 5 . . . . X") and "O" in lines[6]
    assert "captured: Black (X) 0, White (O) 0" in answer


# -- records and rules ------------------------------------------------------------------


def test_printsgf_and_loadsgf_round_trip(engine, tmp_path):
    answer_of(engine, "play b E5", "play w C3", "play b G7")
    printed = engine.handle("printsgf")
    assert printed.startswith("= (;FF[4]")
    record = read_sgf(printed[2:])
    assert list(record.moves) == engine.game.moves and record.komi == 6.5

    path = tmp_path / "game.sgf"
    assert engine.handle(f"printsgf {path}") == ok()
    assert answer_of(engine, "clear_board", "boardsize 5", f"loadsgf {path}") == ok()
    assert engine.size == 9 and stones(engine, BLACK) == {"E5", "G7"} and stones(engine, WHITE) == {"C3"}
    assert engine.handle(f"loadsgf {path} 3") == ok()  # the position before move 3
    assert stones(engine, BLACK) == {"E5"} and engine.game.to_play == BLACK


def test_printsgf_keeps_the_passes_before_a_clean_up_phase(engine, tmp_path):
    """Both pass, then play on (a clean-up phase): the record holds every move played, and
    replayed in a fresh game, or loaded back, it reaches the same position."""
    answer_of(engine, "play b E5", "play w D4", "play b pass", "play w pass", "play b C3", "play w pass")
    assert engine.handle("kgs-genmove_cleanup b").startswith("= ")
    record = read_sgf(engine.handle("printsgf")[2:])
    played = [from_gtp(v, 9) for v in ("E5", "D4", "pass", "pass", "C3", "pass")]
    assert list(record.moves[:6]) == played and list(record.moves) == engine.game.moves
    replayed = Game(9, engine.rules)
    replayed.replay(record.moves, resume=True)
    for final in (record.game, replayed):
        assert (final.board == engine.game.board).all() and final.to_play == engine.game.to_play

    path = tmp_path / "clean-up.sgf"
    assert answer_of(engine, f"printsgf {path}", "clear_board", f"loadsgf {path}") == ok()
    assert engine.game.moves == list(record.moves) and (engine.game.board == record.game.board).all()
    assert engine.handle("genmove w").startswith("= ")  # the loaded game goes on


def test_loadsgf_keeps_setup_stones_and_komi(engine, tmp_path):
    game = Game(9, Rules(komi=0.5), handicap=2)
    game.replay([from_gtp("E5", 9), from_gtp("D4", 9)])
    path = tmp_path / "handicap.sgf"
    path.write_bytes(write_sgf(game))
    assert engine.handle(f"loadsgf {path} 2") == ok()
    assert stones(engine, BLACK) == {"C3", "G7"} and stones(engine, WHITE) == {"E5"}
    assert engine.game.handicap == 2 and engine.rules.komi == 0.5
    path.write_text("(;GM[1]SZ[9];B[zz])")
    assert engine.handle(f"loadsgf {path}").startswith("? cannot load file")


def test_loadsgf_reads_only_regular_files_of_bounded_size(engine, tmp_path):
    directory = engine.handle(f"loadsgf {tmp_path}")
    assert directory == f"? cannot load file: not a regular file: {tmp_path}\n\n"
    big = tmp_path / "big.sgf"
    big.write_bytes(b"(;GM[1]SZ[9]C[" + b"x" * (1 << 20) + b"])")
    assert engine.handle(f"loadsgf {big}").startswith("? cannot load file: larger than 1048576 bytes")
    assert engine.handle(f"loadsgf {tmp_path / 'missing.sgf'}").startswith("? cannot load file: No such file")


def test_printsgf_writes_only_regular_files(engine, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    answers: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: answers.put(engine.handle(f"printsgf {fifo}")), daemon=True).start()
    assert answers.get(timeout=10).startswith("? cannot write file")  # a FIFO with no reader blocks no one
    assert engine.handle("printsgf /dev/null") == "? cannot write file: not a regular file: /dev/null\n\n"
    if os.path.exists("/proc/self/mem"):  # a regular file that takes no SGF
        mem = "/proc/self/mem"
        assert engine.handle(f"printsgf {mem}") == f"? cannot write file: Input/output error: {mem}\n\n"
        assert engine.handle(f"loadsgf {mem}") == f"? cannot load file: Input/output error: {mem}\n\n"


def test_boardsize_and_loadsgf_refuse_a_board_the_player_cannot_play(tmp_path):
    engine = GTPEngine(RandomAgent(seed=0), size=9, playable=lambda size: size in (9, 13))
    assert engine.handle("boardsize 19") == "? unacceptable size\n\n"
    assert engine.game.size == 9
    assert engine.handle("boardsize 13") == ok() and engine.game.size == 13
    record = tmp_path / "big.sgf"
    record.write_text("(;GM[1]FF[4]CA[UTF-8]SZ[19];B[dd])")
    assert engine.handle(f"loadsgf {record}") == "? cannot load file: the player cannot play 19x19\n\n"
    assert engine.game.size == 13


def test_loadsgf_imports_and_runs_nothing_named_in_the_record(engine, tmp_path):
    """Properties that look like player specs or code stay text."""
    marker = tmp_path / "ran"
    plain = tmp_path / "plain.sgf"
    plain.write_text("(;GM[1]FF[4]CA[UTF-8]SZ[9];B[ee])")
    assert engine.handle(f"loadsgf {plain}") == ok()  # whatever loading needs is imported now
    hostile = tmp_path / "hostile.sgf"
    hostile.write_text(
        f"(;GM[1]FF[4]CA[UTF-8]SZ[9]PB[os:system:touch {marker}]PW[gtp:touch {marker}]"
        f"GN[antigravity]EV[this:that]RU[subprocess:run]AP[webbrowser:open]"
        f'GC[goarena rules: {{"name": "os:system"}}]'
        f"C[__import__('os').system('touch {marker}')];B[ee]C[exec(open('x').read())])"
    )
    modules = set(sys.modules)
    assert engine.handle(f"loadsgf {hostile}") == ok()
    assert set(sys.modules) == modules and not marker.exists()
    assert stones(engine, BLACK) == {"E5"}


def test_rules_by_name_and_as_katago_json(engine):
    answer_of(engine, "kgs-rules chinese")
    assert engine.rules.ko == "simple" and engine.rules.komi == 6.5
    assert json.loads(engine.handle("kata-get-rules")[2:])["ko"] == "SIMPLE"
    answer_of(engine, "kata-set-rules new_zealand")
    assert (engine.rules.ko, engine.rules.suicide) == ("situational", True)
    answer_of(engine, 'kata-set-rules {"ko": "POSITIONAL", "scoring": "TERRITORY", "suicide": false}')
    assert (engine.rules.ko, engine.rules.scoring, engine.rules.suicide) == ("positional", "territory", False)
    assert json.loads(engine.handle("kata-get-rules")[2:])["scoring"] == "TERRITORY"
    full = dict(json.loads(engine.handle("kata-get-rules")[2:]), komi=7, friendlyPassOk=True)
    assert engine.handle(f"kata-set-rules {json.dumps(full)}") == ok() and engine.rules.komi == 7
    assert engine.handle('kata-set-rules {"tax": "SEKI"}') == "? unsupported rules: tax = 'SEKI'\n\n"


def test_rules_change_replays_the_game(engine):
    # White's A1 takes the corner's last liberty: legal only where suicide is allowed.
    answer_of(engine, "kgs-rules new_zealand", "play b A2", "play w E5", "play b B1", "play w A1")
    assert engine.handle("kgs-rules chinese").startswith("? the moves so far are illegal")
    assert engine.rules.suicide and len(engine.game.moves) == 4


# -- live analysis ----------------------------------------------------------------------

INFO = (
    "info move D4 visits {0} winrate 5500 prior 1250 lcb 5000 order 0 pv D4 E5 "
    "info move E5 visits {1} winrate 4321 prior 2500 lcb 3100 order 1 pv E5 C3 D4"
)
BEST = "info move D4 visits 10 winrate 5500 prior 1250 lcb 5000 order 0 pv D4 E5"


def test_analysis_commands_are_listed_for_analysts():
    engine = GTPEngine(FakeAnalyst(), size=9)
    assert {"lz-analyze", "lz-genmove_analyze"} <= set(engine.handle("list_commands")[2:].split())
    assert engine.handle("known_command lz-analyze") == ok("true")


def test_lz_analyze_streams_info_lines_until_the_budget_runs_out():
    agent = FakeAnalyst(reports=2)
    engine = GTPEngine(agent, size=9)
    expected = f"=\n{INFO.format(10, 5)}\n{INFO.format(20, 10)}\n\n"
    assert engine.handle("lz-analyze b 25") == expected
    assert agent.intervals == [0.25]
    assert engine.game.moves == []  # analysis plays nothing
    best = "info move D4 visits {} winrate 5500 prior 1250 lcb 5000 order 0 pv D4 E5"
    expected = f"=7\n{best.format(10)}\n{best.format(20)}\n\n"
    assert engine.handle("7 lz-analyze interval 50 maxmoves 1") == expected
    assert agent.intervals == [0.25, 0.5]
    assert engine.handle("lz-analyze b 10 ownership true").startswith("? syntax error")


@pytest.mark.parametrize(
    ("command", "answer"),
    [
        ("lz-analyze b interval 10 maxmoves 0", "=\n\n"),  # no candidates: no info lines
        ("lz-analyze b 0 maxmoves 1", f"=\n{BEST}\n\n"),
        ("lz-analyze b interval -10", "? syntax error: interval -10 is negative\n\n"),
        ("lz-analyze b maxmoves -1", "? syntax error: maxmoves -1 is negative\n\n"),
    ],
)
def test_lz_analyze_keeps_gtp_framing_at_edge_values(command, answer):
    """Exactly one empty line, at the end: a stray one would end the answer early."""
    engine = GTPEngine(FakeAnalyst(reports=1), size=9)
    assert engine.handle(command) == answer


def test_lz_genmove_analyze_streams_then_plays():
    engine = GTPEngine(FakeAnalyst(reports=1), size=9)
    assert engine.handle("3 lz-genmove_analyze b 10") == f"=3\n{INFO.format(10, 5)}\nplay D4\n\n"
    assert engine.game.moves == [from_gtp("D4", 9)]
    assert engine.handle("lz-genmove_analyze").startswith("? wrong number of arguments")


class Wire:
    """Both ends of an in-memory GTP connection: ``send`` lines in, ``receive`` lines out."""

    def __init__(self) -> None:
        self.inbox: queue.Queue[str] = queue.Queue()
        self.outbox: queue.Queue[str] = queue.Queue()
        self.partial = ""

    def readline(self, limit: int = -1) -> str:  # the engine's stdin
        return self.inbox.get()

    def write(self, text: str) -> None:  # the engine's stdout
        self.partial += text
        *lines, self.partial = self.partial.split("\n")
        for line in lines:
            self.outbox.put(line)

    def flush(self) -> None:
        pass

    def send(self, line: str) -> None:
        self.inbox.put(line + "\n")

    def receive(self) -> str:
        return self.outbox.get(timeout=10)


def test_lz_analyze_streams_until_the_next_command_arrives():
    wire = Wire()
    engine = GTPEngine(FakeAnalyst(reports=None), size=9)
    session = threading.Thread(target=engine.run, args=(wire, wire), daemon=True)
    session.start()
    wire.send("1 lz-analyze b 1")
    assert wire.receive() == "=1"
    assert wire.receive().startswith("info move D4 visits 10 ")
    assert wire.receive().startswith("info move D4 visits 20 ")
    wire.send("2 name")  # interrupts the analysis
    while (line := wire.receive()).startswith("info"):
        pass
    assert line == ""  # the end of the analysis answer
    assert [wire.receive(), wire.receive()] == ["=2 analyst", ""]
    wire.send("quit")
    assert [wire.receive(), wire.receive()] == ["=", ""]
    session.join(timeout=10)
    assert not session.is_alive()


def test_run_stops_at_the_end_of_input():
    wire = Wire()
    engine = GTPEngine(RandomAgent(), size=9)
    session = threading.Thread(target=engine.run, args=(wire, wire), daemon=True)
    session.start()
    wire.send("play b E5")
    wire.inbox.put("")  # end of input
    assert [wire.receive(), wire.receive()] == ["=", ""]
    session.join(timeout=10)
    assert not session.is_alive()


def test_with_the_uct_player():
    mcts_agents = pytest.importorskip(
        "goarena.agents.players.search", reason="the search players are not built yet"
    )
    engine = GTPEngine(mcts_agents.UCTAgent(simulations=300, seed=1), size=9)
    assert "lz-analyze" in engine.commands()
    assert re.fullmatch(r"= [A-HJ][1-9]\n\n", engine.handle("genmove b"))
    answer = engine.handle("lz-genmove_analyze w 1")
    info = r"info move \S+ visits \d+ winrate \d+ prior \d+ lcb \d+ order 0 pv( [A-HJ][1-9]| pass)+"
    assert re.fullmatch(rf"=\n({info}.*\n)*play ([A-HJ][1-9]|pass)\n\n", answer), answer
    assert len(engine.game.moves) == 2


# ---------------------------------------------------------------------------------------
# The warm-up: the engine warms its player up, answering protocol commands meanwhile
# ---------------------------------------------------------------------------------------

WARMED_PLAYERS = """
import os


class Warmed:
    # A player whose kernels are nobody's list but its own: its warm-up logs each call.

    name = "warmed"

    @staticmethod
    def warmup(size):
        with open(os.environ["WARMED_LOG"], "a") as log:
            log.write(f"{size}\\n")

    def reset(self, context):
        pass

    def select_move(self, game):
        return game.pass_move
"""


def warmed_player(tmp_path, monkeypatch):
    """The spec of a plug-in player with a warm-up hook, and a reader of the sizes it was warmed
    at (the ``warmed`` fixture of the warm-up tests, here and in ``tests/benchmarks``)."""
    (tmp_path / "warmed_players.py").write_text(WARMED_PLAYERS)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("WARMED_LOG", str(tmp_path / "warmed.log"))
    log = tmp_path / "warmed.log"

    def sizes() -> list[int]:
        return [int(line) for line in log.read_text().split()] if log.exists() else []

    yield "warmed_players:Warmed", sizes
    sys.modules.pop("warmed_players", None)


@pytest.fixture
def warmed(tmp_path, monkeypatch):
    """The spec of a plug-in player with a warm-up hook, and a reader of the sizes it was warmed at."""
    yield from warmed_player(tmp_path, monkeypatch)


def test_the_gtp_engine_warms_up_its_player(warmed):
    spec, sizes = warmed
    logged: list[str] = []
    assert warm_up_in_background(make_agent(spec), 7, logged.append).wait(timeout=120)
    assert sizes() == [7]


def test_the_gtp_engine_answers_at_once_and_moves_wait_for_the_warmup():
    ready = threading.Event()
    engine = GTPEngine(RandomAgent(seed=1), size=9, ready=ready)
    assert engine.handle("name") == "= random\n\n"
    answers: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: answers.put(engine.handle("genmove b")), daemon=True).start()
    with pytest.raises(queue.Empty):
        answers.get(timeout=0.2)  # the player is not asked while it warms up
    ready.set()
    assert answers.get(timeout=10).startswith("= ")
