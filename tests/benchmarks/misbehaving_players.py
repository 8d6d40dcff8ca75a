"""Players that misbehave in every way a league must survive, built by spec in its workers
(``misbehaving_players:Misbehaving:how='segfault'``): this folder is on the workers' path."""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time
from typing import NoReturn

import numpy as np

from go_env import Game, Rules


class Misbehaving:
    """Plays random legal moves, and at its ``at``-th move misbehaves as ``how`` says."""

    def __init__(self, how: str, at: int = 2, seed: int = 0):
        self.name = f"misbehaving-{how}"
        self.how = how
        self.at = at
        self.rng = np.random.default_rng(seed)
        self.moves = 0

    def reset(self, rules: Rules) -> None:
        self.moves = 0
        if self.how == "hang-at-reset":
            _forever()

    def select_move(self, game: Game) -> int:
        self.moves += 1
        legal = game.legal_moves()[:-1]  # never passes while it can play
        move = int(self.rng.choice(legal)) if len(legal) else game.pass_move
        if self.moves != self.at:
            return move
        if self.how == "system-exit":
            raise SystemExit(3)
        if self.how == "keyboard-interrupt":
            raise KeyboardInterrupt
        if self.how == "overflow":
            return 2**63
        if self.how == "exit":
            os._exit(3)
        if self.how == "segfault":
            ctypes.string_at(0)
        if self.how == "sigkill":  # as the OOM killer does
            os.kill(os.getpid(), signal.SIGKILL)
        if self.how == "loop":
            while True:
                pass
        if self.how == "mutate":  # plays its move, then one for the other side, on the game it got
            game.play(move)
            game.play(int(game.legal_moves()[0]))
            return move
        raise ValueError(f"unknown misbehaviour {self.how!r}")


class Slow:
    """A random player that takes ``seconds`` over each move."""

    def __init__(self, seconds: float = 0.05, seed: int = 0):
        self.name = "slow"
        self.seconds = seconds
        self.rng = np.random.default_rng(seed)

    def reset(self, rules: Rules) -> None:
        pass

    def select_move(self, game: Game) -> int:
        time.sleep(self.seconds)
        return int(self.rng.choice(game.legal_moves()))


class Noisy:
    """A random player that writes lines like GTP answers to standard output, every way a
    program can: Python's print, file descriptor 1 itself (as C code does), and a child
    process that inherits it; when built, reset and asked for a move."""

    def __init__(self, seed: int = 0):
        self.name = "noisy"
        self.rng = np.random.default_rng(seed)
        self.say("built")

    @staticmethod
    def say(when: str) -> None:
        print(f"= noisy print when {when}\n", flush=True)
        os.write(1, f"= noisy os.write when {when}\n\n".encode())
        subprocess.run([sys.executable, "-c", f"print('= noisy child when {when}')"], check=True)

    def reset(self, rules: Rules) -> None:
        self.say("reset")

    def select_move(self, game: Game) -> int:
        self.say("asked for a move")
        return int(self.rng.choice(game.legal_moves()))


def exit_when_built() -> Misbehaving:
    """A factory whose process dies before the player exists."""
    os._exit(4)


def hang_when_built() -> Misbehaving:
    """A factory that never returns (a network load stuck on a dead mount)."""
    _forever()


def _forever() -> NoReturn:
    while True:
        time.sleep(60)


SILENT_ENGINE = """
import sys, time
for line in sys.stdin:
    command = (line.split() or [""])[0]
    if command == "genmove":
        time.sleep(3600)  # thinks for ever
    answers = {"name": "silent", "version": "1", "list_commands": "name\\nversion\\nlist_commands\\ngenmove"}
    print("= " + answers.get(command, "") + "\\n", flush=True)
"""
