import json
from dataclasses import replace

import numpy as np
import pytest
import torch

from go_env import BLACK, WHITE, Game, Rules
from go_env.batch import owners_for_mover
from goarena.agents.data.shards import FORMAT, MANIFEST, _write_json, _write_shard
from goarena.agents.nets import checkpoint
from goarena.agents.nets.checkpoint import read_checkpoint, weights_digest
from goarena.agents.nets.ownership import OwnershipNet, WinNet
from goarena.agents.training import loop
from goarena.agents.training import ownership as job_module
from goarena.agents.training.ownership import (
    OwnershipConfig,
    OwnershipJob,
    augment,
    moves_targets,
    ownership_accuracy,
    train_ownership,
    win_accuracy,
)
from goarena.agents.training.ownership_data import (
    BufferPositions,
    OwnershipBatch,
    OwnershipPositions,
    ShardPositions,
    game_ending_scores,
    open_positions,
)
from goarena.agents.training.replay import write_chunk
from goarena.agents.training.selfplay import SelfPlayGames
from tests.boards import random_records

SIZE = 5
GAMES = 12


def random_games(count: int, seed: int) -> list[list[tuple[Game, int]]]:
    return random_records(count, seed, SIZE)


def planes_of(game: Game) -> np.ndarray:
    return np.moveaxis(game.observation(), -1, 0).copy()


@pytest.fixture(scope="module")
def played():
    return random_games(GAMES, seed=1)


