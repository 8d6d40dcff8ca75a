"""Whole games on the clock: ``goarena gtp`` driven by a controller that keeps both clocks as a
GUI or a server does, under sudden death, Japanese byo-yomi and Canadian time.

The controller sets the time control, sends ``time_left`` before every ``genmove``, measures
the answer's wall time, charges the engine's clock with it and declares a loss on time when
the clock runs out. The engine's opponent is the random player, in process. Each game prints
the seconds used per move against the budget the engine had (run with ``-s`` to see them).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from dataclasses import dataclass

import pytest

from go_env import BLACK, WHITE, Game, Rules
from go_env.coords import from_gtp, to_gtp
from go_env.game import RESIGN
from goarena.agents.gtp.clock import DEFAULT_LAG, Clock, TimeControl
from goarena.agents.players.random import RandomAgent

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
