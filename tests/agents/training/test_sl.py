import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import replace

import numpy as np
import pytest
import torch

from go_env import Game
from go_env.sgf import save_sgf
from goarena.agents.data.dataset import ShardDataset
from goarena.agents.data.shards import build_shards
from goarena.agents.nets.checkpoint import load_model, read_checkpoint, weights_digest
from goarena.agents.nets.policy import PolicyNet
from goarena.agents.nets.predict import resolve_device
from goarena.agents.training.loop import EpochSampler, RunConfigError, cosine_lr
from goarena.agents.training.sl import SLConfig, main, train_sl

SIZE = 5


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    """Shards of 16 random 5x5 games (about 600 positions)."""
    root = tmp_path_factory.mktemp("data")
    rng = np.random.default_rng(0)
    (root / "sgf").mkdir()
    for index in range(16):
        game = Game(SIZE)
        while not game.is_over:
            game.play(int(rng.choice(game.legal_moves())))
        save_sgf(root / "sgf" / f"{index}.sgf", game)
    build_shards(root / "sgf", root / "shards", size=SIZE)
    return root / "shards"


def config(shards, **changes) -> SLConfig:
    tiny = SLConfig(
        data=str(shards),
        layers=3,
        filters=8,
        steps=40,
        batch_size=16,
        held_out=0.2,
        checkpoint_every=20,
        log_every=10,
    )
    return replace(tiny, **changes)


def run(shards, directory, **changes):
    return train_sl(config(shards, **changes), directory, threads=1, progress=False)


def test_a_run_leaves_its_weights_checkpoints_logs_and_metrics(shards, tmp_path):
    metrics = run(shards, tmp_path / "run")
    files = {p.relative_to(tmp_path / "run").as_posix() for p in (tmp_path / "run").rglob("*") if p.is_file()}
    assert {"config.json", "metrics.json", "policy.pt", "checkpoints/last.pt", "checkpoints/best.pt"} <= files
    assert any(name.startswith("tensorboard/events.out.tfevents") for name in files)
    assert json.loads((tmp_path / "run" / "metrics.json").read_text()) == metrics
    held_out = ShardDataset(shards).split_by_game(0.2, 0)[1]
    assert metrics["held_out_positions"] == len(held_out)
    assert 0 <= metrics["held_out"]["top1"] <= metrics["held_out"]["top5"] <= 1
    assert metrics["step"] in (20, 40)
    policy = load_model(tmp_path / "run" / "policy.pt")
    assert isinstance(policy, PolicyNet) and policy.kwargs["board_size"] == SIZE
    assert weights_digest(tmp_path / "run" / "policy.pt") == metrics["sha256"]


def test_training_lowers_the_loss_on_the_training_games(shards, tmp_path):
    """Twelve games, seen again and again: a network that learns fits them."""
    run(shards, tmp_path / "run", steps=120, checkpoint_every=120, lr=3e-3)
    data = ShardDataset(shards)
    train = data.split_by_game(0.2, 0)[0]
    batch = data.batch(train)
    planes, moves = torch.as_tensor(batch.planes), torch.as_tensor(batch.moves)
    untrained = torch.nn.functional.cross_entropy(PolicyNet(SIZE, layers=3, filters=8)(planes), moves)
    trained = torch.nn.functional.cross_entropy(load_model(tmp_path / "run" / "policy.pt")(planes), moves)
    assert trained < untrained - 0.3


def test_same_seed_same_weights_another_seed_others(shards, tmp_path):
    first = run(shards, tmp_path / "a")["sha256"]
    assert run(shards, tmp_path / "b")["sha256"] == first
    assert run(shards, tmp_path / "c", seed=1)["sha256"] != first


def test_a_finished_run_is_not_trained_again(shards, tmp_path):
    first = run(shards, tmp_path / "run")
    last = (tmp_path / "run" / "checkpoints" / "last.pt").stat().st_mtime_ns
    assert run(shards, tmp_path / "run") == first
    assert (tmp_path / "run" / "checkpoints" / "last.pt").stat().st_mtime_ns == last


def test_another_config_is_refused_naming_what_differs(shards, tmp_path):
    run(shards, tmp_path / "run")
    saved = (tmp_path / "run" / "config.json").read_text()
    with pytest.raises(RunConfigError, match=r"lr: 0\.001 -> 0\.01, steps: 40 -> 50"):
        run(shards, tmp_path / "run", lr=0.01, steps=50)
    assert (tmp_path / "run" / "config.json").read_text() == saved