@pytest.fixture(scope="module")
def shards(played, tmp_path_factory):
    """A shard folder of the played games, with their final owners; every third game has none."""
    rows = {key: [] for key in ("boards", "to_play", "last_moves", "moves", "outcomes", "game_ids")}
    rows.update(ownership=[], owned=[], scores=[])
    for number, record in enumerate(played):
        final = record[-1][0]
        owners = final.area_owner().reshape(-1)
        known = number % 3 != 2
        for position, move in record[:-1]:
            mover = position.to_play
            mine = owners_for_mover(owners, np.int64(mover)) if known else np.zeros(SIZE * SIZE, np.int8)
            rows["boards"].append(position.board.reshape(-1).copy())
            rows["to_play"].append(mover)
            rows["last_moves"].append(position.last_move if position.last_move is not None else -1)
            rows["moves"].append(move)
            rows["outcomes"].append(final.outcome(mover))
            rows["game_ids"].append(number)
            rows["ownership"].append(mine)
            rows["owned"].append(known)
            rows["scores"].append(float(mine.sum()))
    dtypes = {"boards": np.int8, "to_play": np.int8, "last_moves": np.int16, "moves": np.int16,
              "outcomes": np.int8, "game_ids": np.int32, "ownership": np.int8, "owned": bool,
              "scores": np.float32}  # fmt: skip
    arrays = {key: np.array(values, dtypes[key]) for key, values in rows.items()}
    count = len(arrays["moves"])
    arrays["planes"] = np.zeros((count, 48, (SIZE * SIZE + 7) // 8), np.uint8)
    out = tmp_path_factory.mktemp("data") / "shards"
    out.mkdir()
    _write_shard(out, "chunk-000000-0", arrays)
    shard = {"name": "chunk-000000-0", "positions": count, "games": GAMES, "komi": 0.5, "rules": "goarena"}
    manifest = {"format": FORMAT, "size": SIZE, "planes": 48, "chunks": {"0": {"shards": [shard]}}}
    _write_json(out / MANIFEST, manifest)
    return out


def test_shard_positions_give_the_games_history_planes_and_owners(played, shards):
    data = open_positions(shards)
    assert isinstance(data, ShardPositions) and data.board_size == SIZE
    record = played[0]
    batch = data.fetch(np.arange(len(record) - 1))
    for t, (position, move) in enumerate(record[:-1]):
        np.testing.assert_array_equal(batch.planes[t], planes_of(position))
        assert batch.chosen[t] == move and batch.move_numbers[t] == t
    assert (batch.game_lengths == len(record) - 1).all()
    assert batch.komi_terms[0] == -0.5 and batch.komi_terms[1] == 0.5  # Black, then White to move


def test_a_games_last_position_after_a_pass_knows_its_end_game_value(played, shards):
    data = open_positions(shards)
    batch = data.fetch(np.arange(len(data)))
    ending = game_ending_scores(batch)
    last = batch.move_numbers == batch.game_lengths - 1
    assert np.isfinite(ending).sum() == batch.owned[last].sum() > 0  # every owned game ends by two passes
    np.testing.assert_array_equal(ending[np.isfinite(ending)], batch.scores[np.isfinite(ending)])
    assert not np.isfinite(ending[~last]).any()


def test_minimax_takes_the_end_games_score_for_passing_at_the_last_position(shards):
    job = OwnershipJob(open_positions(shards), config(shards, method="minimax"), torch.device("cpu"))
    job._refresh_target(0)
    for parameter in job.target.parameters():  # every child the network values is worth 0
        parameter.data.zero_()
    data = job.data
    batch = data.fetch(np.arange(len(data)))
    final = np.flatnonzero(np.isfinite(game_ending_scores(batch)))
    positions = data.fetch(final)
    with torch.no_grad():
        v = job._forward(positions.planes)
        _, gap = job.minimax_loss(v, positions, np.random.default_rng(0))
    expected = np.abs(np.maximum(positions.scores, 0) - v.sum(dim=1).numpy()).mean()
    assert float(gap) == pytest.approx(expected, rel=1e-5)


@pytest.mark.parametrize(
    ("method", "best"),
    [("end", "sign_agreement"), ("end,minimax", "sign_agreement"), ("moves", "-score_error"),
     ("minimax", "-score_error"), ("moves,minimax", "-score_error"), ("win", "win_accuracy")],
)  # fmt: skip
def test_the_best_checkpoint_is_picked_by_what_the_methods_train(shards, tmp_path, monkeypatch, method, best):
    picked = {}
    monkeypatch.setattr(
        job_module, "run_training", lambda config, run_dir, build, metric, **_: picked.update(metric=metric)
    )
    train_ownership(config(shards, method=method), tmp_path / "run")
    assert picked["metric"] == best
    assert loop.merit({"score_error": 3.0}, "-score_error") > loop.merit({"score_error": 4.0}, "-score_error")


def test_shards_without_owners_are_refused_clearly(shards, tmp_path):
    import shutil

    copy = tmp_path / "old"
    shutil.copytree(shards, copy)
    for name in ("ownership", "owned", "scores", "digest"):  # as shards built before ownership
        (copy / "chunk-000000-0" / f"{name}.{'json' if name == 'digest' else 'npy'}").unlink()
    manifest = json.loads((copy / MANIFEST).read_text())
    (copy / MANIFEST).write_text(json.dumps({**manifest, "format": 1}))
    with pytest.raises(ValueError, match="no ownership targets"):
        open_positions(copy)
    with pytest.raises(ValueError, match="neither shards"):
        open_positions(tmp_path)


def test_bit_flipped_owners_are_refused_by_name_before_anything_is_written(shards, tmp_path):
    import shutil

    copy = tmp_path / "shards"
    shutil.copytree(shards, copy)
    owners = copy / "chunk-000000-0" / "ownership.npy"
    data = bytearray(owners.read_bytes())
    data[-1] ^= 0x02  # the last point's owner: 1 -> 3, or -1 -> -3
    owners.write_bytes(bytes(data))
    with pytest.raises(SystemExit, match=f"^goarena train ownership: {owners}: garbled: its sha256 is not"):
        job_module.main(
            ["--data", str(copy), "--run", str(tmp_path / "run"), "--steps", "4", "--no-progress"]
        )
    assert not (tmp_path / "run").exists()


def test_soft_and_aggressive_targets_on_a_hand_case():
    # the children from their own mover's view (the opponent of the mover at s); P = 4
    chosen = [0.5, 0.5, 0.5, 0.5]  # V(s+i) from s's view: -2
    better = [-0.5, -0.5, 0.0, 0.9]  # V(s+j) = -(-0.1) = 0.1 > -2: broken, by 2.1
    worse = [1.0, 1.0, 1.0, 1.0]  # V(s+j) = -4: kept
    children = torch.tensor([[chosen, better, worse]])
    legal = torch.ones(1, 3, dtype=torch.bool)
    soft, broken, gap = moves_targets(children, legal, "soft")
    assert broken.tolist() == [[True, False]]
    assert gap[0, 0].item() == pytest.approx(2.1)
    # each point of s+j gains 2.1 / 4 for its mover (s's mover loses it), clipped at 1
    assert soft[0, 0].tolist() == pytest.approx([0.025, 0.025, 0.525, 1.0])
    aggressive, _, _ = moves_targets(children, legal, "aggressive")
    # min of the two ownerships from s's mover's view: max from the child's
    assert aggressive[0, 0].tolist() == pytest.approx([0.5, 0.5, 0.5, 0.9])
    legal[0, 1] = False
    assert not moves_targets(children, legal, "soft")[1].any()


class HandPositions(OwnershipPositions):
    """Four positions on a 2x2 board with given owners, scores and move numbers."""

    def __init__(self):
        self.board_size = 2
        self.ownership = np.array([[1, 1, -1, 0], [1, -1, -1, -1], [1, 1, 1, 1], [0, 0, 0, 0]], np.int8)
        self.owned = np.array([True, True, True, False])
        self.move_numbers = np.array([3, 12, 15, 0])
        self.game_ids = np.arange(4)
        self.game_lengths = np.full(4, 20)

    def fetch(self, indices):
        n = len(indices)
        planes = np.zeros((n, 17, 2, 2), np.int8)
        planes[:, 0, 0, 0] = indices  # the hand model reads the position's number here
        return OwnershipBatch(
            planes=planes,
            ownership=self.ownership[indices],
            owned=self.owned[indices],
            scores=self.ownership[indices].sum(axis=1).astype(np.float32),
            outcomes=np.zeros(n, np.float32),
            chosen=np.zeros(n, np.int64),
            komi_terms=np.zeros(n, np.float32),
            move_numbers=self.move_numbers[indices],
            game_lengths=self.game_lengths[indices],
        )


class HandModel(torch.nn.Module):
    outputs = torch.tensor(
        [[0.5, 0.2, -0.3, 0.9], [0.5, 0.5, -0.5, 0.0], [-0.5, 0.5, 0.5, 0.5], [1, 1, 1, 1.0]]
    )

    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.zeros(1))

    def forward(self, planes):
        return self.outputs[planes[:, 0, 0, 0].long()]


def test_accuracy_by_move_bucket_on_a_hand_case():
    result = ownership_accuracy(HandModel(), HandPositions(), np.arange(4))
    # position 0: 3 of 3 owned points agree, sum 1.3 against 1; position 1: 2 of 4 (0.0 is
    # wrong), sum 0.5 against -2; position 2: 3 of 4, sum 1 against 4; position 3 has no owners
    assert result["positions"] == 3 and result["points"] == 11
    assert result["sign_agreement"] == pytest.approx(8 / 11)
    assert result["score_error"] == pytest.approx((0.3 + 2.5 + 3.0) / 3)
    assert set(result["by_move"]) == {"0-10", "10-20"}
    assert result["by_move"]["0-10"] == {"sign_agreement": 1.0, "score_error": pytest.approx(0.3),
                                         "positions": 1, "points": 3}  # fmt: skip
    assert result["by_move"]["10-20"]["sign_agreement"] == pytest.approx(5 / 8)
    with pytest.raises(ValueError, match="no|none"):
        ownership_accuracy(HandModel(), HandPositions(), np.array([3]))


class HandWinModel(torch.nn.Module):
    heads = ("value",)  # a win network's: w, no ownership
    outputs = torch.tensor([0.5, -0.2, 0.0, -0.9])

    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.zeros(1))

    def forward(self, planes):
        return self.outputs[planes[:, 0, 0, 0].long()]


