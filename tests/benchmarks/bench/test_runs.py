"""``goarena bench runs``: its arguments (the rating itself: tests/benchmarks/league/test_zero_rating.py)."""

import argparse
from pathlib import Path

import pytest

from goarena.benchmarks.bench.runs import DEFAULT_ANCHORS, add_arguments, run_argument


def test_a_run_is_named_label_equals_directory():
    assert run_argument("warm=runs/warm=1") == ("warm", Path("runs/warm=1"))
    for bad in ("runs/warm", "=runs/warm", "warm="):
        with pytest.raises(argparse.ArgumentTypeError, match="LABEL=DIR"):
            run_argument(bad)


def test_runs_repeat_and_gnu_go_levels_1_and_10_anchor_by_default():
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--run", "zero=a", "--run", "warm=b", "--out", "c"])
    assert dict(args.run) == {"zero": Path("a"), "warm": Path("b")}
    assert args.anchors == DEFAULT_ANCHORS == "gnugo:level=1;gnugo:level=10"
