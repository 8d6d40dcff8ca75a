"""``goarena warmup``: compile the kernels of the game and of the players ahead of time (numba
keeps them in its cache), so that no player waits for it later."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from goarena.benchmarks.commands import log


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--size", type=int, default=9, help="board size of the position used (default 9)")
    parser.add_argument(
        "--player",
        action="append",
        metavar="SPEC",
        help="warm up this player's kernels (repeat); default: every built-in player's",
    )


def command(args: argparse.Namespace) -> None:
    """The kernels of ``--player`` SPECs, else of every built-in player."""
    from goarena.agents.specs import BUILTIN_AGENTS, AgentSpecError, player_warmup
    from goarena.search.warmup import warmup as warm_up

    warmups: dict[str, Callable[[int], None]] = {}
    for spec in args.player or BUILTIN_AGENTS:
        try:
            warm = player_warmup(spec)
        except AgentSpecError as error:  # a built-in whose extra is not installed (sb3)
            if args.player:
                raise
            log(f"skipping {spec}: {error}")
            continue
        if warm is not None:
            warmups[spec] = warm
    seconds = warm_up(args.size, log=log, warmups=warmups)
    print(f"kernels ready in {seconds:.1f} s")