class HandResults(HandPositions):
    """``HandPositions`` with results: a win, a loss, a win and a draw for the side to move."""

    def fetch(self, indices):
        return replace(super().fetch(indices), outcomes=np.array([1, -1, 1, 0], np.float32)[indices])


def test_win_accuracy_by_move_bucket_on_a_hand_case():
    result = win_accuracy(HandWinModel(), HandResults(), np.arange(4))
    # w 0.5 for a win, -0.2 for a loss: right; 0.0 for a win: wrong; -0.9 for a draw: not decided
    assert result["positions"] == 4 and result["decided"] == 3
    assert result["win_accuracy"] == pytest.approx(2 / 3)
    assert result["win_mse"] == pytest.approx((0.25 + 0.64 + 1.0 + 0.81) / 4)
    early, late = result["by_move"]["0-10"], result["by_move"]["10-20"]  # positions 0, 3 and 1, 2
    assert early == {"win_mse": pytest.approx(1.06 / 2), "win_accuracy": 1.0, "positions": 2, "decided": 1}
    assert late == {"win_mse": pytest.approx(1.64 / 2), "win_accuracy": 0.5, "positions": 2, "decided": 2}
    with pytest.raises(ValueError, match="no ownership head"):
        ownership_accuracy(HandWinModel(), HandResults(), np.arange(4))


