import dataclasses

import pytest
import torch

from goarena.agents.nets.checkpoint import save_model
from goarena.agents.nets.value import ValueNet
from goarena.benchmarks.bench.ablation import ablation_league, arms, budgets, run, verdict
from goarena.benchmarks.league.standings import Report, Standing


@pytest.fixture(scope="module")
def value(tmp_path_factory):
    path = tmp_path_factory.mktemp("ablation") / "value.pt"
    torch.manual_seed(0)
    save_model(path, ValueNet(9, layers=2, filters=4, hidden=8))
    return path


def test_the_arms_differ_only_in_the_leaf_evaluation_and_the_prior(value):
    players = arms(value, "simulations=50")
    assert players["rollouts"] == "alphago:mixing=1,simulations=50"
    assert players["value-net"] == f"alphago:value={value},mixing=0,simulations=50"
    assert players["mixed"] == f"alphago:value={value},mixing=0.5,simulations=50"
    assert players["no-prior"] == f"alphago:value={value},mixing=0.5,prior=uniform,simulations=50"
    assert players["sl-policy"] == "sl-policy" and players["rl-policy"] == "rl-policy"


def test_the_budgets_name_the_leagues(value):
    assert budgets(200, 0.5) == ["simulations=200", "seconds=0.5"]
    assert budgets(0, 2.0) == ["seconds=2"]
    assert ablation_league(value, "seconds=2", 4, 7.0).name == "equal-seconds"
    with pytest.raises(ValueError, match="nothing to play"):
        budgets(0, 0)


def test_a_small_ablation_plays_every_pairing_and_draws_its_ladder(value, tmp_path):
    config = ablation_league(value, "simulations=4", games_per_pair=1, komi=7.0)
    report = run(config, tmp_path / config.name, workers=1)
    assert report.games == report.scheduled == 15  # 6 players, each pair once
    assert {standing.name for standing in report.standings} == set(config.players)
    assert report.anchor == "sl-policy" and report.anchor_elo == 0.0
    assert (tmp_path / config.name / "ladder.png").stat().st_size > 0
    again = run(config, tmp_path / config.name, workers=1)  # resumed: nothing left to play
    assert again.standings == report.standings


def _report(order: list[tuple[str, float, float, float]]) -> Report:
    standing = Standing(0, "", 0, 0, 0, 10, 5, 2, 5, 3, 5, 0, None)
    standings = [
        dataclasses.replace(standing, rank=rank, name=name, elo=elo, low=low, high=high)
        for rank, (name, elo, low, high) in enumerate(order, 1)
    ]
    return Report("equal-simulations", {}, {}, standings, {}, "sl-policy", 0.0, 0.0, 0.0, 50, 50, {})


def test_the_verdict_says_whether_mixed_leads():
    on_top = _report([("mixed", 300, 200, 400), ("value-net", 150, 50, 250), ("sl-policy", 0, -50, 50)])
    assert verdict(on_top) == "mixed (λ=0.5) is on top, +150 Elo over value-net (overlapping 95% intervals)"
    below = _report([("rollouts", 300, 250, 350), ("mixed", 100, 50, 150)])
    assert verdict(below) == (
        "mixed (λ=0.5) is not on top: rollouts leads it by 200 Elo (ladder: rollouts, mixed)"
    )
