"""Benchmarks that print numbers: environment, search, network and league speed, strength against
GNU Go, value estimates, ownership networks.

Each module is one ``goarena bench`` command: ``add_arguments(parser)`` gives its options and
``command(args)`` runs it (``benchmarks.cli`` registers them); ``feature_speed`` is the
feature-plane timing and the random batches that ``networks`` and ``zero`` share. Their
``--seconds`` means one thing, the time of one measurement; a player's search time per move
is ``--search-seconds`` (or its spec's ``seconds=``).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from typing import Any


def add_seconds(parser: argparse.ArgumentParser, default: float, what: str = "time per measurement") -> None:
    """``--seconds``: the time of one measurement."""
    parser.add_argument("--seconds", type=float, default=default, help=f"{what} (default {default:g})")


def rate(work: Callable[[], int], seconds: float, warm_up: int = 1) -> float:
    """Units per second of ``work`` (which returns the units it did: moves, steps) over calls
    made until ``seconds`` have passed, after ``warm_up`` untimed calls (compiling, caches)."""
    for _ in range(warm_up):
        work()
    done = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        done += work()
    return done / elapsed


def add_search_seconds(parser: argparse.ArgumentParser, default: float, what: str) -> None:
    """``--search-seconds``: a player's search time per move; ``--seconds``, its old spelling
    here, still works for one release, with a deprecation message."""
    parser.add_argument("--search-seconds", type=float, default=default, help=f"{what} (default {default:g})")
    parser.add_argument(
        "--seconds",
        dest="search_seconds",
        type=float,
        action=_Renamed,
        new="--search-seconds",
        help=argparse.SUPPRESS,
    )


class _Renamed(argparse.Action):
    """An option's old spelling: sets the new one's value and says so on stderr."""

    def __init__(self, *args: Any, new: str, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.new = new

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        print(
            f"{parser.prog}: {option_string} is deprecated here, use {self.new} "
            f"({option_string} goes in a later release; elsewhere it is the time of one measurement)",
            file=sys.stderr,
        )
        setattr(namespace, self.dest, values)
