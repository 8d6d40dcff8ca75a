import numpy as np
import pytest
import torch

from go_env.features.patterns import pattern_tables, save_weights
from goarena.agents.data.value import ValueDataConfig, generate
from goarena.agents.nets.checkpoint import save_model
from goarena.agents.nets.policy import PolicyNet
from goarena.agents.nets.value import ValueNet
from goarena.benchmarks.bench.value import measure, show

SIZE = 5


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("bench")
    torch.manual_seed(0)
    save_model(root / "sl.pt", PolicyNet(SIZE, layers=2, filters=4))
    save_model(root / "value.pt", ValueNet(SIZE, layers=2, filters=4, hidden=8))
    save_weights(
        root / "rollout.npz", np.random.default_rng(0).normal(0, 0.3, pattern_tables().num_features), SIZE
    )
    generate(ValueDataConfig(out=root / "data", sl_policy=root / "sl.pt", games=32, chunk_size=32))
    return root


def test_both_estimators_are_scored_on_the_same_held_out_positions(files):
    count, estimates = measure(
        files / "data", files / "value.pt", rollouts=8, rollout_weights=files / "rollout.npz", held_out=0.25
    )
    assert count == 8
    names = [estimate.name for estimate in estimates]
    assert names == ["value network", "8 pattern rollouts", "best constant (mean z)"]
    for estimate in estimates:
        assert 0 <= estimate.mse <= 4 and estimate.seconds_per_position >= 0
    assert estimates[0].mse != estimates[1].mse


def test_more_rollouts_judge_the_positions_better(files):
    """With one rollout a position's estimate is +1 or -1; averaging many shrinks the noise."""
    options = {"rollout_weights": files / "rollout.npz", "held_out": 0.5}
    one = measure(files / "data", files / "value.pt", rollouts=1, **options)[1][1].mse
    many = measure(files / "data", files / "value.pt", rollouts=64, **options)[1][1].mse
    assert many < one


def test_the_table_prints_both_mses(files, capsys):
    show(files / "data", files / "value.pt", rollouts=4, rollout_weights=files / "rollout.npz", held_out=0.25)
    out = capsys.readouterr().out
    assert "8 held-out positions" in out
    for line in ("value network", "4 pattern rollouts", "best constant"):
        row = next(row for row in out.splitlines() if line in row)
        assert float(row.split()[-2]) >= 0  # its MSE


def test_bad_arguments_are_refused(files):
    with pytest.raises(ValueError, match="rollouts must be positive"):
        measure(files / "data", files / "value.pt", rollouts=0)


def test_the_command_prints_the_table(files, capsys):
    from goarena.benchmarks.cli import main

    options = ["--data", str(files / "data"), "--weights", str(files / "value.pt"), "--rollouts", "4"]
    main(["bench", "value", *options, "--rollout-weights", str(files / "rollout.npz"), "--held-out", "0.25"])
    assert "4 pattern rollouts" in capsys.readouterr().out
