"""League throughput: games per minute of one league of fast players, played with 1 and 2
local workers and on a local Ray instance, each from an empty directory::

    goarena bench league
    goarena bench league --games-per-pair 20 --workers 1 2 4 --no-ray

Times include starting the workers (and Ray), as a user running the league would see them.
"""

from __future__ import annotations

import argparse
import importlib.util
import tempfile
import time
from pathlib import Path

from goarena.benchmarks.league.config import LeagueConfig
from goarena.benchmarks.league.play import run_league
from goarena.benchmarks.league.schedule import schedule

FAST_PLAYERS = {"random": "random", "uct-20": "uct:simulations=20", "uct-100": "uct:simulations=100"}


def games_per_minute(config: LeagueConfig, workers: int, use_ray: bool) -> float:
    with tempfile.TemporaryDirectory() as directory:
        start = time.perf_counter()
        store = run_league(config, Path(directory), workers=workers, use_ray=use_ray)
        elapsed = time.perf_counter() - start
        played = len(store.games())
        store.close()
    return 60 * played / elapsed


def show(games_per_pair: int, worker_counts: list[int], with_ray: bool) -> None:
    """``goarena bench league``: games per minute for each worker count (and on Ray)."""
    config = LeagueConfig(players=FAST_PLAYERS, games_per_pair=games_per_pair, name="throughput")
    players = ", ".join(f"{name} ({spec})" for name, spec in FAST_PLAYERS.items())
    print(f"League of {players}: {len(schedule(config))} games")
    games_per_minute(LeagueConfig(players=FAST_PLAYERS, games_per_pair=1), 1, use_ray=False)  # compiles
    baseline = 0.0
    for workers in worker_counts:
        rate = games_per_minute(config, workers, use_ray=False)
        baseline = baseline or rate
        print(f"  processes, {workers} worker(s): {rate:7.1f} games/min ({rate / baseline:.2f}x)", flush=True)
    if with_ray:
        if importlib.util.find_spec("ray") is None:
            print("  Ray: not installed (pip install 'goarena[ray]')")
        else:
            workers = max(worker_counts)
            rate = games_per_minute(config, workers, use_ray=True)
            print(f"  Ray (local), {workers} CPUs:   {rate:7.1f} games/min ({rate / baseline:.2f}x)")


# -- the command: ``goarena bench league`` ----------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``goarena bench league``."""
    parser.add_argument("--games-per-pair", type=int, default=40, help="games per pairing (default 40)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2], help="worker counts (default 1 2)")
    parser.add_argument("--no-ray", action="store_true", help="leave out the Ray run")


def command(args: argparse.Namespace) -> None:
    """``goarena bench league``: measure and print."""
    show(args.games_per_pair, args.workers, not args.no_ray)