def config(shards, **changes) -> OwnershipConfig:
    tiny = OwnershipConfig(
        data=str(shards), blocks=1, filters=8, steps=8, batch_size=16, held_out=0.25,
        checkpoint_every=4, log_every=2, eval_positions=64, target_every=2, lr=3e-3,
    )  # fmt: skip
    return replace(tiny, **changes)


@pytest.mark.parametrize(
    "options",
    [
        {"method": "end"},
        {"method": "end", "end_power": 0.0},
        {"method": "moves"},
        {"method": "moves", "moves_form": "aggressive", "moves_raise": 0.5},
        {"method": "moves", "moves_pool": 8},
        {"method": "minimax"},
        {"method": "end,moves,minimax", "moves_form": "aggressive"},
        {"method": "win"},
    ],
)
def test_each_methods_loss_falls_on_a_fixed_batch(shards, options):
    torch.manual_seed(0)
    job = OwnershipJob(open_positions(shards), config(shards, **options), torch.device("cpu"))
    job._refresh_target(0)  # held still: a fixed target
    positions = job.data.fetch(job.sampler.batch(0))
    losses = []
    for _ in range(30):
        parts = job.losses(positions, np.random.default_rng(0))  # the same children each time
        job.optimizer.zero_grad()
        parts["loss"].backward()
        job.optimizer.step()
        losses.append(parts["loss"].item())
    assert losses[-1] < 0.7 * losses[0], losses


def test_augment_turns_the_owners_and_the_move_with_the_planes(shards):
    data = open_positions(shards)
    positions = data.fetch(np.arange(20))
    turned = augment(positions, np.random.default_rng(3))
    size = SIZE
    for b in range(20):
        # the owner under the chosen move's point moves with the stones
        stones = positions.planes[b, 0].reshape(-1)
        moved = turned.planes[b, 0].reshape(-1)
        assert stones.sum() == moved.sum()
        assert sorted(positions.ownership[b].tolist()) == sorted(turned.ownership[b].tolist())
        if positions.chosen[b] < size * size:
            assert turned.ownership[b, turned.chosen[b]] == positions.ownership[b, positions.chosen[b]]


def run(shards, directory, **changes):
    return train_ownership(config(shards, **changes), directory, threads=1, progress=False)


def test_a_short_run_exports_a_calibrated_loadable_network(shards, tmp_path):
    metrics = run(shards, tmp_path / "run", method="end,moves,minimax")
    assert json.loads((tmp_path / "run" / "metrics.json").read_text()) == metrics
    contents = read_checkpoint(tmp_path / "run" / "ownership.pt")  # weights_only
    assert contents["arch"] == "ownership"
    network = checkpoint.load_model(tmp_path / "run" / "ownership.pt")
    a, b = network.calibration
    assert (a, b) == pytest.approx((metrics["calibration"]["a"], metrics["calibration"]["b"]))
    held_out = metrics["held_out"]
    assert 0 <= held_out["sign_agreement"] <= 1 and held_out["score_error"] >= 0
    assert "0-10" in held_out["by_move"] and metrics["methods"] == ["end", "moves", "minimax"]
    tags = list((tmp_path / "run" / "tensorboard").glob("events.out.tfevents*"))
    assert tags


def test_resumed_run_has_the_same_weights_as_a_straight_one(shards, tmp_path, monkeypatch):
    method = "end,moves,minimax"
    run(shards, tmp_path / "whole", method=method)
    original = OwnershipJob.train_step

    def killed(self, step):
        if step == 6:
            raise KeyboardInterrupt  # between the checkpoints at steps 4 and 8
        return original(self, step)

    monkeypatch.setattr(OwnershipJob, "train_step", killed)
    with pytest.raises(KeyboardInterrupt):
        run(shards, tmp_path / "killed", method=method)
    assert read_checkpoint(tmp_path / "killed" / "checkpoints" / "last.pt")["step"] == 4
    monkeypatch.setattr(OwnershipJob, "train_step", original)
    run(shards, tmp_path / "killed", method=method)
    for name in ("ownership.pt", "checkpoints/last.pt"):
        assert weights_digest(tmp_path / "killed" / name) == weights_digest(tmp_path / "whole" / name)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"method": "end,fit"}, "method is one or more"),
        ({"method": "end,end"}, "twice"),
        ({"moves_form": "gentle"}, "moves_form"),
        ({"moves_pool": 2, "moves_alternatives": 4}, "moves_pool"),
        ({"method": "minimax", "checkpoint_every": 3, "target_every": 2}, "multiple of target_every"),
        ({"method": "end,win"}, "method win trains a win head, .* combines with none of them, got 'end,win'"),
        ({"method": "win,moves,minimax"}, "combines with none"),
    ],
)
def test_bad_options_are_refused(shards, changes, message):
    with pytest.raises(ValueError, match=message):
        config(shards, **changes)


