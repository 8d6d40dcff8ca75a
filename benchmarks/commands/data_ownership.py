"""``goarena data ownership``: the final owners of an SGF folder's finished games, as territory
marks written into the records (rerun to resume).

The command's options live here, as those of ``data gnugo`` and ``data shards`` do."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("sgf_dir", type=Path, help="folder searched for .sgf files, marked in place")
    parser.add_argument(
        "--engine",
        default=None,
        help="the GTP engine that names the dead and seki stones, as a command line "
        "(default: GNU Go with the options of `goarena data gnugo`)",
    )
    parser.add_argument("--workers", type=int, default=1, help="records at once, one engine each (default 1)")


def command(args: argparse.Namespace) -> None:
    from goarena.agents.data import ownership
    from goarena.agents.data.gnugo import GnuGoConfig

    # GNU Go as ``data gnugo`` runs it (ValueError when it is not installed)
    engine = args.engine or GnuGoConfig(Path(".")).engine_command()
    ownership.run(args.sgf_dir, engine=engine, workers=args.workers)
