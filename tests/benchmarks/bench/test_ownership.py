"""``goarena bench ownership``: networks scored side by side on the held-out games of their
training data (``goarena train ownership``'s split), their tables and JSON, the win estimate
at other komis, and its refusals. Tiny 5x5 random games, tiny networks."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import torch

from go_env import BLACK, Game, Rules
from go_env.batch import owners_for_mover
from goarena.agents.data.shards import FORMAT, MANIFEST, _write_json, _write_shard
from goarena.agents.nets.checkpoint import save_model
from goarena.agents.nets.ownership import OwnershipNet, WinNet
from goarena.agents.nets.value import ValueNet
from goarena.agents.training.ownership import OwnershipConfig, ownership_accuracy, train_ownership
from goarena.agents.training.ownership_data import open_positions
from goarena.benchmarks.bench.ownership import (
    NetworkFigures,
    format_report,
    measure,
    parse_weights,
    result_prediction,
)
from goarena.benchmarks.cli import main

SIZE = 5
GAMES = 16
KOMI = 0.5


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    """A shard folder of random played-out 5x5 games with their final owners."""
    rng = np.random.default_rng(5)
    rows = {key: [] for key in ("boards", "to_play", "last_moves", "moves", "outcomes", "game_ids")}
    rows.update(ownership=[], owned=[], scores=[])
    for number in range(GAMES):
        game = Game(SIZE, Rules(komi=KOMI, scoring="area"))
        record = []
        while not game.is_over:
            points = game.legal_moves()
            points = points[points < SIZE * SIZE]
            late = game.move_number >= 40
            move = (
                int(rng.choice(points)) if len(points) and not late and rng.random() > 0.05 else SIZE * SIZE
            )
            record.append((game.copy(), move))
            game.play(move)
        owners = game.area_owner().reshape(-1)
        for position, move in record:
            mine = owners_for_mover(owners, np.int64(position.to_play))
            rows["boards"].append(position.board.reshape(-1).copy())
            rows["to_play"].append(position.to_play)
            rows["last_moves"].append(position.last_move if position.last_move is not None else -1)
            rows["moves"].append(move)
            rows["outcomes"].append(game.outcome(position.to_play))
            rows["game_ids"].append(number)
            rows["ownership"].append(mine)
            rows["owned"].append(True)
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
    shard = {"name": "chunk-000000-0", "positions": count, "games": GAMES, "komi": KOMI, "rules": "goarena"}
    _write_json(
        out / MANIFEST, {"format": FORMAT, "size": SIZE, "planes": 48, "chunks": {"0": {"shards": [shard]}}}
    )
    return out


@pytest.fixture(scope="module")
def networks(tmp_path_factory):
    """Two untrained ownership networks in run folders of their own, "end" and "moves"."""
    paths = []
    for seed, name in enumerate(("end", "moves")):
        torch.manual_seed(seed)
        path = tmp_path_factory.mktemp("runs") / name / "ownership.pt"
        path.parent.mkdir()
        save_model(path, OwnershipNet(SIZE, blocks=1, filters=4).eval())
        paths.append(path)
    return paths


def table(out: str, title: str) -> list[list[str]]:
    """The rows (header first) of the table under the line starting with ``title``, as cells."""
    lines = out.split("\n" + title, 1)[1].split("\n\n")[0].splitlines()[1:]
    return [line.split() for line in lines]


def test_every_network_is_scored_on_the_runs_held_out_games(shards, networks, capsys):
    main(
        ["bench", "ownership", "--data", str(shards), "--weights", *map(str, networks), "--held-out", "0.25"]
    )
    out = capsys.readouterr().out
    data = open_positions(shards)
    _, held = data.split_by_game(0.25, 0)  # train ownership's split for these options
    games = len(np.unique(data.game_ids[held]))
    assert out.startswith(
        f"Ownership networks on {len(held)} held-out positions ({games} games, {len(held)} positions with "
        f"final owners) of {shards}, 5x5, komi {KOMI:g} (held out 0.25 of the games, seed 0)"
    )
    for title in ("sign agreement of v(s, i)", "score error |V - final score|"):
        rows = table(out, title)
        assert rows[0] == ["positions", "end", "moves"]  # the names are the run folders'
        labels = [" ".join(row[:-3]) for row in rows[1:]]
        buckets = sorted({int(m) // 10 * 10 for m in data.move_numbers[held]})
        assert labels == [f"moves {b}-{b + 10}" for b in buckets] + ["all"]
        assert rows[-1][1] == str(len(held))
        assert sum(int(row[-3]) for row in rows[1:-1]) == len(held)
    sign = table(out, "sign agreement of v(s, i)")
    assert all(row[-1].endswith("%") and row[-2].endswith("%") for row in sign[1:])


def test_only_the_positions_with_final_owners_are_scored(shards, networks, tmp_path):
    """Resigned games (no final owners) count in the komi tables, not in the ownership ones."""
    resigned = tmp_path / "resigned"
    shutil.copytree(shards, resigned)
    folder = resigned / "chunk-000000-0"
    arrays = {path.stem: np.load(path) for path in folder.glob("*.npy")}
    game_ids = arrays["game_ids"]
    shutil.rmtree(folder)
    _write_shard(resigned, folder.name, {**arrays, "owned": game_ids % 2 == 0})
    report = measure(resigned, [("end", networks[0])], held_out=0.5, komi=[7.0])
    _, held = open_positions(resigned).split_by_game(0.5, 0)
    owned = int((game_ids[held] % 2 == 0).sum())
    assert 0 < owned < len(held)
    assert report.positions == len(held) and report.owned == owned
    assert report.networks[0].accuracy["positions"] == owned
    assert f"({report.games} games, {owned} positions with final owners)" in format_report(report)


def test_json_gives_ownership_accuracys_figures(shards, networks, capsys):
    from goarena.agents.nets.checkpoint import load_model

    main([
        "bench", "ownership", "--data", str(shards), "--weights", f"first={networks[0]}", str(networks[1]),
        "--held-out", "0.25", "--seed", "3", "--json",
    ])  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    data = open_positions(shards)
    _, held = data.split_by_game(0.25, 3)
    assert report["positions"] == len(held) and report["seed"] == 3 and report["data_komi"] == [KOMI]
    assert [each["name"] for each in report["networks"]] == ["first", "moves"]
    for each, path in zip(report["networks"], networks, strict=True):
        expected = ownership_accuracy(load_model(path), data, held)
        assert each["head"] == "ownership" and each["komi"] == []
        assert each["accuracy"]["sign_agreement"] == pytest.approx(expected["sign_agreement"])
        assert each["accuracy"]["score_error"] == pytest.approx(expected["score_error"])
        assert each["accuracy"]["by_move"].keys() == expected["by_move"].keys()


def test_positions_caps_the_sample(shards, networks):
    report = measure(shards, parse_weights([str(networks[0])]), held_out=0.25, positions=7)
    assert report.positions == 7
    assert report.networks[0].accuracy["positions"] == 7


def test_a_trained_runs_metrics_are_reproduced(shards, tmp_path):
    """The bench's split and figures are the training run's: its metrics.json on every
    held-out position, for the run's held-out fraction and seed."""
    config = OwnershipConfig(
        data=str(shards), blocks=1, filters=4, steps=2, batch_size=16, held_out=0.3, seed=7,
        checkpoint_every=2, log_every=2, eval_positions=32,
    )  # fmt: skip
    metrics = train_ownership(config, tmp_path / "run", threads=1, progress=False)
    report = measure(shards, [("run", tmp_path / "run" / "ownership.pt")], held_out=0.3, seed=7)
    assert report.positions == metrics["held_out_positions"]
    accuracy = report.networks[0].accuracy
    assert accuracy["sign_agreement"] == pytest.approx(metrics["held_out"]["sign_agreement"])
    assert accuracy["score_error"] == pytest.approx(metrics["held_out"]["score_error"])
    for label, figures in metrics["held_out"]["by_move"].items():
        assert accuracy["by_move"][label]["positions"] == figures["positions"]
        assert accuracy["by_move"][label]["sign_agreement"] == pytest.approx(figures["sign_agreement"])


