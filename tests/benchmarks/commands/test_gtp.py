"""``goarena gtp`` (``goarena.benchmarks.commands.gtp``) in a process of its own: whole sessions
through a pipe, errors included (cut rollout weights refused without a traceback); as a GTP
player of our own client; and whole games on the clock. Its help says the default rules.

Whole games on the clock: ``goarena gtp`` driven by a controller that keeps both clocks as a
GUI or a server does, under sudden death, Japanese byo-yomi and Canadian time.

The controller sets the time control, sends ``time_left`` before every ``genmove``, measures
the answer's wall time, charges the engine's clock with it and declares a loss on time when
the clock runs out. The engine's opponent is the random player, in process. Each game prints
the seconds used per move against the budget the engine had (run with ``-s`` to see them).
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from go_env import BLACK, WHITE, Game, Rules
from go_env.coords import from_gtp, to_gtp
from go_env.features.patterns import pattern_tables, save_weights
from go_env.game import RESIGN
from go_env.sgf import read_sgf, write_sgf
from goarena.agents.gtp import GTPAgent
from goarena.agents.gtp.clock import DEFAULT_LAG, Clock, TimeControl
from goarena.agents.players.random import RandomAgent
from goarena.agents.protocols import GameContext
from goarena.benchmarks import cli
from tests.agents.nets.test_load import _cut

SIZE = 9
MOVE_CAP = 160  # moves of both sides: a random opponent rarely lets a game end sooner
CONTROLS = {  # what the controller sends, and the time control it means
    "sudden death 30 s": ("time_settings 30 0 0", TimeControl(30)),
    "byo-yomi 2 s + 3 x 1 s": ("kgs-time_settings byoyomi 2 1 3", TimeControl(2, 1, periods=3)),
    "Canadian 2 s + 5 stones / 4 s": ("time_settings 2 4 5", TimeControl(2, 4, stones=5)),
}
PLAYERS = ("alphago", "uct:simulations=100000")


class Controller:
    """The controller's side of GTP with a ``goarena gtp`` subprocess."""

    def __init__(self, *options: str):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "goarena.benchmarks.cli", "gtp", "--size", str(SIZE), *options],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )

    def send(self, command: str) -> str:
        """The answer's text; a failure raises."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        lines = []
        while line := self.process.stdout.readline().rstrip("\n"):
            lines.append(line)
        answer = "\n".join(lines)
        assert answer.startswith("="), f"{command!r} answered {answer!r}"
        return answer[1:].strip()

    def close(self) -> None:
        self.send("quit")
        self.process.wait(timeout=30)


@dataclass(frozen=True)
class TimedMove:
    number: int  # of the game's moves, from 1
    used: float  # seconds, as the controller measured the genmove
    budget: float  # seconds, as the engine reckoned from the same clock
    left: tuple[float, int] | None  # the clock as time_left said it before the move


def play_on_the_clock(
    spec: str, settings: str, control: TimeControl, lag: float = DEFAULT_LAG
) -> tuple[list[TimedMove], str]:
    """A game of ``spec`` (Black, ``goarena gtp``) against the random player, to two passes,
    a resignation or ``MOVE_CAP`` moves: the engine's timed moves, and how the game ended
    (``"lost on time"``, ``"resigned"``, ``"two passes"`` or ``"move cap"``)."""
    engine = Controller("--agent", spec, "--lag", str(lag))
    try:
        engine.send("clear_board")
        engine.send("komi 7")
        engine.send("play b E5")  # waits for the kernels' warm-up: the clock has not started
        engine.send("clear_board")
        engine.send(settings)
        game, clock, opponent = Game(SIZE, Rules(komi=7)), Clock(control), RandomAgent(seed=1)
        moves: list[TimedMove] = []
        while not game.is_over and game.move_number < MOVE_CAP:
            color = game.to_play
            if color == WHITE:
                move = opponent.select_move(game)
                engine.send(f"play w {to_gtp(move, SIZE)}")
            else:
                left = clock.left(BLACK)
                if left is not None:
                    engine.send(f"time_left b {left[0]:.3f} {left[1]}")
                budget = clock.budget(BLACK, SIZE * SIZE, game.move_number, lag)
                started = time.perf_counter()
                answer = engine.send("genmove b")
                used = time.perf_counter() - started
                assert budget is not None
                moves.append(TimedMove(game.move_number + 1, used, budget, left))
                if not clock.spend(BLACK, used):
                    return moves, "lost on time"
                if answer == "resign":
                    return moves, "resigned"
                move = from_gtp(answer, SIZE)
            assert move != RESIGN
            game.play(move)
        return moves, "two passes" if game.is_over else "move cap"
    finally:
        engine.close()


def report(title: str, moves: list[TimedMove], ending: str) -> str:
    """A table of the seconds used against the budget, move by move, and a summary line."""
    rows = [f"{title}: move, used s, budget s, margin s, clock before"]
    for move in moves:
        left = "-" if move.left is None else f"{move.left[0]:.2f} s/{move.left[1]}"
        rows.append(
            f"  {move.number:3d} {move.used:6.3f} {move.budget:6.3f} {move.budget - move.used:+7.3f} {left}"
        )
    used, budgets = [move.used for move in moves], [move.budget for move in moves]
    worst = min(move.budget - move.used for move in moves)
    rows.append(
        f"  {len(moves)} moves ({ending}): used min {min(used):.3f} mean {statistics.mean(used):.3f} "
        f"max {max(used):.3f} s; budget min {min(budgets):.3f} mean {statistics.mean(budgets):.3f} "
        f"max {max(budgets):.3f} s; worst margin {worst:+.3f} s"
    )
    return "\n".join(rows)


@pytest.mark.slow
@pytest.mark.parametrize("spec", PLAYERS)
@pytest.mark.parametrize("name", CONTROLS)
def test_no_game_is_lost_on_time(spec, name):
    settings, control = CONTROLS[name]
    moves, ending = play_on_the_clock(spec, settings, control)
    print("\n" + report(f"{spec}, {name}", moves, ending))
    assert ending in ("two passes", "move cap"), f"{spec} {ending} under {name}"
    assert len(moves) >= 10


# ---------------------------------------------------------------------------------------
# Sessions through a pipe
# ---------------------------------------------------------------------------------------


def test_the_command_starts_on_a_board_the_player_plays_and_refuses_others():
    """The shipped networks are 9x9: ``goarena gtp --agent sl-policy`` starts there."""
    command = [sys.executable, "-m", "goarena.benchmarks.cli", "gtp", "--agent", "sl-policy"]
    process = subprocess.run(
        command, input="1 boardsize 19\n2 genmove b\n3 boardsize 9\n4 quit\n", capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    answers = process.stdout.split("\n\n")
    assert answers[0] == "?1 unacceptable size"
    assert answers[1].startswith("=2 ") and from_gtp(answers[1][3:], 9) is not None  # a 9x9 move
    assert answers[2:4] == ["=3", "=4"]
    refused = subprocess.run(
        [*command, "--size", "19"], input="quit\n", capture_output=True, text=True, timeout=120
    )
    assert refused.returncode != 0 and "sl-policy cannot play 19x19" in refused.stderr


def test_loadsgf_of_a_fifo_or_stdin_does_not_block_the_engine(tmp_path):
    """A FIFO with no writer and the engine's own stdin are refused at once; ``quit`` works."""
    fifo = tmp_path / "fifo.sgf"
    os.mkfifo(fifo)
    commands = f"1 loadsgf {fifo}\n2 loadsgf /dev/stdin\n3 name\n4 quit\n"
    process = subprocess.Popen(
        [sys.executable, "-m", "goarena.benchmarks.cli", "gtp", "--agent", "random", "--size", "9"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        out, _ = process.communicate(commands, timeout=60)
    finally:
        process.kill()
    assert out.split("\n\n")[:4] == [
        f"?1 cannot load file: not a regular file: {fifo}",
        "?2 cannot load file: not a regular file: /dev/stdin",
        "=3 random",
        "=4",
    ]


def test_an_enormous_command_line_is_cut_and_answered_once():
    process = subprocess.run(
        [sys.executable, "-m", "goarena.benchmarks.cli", "gtp", "--agent", "random", "--size", "9"],
        input="1 name\n2 play b " + "x" * 5_000_000 + "\n3 name\n",
        capture_output=True,
        text=True,
        timeout=60,
    )
    answers = process.stdout.split("\n\n")
    assert answers[0] == answers[2].replace("3", "1") == "=1 random"
    assert answers[1].startswith("?2 invalid vertex") and len(answers[1]) < 1000


def test_a_player_that_writes_to_stdout_cannot_desynchronise_goarena_gtp():
    """A print, a write to descriptor 1 and a child process's output, from the player's
    building, reset and moves, all go to stderr: every answer on stdout is its command's."""
    players = Path(__file__).parents[2] / "benchmarks"  # misbehaving_players.Noisy
    commands = ["boardsize 5", "clear_board", "genmove b", "play w A1", "genmove b", "name", "quit"]
    process = subprocess.run(
        [sys.executable, "-m", "goarena.benchmarks.cli", "gtp", "--agent", "misbehaving_players:Noisy"],
        input="".join(f"{number} {command}\n" for number, command in enumerate(commands, 1)),
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(players), os.environ.get("PYTHONPATH", "")])},
    )  # fmt: skip
    answers = process.stdout.split("\n\n")
    assert answers.pop() == "" and len(answers) == len(commands), process.stdout
    assert [answer.split()[0] for answer in answers] == [f"={number}" for number in range(1, 8)]
    assert answers[5] == "=6 noisy"
    for when in ("built", "reset", "asked for a move"):
        for how in ("print", "os.write", "child"):
            assert f"= noisy {how} when {when}" in process.stderr


