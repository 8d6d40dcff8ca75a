"""The import graph of our modules: the layers of the design, no cycles, no torch below agents.

The graph is read from the source (every ``import``, also inside functions), so that an import
hidden in a function or under ``TYPE_CHECKING`` breaks the test as surely as a top-level one.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Each package by its import name, and its folder (pyproject.toml maps the one onto the other).
FOLDERS = {
    "go_env": "go_env",
    "goarena.search": "search",
    "goarena.agents": "agents",
    "goarena.benchmarks": "benchmarks",
}
# What each package may import of ours: arrows only point down this list.
ALLOWED = {
    "go_env": {"go_env"},
    "goarena.search": {"go_env", "goarena.search"},
    "goarena.agents": {"go_env", "goarena.search", "goarena.agents"},
    "goarena.benchmarks": {"go_env", "goarena.search", "goarena.agents", "goarena.benchmarks"},
}
TORCH_FREE = ("go_env", "goarena.search")

# The floors inside a package, lowest first: a module may import another part of its package
# only from a lower floor (or its own sub-package). A part not named stands on the top floor,
# whose parts may import each other (the package's own __init__, the envs, the commands).
# Measured from the import graph: each floor holds today, and nothing leans on a sibling.
FLOORS = {
    # the rules kernels, then the rulesets, then the network inputs, then games and envs
    "go_env": [{"core", "coords", "_cache"}, {"rules"}, {"features"}],
    # protocols < nets < inference < players < training, and the data jobs below training;
    # atomic (whole-or-nothing file writes) at the bottom, for every writer above it
    "goarena.agents": [
        {"protocols", "weights", "atomic", "declared"},
        {"specs", "nets", "gtp"},
        {"inference"},
        {"players", "data"},
        {"training"},
    ],
    # one game < leagues < the web board and the benches; commands, cli and evaluate above
    "goarena.benchmarks": [{"match", "pictures"}, {"league"}, {"web", "bench"}],
}


def package_of(module: str) -> str:
    """The package of ours a dotted module name belongs to."""
    return next(package for package in FOLDERS if module == package or module.startswith(package + "."))


def module_files() -> dict[str, Path]:
    """Every module of our packages by dotted name (a package by its own name)."""
    modules = {}
    for package, folder in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            modules[".".join([package, *(parts[:-1] if parts[-1] == "__init__" else parts)])] = path
    return modules


def imported_names(name: str, path: Path) -> set[str]:
    """The dotted names ``name`` imports anywhere in its source, relative imports resolved;
    ``from a import b`` gives ``a.b`` (a submodule or not: see ``import_graph``)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def import_graph() -> dict[str, set[str]]:
    """Our modules and the modules of ours each imports: a name resolves to the longest
    module it starts with (``from go_env import Game`` is ``go_env``, ``from go_env import
    coords`` is ``go_env.coords``)."""
    modules = module_files()
    graph = {}
    for name, path in modules.items():
        targets = set()
        for imported in imported_names(name, path):
            parts = imported.split(".")
            prefixes = (".".join(parts[:n]) for n in range(len(parts), 0, -1))
            target = next((prefix for prefix in prefixes if prefix in modules), None)
            if target is not None and target != name:
                targets.add(target)
        graph[name] = targets
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph[node]):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_graph_sees_every_module_and_imports_inside_functions():
    graph = import_graph()
    assert {"go_env", "go_env.core", "goarena.search.puct", "goarena.agents.specs"} <= graph.keys()
    assert "goarena.benchmarks.league" in graph
    assert "go_env.core" in graph["go_env.game"]
    assert "goarena.search.evaluator" in graph["goarena.search.puct"]


def test_packages_import_only_the_layers_below():
    crossings = [
        f"{name} imports {target}"
        for name, targets in import_graph().items()
        for target in sorted(targets)
        if package_of(target) not in ALLOWED[package_of(name)]
    ]
    assert not crossings, "\n".join(crossings)


def part_of(module: str, package: str) -> str:
    """The part of ``package`` a module of it stands in: its first name below the package
    (``goarena.agents.nets.zero`` is ``nets``; the package itself is ``""``)."""
    return module[len(package) + 1 :].split(".")[0] if module != package else ""