def test_a_higher_komi_lowers_blacks_win_estimate(shards, networks, capsys):
    main([
        "bench", "ownership", "--data", str(shards), "--weights", *map(str, networks), "--held-out", "0.25",
        "--komi", "5.5", "7", "9",
    ])  # fmt: skip
    out = capsys.readouterr().out
    for title in ("Black's calibrated win probability on the empty board", "Black's mean calibrated win"):
        rows = table(out, title)
        assert rows[0] == ["end", "moves"]
        assert [row[:2] for row in rows[1:]] == [["komi", "5.5"], ["komi", "7"], ["komi", "9"]]
        for column in (2, 3):
            values = [float(row[column].rstrip("%")) for row in rows[1:]]
            assert values[0] > values[1] > values[2], (title, values)
    report = measure(shards, parse_weights([str(networks[0])]), held_out=0.25, komi=[5.5, 7, 9])
    estimates = report.networks[0].komi
    assert [each.komi for each in estimates] == [5.5, 7, 9]
    assert estimates[0].empty_board > estimates[1].empty_board > estimates[2].empty_board
    assert estimates[0].held_out > estimates[1].held_out > estimates[2].held_out


def test_the_komi_shifts_V_by_exactly_its_change_through_the_calibration(shards, tmp_path):
    torch.manual_seed(0)
    model = OwnershipNet(SIZE, blocks=1, filters=4).eval()
    model.calibration_a.fill_(0.3)
    model.calibration_b.fill_(-0.1)
    path = tmp_path / "net" / "ownership.pt"
    path.parent.mkdir()
    save_model(path, model)
    report = measure(shards, [("net", path)], held_out=0.25, komi=[0.0, 7.0])
    planes = np.zeros((1, 17, SIZE, SIZE), np.float32)
    planes[0, -1] = 1  # the empty board, Black to move
    with torch.inference_mode():
        total = float(model(torch.as_tensor(planes)).sum())
    for estimate in report.networks[0].komi:
        expected = 1 / (1 + np.exp(-(0.3 * (total - estimate.komi) - 0.1)))
        assert estimate.empty_board == pytest.approx(expected, rel=1e-5)