def test_the_win_baseline_trains_on_the_same_minibatches_as_the_ownership_methods(shards):
    data = open_positions(shards)
    win = OwnershipJob(data, config(shards, method="win"), torch.device("cpu"))
    end = OwnershipJob(data, config(shards, method="end"), torch.device("cpu"))
    assert type(win.model) is WinNet and type(end.model) is OwnershipNet
    np.testing.assert_array_equal(win.held_out, end.held_out)
    for step in (0, 5):
        np.testing.assert_array_equal(win.sampler.batch(step), end.sampler.batch(step))
    trunk = [key for key in end.model.state_dict() if key.startswith(("stem", "tower"))]
    assert trunk == [key for key in win.model.state_dict() if key.startswith(("stem", "tower"))]


def test_a_win_run_exports_an_uncalibrated_win_network_the_players_play(shards, tmp_path):
    from goarena.agents.inference import NetworkEvaluator
    from goarena.agents.nets.load import load_network
    from goarena.agents.protocols import GameContext
    from goarena.agents.specs import make_agent

    metrics = run(shards, tmp_path / "run", method="win")
    weights = tmp_path / "run" / "ownership.pt"
    assert metrics["methods"] == ["win"] and metrics["calibration"] is None
    held_out = metrics["held_out"]
    assert 0 <= held_out["win_accuracy"] <= 1 and held_out["win_mse"] >= 0
    assert held_out["positions"] == metrics["held_out_positions"] and "0-10" in held_out["by_move"]
    network = load_network(weights, "ownership")
    assert type(network.model) is WinNet and network.model.calibration is None
    saved = read_checkpoint(weights)
    assert saved["arch"] == "win" and "head" not in json.loads(saved["kwargs"])
    context = GameContext(SIZE, Rules(komi=0.5))
    greedy = make_agent(f"ownership-greedy:weights={str(weights)!r}")
    puct = make_agent(f"puct:prior=uniform,value={str(weights)!r},simulations=8")
    assert isinstance(puct.searcher.evaluator, NetworkEvaluator)
    game = Game(SIZE, Rules(komi=0.5, max_moves=12))
    for player in (greedy, puct):
        player.reset(context)
    while not game.is_over:
        player = greedy if game.to_play == BLACK else puct
        action = player.act(game)
        assert action.move == game.pass_move or game.legal_mask()[action.move]
        assert -1 <= action.value <= 1 and (player is puct or action.ownership is None)
        game.play(action.move)


def test_the_command_prints_the_win_networks_held_out_metrics(shards, tmp_path, capsys):
    job_module.main([
        "--data", str(shards), "--run", str(tmp_path / "run"), "--steps", "4", "--batch-size", "16",
        "--blocks", "1", "--filters", "8", "--checkpoint-every", "4", "--held-out", "0.25",
        "--method", "win", "--no-progress",
    ])  # fmt: skip
    out = capsys.readouterr().out
    assert "method win): result accuracy" in out and "moves    0-10: result accuracy" in out
    assert "(1 + w) / 2" in out and "ownership.pt" in out


def test_a_changed_config_is_refused(shards, tmp_path):
    run(shards, tmp_path / "run", steps=4)
    with pytest.raises(ValueError, match="another config"):
        run(shards, tmp_path / "run", steps=4, method="moves")


# -- self-play: a zero run's buffer -----------------------------------------------------------


