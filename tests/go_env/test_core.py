"""The rules core's declared API: what ``go_env.core`` exports, and that search and features
use nothing else of it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import go_env.core as core

ROOT = Path(__file__).resolve().parents[2]
CORE_USERS = sorted((ROOT / "search").glob("*.py")) + sorted((ROOT / "go_env" / "features").glob("*.py"))


def test_every_exported_name_exists_and_is_public():
    assert len(core.__all__) == len(set(core.__all__))
    for name in core.__all__:
        assert not name.startswith("_"), name
        assert hasattr(core, name), name


def test_the_kernels_that_search_plays_with_are_exported():
    for name in ("apply_legal", "position_key", "seen_contains", "empty_point_status", "score", "batch_item"):
        assert name in core.__all__


def _core_names_used(source: str) -> list[str]:
    """Names taken from ``go_env.core`` (or one of its modules) by import or attribute access."""
    tree = ast.parse(source)
    aliases: set[str] = set()  # local names bound to the core package
    used: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "go_env":
            aliases.update(alias.asname or alias.name for alias in node.names if alias.name == "core")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("go_env.core"):
            used.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            aliases.update(alias.asname or "" for alias in node.names if alias.name == "go_env.core")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases:
            used.append(node.attr)
    return used


def test_the_scan_sees_private_names_however_they_are_imported():
    source = "from go_env import core as K\nfrom go_env.core.rules import _seen_add\nK._apply(1)\nK.play(2)\n"
    assert sorted(_core_names_used(source)) == ["_apply", "_seen_add", "play"]


@pytest.mark.parametrize("path", CORE_USERS, ids=lambda path: path.relative_to(ROOT).as_posix())
def test_search_and_features_use_only_the_declared_api(path):
    used = _core_names_used(path.read_text())
    assert [name for name in used if name not in core.__all__] == []
