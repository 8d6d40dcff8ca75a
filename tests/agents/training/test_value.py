import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace

import numpy as np
import pytest

from goarena.agents.data.shards import MANIFEST, _write_json, _write_shard
from goarena.agents.nets.checkpoint import load_model, read_checkpoint, weights_digest
from goarena.agents.nets.value import ValueNet
from goarena.agents.training.value import ValueConfig, main, train_value

SIZE = 5
POSITIONS = 320


def write_shards(out, planes, outcomes):
    """A shard folder as ``goarena data value`` writes one, with the given planes and outcomes."""
    count = len(outcomes)
    out.mkdir(parents=True)
    arrays = {
        "planes": np.packbits(planes.reshape(count, planes.shape[1], -1), axis=2),
        "boards": np.zeros((count, SIZE * SIZE), np.int8),
        "to_play": np.ones(count, np.int8),
        "last_moves": np.full(count, -1, np.int16),
        "moves": np.zeros(count, np.int16),
        "outcomes": outcomes.astype(np.int8),
        "game_ids": np.arange(count, dtype=np.int32),
    }
    _write_shard(out, "chunk-000000-0", arrays)
    shard = {"name": "chunk-000000-0", "positions": count, "games": count, "komi": 7.0, "rules": "goarena"}
    manifest = {"format": 1, "size": SIZE, "planes": planes.shape[1], "chunks": {"0": {"shards": [shard]}}}
    _write_json(out / MANIFEST, manifest)


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    """Random positions whose outcome is the colour to move: +1 for Black, -1 for White."""
    rng = np.random.default_rng(0)
    planes = (rng.random((POSITIONS, 49, SIZE, SIZE)) < 0.3).astype(np.uint8)
    black = rng.random(POSITIONS) < 0.5
    planes[:, 48] = black[:, None, None]
    out = tmp_path_factory.mktemp("data") / "shards"
    write_shards(out, planes, np.where(black, 1, -1))
    return out


def config(shards, **changes) -> ValueConfig:
    tiny = ValueConfig(
        data=str(shards),
        layers=2,
        filters=4,
        hidden=16,
        steps=40,
        batch_size=16,
        held_out=0.2,
        checkpoint_every=20,
        log_every=10,
    )
    return replace(tiny, **changes)


def run(shards, directory, **changes):
    return train_value(config(shards, **changes), directory, threads=1, progress=False)


def test_a_run_leaves_its_weights_checkpoints_logs_and_metrics(shards, tmp_path):
    metrics = run(shards, tmp_path / "run")
    files = {p.relative_to(tmp_path / "run").as_posix() for p in (tmp_path / "run").rglob("*") if p.is_file()}
    assert {"config.json", "metrics.json", "value.pt", "checkpoints/last.pt", "checkpoints/best.pt"} <= files
    assert any(name.startswith("tensorboard/events.out.tfevents") for name in files)
    assert json.loads((tmp_path / "run" / "metrics.json").read_text()) == metrics
    assert metrics["held_out_positions"] == round(0.2 * POSITIONS)
    assert 0.9 < metrics["constant_mse"] <= 1.0  # outcomes +1 and -1 about evenly
    assert 0 <= metrics["held_out_mse"] <= 4 and metrics["step"] in (20, 40)
    value = load_model(tmp_path / "run" / "value.pt")
    assert isinstance(value, ValueNet) and value.kwargs["board_size"] == SIZE
    assert weights_digest(tmp_path / "run" / "value.pt") == metrics["sha256"]


def test_the_held_out_mse_falls_on_a_learnable_set(shards, tmp_path):
    metrics = run(shards, tmp_path / "run", steps=150, checkpoint_every=50, lr=3e-3)
    assert metrics["held_out_mse"] < 0.2 < 0.9 < metrics["constant_mse"]


def test_the_best_checkpoint_is_the_lowest_held_out_mse(shards, tmp_path):
    run(shards, tmp_path / "run", steps=60, checkpoint_every=10)
    best, last = (read_checkpoint(tmp_path / "run" / "checkpoints" / name) for name in ("best.pt", "last.pt"))
    best_mse, last_mse = (json.loads(checkpoint["held_out"])["mse"] for checkpoint in (best, last))
    assert best["best"] == -best_mse and best_mse <= last_mse


def test_policy_shards_are_refused(tmp_path):
    write_shards(tmp_path / "policy", np.zeros((20, 48, SIZE, SIZE), np.uint8), np.ones(20))
    with pytest.raises(ValueError, match="48 planes, not the network's 49: goarena data value writes"):
        run(tmp_path / "policy", tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_bad_options_are_refused_before_anything_is_written(shards, tmp_path):
    for changes in ({"held_out": 0.0}, {"lr": -1.0}, {"hidden": 0}, {"lr_schedule": "step"}):
        with pytest.raises(ValueError, match=next(iter(changes))):
            run(shards, tmp_path / "run", **changes)
    assert not (tmp_path / "run").exists()


def command(shards, directory, *extra):
    options = ["--data", str(shards), "--run", str(directory), "--layers", "2", "--filters", "4"]
    options += ["--hidden", "16", "--batch-size", "16", "--held-out", "0.2", "--no-progress", *extra]
    return options


@pytest.mark.slow
def test_training_resumes_after_kill_9_with_the_same_final_weights(shards, tmp_path):
    steps = ["--steps", "300", "--checkpoint-every", "25"]
    last = tmp_path / "killed" / "checkpoints" / "last.pt"
    entry = "import sys; from goarena.agents.training.value import main; main(sys.argv[1:])"
    cli = [sys.executable, "-c", entry, *command(shards, tmp_path / "killed", *steps)]
    process = subprocess.Popen(cli, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        while not last.exists() and process.poll() is None:
            time.sleep(0.01)
        os.kill(process.pid, signal.SIGKILL)
    finally:
        _, errors = process.communicate()
    assert process.returncode == -signal.SIGKILL, errors.decode()
    assert read_checkpoint(last)["step"] < 300  # killed mid-run

    main(command(shards, tmp_path / "killed", *steps))
    main(command(shards, tmp_path / "whole", *steps))
    for name in ("value.pt", "checkpoints/last.pt", "checkpoints/best.pt"):
        assert weights_digest(tmp_path / "killed" / name) == weights_digest(tmp_path / "whole" / name)


def test_the_command_prints_the_held_out_mse(shards, tmp_path, capsys):
    main(command(shards, tmp_path / "run", "--steps", "20", "--checkpoint-every", "10"))
    out = capsys.readouterr().out
    assert "held-out" in out and "MSE" in out and "best constant" in out and "value.pt" in out
