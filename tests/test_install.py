"""Install by need: the core install plays the main job (a league of the built-in players),
each optional module belongs to an extra of pyproject.toml, and a missing one is named by the
extra that brings it (``goarena serve needs the web extra: pip install 'goarena[web]'``)."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from goarena.benchmarks import cli
from goarena.benchmarks.commands import EXTRAS, missing_extra

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("go_env", "agents", "search", "benchmarks")
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
OPTIONAL = PROJECT["optional-dependencies"]
BY_NEED = ("web", "sb3", "ray", "peers", "render", "dev")
# The modules the core install brings (its dependencies, by the names they are imported by).
CORE = {
    "numpy",
    "numba",
    "gymnasium",
    "pettingzoo",
    "sgfmill",
    "scipy",
    "rich",
    "matplotlib",
    "torch",
    "tensorboard",
    "tomli",
}
# The distribution each optional module comes in, where an extra names it itself.
DISTRIBUTIONS = {
    "fastapi": "fastapi",
    "uvicorn": "uvicorn",
    "websockets": "websockets",
    "stable_baselines3": "stable-baselines3",
    "sb3_contrib": "sb3-contrib",
    "ray": "ray",
    "pyspiel": "open_spiel",
    "open_spiel": "open_spiel",
    "pygame": "pygame",
}


def requirement_names(extra: str) -> set[str]:
    """The distributions an extra names, its own extras' included (``goarena[web,sb3]``)."""
    names: set[str] = set()
    for requirement in OPTIONAL[extra]:
        name = re.match(r"[A-Za-z0-9_.-]+", requirement).group()
        if name == "goarena":
            for inner in re.search(r"\[(.*)\]", requirement).group(1).split(","):
                names |= requirement_names(inner.strip())
        else:
            names.add(name.lower())
    return names


def imported_top_names() -> dict[str, set[str]]:
    """Every top-level module the package code imports, with the files that import it."""
    found: dict[str, set[str]] = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    found.setdefault(name.partition(".")[0], set()).add(str(path.relative_to(ROOT)))
    return found


def test_all_is_the_union_of_the_extras_by_need():
    assert OPTIONAL["all"] == [f"goarena[{','.join(BY_NEED)}]"]
    assert requirement_names("all") == set().union(*(requirement_names(extra) for extra in BY_NEED))
    assert not requirement_names("all") & {"pytest", "ruff", "mypy"} - requirement_names("dev")


def test_every_module_the_code_imports_comes_with_the_core_or_an_extra():
    own = {"go_env", "goarena"}
    outside = {
        name: files
        for name, files in imported_top_names().items()
        if name not in sys.stdlib_module_names and name not in own | CORE
    }
    assert set(outside) <= set(EXTRAS), {name: sorted(files) for name, files in outside.items()}


def test_each_import_guard_names_an_extra_that_brings_its_module():
    for module, extra in EXTRAS.items():
        assert extra in OPTIONAL and extra in BY_NEED, (module, extra)
        if module in DISTRIBUTIONS:
            assert DISTRIBUTIONS[module] in requirement_names(extra), (module, extra)
    for dependency in PROJECT["dependencies"]:  # the core needs no extra's module
        assert re.match(r"[A-Za-z0-9_-]+", dependency).group().replace("-", "_") not in EXTRAS


def test_every_extra_the_code_and_the_docs_name_exists():
    named: dict[str, set[str]] = {}
    files = [*[p for package in PACKAGES for p in (ROOT / package).rglob("*.py")], ROOT / "README.md"]
    files += sorted((ROOT / "docs").glob("*.md"))
    for path in files:
        for extras in re.findall(r"goarena\[([a-z0-9_,]+)\]", path.read_text()):
            for extra in extras.split(","):
                named.setdefault(extra, set()).add(path.name)
    assert named and set(named) <= set(OPTIONAL), {
        extra: named[extra] for extra in set(named) - set(OPTIONAL)
    }


