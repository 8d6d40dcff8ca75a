"""The skeleton every training job runs on (``loop.run_training``, ``loop.Run``): its run
directory's lock, config and data digest, a full disk, Ctrl-C."""

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from goarena.agents.players.rollout import RolloutPolicyAgent
from goarena.agents.training import sb3 as sb3_training
from goarena.agents.training.loop import Run, RunConfigError, RunLockedError, RunStorageError
from goarena.agents.training.rollout import RolloutConfig, train_rollout
from goarena.agents.training.value import main as value_main
from goarena.agents.training.value import train_value
from tests.agents.players.test_rollout import GameRecords
from tests.agents.training.test_value import SIZE, config, write_shards


def shards(directory: Path, positions: int = 320, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    planes = (rng.random((positions, 49, SIZE, SIZE)) < 0.3).astype(np.uint8)
    write_shards(directory, planes, np.where(rng.random(positions) < 0.5, 1, -1))
    return directory


def test_a_run_directory_in_use_is_refused(tmp_path):
    data = shards(tmp_path / "data")
    in_use = f"{tmp_path / 'run'} is in use: another goarena train"
    with Run(tmp_path / "run", {"another": "run"}), pytest.raises(RunLockedError, match=in_use):
        train_value(config(data), tmp_path / "run", progress=False)
    train_value(config(data, steps=20), tmp_path / "run2", progress=False)  # the lock is released after
    with Run(tmp_path / "run2", json.loads((tmp_path / "run2" / "config.json").read_text())):
        pass


def test_a_run_resumed_after_its_data_changed_is_refused(tmp_path):
    data = shards(tmp_path / "data")
    train_value(config(data, steps=20, checkpoint_every=10), tmp_path / "run", progress=False)
    assert len(json.loads((tmp_path / "run" / "config.json").read_text())["data_manifest_sha256"]) == 64
    shutil.rmtree(data)
    shards(data, positions=400, seed=1)  # new shards under the same name
    with pytest.raises(RunConfigError, match=f"shards in {data} as they were; they changed since"):
        train_value(config(data, steps=20, checkpoint_every=10), tmp_path / "run", progress=False)


def test_a_refused_option_writes_no_config(tmp_path):
    records = GameRecords()
    refused = RolloutConfig(data="", steps=20, batch_size=10_000, checkpoint_every=10, log_every=10)
    with pytest.raises(ValueError, match="cannot fill a batch of 10000"):
        train_rollout(refused, tmp_path / "run", dataset=records, progress=False)
    assert not (tmp_path / "run").exists()
    corrected = RolloutConfig(data="", steps=20, batch_size=32, checkpoint_every=10, log_every=10)
    train_rollout(corrected, tmp_path / "run", dataset=records, progress=False)  # not refused


def test_every_job_records_the_digest_its_player_reports(tmp_path):
    corrected = RolloutConfig(data="", steps=20, batch_size=32, checkpoint_every=10, log_every=10)
    metrics = train_rollout(corrected, tmp_path / "run", dataset=GameRecords(), progress=False)
    player = RolloutPolicyAgent(tmp_path / "run" / "rollout.npz")
    assert metrics["sha256"] == player.weights_digest()
    assert json.loads((tmp_path / "run" / "metrics.json").read_text())["sha256"] == metrics["sha256"]


def test_a_full_disk_says_so_and_where(tmp_path, monkeypatch, capsys):
    data = shards(tmp_path / "data")

    def full(contents, file):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(torch, "save", full)
    run = tmp_path / "run"
    with pytest.raises(RunStorageError, match=f"cannot write the run in {run}: disk full"):
        train_value(config(data, steps=20, checkpoint_every=10), run, progress=False)
    run = tmp_path / "run2"
    options = ["--data", str(data), "--run", str(run), "--steps", "20", "--checkpoint-every", "10"]
    with pytest.raises(SystemExit, match=f"goarena train value: cannot write the run in {run}: disk full"):
        value_main([*options, "--layers", "2", "--filters", "4", "--hidden", "16", "--held-out", "0.2"])


def test_ctrl_c_exits_130_and_says_how_to_resume(tmp_path):
    data = shards(tmp_path / "data")
    run = tmp_path / "run"
    options = ["--data", str(data), "--run", str(run), "--steps", "100000", "--checkpoint-every", "5"]
    options += ["--layers", "2", "--filters", "4", "--hidden", "16", "--held-out", "0.2", "--no-progress"]
    # goarena train value, in a process of its own: the job's main with the command's options
    train_value_code = "import sys; from goarena.agents.training.value import main; main(sys.argv[1:])"
    cli = [sys.executable, "-c", train_value_code, *options]
    # As a terminal starts it: Ctrl-C not ignored (a process inherits an ignored SIGINT, and
    # Python then installs no KeyboardInterrupt for it).
    process = subprocess.Popen(
        cli,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        while not (run / "checkpoints" / "last.pt").exists() and process.poll() is None:
            time.sleep(0.01)
        os.kill(process.pid, signal.SIGINT)
    finally:
        _, errors = process.communicate(timeout=120)
    assert process.returncode == 130, errors.decode()
    assert "stopped; the same command resumes" in errors.decode()
    assert "Traceback" not in errors.decode()


def test_sb3_saves_never_share_a_temporary_name(tmp_path):
    written = []

    class Model:
        def save(self, path):
            written.append(Path(path))
            Path(path).write_bytes(b"model")

    target = tmp_path / "checkpoints" / "last.zip"
    sb3_training.save_atomically(Model(), target)  # type: ignore[arg-type]
    sb3_training.save_atomically(Model(), target)  # type: ignore[arg-type]
    assert written[0] != written[1] and all(path.suffix == ".zip" for path in written)
    assert [path.name for path in target.parent.iterdir()] == ["last.zip"]


def test_a_command_line_is_made_from_the_config_fields(tmp_path, capsys):
    parser = sb3_training.COMMAND.parser()
    args = parser.parse_args(["--run", "r", "--self-play", "--n-envs", "2", "--gae-lambda", "0.9"])
    assert (args.self_play, args.n_envs, args.gae_lambda, args.blocks) == (True, 2, 0.9, 4)
    help_text = parser.format_help()
    assert "--eval-opponents EVAL_OPPONENTS" in help_text and "(default 50000)" in help_text
    # A value a config refuses is one line naming the option, not a traceback, and nothing is written.
    with pytest.raises(SystemExit, match="goarena train value: lr_schedule is one of cosine, constant"):
        value_main(["--data", str(tmp_path), "--run", str(tmp_path / "run"), "--lr-schedule", "step"])
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("size", ["30", "1"])
def test_a_refused_board_size_writes_nothing(tmp_path, size):
    """Checked with the other options, before the run directory: not after config.json (which
    refused the corrected command), nor after training a 1x1 model."""
    from goarena.agents.training.zero import main as zero_main

    run = tmp_path / "run"
    refused = f"size must be a board size from 2 to 25, got {size}"
    with pytest.raises(SystemExit, match=f"goarena train sb3: {refused}"):
        sb3_training.main(["--size", size, "--run", str(run), "--steps", "64", "--no-progress"])
    with pytest.raises(SystemExit, match=f"goarena train zero: {refused}"):
        zero_main(["--size", size, "--run", str(run), "--no-progress"])
    assert not run.exists()


def test_sl_refuses_value_shards_before_writing_anything_and_the_corrected_command_runs(tmp_path):
    from goarena.agents.training.sl import main as sl_main

    value_shards = shards(tmp_path / "value")  # 49 planes, as goarena data value writes them
    policy_shards = tmp_path / "policy"
    write_shards(policy_shards, np.zeros((320, 48, SIZE, SIZE), np.uint8), np.ones(320))
    run = tmp_path / "run"
    options = [
        "--run",
        str(run),
        "--steps",
        "4",
        "--checkpoint-every",
        "4",
        "--layers",
        "2",
        "--filters",
        "4",
    ]
    options += ["--batch-size", "8", "--held-out", "0.2", "--no-progress"]
    with pytest.raises(SystemExit, match="49 planes, not the network's 48: goarena data shards writes"):
        sl_main(["--data", str(value_shards), *options])
    assert not run.exists()
    sl_main(["--data", str(policy_shards), *options])
    assert (run / "policy.pt").is_file()


@pytest.mark.parametrize("columns", [80, 120, 200])
def test_the_progress_bar_shows_the_step_and_the_time_left_first_at_any_width(columns, monkeypatch):
    """The counter and the time left come first and stay whole however long the figures are
    (they once pushed both out at 80, 120 and 200 columns); the figures are cut short instead."""
    import io
    import re

    from rich.console import Console

    from goarena.agents.training.loop import key_figures, progress_bar

    monkeypatch.setenv("COLUMNS", str(columns))
    console = Console(file=io.StringIO(), force_terminal=False, color_system=None)
    assert console.width == columns
    clock = [0.0]
    bar = progress_bar("round", console=console, get_time=lambda: clock[0], auto_refresh=False)
    task = bar.add_task("train", total=200, completed=0, status="")
    metrics = {f"metric_number_{i}": 1.0 + i for i in range(12)}
    for done in range(1, 121):
        clock[0] += 3.0  # 3 s a round: 80 rounds left are 4 minutes
        bar.update(
            task, completed=done, status="loss 3.624 " + " ".join(f"{k} {v}" for k, v in metrics.items())
        )
    console.print(bar.get_renderable())
    line = console.file.getvalue().rstrip("\n")
    assert "\n" not in line and len(line) <= columns
    assert re.match(r"round 120/200 left 0:04:00 \S+\s+loss 3\.624", line), line
    assert key_figures({"loss": 1.0, "a": 2.0, "b": 3.0, "c": 4.0}) == "loss 1.000 a 2.000 b 3.000"
