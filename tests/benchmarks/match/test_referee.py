"""The referee: how games end and are recorded, and a full game against GNU Go over GTP."""

from __future__ import annotations

import itertools
import signal
import sys
import time

import numpy as np
import pytest

from go_env import BLACK, EMPTY, WHITE, Game, Rules
from go_env.coords import from_gtp
from go_env.seki import keep_seki_alive
from go_env.sgf import read_sgf
from goarena.agents.gtp import GTPAgent, find_engine
from goarena.agents.players.random import RandomAgent
from goarena.agents.protocols import RESIGN, GameContext, UnsupportedGame
from goarena.benchmarks.match.referee import Turn, forfeit_record, play_game
from goarena.search.settle import settled_score
from tests.agents.players.test_search_pass import HALF, Listener
from tests.boards import GNUGO_MISSES_SEKI, SEKI, load_board

RULES = Rules(komi=7.5)
RANDOM_TO_THE_END = "random:seed=3,pass_only_when_forced=true"
GNUGO = find_engine("gnugo")
GNUGO_RULES = "--chinese-rules --positional-superko"  # area scoring and superko, as RULES


class Scripted:
    """Plays the given vertices (or ``resign``) in order, then passes; hears every move."""

    def __init__(self, name: str, *vertices: str):
        self.name = name
        self.vertices = list(vertices)
        self.observed: list[int] = []

    def reset(self, rules: Rules) -> None:
        self.observed = []

    def select_move(self, game: Game) -> int:
        vertex = self.vertices.pop(0) if self.vertices else "pass"
        return RESIGN if vertex == "resign" else from_gtp(vertex, game.size)

    def observe_move(self, game: Game, move: int) -> None:
        self.observed.append(move)


class Crashing(Scripted):
    def select_move(self, game: Game) -> int:
        raise RuntimeError("out of cheese")


class Slow(Scripted):
    def select_move(self, game: Game) -> int:
        time.sleep(0.05)
        return super().select_move(game)


def test_two_passes_end_a_scored_game():
    record = play_game(Scripted("alice", "E5"), Scripted("bob"), 9, RULES)
    assert record.reason == "two passes"
    assert record.result == "B+73.5" and record.winner == BLACK and record.margin == 73.5
    assert record.moves == (from_gtp("E5", 9), 81, 81)
    assert (record.black, record.white, record.size, record.handicap) == ("alice", "bob", 9, 0)
    assert record.rules == RULES
    assert len(record.black_seconds) == 2 and len(record.white_seconds) == 1


def test_a_draw_under_integral_komi():
    record = play_game(Scripted("a"), Scripted("b"), 5, Rules(komi=0))
    assert (record.result, record.winner, record.margin) == ("0", EMPTY, 0)


def test_move_cap():
    black, white = (RandomAgent(seed, pass_only_when_forced=True) for seed in (1, 2))
    record = play_game(black, white, 5, Rules(max_moves=6))
    assert record.reason == "move cap" and len(record.moves) == 6
    final = read_sgf(record.sgf).game
    assert record.margin == final.score() and record.result == final.result()


@pytest.mark.parametrize(("resigner", "result"), [(BLACK, "W+R"), (WHITE, "B+R")])
def test_resignation(resigner, result):
    players = [Scripted("black", "E5"), Scripted("white", "D4")]
    players[resigner - 1].vertices.insert(resigner - 1, "resign")  # at its first or second move
    record = play_game(*players, 9, RULES)
    assert (record.result, record.reason, record.margin) == (result, "resign", None)
    assert record.winner == 3 - resigner


def test_an_illegal_move_loses():
    record = play_game(Scripted("black", "E5"), Scripted("white", "E5"), 9, RULES)
    assert record.result == "B+F" and record.winner == BLACK and record.margin is None
    assert record.reason == "illegal move: illegal move E5 (point 40) by white: occupied"
    assert record.moves == (from_gtp("E5", 9),)


def test_a_move_that_is_not_a_move_loses():
    class Confused(Scripted):
        def select_move(self, game: Game) -> int:
            return "E5"  # type: ignore[return-value]

    record = play_game(Confused("black"), Scripted("white"), 9, RULES)
    assert record.result == "W+F" and record.reason == "illegal move: black chose 'E5', not a move"


def test_a_crash_loses():
    record = play_game(Scripted("black", "E5"), Crashing("white"), 9, RULES)
    assert (record.result, record.reason) == ("B+F", "crash: RuntimeError: out of cheese")

    class CrashingObserver(Scripted):
        def observe_move(self, game: Game, move: int) -> None:
            raise ValueError("cannot follow")

    record = play_game(CrashingObserver("black"), Scripted("white"), 9, RULES)
    assert (record.result, record.reason) == ("W+F", "crash: ValueError: cannot follow")