def test_blacks_side_is_read_from_the_planes_even_at_komi_0(shards, networks, tmp_path):
    """At komi 0 the komi term is ±0 for either side: Black's results and estimates still
    come from the positions whose colour plane says Black."""
    from goarena.agents.nets.checkpoint import load_model

    even = tmp_path / "even"
    shutil.copytree(shards, even)
    manifest = json.loads((even / MANIFEST).read_text())
    manifest["chunks"]["0"]["shards"][0]["komi"] = 0.0
    (even / MANIFEST).write_text(json.dumps(manifest))
    report = measure(even, [("end", networks[0])], held_out=0.25, komi=[0.0])
    _, held = open_positions(even).split_by_game(0.25, 0)
    black = np.load(even / "chunk-000000-0" / "to_play.npy")[held] == BLACK
    outcomes = np.load(even / "chunk-000000-0" / "outcomes.npy")[held].astype(float)
    assert 0 < black.mean() < 1 and report.data_komi == [0.0]
    assert report.black_wins == pytest.approx(np.mean((np.where(black, outcomes, -outcomes) + 1) / 2))
    model = load_model(networks[0])
    planes = torch.as_tensor(open_positions(even).fetch(held).planes, dtype=torch.float32)
    with torch.inference_mode():
        scores = model(planes).sum(dim=1).double().numpy()
    a, b = model.calibration
    mover = 1 / (1 + np.exp(-(a * scores + b)))
    expected = np.where(black, mover, 1 - mover).mean()
    assert report.networks[0].komi[0].held_out == pytest.approx(expected, rel=1e-5)


def test_threads_are_restored(shards, networks):
    before = torch.get_num_threads()
    measure(shards, parse_weights([str(networks[0])]), held_out=0.25, threads=max(1, before % 2 + 1))
    assert torch.get_num_threads() == before


def test_a_network_without_an_ownership_head_shows_n_a(shards, networks):
    report = measure(shards, parse_weights([str(networks[0])]), held_out=0.25)
    report.networks.append(NetworkFigures("win", "runs/win/ownership.pt", "win", None))
    out = format_report(report)
    for title in ("sign agreement of v(s, i)", "score error |V - final score|"):
        rows = table(out, title)
        assert rows[0] == ["positions", "end", "win"]
        assert all(row[-1] == "n/a" and row[-2] != "n/a" for row in rows[1:])


