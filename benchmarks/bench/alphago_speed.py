"""``goarena bench alphago``: AlphaGo's search speed, in simulations per second, by configuration.

Each configuration of the ``alphago`` player (the shipped networks, one torch and one numba
thread) searches the same positions for the same time each, from a fresh tree; the figure
is its simulations over its time, and the ratio is against the default configuration in
the same run. The positions are taken every ``spacing`` moves from one game of the SL policy
against itself, sampling its moves (temperature 1, a fixed seed). The configurations:

- the default: every new leaf gets the policy network's priors (``expansion_threshold=0``);
- ``expansion_threshold=1``: AlphaGo's ``n_thr``, a leaf is expanded at its second
  evaluation, so the leaves reached once never run the policy network (and the second
  evaluation reads the value network's value from the evaluator's memory of positions);
- ``precision=bfloat16``: both networks in bfloat16 (fast on CPUs with AVX512-BF16);
- both together.
"""

from __future__ import annotations

import time

from go_env import Game, Rules
from goarena.agents.alphago_agent import AlphaGoAgent
from goarena.agents.base import make_agent
from goarena.agents.inference import set_inference_threads

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


def show(seconds: float = 1.0, positions: int = 6, spacing: int = 10) -> None:
    """Measure and print every configuration (see the module documentation)."""
    set_inference_threads(1)
    games = sample_positions(positions, spacing)
    print(f"alphago on 9x9: {len(games)} positions (every {spacing} moves), {seconds:g} s each, one thread")
    baseline = None
    for name, options in CONFIGURATIONS.items():
        rate = simulations_per_second(options, games, seconds)
        baseline = baseline or rate
        print(f"  {name:44s} {rate:8,.0f} simulations/s  {rate / baseline:5.2f}x")
