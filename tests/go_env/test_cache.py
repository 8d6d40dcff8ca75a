"""numba's cache is keyed on every kernel source: an edit to the rules core reaches search."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from go_env import _cache

ROOT = Path(__file__).resolve().parents[2]

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


def _copy_packages(destination: Path) -> None:
    for package in _cache.KERNEL_PACKAGES:
        shutil.copytree(ROOT / package, destination / package, ignore=shutil.ignore_patterns("__pycache__"))


def _rollout_value(tree: Path, cache: Path) -> float:
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(tree)}
    done = subprocess.run(
        [sys.executable, "-c", ROLLOUT_SCRIPT], cwd=tree, env=environment, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return float(done.stdout.split()[-1])


def test_the_cache_directory_is_named_after_the_kernel_sources(tmp_path):
    _copy_packages(tmp_path)
    roots = [tmp_path / package for package in _cache.KERNEL_PACKAGES]
    before = _cache.kernel_digest(roots)
    assert _cache.kernel_digest(roots) == before  # stable
    rules = tmp_path / "go_env" / "rules.py"  # plain Python: the compiled kernels stay valid
    rules.write_text(rules.read_text() + "\n# a comment\n")
    assert _cache.kernel_digest(roots) == before
    kernels = tmp_path / "go_env" / "core" / "state.py"
    kernels.write_text(kernels.read_text() + "\n# a comment\n")
    assert _cache.kernel_digest(roots) != before
    assert _cache.cache_directory(str(tmp_path)).parent == tmp_path


def test_the_running_process_compiles_into_the_keyed_directory():
    import numba

    from go_env.core import play

    assert str(_cache.CACHE_DIRECTORY) == numba.config.CACHE_DIR
    assert _cache.CACHE_DIRECTORY.name.startswith("kernels-")
    assert str(play._cache._cache_path).startswith(str(_cache.CACHE_DIRECTORY))


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
