"""The ``goarena`` commands that belong to no other package: each module is one command
(``add_arguments(parser)`` and ``command(args)``, or ``parser()`` and ``main(argv)`` where it
parses its own options); ``benchmarks.cli`` registers them. What they share is here."""

from __future__ import annotations

import argparse
import re
import sys


def device_name(text: str) -> str:
    """A device name, checked by its form here (without importing torch); whether it is there
    is checked before the first game (``league.play.check_players``) or at the player's reset."""
    if not re.fullmatch(r"cpu|cuda(:\d+)?", text):
        raise argparse.ArgumentTypeError(f"unsupported device {text!r}: use cpu, cuda or cuda:N")
    return text


def log(line: str) -> None:
    """A line of progress on stderr (stdout is a GTP engine's protocol, or a command's figures)."""
    print(f"goarena: {line}", file=sys.stderr, flush=True)
