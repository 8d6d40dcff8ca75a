"""``GTPAgent``: GNU Go and our own engine as players; engines that die, hang or talk nonsense."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from go_env import BLACK, WHITE, Game, Rules
from go_env.coords import from_gtp, to_gtp
from goarena.agents.gtp import LINE_LIMIT, GTPAgent, GTPEngineError, find_engine
from goarena.agents.protocols import RESIGN, Agent, GameContext
from goarena.agents.specs import make_agent

GNUGO = find_engine("gnugo")
needs_gnugo = pytest.mark.skipif(GNUGO is None, reason="GNU Go is not installed (e.g. `apt install gnugo`)")
# A tiny GTP engine that misbehaves at genmove as its argument says.
FAKE_ENGINE = textwrap.dedent(
    """
    import sys, time
    mode = sys.argv[1]
    for line in sys.stdin:
        command = line.split()[0] if line.split() else ""
        if command == "genmove":
            if mode == "hang":
                time.sleep(60)
            if mode == "exit":
                sys.stderr.write("fatal: out of cheese\\n")
                sys.exit(3)
            answer = {"vertex": "= Z99", "garbage": "hello there", "error": "? not today"}[mode]
        elif command == "name":
            answer = "= fake"
        elif command == "list_commands":
            answer = "= name\\nlist_commands\\nboardsize\\nclear_board\\nkomi\\nplay\\ngenmove\\nquit"
        else:
            answer = "="
        print(answer + "\\n", flush=True)
        if command == "quit":
            break
    """
)


# A GTP engine whose output is awkward as its argument says; it answers genmove with C3.
NOISY_ENGINE = textwrap.dedent(
    """
    import sys
    mode = sys.argv[1]
    out, err = sys.stdout.buffer, sys.stderr.buffer
    for line in sys.stdin:
        command = line.split()[0] if line.split() else ""
        if mode == "stderr":  # Latin-1 log lines, then megabytes in lines and in one line
            err.write("caf\xe9 cr\xe8me\\n".encode("latin-1") * 1000)
            err.write(b"log line\\n" * 200_000 + b"x" * 2_000_000 + b"\\n")
            err.flush()
        answer = {"name": "= noisy", "genmove": "= C3", "list_commands": "= genmove"}.get(command, "=")
        if mode == "latin-1" and command == "name":
            answer = "= b\xe9b\xe9"
        if mode == "long-line" and command == "name":
            answer = "= " + "x" * 10_000_000
        if mode == "endless" and command == "genmove":
            out.write(b"= C3\\n" + (b"x" * 1000 + b"\\n") * 2000)
            out.flush()
            break  # and no empty line ends the answer
        out.write(answer.encode("latin-1") + b"\\n\\n")
        out.flush()
        if command == "quit":
            break
    """
)


@pytest.fixture
def noisy_engine(tmp_path: Path) -> str:
    """The command line of the noisy engine, less its mode."""
    script = tmp_path / "noisy_engine.py"
    script.write_text(NOISY_ENGINE)
    return f"{sys.executable} {script}"


@pytest.fixture
def gnugo() -> Iterator[GTPAgent]:
    if GNUGO is None:
        pytest.skip("GNU Go is not installed (e.g. `apt install gnugo`)")
    with GTPAgent(f"{GNUGO} --mode gtp --level 1 --chinese-rules --positional-superko") as agent:
        yield agent


@pytest.fixture
def fake_engine(tmp_path: Path) -> str:
    """The command line of the misbehaving engine, less its mode."""
    script = tmp_path / "fake_engine.py"
    script.write_text(FAKE_ENGINE)
    return f"{sys.executable} {script}"


def engine_stones(agent: GTPAgent, color: str, size: int) -> set[int]:
    return {from_gtp(vertex, size) for vertex in agent.send(f"list_stones {color}").split()}


def our_stones(game: Game, color: int) -> set[int]:
    return set(np.flatnonzero(game.board.ravel() == color).tolist())


def assert_same_board(agent: GTPAgent, game: Game) -> None:
    agent.sync(game)
    assert engine_stones(agent, "black", game.size) == our_stones(game, BLACK)
    assert engine_stones(agent, "white", game.size) == our_stones(game, WHITE)


# -- GNU Go -----------------------------------------------------------------------------


@needs_gnugo
def test_gnugo_is_a_player_with_legal_moves(gnugo):
    assert gnugo.name == "GNU Go 3.8" and isinstance(gnugo, Agent)
    assert "kgs-genmove_cleanup" in gnugo.known_commands
    game = Game(9, Rules(komi=7.5))
    gnugo.reset(GameContext(game.size, game.rules))
    for _ in range(16):  # GNU Go plays both sides
        move = gnugo.select_move(game)
        assert move != RESIGN and game.is_legal(move)
        game.play(move)
    assert_same_board(gnugo, game)


@needs_gnugo
def test_gnugo_follows_moves_undo_handicap_and_new_games(gnugo):
    game = Game(9, Rules(komi=0.5), handicap=3)
    gnugo.reset(GameContext(game.size, game.rules))
    assert_same_board(gnugo, game)  # handicap stones by set_free_handicap
    for vertex in ("E5", "D5", "E4", "D4"):
        game.play(from_gtp(vertex, 9))
    assert_same_board(gnugo, game)
    game.undo()
    game.undo()
    game.play(from_gtp("E6", 9))  # history rewritten: replayed from a clear board
    assert_same_board(gnugo, game)
    assert game.is_legal(gnugo.select_move(game))

    other = Game(7, Rules(komi=0.5))
    other.setup([from_gtp("D4", 7)], [from_gtp("C3", 7), from_gtp("E5", 7)], to_play=WHITE)
    assert_same_board(gnugo, other)  # other setup stones are played
    assert other.is_legal(gnugo.select_move(other))


@needs_gnugo
def test_gnugo_scores_and_cleans_up(gnugo):
    # Two walls and no neutral point left (GNU Go's Chinese count shares out open ones).
    game = Game(5, Rules(komi=0.5))
    for row in range(1, 6):
        game.replay([from_gtp(f"B{row}", 5), from_gtp(f"C{row}", 5)])
    assert gnugo.final_score(game) == game.score() == 10 - 15 - 0.5
    assert sorted(gnugo.final_status_list(game, "alive")) == sorted(np.flatnonzero(game.board.ravel()))
    assert gnugo.final_status_list(game, "dead") == []
    move = gnugo.cleanup_move(game)
    assert move == RESIGN or game.is_legal(move)


@needs_gnugo
def test_clock_commands_reach_the_engine(gnugo):
    gnugo.time_settings(60, 10, 5)
    gnugo.time_left(BLACK, 55, 0)
    game = Game(9, Rules())
    assert game.is_legal(gnugo.select_move(game))


@needs_gnugo
def test_engine_killed_mid_game_is_a_clear_error(gnugo):
    game = Game(9, Rules())
    game.play(gnugo.select_move(game))
    gnugo.process.kill()
    with pytest.raises(GTPEngineError, match=r"GNU Go 3\.8 was killed by signal 9 while answering"):
        gnugo.select_move(game)
    with pytest.raises(GTPEngineError, match="killed by signal 9"):  # and stays failed
        gnugo.final_score(game)
    gnugo.close()


@needs_gnugo
def test_spec_string_builds_a_gtp_player():
    agent = make_agent(f"gtp:{GNUGO} --mode gtp --level 1")
    try:
        assert isinstance(agent, GTPAgent) and agent.name == "GNU Go 3.8"
    finally:
        agent.close()


# -- our own engine, through the client -------------------------------------------------


# -- engines that misbehave -------------------------------------------------------------


def test_an_engine_that_cannot_start():
    with pytest.raises(GTPEngineError, match="cannot start GTP engine 'no-such-engine-anywhere"):
        GTPAgent("no-such-engine-anywhere --mode gtp")


def test_a_program_that_does_not_speak_gtp():
    with pytest.raises(GTPEngineError, match="answered 'name' with nonsense"):
        GTPAgent(f"{sys.executable} -c \"print('Welcome!'); print(); input()\"")


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("vertex", r"fake answered 'genmove b' with 'Z99', not a vertex"),
        ("garbage", r"fake answered 'genmove b' with nonsense: 'hello there'"),
        ("error", r"fake failed 'genmove b': not today"),
        ("exit", r"fake exited with code 3 while answering 'genmove b'; stderr: fatal: out of cheese"),
    ],
)
def test_engine_misbehaving_at_genmove(fake_engine, mode, message):
    with GTPAgent(f"{fake_engine} {mode}") as agent:
        assert agent.name == "fake"  # it has no version
        with pytest.raises(GTPEngineError, match=message):
            agent.select_move(Game(9, Rules()))


def test_an_engine_that_hangs_is_killed(fake_engine):
    with GTPAgent(f"{fake_engine} hang", timeout=0.5) as agent:
        with pytest.raises(GTPEngineError, match=r"did not answer 'genmove b' within 0\.5 s; killed it"):
            agent.select_move(Game(9, Rules()))
        assert agent.process.poll() is not None
        with pytest.raises(GTPEngineError, match="did not answer"):
            agent.send("name")


def test_close_reaps_the_engine(fake_engine):
    agent = GTPAgent(f"{fake_engine} error")
    agent.close()
    assert agent.process.returncode == 0
    agent.close()  # twice is fine
    with pytest.raises(GTPEngineError, match="was closed"):
        agent.send("name")


def test_the_commands_sent_to_keep_an_engine_in_step(tmp_path):
    """What the client sends, as a log of the commands an engine received."""
    log = tmp_path / "log.txt"
    logger = tmp_path / "logger.py"
    logger.write_text(
        textwrap.dedent(
            f"""
            import sys
            with open({str(log)!r}, "w") as log:
                for line in sys.stdin:
                    log.write(line)
                    log.flush()
                    command = line.split()[0]
                    answers = {{"name": "= log", "genmove": "= pass", "list_commands": "= play"}}
                    answer = answers.get(command, "=")
                    print(answer + "\\n", flush=True)
                    if command == "quit":
                        break
            """
        )
    )
    with GTPAgent(f"{sys.executable} {logger}") as agent:
        game = Game(5, Rules(komi=0.5), handicap=0)
        game.play(from_gtp("C3", 5))
        agent.reset(GameContext(game.size, game.rules))
        assert agent.select_move(game) == game.pass_move
        game.play(game.pass_move)
        game.play(from_gtp("B2", 5))
        agent.select_move(game)
    sent = log.read_text().splitlines()
    assert sent == [
        "name",
        "version",
        "list_commands",
        "boardsize 5",
        "clear_board",
        "komi 0.5",
        "play b C3",
        "genmove w",
        "play b B2",  # the engine's own pass is known to it already
        "genmove w",
        "quit",
    ]
    assert to_gtp(game.moves[-1], 5) == "B2"


# -- engines with awkward output ---------------------------------------------------------


def test_an_engine_that_floods_stderr_in_latin_1_is_not_blocked(noisy_engine):
    """Megabytes of stderr per command, undecodable as UTF-8: drained, never fatal."""
    with GTPAgent(f"{noisy_engine} stderr", timeout=20) as agent:
        assert agent.name == "noisy"
        assert agent.select_move(Game(9, Rules())) == from_gtp("C3", 9)
        assert all(len(line) < 1000 for line in agent._stderr)  # kept lines are bounded


def test_undecodable_bytes_on_stdout_are_replaced(noisy_engine):
    with GTPAgent(f"{noisy_engine} latin-1", timeout=10) as agent:
        assert agent.name == "b\ufffdb\ufffd"
        assert agent.select_move(Game(9, Rules())) == from_gtp("C3", 9)


def test_an_enormous_line_is_cut(noisy_engine):
    with GTPAgent(f"{noisy_engine} long-line", timeout=10) as agent:
        assert set(agent.name) == {"x"} and len(agent.name) < LINE_LIMIT
        assert agent.select_move(Game(9, Rules())) == from_gtp("C3", 9)  # still in step


def test_an_endless_answer_is_an_error(noisy_engine):
    too_long = r"answered 'genmove b' with more than 1048576 characters; killed it"
    with (
        GTPAgent(f"{noisy_engine} endless", timeout=10) as agent,
        pytest.raises(GTPEngineError, match=too_long),
    ):
        agent.select_move(Game(9, Rules()))
