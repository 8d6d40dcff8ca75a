"""goarena train zero: the run, then its generations rated against anchors, with the Elo curve."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from goarena.benchmarks.cli import main

TINY = ["--size", "5", "--komi", "0.5", "--blocks", "1", "--filters", "8", "--games", "4", "--shards", "1",
        "--simulations", "4", "--updates", "1", "--batch-size", "8", "--rounds", "2",
        "--generation-every", "1"]  # fmt: skip


@pytest.mark.slow  # a league in processes of its own
def test_trains_then_rates_every_generation_against_the_anchors(tmp_path: Path, capsys):
    run = tmp_path / "run"
    main(["train", "zero", *TINY, "--run", str(run), "--no-progress", "--rate-games", "2",
          "--rate-simulations", "2", "--anchors", "random"])  # fmt: skip
    elo = json.loads((run / "elo.json").read_text())
    rated = {row["name"] for row in json.loads((run / "metrics.json").read_text())["elo"]}
    assert rated == {"gen-0000", "gen-0001", "gen-0002"}
    assert [anchor["name"] for anchor in elo["anchors"]] == ["random"]
    assert (run / "elo.png").read_bytes().startswith(b"\x89PNG")
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(run / "tensorboard")).Reload()
    assert [event.step for event in events.Scalars("elo/generation")] == [0, 1, 2]
    assert "train/policy_entropy" in events.Tags()["scalars"]
    out = capsys.readouterr().out
    assert "3 generations, 8 self-play games" in out and "gen-0002" in out and "elo.png" in out


def test_rate_games_0_trains_only(tmp_path: Path):
    main(["train", "zero", *TINY, "--run", str(tmp_path / "run"), "--no-progress", "--rate-games", "0"])
    assert (tmp_path / "run" / "zero.pt").is_file()
    assert not (tmp_path / "run" / "elo.json").exists()


@pytest.mark.slow  # a league in processes of its own, after each generation
def test_rating_every_generation_shows_the_newest_elo_as_the_run_goes(tmp_path: Path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    run = tmp_path / "run"
    main(["train", "zero", *TINY, "--run", str(run), "--no-progress", "--rate-games", "2",
          "--rate-simulations", "2", "--anchors", "random", "--rate-every-generation"])  # fmt: skip
    events = EventAccumulator(str(run / "tensorboard")).Reload()
    latest = [event.value for event in events.Scalars("train/latest_elo")]
    assert len(latest) == 2 and all(value == value for value in latest)  # rated after rounds 1 and 2
    final = {row["name"]: row["elo"] for row in json.loads((run / "metrics.json").read_text())["elo"]}
    assert set(final) == {"gen-0000", "gen-0001", "gen-0002"}
