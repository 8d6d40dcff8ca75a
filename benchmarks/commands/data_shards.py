"""``goarena data shards``: a folder tree of SGF files as training shards (rerun to resume).

The command's options live here until ``agents.data.shards`` gives its own ``parser()`` and
``main(argv)``; then the registry in ``benchmarks.cli`` names that module instead."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("sgf_dir", type=Path, help="folder searched for .sgf files")
    parser.add_argument("out_dir", type=Path, help="folder of the shards, manifest.json and report.json")
    parser.add_argument("--size", type=int, default=9, help="board size of the games kept (default 9)")
    parser.add_argument("--workers", type=int, default=1, help="processes reading files (default 1)")


def command(args: argparse.Namespace) -> None:
    from goarena.agents.data import shards

    shards.run(args.sgf_dir, args.out_dir, size=args.size, workers=args.workers)
