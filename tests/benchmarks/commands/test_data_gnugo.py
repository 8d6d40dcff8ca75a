"""``goarena data gnugo`` (``goarena.benchmarks.commands.data_gnugo``): the command writes GNU Go's
self-play games, and a killed run stops with one line and resumes (the job itself:
``tests/agents/data/test_gnugo.py``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from goarena.agents.data.gnugo import GnuGoConfig, missing_games
from goarena.agents.data.reader import read_expert_game
from goarena.benchmarks.cli import main
from tests.agents.data.test_gnugo import needs_gnugo


@needs_gnugo
def test_the_command_writes_the_games(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["data", "gnugo", "--size", "5", "--games", "2", "--out", str(tmp_path), "--seed", "1"])
    assert "2 games in" in capsys.readouterr().out
    assert sorted(path.name for path in tmp_path.iterdir()) == ["game-000000.sgf", "game-000001.sgf"]


def start(out: Path, games: int, workers: int) -> subprocess.Popen[bytes]:
    """``goarena data gnugo`` in a process of its own, as a terminal starts it."""
    command = ["data", "gnugo", "--out", str(out), "--games", str(games), "--workers", str(workers)]
    return subprocess.Popen(
        [sys.executable, "-m", "goarena.benchmarks.cli", *command],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def after_a_game(process: subprocess.Popen[bytes], out: Path, signal_number: int) -> str:
    """Send ``signal_number`` once a game is written; the command's stderr, read until every
    process that holds it (its workers, their engines) is gone."""
    try:
        while not list(out.glob("*.sgf")) and process.poll() is None:
            time.sleep(0.01)
        os.kill(process.pid, signal_number)
    finally:
        _, errors = process.communicate(timeout=60)
    return errors.decode()


@needs_gnugo
def test_a_killed_run_stops_with_one_line_and_no_traceback(tmp_path: Path) -> None:
    out = tmp_path / "games"
    process = start(out, games=200, workers=1)
    errors = after_a_game(process, out, signal.SIGTERM)
    done = len(list(out.glob("*.sgf")))
    assert process.returncode == 1
    assert (
        errors.strip().splitlines()[-1] == f"stopped: {done} of 200 games in {out}; the same command resumes"
    )
    assert "Traceback" not in errors
    assert missing_games(GnuGoConfig(out, games=200)) == list(range(done, 200))  # the rerun's work


@pytest.mark.slow  # worker processes start up three times, and the set is completed: some 30 s
@needs_gnugo
def test_killed_workers_end_quietly_and_the_same_command_resumes(tmp_path: Path) -> None:
    out = tmp_path / "games"
    process = start(out, games=30, workers=2)
    errors = after_a_game(process, out, signal.SIGTERM)
    assert process.returncode == 1 and "the same command resumes" in errors
    assert "Traceback" not in errors and "BrokenPipeError" not in errors
    before = len(list(out.glob("*.sgf")))
    process = start(out, games=30, workers=2)
    while len(list(out.glob("*.sgf"))) == before and process.poll() is None:
        time.sleep(0.01)
    errors = after_a_game(process, out, signal.SIGKILL)  # the workers outlive it, and must end
    assert "Traceback" not in errors and "BrokenPipeError" not in errors
    main(["data", "gnugo", "--out", str(out), "--games", "30", "--workers", "2"])
    assert missing_games(GnuGoConfig(out, games=30)) == []
    assert all(read_expert_game(path, 9).moves for path in out.glob("*.sgf"))
