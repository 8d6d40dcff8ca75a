"""``goarena players [NAME ...]``: the built-in players a spec can name, each with its options,
their defaults and what each does, read from the player's declaration of its options
(``agents.specs.option_help``), so that the list cannot drift from the code."""

from __future__ import annotations

import argparse

from goarena.benchmarks.commands import missing_extra, needs_extra


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("names", nargs="*", metavar="NAME", help="built-in players to show (default: all)")


def command(args: argparse.Namespace) -> None:
    """Print each player asked for (every built-in by default) and its options."""
    from goarena.agents.specs import BUILTIN_AGENTS

    unknown = [name for name in args.names if name not in BUILTIN_AGENTS]
    if unknown:
        raise ValueError(f"no built-in player {unknown[0]!r}; the built-ins: {', '.join(BUILTIN_AGENTS)}")
    print("\n\n".join(player_text(name) for name in args.names or BUILTIN_AGENTS))


def player_text(name: str) -> str:
    """``name``'s line of summary, then its options (``name=default  help``) indented under it."""
    from goarena.agents.specs import BUILTIN_AGENTS, option_help

    try:
        options = option_help(name)
    except ImportError as error:  # its module is an extra's, not installed
        extra = missing_extra(error)
        if extra is None:
            raise
        options = [f"({needs_extra(name, extra)})"]
    return "\n".join([f"{name}: {BUILTIN_AGENTS[name].summary}", *(f"    {line}" for line in options)])