def test_scripted_session_with_goarena_gtp(tmp_path):
    """``goarena gtp`` answers a pipelined session, errors included, and quits cleanly."""
    sgf = tmp_path / "opening.sgf"
    opening = Game(9, Rules(komi=6.5))
    opening.replay([from_gtp(v, 9) for v in ("E5", "C3", "G7")])
    sgf.write_bytes(write_sgf(opening))
    vertex = r"([A-HJ][1-9]|pass)"
    script = [
        ("1 protocol_version", "=1 2"),
        ("2 name", "=2 random"),
        ("3 version", r"=3 \S+"),
        ("4 known_command genmove", "=4 true"),
        ("5 known_command lz-analyze", "=5 false"),
        ("list_commands", r"= protocol_version\n(\S+\n)+\S+"),
        ("boardsize 9", "="),
        ("clear_board", "="),
        ("komi 6.5", "="),
        ("play b E5", "="),
        ("6 genmove w", f"=6 {vertex}"),
        ("undo", "="),
        ("showboard", r"= \n( ?\d .+\n)+ +A B C D E F G H J\ncaptured: .+"),
        ("final_score", r"= B\+74\.5"),
        ("final_status_list alive", "= E5"),
        ("final_status_list dead", "="),
        ("boardsize 99", r"\? unacceptable size"),
        ("7 play b Z99", r"\?7 invalid vertex: .+"),
        ("play b E5", r"\? illegal move"),
        ("play purple E5", r"\? syntax error: invalid color .+"),
        ("genmove", r"\? wrong number of arguments: .+"),
        ("8 frobnicate", r"\?8 unknown command"),
        ("undo", "="),
        ("undo", r"\? cannot undo"),
        ("fixed_handicap 2", "= C3 G7"),
        ("genmove w", f"= {vertex}"),
        ("clear_board", "="),
        ("set_free_handicap C3 G7 E5", "="),
        ("place_free_handicap 2", r"\? board not empty"),
        ("time_settings 300 30 5", "="),
        ("time_left w 290 0", "="),
        ("kgs-genmove_cleanup w", f"= {vertex}"),
        ("reg_genmove b", f"= {vertex}"),
        (f"loadsgf {sgf} 3", "="),
        ("printsgf", r"= \(;FF\[4\](.|\n)*;B\[ee\];W\[cg\]\)"),
        ("kgs-rules chinese", "="),
        ("kata-get-rules", r'= \{"ko": "SIMPLE", "scoring": "AREA".*\}'),
        ("kata-set-rules tromp-taylor", "="),
        ("9 quit", "=9"),
    ]
    process = subprocess.run(
        [sys.executable, "-m", "goarena.benchmarks.cli", "gtp", "--agent", "random:seed=1", "--size", "9"],
        input="".join(f"{command}\n" for command, _ in script) + "name\n",  # after quit: unanswered
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert process.returncode == 0, process.stderr
    assert process.stdout.endswith("\n\n")
    answers = process.stdout[:-2].split("\n\n")
    assert len(answers) == len(script), process.stdout
    for (command, pattern), answer in zip(script, answers, strict=True):
        assert re.fullmatch(pattern, answer), f"{command!r} answered {answer!r}"


# ---------------------------------------------------------------------------------------
# goarena gtp as a GTP player of our own client
# ---------------------------------------------------------------------------------------

OUR_ENGINE = f"{sys.executable} -m benchmarks.cli gtp --agent random:seed=1"


def test_our_engine_as_a_gtp_player_gets_the_rules():
    with GTPAgent(OUR_ENGINE, name="ours") as agent:
        assert agent.name == "ours" and "kata-set-rules" in agent.known_commands
        rules = Rules(komi=6, ko="situational", suicide=True)
        game = Game(9, rules, handicap=2)
        agent.reset(GameContext(game.size, rules))
        move = agent.select_move(game)
        assert game.is_legal(move)
        assert agent.send("kata-get-rules").startswith('{"ko": "SITUATIONAL", "scoring": "AREA"')
        game.play(move)
        assert read_sgf(agent.send("printsgf")).moves == (move,)
        assert agent.final_score(game) == game.score()


def test_the_gtp_help_says_the_default_rules_as_the_preset_has_them(capsys):
    from go_env.rules import RULES_PRESETS

    with pytest.raises(SystemExit):
        cli.main(["gtp", "--help"])
    said = " ".join(capsys.readouterr().out.split())
    rules = RULES_PRESETS["goarena"]
    assert rules.scoring == "area" and rules.ko == "positional" and not rules.suicide
    assert f"(default goarena: area scoring, positional superko, no suicide, komi {rules.komi})" in said


def test_gtp_refuses_cut_rollout_weights_without_a_traceback(tmp_path):
    rollout = tmp_path / "rollout.npz"
    save_weights(rollout, np.zeros(pattern_tables().num_features, np.float32), 9)
    _cut(rollout)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "goarena.benchmarks.cli",
            "gtp",
            "--agent",
            f"rollout-policy:weights={rollout}",
        ],
        input="quit\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert f"{rollout}: not a readable .npz (cut short or corrupt?)" in done.stderr
