"""``goarena bench zero`` prints, from one run, the network's forward passes per second by
precision, threads and batch; self-play's evaluations per second for both searches, each
against the forward rate; and games per hour by worker count. The tests check the report's
shape at tiny settings, never a measured speed."""

import json
import re

import numba
import pytest
import torch

from goarena.agents.nets.checkpoint import save_model
from goarena.agents.nets.policy import PolicyNet
from goarena.agents.nets.zero import ZeroNet
from goarena.benchmarks.bench.zero_speed import (
    Report,
    format_report,
    measure_forward,
    measure_selfplay,
    with_options,
    zero_network,
)
from goarena.benchmarks.cli import main

TINY = ["--size", "5", "--blocks", "1", "--filters", "4", "--seconds", "0.02", "--batches", "1", "4"]
QUICK_GAMES = [
    "--simulations",
    "2",
    "--games",
    "1",
    "--shards",
    "2",
    "--play-simulations",
    "8",
    "--play-moves",
    "3",
]
FIGURE = r"\d[\d,]*"


def table(out: str, title: str) -> list[str]:
    """The rows of the table under the line starting with ``title``, its header first."""
    lines = out.split("\n" + title, 1)[1].split("\n\n")[0].splitlines()[1:]
    return [line.strip() for line in lines]


@pytest.mark.slow  # the whole bench at tiny settings: half a minute
def test_prints_forward_selfplay_and_games_per_hour_tables(capsys):
    main(["bench", "zero", *TINY, *QUICK_GAMES])
    out = capsys.readouterr().out
    assert out.startswith("AlphaZero throughput: a fresh ZeroNet (5x5, 1 blocks x 4 filters)")

    forward = table(out, "network forward passes, positions/s")
    assert forward[0].split() == ["precision", "threads", "batch", "1", "batch", "4"]
    assert [row.split()[:2] for row in forward[1:]] == [
        ["float32", "1"], ["float32", "2"], ["bfloat16", "1"], ["bfloat16", "2"]
    ]  # fmt: skip
    for row in forward[1:]:  # a figure for each batch, or n/a and torch's reason
        assert re.fullmatch(rf"\w+ +\d +({FIGURE}|n/a) +({FIGURE}|n/a)( +torch: .+)?", row), row

    selfplay = table(out, "self-play: network evaluations/s on one thread, 2 simulations a move")
    assert selfplay[0].split()[:3] == ["search", "batch", "evaluations/s"]
    rows = selfplay[1:-1]
    assert [row.split()[:2] for row in rows] == [
        ["puct", "1"],
        ["puct", "4"],
        ["gumbel", "1"],
        ["gumbel", "4"],
    ]
    for row in rows:
        assert re.fullmatch(rf"\w+ +\d +{FIGURE} +\d+\.\d +{FIGURE} +\d+%( +below the aim)?", row), row
    assert "at least 80% as busy" in selfplay[-1]

    games = table(out, "self-play games per hour: 5x5, gumbel, 2 simulations, 2 shard(s) of 1 game(s)")
    assert games[0].split()[:4] == ["tree", "reuse", "workers", "games"]
    assert [row.split()[:3] for row in games[1:]] == [["no", "1", "2"], ["no", "2", "2"]]  # the same 2 games
    for row in games[1:]:
        assert re.fullmatch(rf"no +\d +2 +\d+\.\d +\d+\.\d +\d+\.\d +{FIGURE} +\d+\.\d\dx", row), row
    assert games[1].endswith(" 1.00x")

    play = table(out, "at play: one player's searches on one core")
    assert play[0].split()[:3] == ["player", "moves", "simulations/move"]
    assert [row.split()[:3] for row in play[1:]] == [
        ["zero:batch=8,precision=float32", "3", "8"],
        ["zero", "3", "8"],
        ["zero:batch=32", "3", "8"],  # the batch a time budget takes
    ]
    assert play[1].endswith(" 1.00x")


def test_json_gives_every_measurement_and_the_threads_are_restored(capsys):
    before = torch.get_num_threads(), numba.get_num_threads()
    main(["bench", "zero", *TINY, "--threads", "1", "--workers", "1", *QUICK_GAMES, "--json"])
    report = json.loads(capsys.readouterr().out)
    assert report["board_size"] == 5 and report["simulations"] == 2
    assert [(row["precision"], row["batch"]) for row in report["forward"]] == [
        ("float32", 1), ("float32", 4), ("bfloat16", 1), ("bfloat16", 4)
    ]  # fmt: skip
    assert [(row["search"], row["batch"]) for row in report["selfplay"]] == [
        ("puct", 1), ("puct", 4), ("gumbel", 1), ("gumbel", 4)
    ]  # fmt: skip
    for row in report["selfplay"]:
        assert row["mean_batch"] <= row["batch"]
        assert row["share"] == pytest.approx(row["evaluations_per_second"] / row["forward_per_second"])
    assert [(row["workers"], row["games"]) for row in report["games"]] == [(1, 2)]
    assert (torch.get_num_threads(), numba.get_num_threads()) == before