def floor_crossings(graph: dict[str, set[str]], floors: dict[str, list[set[str]]]) -> list[str]:
    """The imports between two parts of one package that do not go to a lower floor."""
    crossings = []
    for package, levels in floors.items():
        top = len(levels)

        def floor(part: str, levels: list[set[str]] = levels, top: int = top) -> int:
            return next((n for n, level in enumerate(levels) if part in level), top)

        for name, targets in graph.items():
            if package_of(name) != package:
                continue
            source = part_of(name, package)
            for target in sorted(targets):
                if package_of(target) != package or part_of(target, package) == source:
                    continue
                above, below = floor(source), floor(part_of(target, package))
                if below > above or (below == above < top):
                    crossings.append(f"{name} imports {target}")
    return crossings


def test_sub_packages_import_only_lower_floors():
    crossings = floor_crossings(import_graph(), FLOORS)
    assert not crossings, "\n".join(crossings)


def test_the_floor_check_sees_an_import_up_and_one_beside():
    graph = {
        "goarena.agents.nets.zero": {"goarena.agents.players.zero", "goarena.agents.protocols"},
        "goarena.agents.players.zero": {"goarena.agents.data.shards", "goarena.agents.players.pool"},
        "goarena.agents": {"goarena.agents.training.zero"},
    }
    assert floor_crossings(graph, FLOORS) == [
        "goarena.agents.nets.zero imports goarena.agents.players.zero",
        "goarena.agents.players.zero imports goarena.agents.data.shards",
    ]


def test_no_import_cycles():
    found = cycles(import_graph())
    assert not found, "import cycles:\n" + "\n".join(" <-> ".join(component) for component in found)


def test_the_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_the_rules_and_search_never_import_torch():
    """In a fresh interpreter: importing every module of ``go_env`` and ``search`` never asks
    for torch (a finder records every attempt, so the test holds whether torch is installed)."""
    modules = [name for name in module_files() if package_of(name) in TORCH_FREE]
    script = "\n".join(
        [
            "import importlib, sys",
            "asked = []",
            "class Spy:",
            "    def find_spec(self, name, path=None, target=None):",
            "        asked.append(name) if name.split('.')[0] == 'torch' else None",
            "sys.meta_path.insert(0, Spy())",
            "for name in sys.argv[1:]: importlib.import_module(name)",
            "print(bool(asked) or 'torch' in sys.modules)",
        ]
    )
    result = subprocess.run(
        [sys.executable, "-c", script, *modules], capture_output=True, text=True, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


def _test_module_name(path: Path) -> str:
    """The name pytest imports a test file by: its dotted path from the first folder up that is
    not a package (``tests/agents/inference/test_value.py`` is ``tests.agents.inference.test_value``,
    a file in a folder that is not a package is its file name alone)."""
    parts = [path.stem]
    folder = path.parent
    while (folder / "__init__.py").exists():
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts)


def test_test_modules_have_names_of_their_own():
    """Two test files that pytest would import by one name collide: ``tests/agents``' folders are
    packages (their files share names, ``inference/test_value.py`` and ``nets/test_value.py``); in the
    other folders, which are not, each file name is used once."""
    names = Counter(_test_module_name(path) for path in (ROOT / "tests").rglob("test_*.py"))
    assert not [name for name, count in names.items() if count > 1]
    assert _test_module_name(ROOT / "tests/agents/nets/test_value.py") == "tests.agents.nets.test_value"


def test_the_gymnasium_env_does_not_stand_on_the_pettingzoo_adapter():
    """Observation planes and outcomes are facts of a ``Game``, not of the AEC env."""
    assert "go_env.aec" not in import_graph()["go_env.gym_env"]


def test_our_modules_are_imported_by_their_installed_names():
    """``agents``, ``search`` and ``benchmarks`` are folders; their import names are ``goarena.*``
    (a bare ``import agents`` would find another distribution's package, or a second copy)."""
    bare = [
        f"{name} imports {imported}"
        for name, path in module_files().items()
        for imported in imported_names(name, path)
        if imported.split(".")[0] in {"agents", "search", "benchmarks"}
    ]
    tests = [
        f"{path.relative_to(ROOT)} imports {imported}"
        for path in sorted((ROOT / "tests").rglob("*.py"))
        for imported in imported_names("tests", path)
        if imported.split(".")[0] in {"agents", "search", "benchmarks"}
    ]
    assert not bare + tests, "\n".join(bare + tests)
