"""``goarena bench runs``: training runs compared, their generations rated in one league.

Each run of ``goarena train zero`` (from zero, warm-started from expert games, ...) lists its
generations with their training time; this rates all of them together with fixed anchors
(GNU Go levels 1 and 10 by default) and draws each run's Elo against training hours::

    goarena bench runs --run zero=runs/zero --run warm=runs/warm --out runs/compared

The league lives in ``OUT/league`` and grows with the runs (``rate_runs``); the ratings go to
``OUT/elo.json`` and the plot to ``OUT/elo.png``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from goarena.benchmarks.league.zero_rating import anchor_specs, plot_runs, rate_runs, runs_table

DEFAULT_ANCHORS = "gnugo:level=1;gnugo:level=10"


def run_argument(text: str) -> tuple[str, Path]:
    """``LABEL=DIR`` as (label, directory)."""
    label, sep, folder = text.partition("=")
    if not (sep and label and folder):
        raise argparse.ArgumentTypeError(f"expected LABEL=DIR, got {text!r}")
    return label, Path(folder)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``goarena bench runs``."""
    parser.add_argument(
        "--run", type=run_argument, action="append", required=True, help="LABEL=DIR of a run (repeat)"
    )
    parser.add_argument("--out", type=Path, required=True, help="folder of the league, elo.json and elo.png")
    parser.add_argument(
        "--anchors", default=DEFAULT_ANCHORS, help=f"fixed players, ';'-separated (default {DEFAULT_ANCHORS})"
    )
    parser.add_argument("--games", type=int, default=4, help="games per pairing (default 4)")
    parser.add_argument("--simulations", type=int, default=64, help="simulations a move (default 64)")
    parser.add_argument("--workers", type=int, default=1, help="games at once (default 1)")


def command(args: argparse.Namespace) -> None:
    """``goarena bench runs``: rate, print the table, draw the plot."""
    table = rate_runs(
        dict(args.run),
        args.out,
        anchors=anchor_specs(args.anchors),
        games_per_pair=args.games,
        simulations=args.simulations,
        workers=args.workers,
    )
    print(runs_table(table))
    print(f"plot: {plot_runs(args.out)}")
