"""The evaluators' kernels (``goarena.search.evaluator``) and numba's cache: a search kernel that
inlines a rules kernel is compiled again when the rules core changes (the cache is keyed on
every kernel source: ``tests/go_env/test_cache.py``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.go_env.test_cache import _copy_packages

# The mean outcome of random playouts from an empty 5x5 board, computed by a search kernel
# (search.evaluator.rollout_values) that inlines the rules core's random_move.
ROLLOUT_SCRIPT = """
import numpy as np
from go_env import Game, Rules
from go_env.core import GoState
from goarena.search.evaluator import Leaves, RolloutEvaluator

game = Game(5, Rules(komi=0.5))
states = GoState(*(field[None].copy() for field in game.state))
leaves = Leaves(states, game.legal_mask()[None].copy(), game.geometry)
print(RolloutEvaluator(rollouts=64, seed=1).values(leaves)[0])
"""


def _rollout_value(tree: Path, cache: Path) -> float:
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, "-c", ROLLOUT_SCRIPT], cwd=tree, env=environment, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return float(done.stdout.split()[-1])


@pytest.mark.slow
def test_an_edit_to_a_rules_kernel_reaches_a_cached_search_kernel_that_inlines_it(tmp_path):
    tree, cache = tmp_path / "tree", tmp_path / "cache"
    _copy_packages(tree)
    random_value = _rollout_value(tree, cache)
    assert -1.0 < random_value < 1.0  # playouts from the empty board: both colours win some
    # Make random playouts pass at once: every playout then ends on the empty board, W+0.5.
    kernels = tree / "go_env" / "core" / "playout.py"
    source = kernels.read_text()
    body = '    """A uniformly random legal move that fills no own eye; pass when there is none."""\n'
    assert body in source
    kernels.write_text(source.replace(body, body + "    return geometry.size * geometry.size\n", 1))
    assert _rollout_value(tree, cache) == -1.0