def test_a_win_network_is_n_a_for_ownership_and_deaf_to_komi(shards, networks, tmp_path, capsys):
    torch.manual_seed(2)
    model = WinNet(SIZE, blocks=1, filters=4).eval()
    path = tmp_path / "win" / "ownership.pt"
    path.parent.mkdir()
    save_model(path, model)
    argv = [
        "bench",
        "ownership",
        "--data",
        str(shards),
        "--held-out",
        "0.25",
        "--komi",
        "5.5",
        "9",
        "--weights",
    ]
    main([*argv, str(networks[0]), str(path)])
    out = capsys.readouterr().out
    for title in ("sign agreement of v(s, i)", "score error |V - final score|"):
        rows = table(out, title)
        assert rows[0] == ["positions", "end", "win"]
        assert all(row[-1] == "n/a" and row[-2] != "n/a" for row in rows[1:])
    assert "a win head sees no komi" in out
    for title in ("result accuracy: the win probability", "Brier score"):  # both heads predict results
        rows = table(out, title)
        assert rows[0] == ["positions", "end", "win"]
        assert all("n/a" not in row for row in rows[1:])
    main([*argv, str(path), "--json"])
    (win,) = json.loads(capsys.readouterr().out)["networks"]
    assert win["head"] == "win" and win["accuracy"] is None
    planes = torch.zeros(1, 17, SIZE, SIZE)
    planes[0, -1] = 1
    with torch.inference_mode():
        black = (1 + float(model(planes)[0])) / 2  # Black is to move on the empty board
    assert [each["empty_board"] for each in win["komi"]] == pytest.approx([black, black])
    assert win["komi"][0]["held_out"] == pytest.approx(win["komi"][1]["held_out"])


def test_result_prediction_on_a_hand_case():
    probability = np.array([0.9, 0.2, 0.6, 0.5])
    outcomes = np.array([1, -1, -1, 0])  # the draw is left out
    found = result_prediction(probability, outcomes, np.array([0, 5, 12, 3]))
    assert found["positions"] == 3
    assert found["result_accuracy"] == pytest.approx(2 / 3)
    assert found["brier"] == pytest.approx((0.1**2 + 0.2**2 + 0.6**2) / 3)
    assert found["by_move"]["0-10"]["result_accuracy"] == 1.0
    assert found["by_move"]["10-20"] == {"positions": 1, "result_accuracy": 0.0, "brier": pytest.approx(0.36)}


def test_names_default_to_the_run_folder_and_must_differ(tmp_path):
    assert parse_weights(["runs/end/ownership.pt", "best=runs/x/ownership.pt"]) == [
        ("end", tmp_path.__class__("runs/end/ownership.pt")),
        ("best", tmp_path.__class__("runs/x/ownership.pt")),
    ]
    with pytest.raises(ValueError, match="two networks are named 'end'"):
        parse_weights(["a/end/ownership.pt", "b/end/ownership.pt"])
    with pytest.raises(ValueError, match="NAME=PATH"):
        parse_weights(["=x.pt"])


def goarena_error(argv: list[str]) -> str:
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    return str(stopped.value.code)


def test_bad_inputs_are_refused_naming_what_is_wrong(shards, networks, tmp_path):
    bench = ["bench", "ownership", "--data", str(shards), "--held-out", "0.25", "--weights"]
    missing = tmp_path / "gone" / "ownership.pt"
    said = goarena_error([*bench, str(networks[0]), str(missing)])
    assert said == f"goarena: {missing}: no checkpoint file there"
    value = tmp_path / "value" / "value.pt"
    value.parent.mkdir()
    save_model(value, ValueNet(SIZE, layers=2, filters=4, hidden=4))
    said = goarena_error([*bench, str(value)])
    assert said.startswith(f"goarena: {value}: holds a 'value' network, not an ownership network")
    nine = tmp_path / "nine" / "ownership.pt"
    nine.parent.mkdir()
    save_model(nine, OwnershipNet(9, blocks=1, filters=4))
    assert "was trained for 9x9, the positions of" in goarena_error([*bench, str(nine)])
    assert "holds out no game" in goarena_error(
        [*bench[:-3], "--held-out", "0.0", "--weights", str(networks[0])]
    )

    without = tmp_path / "old-shards"
    shutil.copytree(shards, without)
    for name in ("ownership.npy", "owned.npy", "scores.npy", "digest.json"):  # as built before ownership
        (without / "chunk-000000-0" / name).unlink()
    manifest = json.loads((without / MANIFEST).read_text())
    _write_json(without / MANIFEST, {**manifest, "format": 1})
    said = goarena_error(["bench", "ownership", "--data", str(without), "--weights", str(networks[0])])
    assert f"the shards in {without} carry no ownership targets" in said
    said = goarena_error(["bench", "ownership", "--data", str(tmp_path), "--weights", str(networks[0])])
    assert "holds neither shards" in said
