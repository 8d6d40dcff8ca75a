"""``goarena bench alphago``: AlphaGo's search speed, in simulations per second, by configuration.

Each configuration of the ``alphago`` player (the shipped networks, one torch thread, numba's
threads as ``NUMBA_NUM_THREADS`` sets them) searches the same positions for the same time each,
from a fresh tree; the figure is its simulations over its time, and the ratio is against the
default configuration in the same run. The positions are taken every ``spacing`` moves from
one game of the SL policy against itself, sampling its moves (temperature 1, a fixed seed).
The configurations:

- the default: every new leaf gets the policy network's priors (``expansion_threshold=0``);
- ``expansion_threshold=1``: AlphaGo's ``n_thr``, a leaf is expanded at its second
  evaluation, so the leaves reached once never run the policy network (and the second
  evaluation reads the value network's value from the evaluator's memory of positions);
- ``precision=bfloat16``: both networks in bfloat16 (fast on CPUs with AVX512-BF16);
- both together.

With ``--compare-threads`` the default configuration is measured again in fresh processes,
alternately with numba's default threads (``NUMBA_NUM_THREADS`` unset: one a core) and with
``NUMBA_NUM_THREADS=1``, and the ratio of the two is printed: the batch kernels run in parallel
only on batches far larger than a search's, so the two should be within noise of each other.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numba

from go_env import Game, Rules
from goarena.agents.inference import set_inference_threads
from goarena.agents.players.alphago import AlphaGoAgent
from goarena.agents.specs import make_agent
from goarena.benchmarks.bench import add_search_seconds

CONFIGURATIONS: dict[str, dict[str, object]] = {
    "default (expansion_threshold=0, float32)": {},
    "expansion_threshold=1": {"expansion_threshold": 1},
    "precision=bfloat16": {"precision": "bfloat16"},
    "expansion_threshold=1, precision=bfloat16": {"expansion_threshold": 1, "precision": "bfloat16"},
}


def sample_positions(count: int, spacing: int, seed: int = 0) -> list[Game]:
    """``count`` positions of one 9x9 game (komi 7) of the SL policy sampling its moves, every
    ``spacing`` moves from the empty board."""
    game = Game(9, Rules(komi=7.0))
    player = make_agent("sl-policy:temperature=1.0", seed=seed)
    positions = [game.copy()]
    while len(positions) < count and not game.is_over:
        for _ in range(spacing):
            game.play(player.select_move(game))
        positions.append(game.copy())
    return positions


def simulations_per_second(options: dict[str, object], positions: list[Game], seconds: float) -> float:
    """The ``alphago`` player with ``options``: simulations per second over ``positions``."""
    player = AlphaGoAgent(seconds=seconds, reuse=False, **options)
    player.searcher.search(positions[0], simulations=64)  # warm up outside the clock
    simulations, spent = 0, 0.0
    for game in positions:
        player.searcher.reset()
        start = time.perf_counter()
        player.searcher.search(game, seconds=seconds)
        spent += time.perf_counter() - start
        simulations += player.searcher.simulations
    return simulations / spent


def show(
    seconds: float = 1.0,
    positions: int = 6,
    spacing: int = 10,
    compare_threads: bool = False,
    rounds: int = 2,
) -> None:
    """Measure and print every configuration (see the module documentation)."""
    set_inference_threads(1)
    games = sample_positions(positions, spacing)
    print(
        f"alphago on 9x9: {len(games)} positions (every {spacing} moves), {seconds:g} s each, "
        f"one torch thread, {numba.get_num_threads()} numba thread(s)"
    )
    baseline = None
    for name, options in CONFIGURATIONS.items():
        rate = simulations_per_second(options, games, seconds)
        baseline = baseline or rate
        print(f"  {name:44s} {rate:8,.0f} simulations/s  {_ratio(rate, baseline)}")
    if compare_threads:
        show_threads(seconds, positions, spacing, rounds)


def _ratio(rate: float, baseline: float | None) -> str:
    return f"{rate / baseline:5.2f}x" if baseline else "    -"


# Run in a child process: the default configuration's rate and numba's thread count, as JSON.
_CHILD = (
    "import json\n"
    "import numba\n"
    "from goarena.agents.inference import set_inference_threads\n"
    "from goarena.benchmarks.bench.alphago_speed import sample_positions, simulations_per_second\n"
    "set_inference_threads(1)\n"
    "rate = simulations_per_second({{}}, sample_positions({positions}, {spacing}), {seconds})\n"
    "print(json.dumps({{'rate': rate, 'threads': numba.get_num_threads()}}))\n"
)


def child_rate(seconds: float, positions: int, spacing: int, numba_threads: int | None) -> tuple[float, int]:
    """(simulations per second, numba's threads) of the default configuration, measured in a
    fresh process with ``NUMBA_NUM_THREADS`` unset (None) or set to ``numba_threads``."""
    environment = {key: value for key, value in os.environ.items() if key != "NUMBA_NUM_THREADS"}
    if numba_threads is not None:
        environment["NUMBA_NUM_THREADS"] = str(numba_threads)
    script = _CHILD.format(positions=positions, spacing=spacing, seconds=seconds)
    done = subprocess.run([sys.executable, "-c", script], env=environment, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"the measuring process failed:\n{done.stderr}")
    result = json.loads(done.stdout.splitlines()[-1])
    return float(result["rate"]), int(result["threads"])


def show_threads(seconds: float, positions: int, spacing: int, rounds: int = 2) -> None:
    """The default configuration with numba's default threads against one thread, each in
    ``rounds`` fresh processes taken in turn; their means and ratio."""
    rates: dict[int | None, list[float]] = {None: [], 1: []}
    threads = {}
    for _ in range(rounds):
        for setting in rates:
            rate, threads[setting] = child_rate(seconds, positions, spacing, setting)
            rates[setting].append(rate)
    default, one = (sum(rates[key]) / rounds for key in (None, 1))
    load = os.getloadavg()[0]
    print(
        f"numba threads, the default configuration in {2 * rounds} fresh processes taken in turn "
        f"({os.cpu_count()} cores, load average {load:.2f}):"
    )
    print(f"  {f'NUMBA_NUM_THREADS unset ({threads[None]} threads)':44s} {default:8,.0f} simulations/s")
    print(f"  {'NUMBA_NUM_THREADS=1':44s} {one:8,.0f} simulations/s")
    print(f"  {'unset / one thread':44s} {_ratio(default, one)}")


# -- the command: ``goarena bench alphago`` ----------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``goarena bench alphago``."""
    add_search_seconds(parser, 1.0, "search time per position")
    parser.add_argument("--positions", type=int, default=6, help="positions searched (default 6)")
    parser.add_argument("--spacing", type=int, default=10, help="moves between positions (default 10)")
    parser.add_argument(
        "--compare-threads",
        action="store_true",
        help="also the default configuration with numba's default threads and with NUMBA_NUM_THREADS=1",
    )


def command(args: argparse.Namespace) -> None:
    """``goarena bench alphago``: measure and print."""
    show(args.search_seconds, args.positions, args.spacing, args.compare_threads)