def test_bad_options_are_refused_before_anything_is_written(shards, tmp_path):
    for changes in ({"held_out": 0.0}, {"lr": -1.0}, {"layers": 0}, {"lr_schedule": "step"}):
        with pytest.raises(ValueError, match=next(iter(changes))):
            run(shards, tmp_path / "run", **changes)
    with pytest.raises(ValueError, match="no shards"):
        run(tmp_path / "nothing", tmp_path / "run")
    with pytest.raises(ValueError, match="holds out no game"):
        run(shards, tmp_path / "run", held_out=0.01)
    with pytest.raises(ValueError, match="cannot fill a batch of 5000"):
        run(shards, tmp_path / "run", batch_size=5000)
    assert not (tmp_path / "run").exists()


def test_a_bit_flipped_target_is_refused_by_name_before_anything_is_written(shards, tmp_path, capsys):
    """The shards' files are checked when they are opened: a target one bit off is named with
    the cause, one line, no traceback, and no run directory is made."""
    copy = tmp_path / "shards"
    shutil.copytree(shards, copy)
    moves = copy / "chunk-000000-0" / "moves.npy"
    data = bytearray(moves.read_bytes())
    data[-3] ^= 0x02  # one of the last targets
    moves.write_bytes(bytes(data))
    with pytest.raises(SystemExit, match=f"^goarena train sl: {moves}: garbled: its sha256 is not the one"):
        main(command(copy, tmp_path / "run", "--steps", "4", "--checkpoint-every", "4"))
    assert not (tmp_path / "run").exists()


def command(shards, directory, *extra):
    """The options of ``goarena train sl``, which hands them to this job's ``main``."""
    options = ["--data", str(shards), "--run", str(directory), "--layers", "3", "--filters", "8"]
    options += ["--batch-size", "16", "--held-out", "0.2", "--threads", "1", "--no-progress", *extra]
    return options


# ``goarena train sl ...`` in a process of its own: the job's main with the command's options.
TRAIN_SL = "import sys; from goarena.agents.training.sl import main; main(sys.argv[1:])"


@pytest.mark.slow
def test_training_resumes_after_kill_9_with_the_same_final_weights(shards, tmp_path):
    steps = ["--steps", "200", "--checkpoint-every", "25"]
    last = tmp_path / "killed" / "checkpoints" / "last.pt"
    cli = [sys.executable, "-c", TRAIN_SL, *command(shards, tmp_path / "killed", *steps)]
    process = subprocess.Popen(cli, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        while not last.exists() and process.poll() is None:
            time.sleep(0.01)
        os.kill(process.pid, signal.SIGKILL)
    finally:
        _, errors = process.communicate()
    assert process.returncode == -signal.SIGKILL, errors.decode()
    assert read_checkpoint(last)["step"] < 200  # killed mid-run

    main(command(shards, tmp_path / "killed", *steps))
    main(command(shards, tmp_path / "whole", *steps))
    for name in ("policy.pt", "checkpoints/last.pt", "checkpoints/best.pt"):
        assert weights_digest(tmp_path / "killed" / name) == weights_digest(tmp_path / "whole" / name)


def test_the_command_prints_the_held_out_metrics(shards, tmp_path, capsys):
    main(command(shards, tmp_path / "run", "--steps", "20", "--checkpoint-every", "10"))
    out = capsys.readouterr().out
    assert "held-out" in out and "top-1" in out and "top-5" in out and "policy.pt" in out
    weights = tmp_path / "run" / "policy.pt"
    assert f"file sha256 {hashlib.sha256(weights.read_bytes()).hexdigest()};" in out  # as sha256sum says
    assert f"weights digest {weights_digest(weights)[:16]}..." in out


def test_cuda_is_refused_clearly_when_absent():
    if torch.cuda.is_available():
        pytest.skip("a GPU is present")
    with pytest.raises(ValueError, match="CUDA is not available"):
        resolve_device("cuda")
    with pytest.raises(ValueError, match="use cpu or cuda"):
        resolve_device("tpu")


def test_epochs_visit_every_position_once_in_a_seeded_order():
    sampler = EpochSampler(np.arange(10, 20), batch_size=3, seed=7)
    epoch = np.concatenate([sampler.batch(step) for step in range(3)])
    assert len(set(epoch)) == 9 and set(epoch) <= set(range(10, 20))
    again = EpochSampler(np.arange(10, 20), batch_size=3, seed=7)
    assert [again.batch(step).tolist() for step in (4, 1)] == [
        sampler.batch(4).tolist(),
        sampler.batch(1).tolist(),
    ]
    assert not np.array_equal(np.concatenate([sampler.batch(step) for step in range(3, 6)]), epoch)


def test_the_cosine_rate_falls_from_the_base_rate_to_its_floor():
    rates = [cosine_lr(0.01, step, 100) for step in range(101)]
    assert rates[0] == pytest.approx(0.01) and rates[50] == pytest.approx(0.0051)
    assert rates[100] == pytest.approx(0.0002)
    assert all(later < earlier for earlier, later in zip(rates, rates[1:], strict=False))
