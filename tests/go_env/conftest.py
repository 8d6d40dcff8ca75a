"""Fixtures for the go_env tests: GNU Go as an independent referee, spoken to over GTP."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from collections.abc import Callable, Iterator

import pytest

# GNU Go's options for the rule axes we test (see ``gnugo --help``).
KO_OPTIONS = {
    "simple": "--simple-ko",
    "positional": "--positional-superko",
    "situational": "--situational-superko",
}


def find_gnugo() -> str | None:
    """GNU Go's executable: on ``PATH``, or in ``/usr/games``, where Debian and Ubuntu install
    it and which is often not on ``PATH``; None when it is not installed."""
    found = shutil.which("gnugo")
    if found:
        return found
    fallback = os.path.join("/usr/games", "gnugo")
    return fallback if os.access(fallback, os.X_OK) else None


class GtpError(RuntimeError):
    """GNU Go answered a command with a failure (``? ...``)."""


class GnuGo:
    """A GNU Go process in GTP mode, playing under the given ko and suicide rules.

    ``--allow-all-suicide`` is GNU Go's name for suicide of any size (its
    ``--allow-suicide`` still forbids single-stone suicide); ``--chinese-rules`` makes
    ``final_score`` count area.
    """

    def __init__(self, executable: str, ko: str = "simple", suicide: bool = False):
        self.ko = ko
        self.suicide = suicide
        args = [
            executable,
            "--mode",
            "gtp",
            "--chinese-rules",
            KO_OPTIONS[ko],
            "--allow-all-suicide" if suicide else "--forbid-suicide",
        ]
        self.process = subprocess.Popen(
            args,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )

    # -- raw protocol ------------------------------------------------------------------

    def exchange(self, commands: list[str]) -> list[tuple[bool, str]]:
        """Send commands in one write and read every answer: (succeeded, text) each.

        Pipelining saves a round trip per command; every answer is read even after a
        failure, so the stream stays in step.
        """
        assert self.process.stdin is not None
        self.process.stdin.write("".join(f"{command}\n" for command in commands))
        self.process.stdin.flush()
        return [self._read_answer(command) for command in commands]

    def _read_answer(self, command: str) -> tuple[bool, str]:
        assert self.process.stdout is not None
        lines: list[str] = []
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise GtpError(f"GNU Go exited while answering {command!r}")
            line = line.rstrip("\r\n")
            if line:
                lines.append(line)
            elif lines:  # an answer ends with an empty line
                break
        text = "\n".join(lines)
        if text[:1] not in ("=", "?"):
            raise GtpError(f"malformed answer to {command!r}: {text!r}")
        return text[0] == "=", text[1:].strip()

    def send(self, *commands: str) -> list[str]:
        """Send commands that must succeed; their answers, in order."""
        answers = self.exchange(list(commands))
        for command, (ok, text) in zip(commands, answers, strict=True):
            if not ok:
                raise GtpError(f"{command!r} failed: {text}")
        return [text for _, text in answers]

    # -- the commands the tests use ----------------------------------------------------

    def new_game(self, size: int, komi: float = 0.0) -> None:
        self.send(f"boardsize {size}", "clear_board", f"komi {komi}")

    def play(self, color: str, vertex: str) -> bool:
        """Play a move; False if GNU Go rejects it as illegal."""
        [(ok, text)] = self.exchange([f"play {color} {vertex}"])
        if not ok and text != "illegal move":
            raise GtpError(f"play {color} {vertex} failed: {text}")
        return ok

    def legal_moves(self, color: str) -> set[str]:
        """Every legal point for ``color`` (``all_legal`` applies the ko and suicide rules)."""
        return set(self.send(f"all_legal {color}")[0].split())

    def stones(self, color: str) -> set[str]:
        return set(self.send(f"list_stones {color}")[0].split())

    def captures(self, color: str) -> int:
        """Stones captured by ``color``."""
        return int(self.send(f"captures {color}")[0])

    def close(self) -> None:
        with contextlib.suppress(GtpError, OSError):  # it may be gone already
            self.exchange(["quit"])
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def gnugo() -> Iterator[Callable[..., GnuGo]]:
    """Start GNU Go processes: ``gnugo(ko="positional", suicide=False)``; all closed afterwards.

    Skips the test when GNU Go is not installed.
    """
    executable = find_gnugo()
    if executable is None:
        pytest.skip("GNU Go is not installed (e.g. `apt install gnugo`); it referees these tests")
    started: list[GnuGo] = []

    def start(ko: str = "simple", suicide: bool = False) -> GnuGo:
        engine = GnuGo(executable, ko, suicide)
        started.append(engine)
        return engine

    yield start
    for engine in started:
        engine.close()