def test_a_dead_engine_loses():
    engine = GTPAgent(f"{sys.executable} -m benchmarks.cli gtp --agent random")
    engine.process.kill()
    record = play_game(engine, Scripted("white"), 9, RULES)
    engine.close()
    assert record.result == "W+F"
    assert record.reason.startswith("crash: GTPEngineError: random") and "killed by signal 9" in record.reason


def test_a_slow_move_loses_on_time():
    record = play_game(Scripted("black", "E5"), Slow("white"), 9, RULES, max_seconds_per_move=0.01)
    assert record.result == "B+T" and record.reason.startswith("time: ")
    assert "for move 2, over 0.01 s" in record.reason and record.white_seconds[0] >= 0.05


def test_players_hear_every_move_once():
    black, white = Scripted("black", "E5", "C3"), Scripted("white", "D4")
    record = play_game(black, white, 9, RULES)
    assert black.observed == white.observed == list(record.moves)
    selfish = Scripted("both", "E5", "D4")
    record = play_game(selfish, selfish, 9, RULES)
    assert selfish.observed == list(record.moves)


def test_an_opening_is_played_for_the_players_and_said_in_the_record():
    black, white = Scripted("black", "E5"), Scripted("white", "D4")
    opening = (from_gtp("C3", 9), from_gtp("G7", 9))
    record = play_game(black, white, 9, RULES, opening=opening)
    assert record.moves[:3] == (*opening, from_gtp("E5", 9)) and record.moves[3] == from_gtp("D4", 9)
    assert black.observed == white.observed == list(record.moves)  # the opening is heard too
    assert len(record.black_seconds) == 2 and len(record.white_seconds) == 2  # a move and a pass each
    sgf = read_sgf(record.sgf)
    assert sgf.moves == record.moves and "random opening" in record.sgf
    with pytest.raises(ValueError, match="opening move .* is illegal"):
        play_game(Scripted("a"), Scripted("b"), 9, RULES, opening=(40, 40))


def test_the_sgf_reads_back():
    record = play_game(RandomAgent(seed=3), RandomAgent(seed=4), 9, RULES, handicap=2)
    sgf = read_sgf(record.sgf)
    assert sgf.moves == record.moves and sgf.handicap == 2 and sgf.game.setup_black
    assert (sgf.black, sgf.white, sgf.result, sgf.rules) == ("random", "random", record.result, RULES)
    forfeit = play_game(Scripted("black", "E5"), Scripted("white", "E5"), 9, RULES)
    assert "C[illegal move: illegal move E5" in forfeit.sgf and read_sgf(forfeit.sgf).result == "B+F"
    assert play_game(Scripted("a"), Scripted("b"), 9, RULES, record_sgf=False).sgf is None


class Cleaner(Scripted):
    """A ``CleanupPlayer``: plays the ``cleanup`` vertices in the clean-up phase, then passes."""

    def __init__(self, name: str, *vertices: str, cleanup: tuple[str, ...] = ()):
        super().__init__(name, *vertices)
        self.cleanup = list(cleanup)

    def cleanup_move(self, game: Game) -> int:
        return from_gtp(self.cleanup.pop(0) if self.cleanup else "pass", game.size)


def test_a_clean_up_phase_is_recorded_with_every_move_played_passes_included():
    """White's A1 is dead in Black's area but counts while on the board: both pass, and in the
    clean-up phase Black captures it. The record, its SGF, and a fresh ``Game`` replaying
    either, all hold the passes and reach the same final position."""
    black, white = Cleaner("black", "A2", cleanup=("B1",)), Scripted("white", "A1")
    record = play_game(black, white, 5, RULES)
    played = tuple(from_gtp(v, 5) for v in ("A2", "A1", "pass", "pass", "B1", "pass", "pass"))
    assert record.moves == played and record.cleanup_from == 4
    assert (record.reason, record.result) == ("two passes after clean-up", "B+17.5")
    assert black.observed == white.observed == list(played)

    sgf = read_sgf(record.sgf)
    assert sgf.moves == played and "clean-up phase" in sgf.comments[4]
    replayed = Game(5, RULES)
    replayed.replay(record.moves, resume=True)
    for final in (sgf.game, replayed):
        assert np.array_equal(final.board, sgf.game.board) and final.is_terminated
        assert final.result() == record.result and final.board[4, 0] == EMPTY  # A1 captured


