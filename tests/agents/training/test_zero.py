"""goarena train zero: self-play rounds, the loss, generations, resume after kill -9, refusals."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from goarena.agents.nets.checkpoint import load_model, read_checkpoint, weights_digest
from goarena.agents.nets.zero import ZeroNet
from goarena.agents.training.loop import RunConfigError
from goarena.agents.training.replay import ReplayBuffer
from goarena.agents.training.zero import LossWeights, ZeroConfig, train_zero, zero_loss

TINY = dict(size=5, komi=0.5, blocks=1, filters=8, games=4, shards=2, simulations=4, cheap_simulations=2,
            updates=2, batch_size=16, generation_every=2)  # fmt: skip


def config(**changes: object) -> ZeroConfig:
    return ZeroConfig(**{**TINY, "rounds": 4, **changes})  # type: ignore[arg-type]


def test_a_run_writes_chunks_generations_and_the_exported_network(tmp_path: Path):
    metrics = train_zero(config(), tmp_path / "run", progress=False)
    run = tmp_path / "run"
    assert sorted(p.name for p in (run / "buffer").iterdir()) == [f"chunk-0000000{i}" for i in range(4)]
    generations = json.loads((run / "generations.json").read_text())
    assert [(g["generation"], g["step"], g["games"]) for g in generations] == [
        (0, 0, 0),
        (1, 2, 8),
        (2, 4, 16),
    ]
    assert all((run / g["weights"]).is_file() for g in generations)
    assert metrics["generations"] == 3 and metrics["games"] == 16
    assert weights_digest(run / "zero.pt") == weights_digest(run / "generations" / "gen-0002.pt")
    assert read_checkpoint(run / "checkpoints" / "last.pt")["step"] == 4


@pytest.mark.parametrize("search", ["puct", "gumbel"])
def test_self_play_records_targets_outcomes_and_ownership(tmp_path: Path, search: str):
    train_zero(config(rounds=1, search=search), tmp_path / "run", progress=False)
    chunk = ReplayBuffer(tmp_path / "run" / "buffer", 100).chunks(0)[0]
    assert len(chunk) > 0
    assert np.allclose(np.asarray(chunk.policy).sum(axis=1), 1.0, atol=1e-5)
    assert set(np.unique(chunk.value)) <= {-1, 0, 1}
    owned = np.asarray(chunk.owned)
    assert set(np.unique(np.asarray(chunk.ownership)[owned])) <= {-1, 0, 1}
    assert (np.asarray(chunk.ownership)[~owned] == 0).all()
    games, moves = np.asarray(chunk.game), np.asarray(chunk.move_number)
    for game in np.unique(games):  # every move of a game recorded, in order (full searches only)
        assert moves[games == game].tolist() == list(range((games == game).sum()))


def test_self_play_with_tree_reuse_records_the_same_targets_for_fewer_evaluations():
    from go_env import Rules
    from goarena.agents.training.selfplay import SelfPlaySettings, play_selfplay

    torch.manual_seed(0)
    model = ZeroNet(5, blocks=1, filters=8).eval()
    played = {}
    for reuse in (False, True):
        settings = SelfPlaySettings(search="puct", simulations=24, resign_value=0.0, tree_reuse=reuse)
        played[reuse] = play_selfplay(model, 8, Rules(komi=0.5, scoring="area"), settings, seed=1)
        games = played[reuse]
        assert np.allclose(games.policy.sum(axis=1), 1.0, atol=1e-5)
        assert games.policy.shape[0] == games.lengths.sum()  # every move recorded
    assert played[True].evaluations < 0.9 * played[False].evaluations * (
        played[True].lengths.sum() / played[False].lengths.sum()
    )
    with pytest.raises(ValueError, match="tree_reuse"):
        SelfPlaySettings(search="gumbel", tree_reuse=True)


@pytest.mark.parametrize("every_head", [False, True])
def test_the_loss_falls_on_a_fixed_batch(every_head: bool):
    torch.manual_seed(0)
    model = ZeroNet(5, blocks=1, filters=8, rules_input=every_head, score_head=every_head)
    rng = np.random.default_rng(0)
    planes = rng.integers(0, 2, (32, model.planes, 5, 5)).astype(np.int8)
    planes[:, 17:] = rng.integers(-20, 20, (32, model.planes - 17, 1, 1))  # constant rules planes
    batch = {
        "planes": planes,
        "policy": np.eye(26, dtype=np.float32)[rng.integers(0, 26, 32)],
        "value": rng.choice([-1, 1], 32).astype(np.int8),
        "ownership": rng.choice([-1, 1], (32, 25)).astype(np.int8),
        "owned": np.ones(32, bool),
        "root_value": rng.uniform(-1, 1, 32).astype(np.float32),
        "searched": np.ones(32, bool),
        "score": rng.normal(0, 5, 32).astype(np.float32),
        "scored": rng.random(32) < 0.8,
    }
    weights = LossWeights(ownership=1.5, score=0.5, root_value=0.5)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    first = zero_loss(model, batch, weights)
    assert ("score_loss" in first) == every_head
    for _ in range(50):
        optimizer.zero_grad()
        zero_loss(model, batch, weights)["loss"].backward()
        optimizer.step()
    last = zero_loss(model, batch, weights)
    assert last["loss"].item() < 0.5 * first["loss"].item()
    if every_head:
        assert last["score_loss"].item() < 0.5 * first["score_loss"].item()


def test_the_value_target_mixes_the_outcome_with_the_root_value_where_it_was_recorded():
    model = ZeroNet(5, blocks=1, filters=8)
    batch = {
        "planes": np.zeros((2, 17, 5, 5), np.int8),
        "policy": np.full((2, 26), 1 / 26, np.float32),
        "value": np.array([1, 1], np.int8),
        "ownership": np.zeros((2, 25), np.int8),
        "owned": np.zeros(2, bool),
        "root_value": np.array([-1.0, -1.0], np.float32),
        "searched": np.array([True, False]),
    }
    with torch.no_grad():
        v = model(torch.zeros(2, 17, 5, 5)).value.numpy()
    outcome_only = zero_loss(model, batch, LossWeights(root_value=0.0))["value_loss"].item()
    mixed = zero_loss(model, batch, LossWeights(root_value=0.25))["value_loss"].item()
    assert outcome_only == pytest.approx(np.mean((v - 1.0) ** 2), abs=1e-5)
    assert mixed == pytest.approx(((v[0] - 0.5) ** 2 + (v[1] - 1.0) ** 2) / 2, abs=1e-5)


def test_a_changed_config_is_refused_and_writes_nothing(tmp_path: Path):
    train_zero(config(rounds=1), tmp_path / "run", progress=False)
    before = sorted(p.name for p in (tmp_path / "run").rglob("*"))
    with pytest.raises(RunConfigError, match="simulations"):
        train_zero(config(rounds=1, simulations=8), tmp_path / "run", progress=False)
    assert sorted(p.name for p in (tmp_path / "run").rglob("*")) == before


def test_a_finished_run_extended_with_more_rounds_goes_on_as_one_long_run(tmp_path: Path):
    train_zero(config(rounds=2), tmp_path / "extended", progress=False)
    metrics = train_zero(config(rounds=4), tmp_path / "extended", progress=False)
    train_zero(config(rounds=4), tmp_path / "straight", progress=False)
    assert metrics["games"] == 16
    assert json.loads((tmp_path / "extended" / "config.json").read_text())["rounds"] == 4
    extended, straight = (weights_digest(tmp_path / name / "zero.pt") for name in ("extended", "straight"))
    assert extended == straight
    with pytest.raises(RunConfigError, match="rounds"):  # a run does not shrink
        train_zero(config(rounds=3), tmp_path / "extended", progress=False)


def test_a_run_begun_before_an_option_existed_resumes_with_it_at_its_default(tmp_path: Path):
    train_zero(config(rounds=1), tmp_path / "run", progress=False)
    saved = json.loads((tmp_path / "run" / "config.json").read_text())
    del saved["tree_reuse"]  # as a run written before the option was added
    (tmp_path / "run" / "config.json").write_text(json.dumps(saved))
    with pytest.raises(RunConfigError, match="tree_reuse: None -> True"):
        train_zero(config(rounds=2, search="puct", tree_reuse=True), tmp_path / "run", progress=False)
    assert train_zero(config(rounds=2), tmp_path / "run", progress=False)["games"] == 8
    assert json.loads((tmp_path / "run" / "config.json").read_text())["tree_reuse"] is False


BEFORE_KOMI = {"rules_input": False, "score_head": False, "komi_sd": 0.0, "root_value_weight": 0.0}


def test_a_run_begun_before_the_komi_input_resumes_as_it_began(tmp_path: Path):
    """A run whose config.json predates the komi input, the score head and their training
    goes on with a 17-plane network, not the new defaults (which could not load it)."""
    train_zero(config(rounds=1, precision="float32", **BEFORE_KOMI), tmp_path / "run", progress=False)
    saved = json.loads((tmp_path / "run" / "config.json").read_text())
    for key in [*BEFORE_KOMI, "precision"]:
        del saved[key]
    (tmp_path / "run" / "config.json").write_text(json.dumps(saved))
    assert train_zero(config(rounds=2), tmp_path / "run", progress=False)["games"] == 8
    resumed = json.loads((tmp_path / "run" / "config.json").read_text())
    assert {key: resumed[key] for key in [*BEFORE_KOMI, "precision"]} == {
        **BEFORE_KOMI,
        "precision": "float32",
    }
    assert load_model(tmp_path / "run" / "zero.pt").planes == 17
    assert train_zero(config(rounds=3), tmp_path / "run", progress=False)["games"] == 12  # and again
    with pytest.raises(RunConfigError, match=r"root_value_weight: 0\.0 -> 0\.25"):  # a new value: refused
        train_zero(config(rounds=4, root_value_weight=0.25), tmp_path / "run", progress=False)


@pytest.mark.parametrize("bad", [{"games": 5}, {"search": "alphabeta"}, {"resign_value": 1.5}])
def test_bad_options_are_refused(bad: dict):
    with pytest.raises(ValueError):
        config(**bad)


def test_a_corrupt_chunk_is_named_and_skipped(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    train_zero(config(rounds=2), tmp_path / "run", progress=False)
    buffer = tmp_path / "run" / "buffer"
    values = buffer / "chunk-00000000" / "value.npy"
    data = bytearray(values.read_bytes())
    data[-1] ^= 0xFF
    values.write_bytes(bytes(data))
    capsys.readouterr()
    chunks = ReplayBuffer(buffer, 100).chunks(1)
    assert [chunk.step for chunk in chunks] == [1]
    # One clean line naming the file and the cause: no warning's source line, no traceback.
    assert capsys.readouterr().err == (
        f"goarena: skipping a corrupt replay chunk: {values}: garbled: its sha256 is not the one "
        "in digest.json\n"
    )


def command(directory: Path) -> list[str]:
    options = [f"--{key.replace('_', '-')}={value}" for key, value in {**TINY, "rounds": 8}.items()]
    return [*options, "--run", str(directory), "--threads", "1", "--no-progress"]


@pytest.mark.slow
def test_resumes_after_kill_9_with_no_game_lost_or_counted_twice(tmp_path: Path):
    """Killed mid-run and started again, the run ends with the weights, buffer and generations
    of a run that never stopped."""
    from goarena.agents.training.zero import main

    killed, whole = tmp_path / "killed", tmp_path / "whole"
    last = killed / "checkpoints" / "last.pt"
    script = f"from goarena.agents.training.zero import main; main({command(killed)!r})"
    process = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        while process.poll() is None:
            if last.exists() and read_checkpoint(last)["step"] >= 3:
                break
            time.sleep(0.05)
        os.kill(process.pid, signal.SIGKILL)
    finally:
        _, errors = process.communicate()
    assert process.returncode == -signal.SIGKILL, errors.decode()
    assert 3 <= read_checkpoint(last)["step"] < 8  # killed mid-run

    main(command(killed))
    main(command(whole))
    names = ["zero.pt", "checkpoints/last.pt"] + [f"generations/gen-{g:04d}.pt" for g in range(5)]
    for name in names:
        assert weights_digest(killed / name) == weights_digest(whole / name), name
    for run in (killed, whole):
        assert sorted(p.name for p in (run / "buffer").iterdir()) == [f"chunk-{s:08d}" for s in range(8)]
    for step in range(8):
        a = (killed / "buffer" / f"chunk-{step:08d}" / "digest.json").read_text()
        assert a == (whole / "buffer" / f"chunk-{step:08d}" / "digest.json").read_text(), step
    generations = [json.loads((run / "generations.json").read_text()) for run in (killed, whole)]
    assert [g["games"] for g in generations[0]] == [g["games"] for g in generations[1]] == [0, 8, 16, 24, 32]


def chunk_digests(run: Path) -> list[str]:
    return [(path / "digest.json").read_text() for path in sorted((run / "buffer").glob("chunk-*"))]


@pytest.mark.slow
def test_worker_processes_play_the_same_games(tmp_path: Path):
    train_zero(config(rounds=2), tmp_path / "here", progress=False)
    train_zero(config(rounds=2), tmp_path / "workers", workers=2, progress=False)
    assert chunk_digests(tmp_path / "here") == chunk_digests(tmp_path / "workers")


@pytest.mark.slow
def test_a_ray_run_of_a_few_generations(tmp_path: Path):
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'goarena[ray]')")
    try:
        metrics = train_zero(config(rounds=4), tmp_path / "run", ray="auto", workers=2, progress=False)
    finally:
        ray.shutdown()
    assert metrics["generations"] == 3
    train_zero(config(rounds=4), tmp_path / "here", progress=False)
    assert chunk_digests(tmp_path / "run") == chunk_digests(tmp_path / "here")


def test_self_play_draws_each_games_komi_and_records_its_margin_for_the_side_to_move():
    from go_env import Rules
    from goarena.agents.training.selfplay import SelfPlaySettings, play_selfplay

    torch.manual_seed(0)
    model = ZeroNet(5, blocks=1, filters=8, rules_input=True, score_head=True).eval()
    settings = SelfPlaySettings(simulations=4, resign_value=0.0, komi_sd=3.0, precision="float32")
    games = play_selfplay(model, 8, Rules(komi=7, scoring="area"), settings, seed=3)
    assert len(set(games.komi.tolist())) > 2 and (2 * games.komi == np.round(2 * games.komi)).all()
    assert games.planes.shape[1] == 19
    first = np.flatnonzero(games.move_number == 0)  # Black to move, giving the game's komi
    np.testing.assert_array_equal(games.planes[first, 17, 0, 0], -2 * games.komi[games.game[first]])
    assert games.owned.all()  # no resignation: every margin known
    np.testing.assert_array_equal(np.sign(games.score), games.value)  # the margin decides the game
    black = games.planes[:, 16, 0, 0] == 1
    margins = np.where(black, games.score, -games.score)  # Black's, the same along a game
    for game in np.unique(games.game):
        assert len(set(margins[games.game == game].tolist())) == 1
    assert games.root_value.shape == games.value.shape and (np.abs(games.root_value) <= 1).all()


def test_self_play_in_bfloat16_plays_a_bfloat16_copy_and_leaves_the_network_alone():
    from go_env import Rules
    from goarena.agents.training.selfplay import SelfPlaySettings, play_selfplay

    model = ZeroNet(5, blocks=1, filters=8).eval()
    settings = SelfPlaySettings(simulations=4, precision="bfloat16")
    games = play_selfplay(model, 4, Rules(komi=0.5, scoring="area"), settings, seed=1)
    assert len(games) > 0 and next(model.parameters()).dtype == torch.float32
    with pytest.raises(ValueError, match="precision"):
        SelfPlaySettings(precision="float16")


def test_a_chunk_written_before_the_score_and_root_value_samples_them_as_unknown(tmp_path: Path):
    train_zero(config(rounds=1), tmp_path / "run", progress=False)
    chunk = next((tmp_path / "run" / "buffer").iterdir())
    digests = json.loads((chunk / "digest.json").read_text())
    for field in ("score", "root_value"):
        (chunk / f"{field}.npy").unlink()
        digests.pop(field)
    (chunk / "digest.json").write_text(json.dumps(digests))
    batch = ReplayBuffer(tmp_path / "run" / "buffer", 100).sample(0, 8, np.random.default_rng(0))
    assert batch is not None
    assert not batch["scored"].any() and not batch["searched"].any()
    assert (batch["score"] == 0).all() and (batch["root_value"] == 0).all()


def test_calibration_compares_each_bins_prediction_with_the_share_won():
    from goarena.agents.training.zero import calibration

    values = np.array([-0.9, -0.9, 0.0, 0.0, 0.9, 0.9, 0.9, 0.9])  # p 0.05, 0.5, 0.95
    outcomes = np.array([-1, 1, 1, 0, 1, 1, 1, -1])
    error, rows = calibration(values, outcomes, buckets=10)
    assert [(row["low"], row["positions"]) for row in rows] == [(0.0, 2), (0.5, 2), (0.9, 4)]
    assert [row["won"] for row in rows] == [0.5, 0.75, 0.75]
    assert error == pytest.approx((2 * 0.45 + 2 * 0.25 + 4 * 0.2) / 8)
    assert calibration(values, np.sign(values) + (values == 0), buckets=2)[0] < error


def test_a_run_started_from_an_older_network_begins_playing_as_it(tmp_path: Path):
    from goarena.agents.nets.checkpoint import load_model, save_model

    torch.manual_seed(5)
    old = ZeroNet(5, blocks=1, filters=8)
    save_model(tmp_path / "old.pt", old)
    train_zero(config(rounds=1, init=str(tmp_path / "old.pt")), tmp_path / "run", progress=False)
    start = load_model(tmp_path / "run" / "generations" / "gen-0000.pt")
    assert start.heads == ("policy", "value", "ownership", "score")
    planes = torch.zeros(2, 19, 5, 5)
    planes[:, :17] = torch.randint(0, 2, (2, 17, 5, 5)).float()
    planes[:, 17] = 7
    with torch.no_grad():
        torch.testing.assert_close(start(planes).logits, old.eval()(planes[:, :17]).logits)
    with pytest.raises(ValueError, match="do not fit"):
        train_zero(
            config(rounds=1, filters=4, init=str(tmp_path / "old.pt")), tmp_path / "other", progress=False
        )


def test_the_command_line_turns_the_new_network_off_and_the_komi_draws_need_it():
    from goarena.agents.training.config import config_from_args
    from goarena.agents.training.zero import COMMAND

    args = COMMAND.parser().parse_args(
        ["--run", "r", "--no-rules-input", "--no-score-head", "--komi-sd", "0"]
    )
    made = config_from_args(ZeroConfig, args)
    assert (made.rules_input, made.score_head, made.init) == (False, False, None)
    assert config_from_args(ZeroConfig, COMMAND.parser().parse_args(["--run", "r"])).rules_input
    with pytest.raises(ValueError, match="rules_input"):
        config(rules_input=False, komi_sd=2.0)


def test_the_empty_boards_win_rate_moves_with_the_komi_only_for_a_network_that_reads_it():
    from goarena.agents.training.zero import empty_board_win_rates

    torch.manual_seed(1)
    blind = ZeroNet(5, blocks=1, filters=8).eval()
    reading = ZeroNet(5, blocks=1, filters=8, rules_input=True, score_head=True).eval()
    torch.nn.init.normal_(reading.rules_input.weight, std=2.0)
    komis = [24.5, 25.5]
    rates = empty_board_win_rates(reading, komis)
    planes = torch.zeros(2, 19, 5, 5)
    planes[:, 16] = 1  # Black to move
    planes[:, 17] = torch.tensor([-49.0, -51.0])[:, None, None]  # Black gives the komi
    with torch.no_grad():
        np.testing.assert_allclose(rates, (1 + reading(planes).value.numpy()) / 2, atol=1e-6)
    assert rates[0] != rates[1] and ((rates > 0) & (rates < 1)).all()
    assert len(set(empty_board_win_rates(blind, komis).tolist())) == 1