@pytest.fixture
def without(monkeypatch):
    """Make modules unimportable, as where their extra is not installed."""

    def hide(*modules: str) -> None:
        for name in list(sys.modules):
            if name.partition(".")[0] in modules:
                monkeypatch.delitem(sys.modules, name)
        for name in modules:
            monkeypatch.setitem(sys.modules, name, None)  # import raises ImportError

    return hide


def test_goarena_serve_without_the_web_extra_names_it(without, monkeypatch, tmp_path):
    without("uvicorn", "fastapi", "starlette")
    monkeypatch.delitem(sys.modules, "goarena.benchmarks.web.app", raising=False)
    monkeypatch.delitem(sys.modules, "goarena.benchmarks.web.guard", raising=False)
    with pytest.raises(SystemExit) as exit:
        cli.main(["serve", "--dir", str(tmp_path)])
    assert str(exit.value.code).startswith("goarena serve needs the web extra: pip install 'goarena[web]'")


def test_a_command_of_an_extra_names_it(without, monkeypatch):
    without("stable_baselines3", "sb3_contrib")
    for name in [name for name in sys.modules if name.startswith("goarena.agents.training.sb3")]:
        monkeypatch.delitem(sys.modules, name)
    with pytest.raises(SystemExit) as exit:
        cli.main(["train", "sb3", "--help"])
    assert str(exit.value.code).startswith(
        "goarena train sb3 needs the sb3 extra: pip install 'goarena[sb3]'"
    )


def test_a_league_player_of_an_extra_names_it(without, monkeypatch, tmp_path):
    from goarena.benchmarks.commands.league import league

    without("stable_baselines3", "sb3_contrib")
    for name in [name for name in sys.modules if name.startswith("goarena.agents.players.sb3")]:
        monkeypatch.delitem(sys.modules, name)
    with pytest.raises(SystemExit) as exit:
        league(["--player", "random", "--player", "sb3:model.zip", "--size", "5", "--dir", str(tmp_path)])
    message = str(exit.value.code)
    assert message.startswith("goarena league: ") and "\n" not in message
    assert message.endswith("; it needs the sb3 extra: pip install 'goarena[sb3]'")


def test_ray_without_the_ray_extra_names_it(without):
    from goarena.agents.training.workers import SelfPlayWorkers
    from goarena.benchmarks.league.runner import LeagueRunError, run_ray

    without("ray")
    with pytest.raises(
        LeagueRunError, match=re.escape("--ray needs the ray extra: pip install 'goarena[ray]'")
    ):
        list(run_ray([], None, 1))
    with pytest.raises(ValueError, match=re.escape("--ray needs the ray extra: pip install 'goarena[ray]'")):
        SelfPlayWorkers(1, ray_address="auto")


def test_an_error_raised_from_a_missing_module_names_its_extra():
    try:
        try:
            raise ModuleNotFoundError("No module named 'sb3_contrib'", name="sb3_contrib")
        except ImportError as error:
            raise ValueError("cannot import the player") from error
    except ValueError as error:
        assert missing_extra(error) == "sb3"
    assert missing_extra(ValueError("no module involved")) is None


# The main job's players, checked and built with every extra's module unimportable.
CORE_LEAGUE = textwrap.dedent(
    """
    import importlib.abc, sys
    hidden = set(sys.argv[1].split(","))

    class Hide(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in hidden:
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, Hide())
    from goarena.benchmarks.league.play import check_players, default_config
    from goarena.benchmarks.commands.league import league_config, parser
    config = league_config(parser().parse_args([]))
    check_players(config)
    print("ok", len(config.players))
    """
)


@pytest.mark.slow  # a fresh process that loads torch and checks the shipped networks
def test_the_core_install_plays_the_default_league():
    result = subprocess.run(
        [sys.executable, "-c", CORE_LEAGUE, ",".join(EXTRAS)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("ok ")