def test_a_game_cut_in_its_clean_up_phase_is_recorded_with_the_passes():
    turns: list[Turn | None] = []
    black, white = Cleaner("black", "A2", cleanup=("B1",)), Scripted("white", "A1")
    play_game(black, white, 5, RULES, on_turn=turns.append)
    cut = next(t for t in turns if t is not None and t.call == "cleanup_move")
    assert cut.cleanup_from == len(cut.moves) == 4
    lost = forfeit_record(cut, "F", "crash: gone", size=5, rules=RULES, names=("alice", "bob"))
    assert lost.moves == cut.moves and lost.cleanup_from == 4 and lost.result == "W+F"
    assert read_sgf(lost.sgf).moves == cut.moves


@pytest.mark.skipif(GNUGO is None, reason="GNU Go is not installed (e.g. `apt install gnugo`)")
def test_full_game_against_gnugo_ends_with_both_engines_agreeing_on_the_score():
    """``goarena gtp --agent random`` against GNU Go 3.8 at level 1 on 9x9, both over GTP.

    Scores agree only on a played-out board: GNU Go's Chinese count judges dead stones
    and shares out neutral points, ours counts every stone as it stands. So the random side
    never passes while it has another legal move, and GNU Go captures every dead stone
    before it passes (``--capture-all-dead``); the game ends when both pass in a row, on a
    board with nothing left to settle.
    """
    ours = GTPAgent(f"{sys.executable} -m benchmarks.cli gtp --agent {RANDOM_TO_THE_END}")
    gnugo = GTPAgent(f"{GNUGO} --mode gtp --level 1 --seed 1 {GNUGO_RULES} --capture-all-dead")
    rules = Rules(komi=7.5, max_moves=400)
    try:
        for black, white in ((ours, gnugo), (gnugo, ours)):
            record = play_game(black, white, 9, rules, settle="count")
            assert record.reason == "two passes", record.reason
            final = read_sgf(record.sgf).game
            assert record.margin == final.score()
            assert ours.final_score(final) == gnugo.final_score(final) == record.margin
            assert gnugo.final_status_list(final, "dead") == []
            assert record.winner == (BLACK if black is gnugo else WHITE)
    finally:
        ours.close()
        gnugo.close()


@pytest.mark.skipif(GNUGO is None, reason="GNU Go is not installed (e.g. `apt install gnugo`)")
def test_dead_stones_agreed_by_two_engines_are_taken_off_before_the_count():
    with (
        GTPAgent(f"{GNUGO} --mode gtp --level 1 --seed 1 {GNUGO_RULES}") as first,
        GTPAgent(f"{GNUGO} --mode gtp --level 1 --seed 2 {GNUGO_RULES}") as second,
    ):
        record = play_game(first, second, 9, Rules(komi=7.5), settle="status")
        final = read_sgf(record.sgf).game
        assert record.reason.startswith("two passes, dead stones agreed by both ("), record.reason
        assert record.margin == first.final_score(final)  # GNU Go's own count of the same board
        assert record.margin != final.score()  # stones were taken off: the plain count differs
        assert record.result == read_sgf(record.sgf).result


@pytest.mark.skipif(GNUGO is None, reason="GNU Go is not installed (e.g. `apt install gnugo`)")
def test_without_agreement_the_arbiter_names_the_dead_stones_or_the_board_counts_as_it_stands():
    rules = Rules(komi=7.5)
    with (
        GTPAgent(f"{GNUGO} --mode gtp --level 1 {GNUGO_RULES}") as gnugo,
        GTPAgent(f"{GNUGO} --mode gtp {GNUGO_RULES}") as arbiter,
    ):
        for judge in (arbiter, None):
            ours = RandomAgent(seed=4)  # names no dead stones: there is nothing to agree with
            record = play_game(gnugo, ours, 9, rules, settle="status", arbiter=judge)
            assert record.reason.startswith("two passes"), record.reason
            final = read_sgf(record.sgf).game
            if judge is None:
                assert "no arbiter; counted as it stands" in record.reason
                assert record.margin == final.score()
            else:
                assert record.reason.startswith("two passes, dead stones named by the arbiter")
                named = arbiter.final_status_list(final, "dead")
                assert record.margin == settled_score(final, keep_seki_alive(final, named))
                if "in seki" not in record.reason:  # a chain in seki lives, whoever named it
                    assert record.margin == arbiter.final_score(final)
        with pytest.raises(ValueError, match="area scoring"):
            play_game(gnugo, RandomAgent(), 9, Rules.preset("japanese-like"), settle="status")


