"""``goarena data gnugo``: GNU Go plays itself, one SGF per game (rerun to resume).

The command's options live here until ``agents.data.gnugo`` gives its own ``parser()`` and
``main(argv)``; then the registry in ``benchmarks.cli`` names that module instead."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", type=Path, required=True, help="folder of the games (game-000000.sgf, ...)")
    parser.add_argument("--games", type=int, required=True, help="number of games")
    parser.add_argument("--size", type=int, default=9, help="board size (default 9)")
    parser.add_argument("--level", type=int, default=1, help="GNU Go's level, 0 to 10 (default 1)")
    parser.add_argument("--komi", type=float, default=None, help="komi (default: the board size's, 7 on 9x9)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the games (default 0)")
    parser.add_argument("--workers", type=int, default=1, help="games at once, one GNU Go each (default 1)")


def command(args: argparse.Namespace) -> None:
    from goarena.agents.data import gnugo

    config = gnugo.GnuGoConfig(args.out, args.size, args.games, args.level, args.komi, args.seed)
    gnugo.run(config, workers=args.workers)
