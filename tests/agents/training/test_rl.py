import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace

import numpy as np
import pytest
import torch

from go_env import Game, Rules
from go_env.features.alphago import game_planes
from goarena.agents.nets.checkpoint import (
    CheckpointError,
    load_model,
    read_checkpoint,
    save_model,
    weights_digest,
)
from goarena.agents.nets.policy import PolicyNet
from goarena.agents.protocols import GameContext
from goarena.agents.specs import builtin_factory, check_spec, make_agent
from goarena.agents.training.loop import RunConfigError
from goarena.agents.training.rl import RLConfig, RLJob, SelfPlay, play_games, reinforce_step, train_rl
from goarena.agents.weights import RL_POLICY_9X9

SIZE = 5
PASS = SIZE * SIZE
RL_PLAYER = "rl-policy"


@pytest.fixture(scope="module")
def initial(tmp_path_factory):
    """A small untrained 5x5 policy network: it plays legal moves at random, more or less."""
    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("nets") / "initial.pt"
    save_model(path, PolicyNet(SIZE, layers=2, filters=4))
    return path


@pytest.fixture(scope="module")
def passer():
    """A network that passes whatever the position."""
    net = PolicyNet(SIZE, layers=2, filters=4)
    with torch.no_grad():
        net.pass_head.bias.fill_(50.0)
    return net


def config(initial, **changes) -> RLConfig:
    tiny = RLConfig(
        initial=str(initial),
        games=8,
        iterations=6,
        lr=0.05,
        snapshot_every=2,
        eval_games=8,
        checkpoint_every=3,
        log_every=1,
    )
    return replace(tiny, **changes)


def run(initial, directory, **changes):
    return train_rl(config(initial, **changes), directory, threads=1, progress=False)


def log_p(model: PolicyNet, play: SelfPlay) -> np.ndarray:
    with torch.no_grad():
        logits = model(torch.as_tensor(play.planes, dtype=torch.float32))
        logits = logits.masked_fill(~torch.as_tensor(play.legal), -torch.inf)
        chosen = torch.log_softmax(logits, dim=1).gather(1, torch.as_tensor(play.moves)[:, None])
    return chosen[:, 0].numpy()


def test_reinforce_raises_the_winners_moves_and_lowers_the_losers():
    """Two games from the same position: the winner played the centre, the loser a corner."""
    torch.manual_seed(1)
    model = PolicyNet(SIZE, layers=2, filters=4)
    planes = np.stack([game_planes(Game(SIZE))] * 2)
    legal = np.stack([Game(SIZE).legal_mask().astype(bool)] * 2)
    play = SelfPlay(
        outcomes=np.array([1.0, -1.0]),
        lengths=np.array([1, 1]),
        truncated=np.zeros(2, bool),
        planes=planes,
        moves=np.array([12, 0]),
        legal=legal,
        games=np.array([0, 1]),
    )
    advantages = play.outcomes[play.games]
    before = log_p(model, play)
    loss = reinforce_step(model, torch.optim.SGD(model.parameters(), lr=0.1), play, advantages)
    after = log_p(model, play)
    assert loss == pytest.approx(-(advantages * before).mean(), rel=1e-5)
    assert after[0] > before[0] + 0.01  # the winner's move is likelier
    assert after[1] < before[1] - 0.01  # the loser's less likely


def test_outcomes_are_the_learners_and_its_moves_are_recorded(initial, passer):
    """The learner passes at once in every game: White wins on komi, so the learner loses as
    Black (the first half) and wins as White."""
    play = play_games(passer, passer, 4, Rules(komi=7.0), seed=0)
    assert play.outcomes.tolist() == [-1, -1, 1, 1]
    assert play.lengths.tolist() == [2, 2, 2, 2] and not play.truncated.any()
    assert play.moves.tolist() == [PASS] * 4  # one move of the learner in each game
    assert sorted(play.games.tolist()) == [0, 1, 2, 3]
    assert play.win_rate == 0.5

    net = load_model(initial)
    play = play_games(net, passer, 6, Rules(komi=7.0), seed=3)
    assert play.legal[np.arange(len(play.moves)), play.moves].all()
    assert play.planes.shape == (len(play.moves), 48, SIZE, SIZE)
    # In each game the learner made half the moves: Black all odd-numbered ones, White the rest.
    counts = np.bincount(play.games, minlength=6)
    assert counts.tolist() == [(length + (b < 3)) // 2 for b, length in enumerate(play.lengths)]


def test_a_run_leaves_its_weights_pool_checkpoints_logs_and_metrics(initial, tmp_path):
    metrics = run(initial, tmp_path / "run")
    root = tmp_path / "run"
    files = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}
    pool = {f"pool/iteration-{i:06d}.pt" for i in (0, 2, 4, 6)}
    outputs = {"config.json", "metrics.json", "policy.pt", "checkpoints/last.pt", "checkpoints/best.pt"}
    assert outputs | pool <= files
    assert {name for name in files if name.startswith("pool/")} == pool
    assert any(name.startswith("tensorboard/events.out.tfevents") for name in files)
    assert json.loads((root / "metrics.json").read_text()) == metrics
    assert metrics["step"] in (3, 6) and metrics["pool"] == 4 and metrics["eval_games"] == 8
    assert 0 <= metrics["held_out"]["win_rate"] <= 1
    assert weights_digest(root / "policy.pt") == metrics["sha256"]
    assert isinstance(load_model(root / "policy.pt"), PolicyNet)
    # The pool: the initial network first, then the learner as it stood at each snapshot.
    assert weights_digest(root / "pool/iteration-000000.pt") == weights_digest(initial)
    assert weights_digest(root / "pool/iteration-000006.pt") == weights_digest(root / "checkpoints/last.pt")
    assert weights_digest(root / "pool/iteration-000002.pt") != weights_digest(initial)  # it learned