class NoBFloat16(ZeroNet):
    """A network as torch runs it where bfloat16 convolutions are not implemented."""

    def forward(self, planes):
        if planes.dtype == torch.bfloat16:
            raise RuntimeError(""""slow_conv2d_cpu" not implemented for 'BFloat16'\nmore lines""")
        return super().forward(planes)


def test_bfloat16_where_torch_cannot_run_it_is_na_with_the_reason():
    rows = measure_forward(NoBFloat16(5, 1, 4), [1, 4], [1], seconds=0.01)
    assert [(row.precision, row.positions_per_second is None) for row in rows] == [
        ("float32", False), ("float32", False), ("bfloat16", True), ("bfloat16", True)
    ]  # fmt: skip
    report = Report("a test network", 5, 2, 2, 0.0, forward=rows)
    line = next(
        line for line in format_report(report, "gumbel", 1, 1).splitlines() if line.startswith("  bfloat16")
    )
    assert re.fullmatch(
        r" +bfloat16 +1 +n/a +n/a  torch: \"slow_conv2d_cpu\" not implemented for 'BFloat16'", line
    ), line


def test_the_network_comes_from_weights_or_is_a_fresh_one(tmp_path):
    torch.manual_seed(1)
    save_model(tmp_path / "zero.pt", ZeroNet(7, 2, 8))
    model, description = zero_network(tmp_path / "zero.pt")
    assert (model.board_size, model.kwargs["blocks"]) == (
        7,
        2,
    ) and description == "zero.pt (7x7, 2 blocks x 8 filters)"
    model, description = zero_network(size=5)
    architecture = {"board_size": 5, "blocks": 4, "filters": 32, "global_pool": True}
    assert model.kwargs == {**architecture, "rules_input": True, "score_head": True}
    assert description.startswith("a fresh ZeroNet")


def test_a_network_of_either_input_is_timed_on_its_own_planes():
    for model in (ZeroNet(5, 1, 4), ZeroNet(5, 1, 4, rules_input=True, score_head=True)):
        rows = measure_forward(model, [2], [1], seconds=0.01)
        assert all(row.positions_per_second for row in rows if row.precision == "float32")
        assert len(measure_selfplay(model, [2], ["puct"], 0.01, 2)) == 1


def test_weights_that_are_no_zero_network_or_clash_with_a_fresh_ones_options_are_refused(tmp_path, capsys):
    save_model(tmp_path / "policy.pt", PolicyNet(5, layers=2, filters=4))
    with pytest.raises(ValueError, match=r"--weights .*policy\.pt: a \w+ network, not a ZeroNet"):
        zero_network(tmp_path / "policy.pt")
    with pytest.raises(ValueError, match=r"--size, --filters describe a fresh network; --weights"):
        zero_network(tmp_path / "zero.pt", size=9, filters=8)
    with pytest.raises(SystemExit, match=r"goarena: .*missing\.pt"):
        main(["bench", "zero", "--weights", str(tmp_path / "missing.pt")])


def test_puct_games_are_played_with_and_without_tree_reuse(capsys):
    main(["bench", "zero", *TINY, "--threads", "1", "--workers", "1", *QUICK_GAMES, "--search", "puct",
          "--simulations", "8", "--json"])  # fmt: skip
    games = json.loads(capsys.readouterr().out)["games"]
    assert [(row["tree_reuse"], row["games"]) for row in games] == [(False, 2), (True, 2)]
    per_move = [row["evaluations"] / row["moves"] for row in games]
    assert per_move[1] < per_move[0] <= 8  # the kept subtrees pay part of each move's visits


def test_players_at_play_are_timed_on_the_measured_network_the_first_the_baseline(capsys):
    main(["bench", "zero", *TINY, "--threads", "1", "--workers", "1", *QUICK_GAMES, "--json",
          "--players", "zero:batch=2", "zero:batch=4,play=puct", "--play-simulations", "12"])  # fmt: skip
    play = json.loads(capsys.readouterr().out)["play"]
    assert [(row["player"], row["moves"], row["simulations"]) for row in play] == [
        ("zero:batch=2", 3, 12),
        ("zero:batch=4,play=puct", 3, 12),
    ]
    assert all(row["seconds"] > 0 and row["simulations_per_second"] > 0 for row in play)


def test_a_spec_takes_options_with_or_without_its_own():
    assert with_options("zero", simulations=400, weights=None) == "zero:simulations=400"
    assert with_options("zero:batch=8", simulations=4) == "zero:batch=8,simulations=4"
    assert with_options("zero") == "zero"
