"""numba's cache is keyed on every kernel source (an edit to the rules core reaches search:
``tests/search/test_evaluator.py``)."""

from __future__ import annotations

import shutil
from pathlib import Path

from go_env import _cache

ROOT = Path(__file__).resolve().parents[2]


def _copy_packages(destination: Path) -> None:
    for package in _cache.KERNEL_PACKAGES:
        shutil.copytree(ROOT / package, destination / package, ignore=shutil.ignore_patterns("__pycache__"))


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