@pytest.fixture
def in_a_worker(monkeypatch):
    """Ctrl-C ignored, as in a league's workers: a KeyboardInterrupt is then a player's."""
    monkeypatch.setattr(signal, "getsignal", lambda number: signal.SIG_IGN)


class Raising(Scripted):
    def __init__(self, name: str, error: BaseException):
        super().__init__(name)
        self.error = error

    def select_move(self, game: Game) -> int:
        raise self.error


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (SystemExit(3), "crash: SystemExit: 3"),
        (KeyboardInterrupt(), "crash: KeyboardInterrupt"),
        (MemoryError("no more"), "crash: MemoryError: no more"),
        (RecursionError(), "crash: RecursionError"),
    ],
)
def test_anything_a_player_raises_loses_its_game(in_a_worker, error, reason):
    record = play_game(Scripted("black", "E5"), Raising("white", error), 9, RULES)
    assert (record.result, record.reason, record.moves) == ("B+F", reason, (from_gtp("E5", 9),))


def test_ctrl_c_still_stops_a_game_played_in_the_main_process():
    # As in a terminal, whatever this test run was started with (a background job ignores it).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            play_game(Scripted("black", "E5"), Raising("white", KeyboardInterrupt()), 9, RULES)
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_long_error_message_is_cut():
    record = play_game(Raising("black", RuntimeError("x" * 10**6)), Scripted("white"), 9, RULES)
    assert record.reason.startswith("crash: RuntimeError: xxx") and len(record.reason) <= 1000


@pytest.mark.parametrize("answer", [2**63, -(2**70), 40.7, "40", None, True, [40], object()])
def test_an_answer_that_is_no_move_loses_and_never_escapes(answer):
    class Answering(Scripted):
        def select_move(self, game: Game) -> int:
            return answer

    record = play_game(Scripted("black", "E5"), Answering("white"), 9, RULES)
    assert record.result == "B+F" and record.reason.startswith("illegal move:"), record.reason
    assert record.moves == (from_gtp("E5", 9),)


def test_a_player_that_changes_its_copy_of_the_game_changes_nothing_else():
    class Meddler(Scripted):
        """Plays its move on the game it is handed, then one for the other side."""

        def select_move(self, game: Game) -> int:
            move = super().select_move(game)
            game.play(move)
            if not game.is_over:
                game.play(from_gtp("A1", 9))
            return move

        def observe_move(self, game: Game, move: int) -> None:
            super().observe_move(game, move)
            game.undo()

    meddler, other = Meddler("black", "E5", "C3"), Scripted("white", "D4")
    record = play_game(meddler, other, 9, RULES)
    assert record.reason == "two passes" and record.moves == tuple(
        from_gtp(v, 9) for v in ("E5", "D4", "C3", "pass", "pass")
    )
    assert meddler.observed == other.observed == list(record.moves)
    assert read_sgf(record.sgf).moves == record.moves


def test_a_move_that_fails_after_the_time_limit_loses_on_time():
    class SlowCrash(Scripted):  # as an engine stopped by its own timeout
        def select_move(self, game: Game) -> int:
            time.sleep(0.05)
            raise RuntimeError("did not answer")

    record = play_game(Scripted("black", "E5"), SlowCrash("white"), 9, RULES, max_seconds_per_move=0.01)
    assert record.result == "B+T" and record.reason.startswith("time: ")
    assert record.reason.endswith("(crash: RuntimeError: did not answer)")


def test_dead_stones_that_are_no_points_lose():
    class Confused(Scripted):
        def final_status_list(self, game: Game, status: str) -> list[int]:
            return None  # type: ignore[return-value]

    record = play_game(Scripted("black", "E5"), Confused("white"), 9, RULES, settle="status")
    assert record.result == "B+F" and "not a list of points" in record.reason


