"""``goarena show ownership``: a PNG of a record's position, each point shaded by its final
owner as an ownership network (the shipped 9x9 one unless ``--weights`` or ``--player`` say)
sees it, with V and Black's win probability of that position, both from Black's view."""

from __future__ import annotations

import argparse
from pathlib import Path

from goarena.benchmarks.commands import device_name


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("sgf", type=Path, help="the SGF record")
    parser.add_argument(
        "--move",
        type=int,
        default=None,
        help="the position after this many moves (0: the setup; default: the last)",
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--weights",
        type=Path,
        help="an ownership network's file (goarena train ownership); default, without --player: "
        "the shipped 9x9 one",
    )
    source.add_argument(
        "--player",
        help="a player whose act() gives ownership instead, e.g. zero or ownership-greedy:weights=PATH",
    )
    parser.add_argument(
        "--out", type=Path, default=None, help="the PNG (default: beside the record, RECORD-ownership-N.png)"
    )
    parser.add_argument(
        "--device", type=device_name, default="cpu", help="where the network runs: cpu (default), cuda"
    )


def command(args: argparse.Namespace) -> None:
    from goarena.benchmarks.pictures import show_ownership

    shown = show_ownership(
        args.sgf, args.move, weights=args.weights, player=args.player, out=args.out, device=args.device
    )
    print(shown.title.replace("\n", ": "))
    print(f"wrote {shown.path}")