def test_the_pool_grows_on_schedule_and_a_new_job_reads_it_back(initial, tmp_path):
    run(initial, tmp_path / "run")
    job = RLJob(load_model(initial), config(initial), tmp_path / "run" / "pool")
    assert [job.pool(step) for step in (0, 1, 2, 3, 4, 5)] == [[0], [0], [0, 2], [0, 2], [0, 2, 4], [0, 2, 4]]
    opponent = job.opponent(4)
    saved = read_checkpoint(tmp_path / "run" / "pool" / "iteration-000004.pt")["state_dict"]
    for name, tensor in opponent.state_dict().items():
        assert torch.equal(tensor, saved[name])


def test_same_seed_same_weights_another_seed_others(initial, tmp_path):
    first = run(initial, tmp_path / "a", iterations=2, checkpoint_every=2)["sha256"]
    assert run(initial, tmp_path / "b", iterations=2, checkpoint_every=2)["sha256"] == first
    assert run(initial, tmp_path / "c", iterations=2, checkpoint_every=2, seed=1)["sha256"] != first


def test_another_config_is_refused_naming_what_differs(initial, tmp_path):
    run(initial, tmp_path / "run", iterations=2, checkpoint_every=2)
    with pytest.raises(RunConfigError, match=r"lr: 0\.05 -> 0\.1"):
        run(initial, tmp_path / "run", iterations=2, checkpoint_every=2, lr=0.1)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"games": 7}, "games must be even"),
        ({"eval_games": 0}, "eval_games must be positive"),
        ({"iterations": 0}, "iterations must be positive"),
        ({"snapshot_every": -1}, "snapshot_every must be positive"),
        ({"lr": 0.0}, "lr must be positive"),
        ({"temperature": 0.0}, "temperature must be positive"),
        ({"temperature": float("inf")}, "temperature must be positive and finite"),
        ({"baseline": "median"}, "baseline is one of mean, none"),
        ({"komi": 7.25}, "komi must be a multiple of 0.5"),
    ],
)
def test_bad_config_values_are_refused(initial, changes, message):
    with pytest.raises(ValueError, match=message):
        config(initial, **changes)


def test_bad_runs_are_refused_before_anything_is_written(initial, tmp_path):
    with pytest.raises(CheckpointError, match="no checkpoint file"):
        run(tmp_path / "absent.pt", tmp_path / "run")
    with pytest.raises(ValueError, match="threads must be positive"):
        train_rl(config(initial), tmp_path / "run", threads=0)
    assert not (tmp_path / "run").exists()


def command(initial, directory):
    return [
        *("--initial", str(initial), "--run", str(directory)),
        *("--games", "8", "--eval-games", "8", "--iterations", "40", "--snapshot-every", "3"),
        *("--checkpoint-every", "4", "--lr", "0.05", "--threads", "1", "--no-progress"),
    ]


@pytest.mark.slow
def test_training_resumes_after_kill_9_with_the_same_final_weights(initial, tmp_path):
    from goarena.agents.training.rl import main

    last = tmp_path / "killed" / "checkpoints" / "last.pt"
    script = f"from goarena.agents.training.rl import main; main({command(initial, tmp_path / 'killed')!r})"
    process = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        while not last.exists() and process.poll() is None:
            time.sleep(0.01)
        os.kill(process.pid, signal.SIGKILL)
    finally:
        _, errors = process.communicate()
    assert process.returncode == -signal.SIGKILL, errors.decode()
    assert read_checkpoint(last)["step"] < 40  # killed mid-run

    main(command(initial, tmp_path / "killed"))
    main(command(initial, tmp_path / "whole"))
    names = ["policy.pt", "checkpoints/last.pt", "checkpoints/best.pt"]
    names += [f"pool/iteration-{i:06d}.pt" for i in range(0, 40, 3)]
    for name in names:
        assert weights_digest(tmp_path / "killed" / name) == weights_digest(tmp_path / "whole" / name), name


def test_the_rl_player_plays_the_exported_weights(initial, tmp_path):
    run(initial, tmp_path / "run", iterations=2, checkpoint_every=2)
    weights = tmp_path / "run" / "policy.pt"
    player = make_agent(f"{RL_PLAYER}:weights={weights},temperature=1.0", seed=4)
    assert isinstance(player, builtin_factory("rl-policy")) and player.name == "rl-policy"
    assert player.weights_digest() == weights_digest(weights)
    game = Game(SIZE)
    while not game.is_over:
        move = player.select_move(game)
        assert game.legal_mask()[move], (move, str(game))
        game.play(move)


def test_the_rl_player_plays_the_shipped_weights_by_default():
    player = make_agent(RL_PLAYER)
    assert player.weights_digest() == weights_digest(RL_POLICY_9X9)
    assert player.weights_digest() != make_agent("sl-policy").weights_digest()
    check_spec(RL_PLAYER, GameContext(9, Rules()))  # the board it plays: tests/benchmarks/league/test_play.py