def test_every_call_is_reported_before_it_is_made_and_a_cut_game_is_recorded_alike():
    turns: list[Turn | None] = []
    black, white = Scripted("black", "E5", "C3"), Scripted("white", "D4")
    record = play_game(black, white, 9, RULES, on_turn=turns.append)
    calls = [(t.color, t.call, len(t.moves)) for t in turns if t is not None]
    assert calls[:4] == [
        (BLACK, "reset", 0),
        (WHITE, "reset", 0),
        (BLACK, "select_move", 0),
        (BLACK, "observe_move", 1),
    ]
    assert calls.count((WHITE, "select_move", 1)) == 1 and turns[-1] is None
    assert len(calls) == 2 + 3 * len(record.moves)

    cut = next(t for t in turns if t is not None and t.call == "select_move" and len(t.moves) == 3)
    assert cut.describe() == "select_move for move 4" and cut.color == WHITE
    lost = forfeit_record(cut, "T", "time: stopped", size=9, rules=RULES, names=("alice", "bob"), seconds=2.5)
    assert (lost.result, lost.winner, lost.margin, lost.reason) == ("B+T", BLACK, None, "time: stopped")
    assert lost.moves == record.moves[:3] and lost.white_seconds == (2.5,) and lost.black_seconds == ()
    sgf = read_sgf(lost.sgf)
    assert (sgf.black, sgf.white, sgf.result, sgf.moves) == ("alice", "bob", "B+T", lost.moves)
    assert "C[time: stopped]" in lost.sgf


class NineOnly(Scripted):
    """Takes a context at reset, and refuses boards other than 9x9."""

    def reset(self, context: GameContext) -> None:  # type: ignore[override]
        self.context = context
        if context.size != 9:
            raise UnsupportedGame(f"trained for 9x9, not {context.size}x{context.size}")


def test_players_get_their_context_and_one_that_refuses_the_game_loses_it():
    black, white = NineOnly("black", "E5"), Scripted("white")
    play_game(black, white, 9, RULES, seeds=(4, 5))
    assert black.context == GameContext(9, RULES, seed=4, color=BLACK)
    record = play_game(NineOnly("black"), Scripted("white"), 7, RULES)
    assert record.result == "W+F" and record.reason == "unsupported game: trained for 9x9, not 7x7"


class _Passer:
    """Passes every move."""

    name = "passer"

    def reset(self, context: GameContext) -> None:
        pass

    def select_move(self, game: Game) -> int:
        return game.pass_move


class _SekiBlindArbiter:
    """Names White's chain in SEKI dead, as GNU Go once named a seki in held-out games."""

    def final_status_list(self, game: Game, status: str) -> list[int]:
        return [from_gtp(v, 9) for v in ("C9", "C8", "C7", "D7")] if status == "dead" else []


def opening_of(diagram: str) -> list[int]:
    """Moves that set up ``diagram``'s stones, Black and White in turn (a side with no stones
    left passes); none captures, since every chain of the diagram has a liberty."""
    size, black, white = load_board(diagram)
    opening: list[int] = []
    for b, w in itertools.zip_longest(black, white, fillvalue=size * size):
        opening += [b, w]
    return opening


@pytest.mark.skipif(GNUGO is None, reason="GNU Go is not installed (e.g. `apt install gnugo`)")
def test_gnu_go_as_arbiter_calls_a_seki_dead_and_is_overruled():
    """The held-out failure: GNU Go's dead list holds a seki and turns W+0.5 into B+45.5."""
    with GTPAgent(f"{GNUGO} --mode gtp {GNUGO_RULES}") as gnugo:
        record = play_game(
            _Passer(), _Passer(), 9, Rules(komi=7.5), settle="status", arbiter=gnugo,
            opening=opening_of(GNUGO_MISSES_SEKI),
        )  # fmt: skip
        final = read_sgf(record.sgf).game
        named = gnugo.final_status_list(final, "dead")
        assert len(named) == 22 and gnugo.final_score(final) == 45.5  # GNU Go's own count
    assert record.margin == final.score() == -0.5 and record.result == "W+0.5"
    assert "in seki, alive: F8 C7 D7" in record.reason


def test_an_arbiter_that_names_a_seki_dead_is_overruled():
    arbiter = _SekiBlindArbiter()
    record = play_game(
        _Passer(), _Passer(), 9, Rules(komi=0.5), settle="status", arbiter=arbiter, opening=opening_of(SEKI)
    )
    final = read_sgf(record.sgf).game
    assert record.margin == final.score() == -3.5  # White's four stay: W+3.5, not B+6.5
    assert record.reason.endswith("in seki, alive: C9 C8 C7 D7"), record.reason


@pytest.mark.parametrize(
    ("settle", "removed"), [(None, False), ("count", False), ("cleanup", True), ("status", True)]
)
def test_the_referee_tells_players_whether_dead_stones_are_taken_off(settle: str | None, removed: bool):
    black, white = Listener(), Listener()
    play_game(black, white, 5, HALF, settle=settle, record_sgf=False)
    assert [c.dead_stones_removed for c in black.contexts + white.contexts] == [removed, removed]
