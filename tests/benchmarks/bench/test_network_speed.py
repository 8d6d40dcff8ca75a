"""``goarena bench networks`` prints every speed the network stage reports, from one run."""

import re

import numpy as np
import torch

from go_env.features.patterns import pattern_tables, save_weights
from goarena.agents.nets.checkpoint import save_model
from goarena.agents.nets.policy import PolicyNet
from goarena.benchmarks.cli import main


def test_prints_planes_network_and_playout_speeds(tmp_path, capsys):
    torch.manual_seed(0)
    save_model(tmp_path / "policy.pt", PolicyNet(5, layers=2, filters=4))
    save_weights(tmp_path / "rollout.npz", np.zeros(pattern_tables().num_features), 5)
    options = ["--policy", str(tmp_path / "policy.pt"), "--rollout", str(tmp_path / "rollout.npz")]
    main(["bench", "networks", *options, "--seconds", "0.05"])
    out = capsys.readouterr().out
    assert out.startswith("5x5, torch on cpu with 1 thread(s)")
    for label in (
        "feature planes",
        "SL policy, batch 1 ",
        "SL policy, batch 64",
        "pattern playouts",
        "random playouts",
    ):
        row = next(line for line in out.splitlines() if label in line)
        assert re.match(r"\s*\d[\d,]*(\.\d+)? ", row.split(label)[1]), row  # a figure, whatever its value
