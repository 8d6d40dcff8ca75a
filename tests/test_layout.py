"""The layout of the tests: they mirror the code, and hold to its layers.

- A test file imports no higher layer than its folder's (``go_env < search < agents <
  benchmarks``): the tests of ``go_env`` run with ``go_env`` alone, those of ``search`` without
  the players, and so on. Imports are read from the source, also inside functions, and so are the
  modules a test runs in a fresh process (``python -m goarena.benchmarks.cli``, or code it hands
  to ``python -c``): a test that drives a command of a higher layer belongs to that layer.
- The tests of ``go_env/<sub>/<module>.py`` live in ``tests/go_env/<sub>/test_<module>.py``, and
  so do those of ``benchmarks/{match,league,bench,commands}/<module>.py`` in
  ``tests/benchmarks/<sub>/test_<module>.py``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"

# The layers, lowest first, by the names they are imported under (the packages of goarena are
# also importable by their folders' names from the repository root, as `python -m` does).
LAYERS = ["go_env", "search", "agents", "benchmarks"]
# The folders of tests whose files this checks, and the layer each stands on: the tests of a
# layer are in the folder of its name.
FOLDERS = {layer: layer for layer in LAYERS}
# The sub-packages whose modules each have their mirrored test file.
MIRRORED = [
    "go_env/core",
    "go_env/features",
    "benchmarks/match",
    "benchmarks/league",
    "benchmarks/bench",
    "benchmarks/commands",
]

MODULE_OPTION = re.compile(r"(?:^|\s)-m\s+([\w.]+)")
GOARENA_NAME = re.compile(r"\bgoarena\.(\w+)")


def layer_of(module: str) -> str | None:
    """The layer a dotted module name belongs to (``tests.search.x`` to ``search``), or None
    when it is none of ours."""
    parts = module.split(".")
    if parts[0] in ("goarena", "tests") and len(parts) > 1:
        parts = parts[1:]
    return parts[0] if parts[0] in LAYERS else None


def docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes in ``tree`` (they name modules without running them)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def used_modules(path: Path) -> set[str]:
    """Every module of ours ``path`` imports (anywhere in it) or runs in a subprocess."""
    tree = ast.parse(path.read_text(), str(path))
    skipped = docstrings(tree)
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            modules.add(node.module)
        elif isinstance(node, ast.List | ast.Tuple):
            # [sys.executable, "-m", "goarena.benchmarks.cli", ...]
            items = [item.value if isinstance(item, ast.Constant) else None for item in node.elts]
            modules.update(
                after
                for before, after in zip(items, items[1:], strict=False)
                if before == "-m" and isinstance(after, str)
            )
        elif isinstance(node, ast.Call) and _call_name(node.func) in ("importorskip", "import_module"):
            if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                modules.add(node.args[0].value)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skipped:
            # f"{sys.executable} -m benchmarks.cli gtp", or source code run by `python -c`
            modules.update(MODULE_OPTION.findall(node.value))
            modules.update(f"goarena.{name}" for name in GOARENA_NAME.findall(node.value))
    return modules


def _call_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else None


def crossings(folder: str, layer: str) -> list[str]:
    """``file: module`` for each module above ``layer`` a test file under ``folder`` uses."""
    allowed = set(LAYERS[: LAYERS.index(layer) + 1])
    found = []
    for path in sorted((TESTS / folder).rglob("*.py")):
        for module in sorted(used_modules(path)):
            if layer_of(module) not in (None, *allowed):
                found.append(f"tests/{path.relative_to(TESTS).as_posix()}: {module}")
    return found


@pytest.mark.parametrize("folder", FOLDERS)
def test_tests_import_no_higher_layer_than_their_folder(folder):
    assert crossings(folder, FOLDERS[folder]) == []


def test_each_folder_of_tests_is_named_after_a_layer():
    """A test file is either beside this one (the whole house) or in a layer's folder, which
    the check above reads."""
    folders = {path.name for path in TESTS.iterdir() if path.is_dir() and any(path.rglob("test_*.py"))}
    assert folders <= set(FOLDERS)


@pytest.mark.parametrize("package", MIRRORED)
def test_each_module_has_its_mirrored_test_file(package):
    modules = sorted(path.stem for path in (ROOT / package).glob("*.py") if not path.name.startswith("_"))
    assert modules, f"{package} has no modules"
    missing = [
        f"tests/{package}/test_{module}.py"
        for module in modules
        if not (TESTS / package / f"test_{module}.py").is_file()
    ]
    assert missing == []


def test_the_layout_check_sees_each_kind_of_crossing(tmp_path, monkeypatch):
    """The check finds an import in a function, a `-m` module in a list or a string, code handed
    to `python -c` and `importorskip`; it passes a docstring that only names a module."""
    folder = tmp_path / "go_env"
    folder.mkdir()
    (folder / "test_crossing.py").write_text(
        "import sys\n"
        "def test_a():\n"
        "    from goarena.search.puct import PUCT\n"
        "def test_b():\n"
        '    return [sys.executable, "-m", "agents.gtp"]\n'
        "def test_c():\n"
        '    return f"{sys.executable} -m benchmarks.cli gtp"\n'
        'CODE = """\nfrom goarena.benchmarks.league.play import warm_up\n"""\n'
        "def test_d():\n"
        '    import pytest; pytest.importorskip("tests.search.test_puct")\n'
    )
    (folder / "test_fine.py").write_text(
        '"""Unlike goarena.benchmarks, this docstring runs nothing."""\n'
        "from go_env import Game\n"
        "from tests.boards import position\n"
        "from tests.go_env.conftest import GnuGo\n"
    )
    monkeypatch.setattr(f"{__name__}.TESTS", tmp_path)
    assert sorted(crossings("go_env", "go_env")) == [
        "tests/go_env/test_crossing.py: agents.gtp",
        "tests/go_env/test_crossing.py: benchmarks.cli",
        "tests/go_env/test_crossing.py: goarena.benchmarks",
        "tests/go_env/test_crossing.py: goarena.search.puct",
        "tests/go_env/test_crossing.py: tests.search.test_puct",
    ]