@pytest.fixture(scope="module")
def buffer(tmp_path_factory):
    """A zero run's buffer of random games recorded as self-play records them: the running
    games of each move together, in game order; the second chunk's games resigned."""
    run_dir = tmp_path_factory.mktemp("zero")
    (run_dir / "config.json").write_text(json.dumps({"komi": 0.5}))
    truth = []
    for chunk, seed in enumerate((2, 3)):
        records = random_games(4, seed=seed)
        steps = max(len(record) - 1 for record in records)
        planes, policy, value, ownership, game, moved = [], [], [], [], [], []
        for t in range(steps):
            for number, record in enumerate(records):
                if t >= len(record) - 1:
                    continue
                position, move = record[t]
                final = record[-1][0]
                planes.append(planes_of(position))
                policy.append(np.eye(SIZE * SIZE + 1, dtype=np.float32)[move])
                value.append(final.outcome(position.to_play))
                ownership.append(owners_for_mover(final.area_owner().reshape(-1), np.int64(position.to_play)))
                game.append(number)
                moved.append(t)
                truth.append((chunk, number, t))
        owned = np.full(len(game), chunk == 0)
        games = SelfPlayGames(
            planes=np.array(planes), policy=np.array(policy), value=np.array(value, np.int8),
            root_value=np.zeros(len(game), np.float32), score=np.zeros(len(game), np.float32),
            ownership=np.where(owned[:, None], np.array(ownership), 0).astype(np.int8), owned=owned,
            game=np.array(game), move_number=np.array(moved), winners=np.zeros(4, np.int64),
            komi=np.zeros(4), lengths=np.zeros(4, np.int64), resigned=np.zeros(4, bool),
            false_resignations=0,
            resign_checks=0, evaluations=0,
        )  # fmt: skip
        written = write_chunk(run_dir / "buffer", chunk, games)
        if chunk == 1:  # as a chunk written before games and move numbers were recorded
            digests = json.loads((written / "digest.json").read_text())
            for field in ("game", "move_number"):
                (written / f"{field}.npy").unlink()
                del digests[field]
            (written / "digest.json").write_text(json.dumps(digests))
    return run_dir, truth


def test_the_buffers_games_and_move_numbers_are_read_and_an_older_chunk_is_left_out(buffer, capsys):
    run_dir, truth = buffer
    data = open_positions(run_dir)
    assert "chunk-00000001: written before self-play recorded each position's game" in capsys.readouterr().err
    truth = [each for each in truth if each[0] != 1]
    assert isinstance(data, BufferPositions) and len(data) == len(truth)
    true_games = np.array([chunk * 100 + number for chunk, number, _ in truth])
    assert data.move_numbers.tolist() == [t for _, _, t in truth]
    pairs = set(zip(true_games.tolist(), data.game_ids.tolist(), strict=True))
    assert len(pairs) == len(set(true_games.tolist())) == len(set(data.game_ids.tolist()))
    batch = data.fetch(np.arange(len(data)))
    assert (batch.owned == (np.array([c for c, _, _ in truth]) == 0)).all()
    assert set(np.unique(batch.komi_terms).tolist()) == {-0.5, 0.5}


def test_a_short_run_on_a_zero_buffer(buffer, tmp_path):
    run_dir, _ = buffer
    metrics = run(run_dir, tmp_path / "run", method="end,moves", held_out=0.5, batch_size=8)
    assert metrics["held_out"]["positions"] > 0
    assert read_checkpoint(tmp_path / "run" / "ownership.pt")["arch"] == "ownership"


def test_the_command_prints_the_held_out_metrics(shards, tmp_path, capsys):
    job_module.main([
        "--data", str(shards), "--run", str(tmp_path / "run"), "--steps", "4", "--batch-size", "16",
        "--blocks", "1", "--filters", "8", "--checkpoint-every", "4", "--held-out", "0.25",
        "--method", "end,moves", "--no-progress",
    ])  # fmt: skip
    out = capsys.readouterr().out
    assert "sign agreement" in out and "moves    0-10" in out and "ownership.pt" in out
    assert BLACK != WHITE


def test_a_buffer_of_a_network_that_reads_the_komi_gives_the_history_planes_and_each_games_komi(tmp_path):
    from goarena.agents.training.zero import ZeroConfig, train_zero

    config = ZeroConfig(size=5, komi=0.5, komi_sd=3.0, blocks=1, filters=8, games=4, shards=1,
                        simulations=4, updates=1, batch_size=8, rounds=1, resign_value=0.0)  # fmt: skip
    train_zero(config, tmp_path / "zero", progress=False)
    data = BufferPositions(tmp_path / "zero" / "buffer")
    positions = data.fetch(np.arange(len(data)))
    assert positions.planes.shape[1:] == (17, 5, 5)
    chunk = data._chunks[0]
    np.testing.assert_array_equal(positions.komi_terms, np.asarray(chunk.planes[:, 17, 0, 0]) / 2)
    assert len(set(positions.komi_terms.tolist())) > 2  # the games' own komi, not the run's one
