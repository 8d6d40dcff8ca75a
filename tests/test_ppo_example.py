"""``docs/ppo_go.py``, the CleanRL-style masked PPO example, run as a user would: a short
training, its evaluation, and the league command it prints, in a fresh directory."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from goarena.benchmarks.league.store import LeagueStore

EXAMPLE = Path(__file__).resolve().parents[1] / "docs" / "ppo_go.py"


def run(command: list[str], directory: Path) -> str:
    environment = dict(os.environ)
    environment["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{environment['PATH']}"
    result = subprocess.run(
        command, cwd=directory, env=environment, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, f"{shlex.join(command)} failed:\n{result.stdout}\n{result.stderr}"
    return result.stdout


@pytest.mark.slow  # a training run, an evaluation against UCT and a league: about a minute
def test_the_example_trains_saves_rates_and_plays_in_a_league(tmp_path):
    budget = ["--total-timesteps", "2048", "--num-envs", "16", "--num-steps", "16", "--eval-games", "4"]
    output = run([sys.executable, str(EXAMPLE), *budget, "--out", "run"], tmp_path)
    lines = output.splitlines()
    assert sum(line.startswith("update ") for line in lines) == 8  # 2048 steps, 256 a rollout
    assert (tmp_path / "run" / "policy.pt2").is_file()
    rated = [line for line in lines if line.startswith("vs ")]
    assert [line.split(":")[0] for line in rated] == ["vs random", "vs uct"]
    assert all(" of 4 games " in line for line in rated)

    league = next(line for line in lines if line.startswith("goarena league "))
    command = shlex.split(league.replace("--games-per-pair 20", "--games-per-pair 2"))
    run([*command, "--workers", "1", "--no-progress"], tmp_path)
    with LeagueStore.open_existing(tmp_path / "run" / "league") as store:
        games = store.games()
    assert len(games) == 6  # three players, two games a pair
    assert not [game.reason for game in games if game.reason.startswith(("crash", "illegal move", "time"))]
