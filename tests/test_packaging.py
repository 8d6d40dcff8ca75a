"""The installed names: goarena's folders install as ``goarena.agents``, ``goarena.search`` and
``goarena.benchmarks`` (and ``go_env``), so they live beside a distribution that owns a top-level
``agents`` package, in either install order, without shadowing it or being shadowed."""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

from tests.test_imports import FOLDERS, ROOT, module_files

IGNORED = (".*", "build", "dist", "tests", "runs", "leagues", "__pycache__", "*.egg-info")

# Imports every module of ours from the installed copy, beside the other `agents`.
CHECK = textwrap.dedent(
    """
    import importlib, sys
    from pathlib import Path
    site = Path(sys.argv[1]).resolve()
    import agents
    assert agents.OWNER == "another distribution", agents.__file__
    for name in sys.argv[2:]:
        module = importlib.import_module(name)
        assert site in Path(module.__file__).resolve().parents, (name, module.__file__)
    from goarena.agents.specs import make_agent
    import go_env
    game = go_env.Game(5)
    game.play(make_agent("random:seed=1").select_move(game))
    print("ok", len(sys.argv) - 2)
    """
)


def build_wheel(project: Path, wheels: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            wheels,
            project,
        ],
        check=True,
        capture_output=True,
    )


@pytest.mark.slow  # installs the package twice into fresh folders
@pytest.mark.parametrize("goarena_first", [True, False], ids=["goarena-first", "other-first"])
def test_installed_names_do_not_collide_with_another_top_level_agents(tmp_path, goarena_first):
    pytest.importorskip("setuptools", reason="building the wheels without network needs setuptools")
    other = tmp_path / "other"
    (other / "agents").mkdir(parents=True)
    (other / "agents" / "__init__.py").write_text('OWNER = "another distribution"\n')
    (other / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
        '[project]\nname = "other-agents"\nversion = "1.0"\n'
        '[tool.setuptools]\npackages = ["agents"]\n'
    )
    # A copy of the source: setuptools writes its build/ folder beside the project it builds.
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(*IGNORED))
    wheels = tmp_path / "wheels"
    build_wheel(source, wheels)
    build_wheel(other, wheels)
    ours, theirs = sorted(wheels.glob("goarena-*.whl")), sorted(wheels.glob("other_agents-*.whl"))
    assert len(ours) == len(theirs) == 1

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    python = venv / "bin" / "python"
    for wheel in (ours + theirs) if goarena_first else (theirs + ours):
        subprocess.run(
            [sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps", wheel],
            check=True,
            capture_output=True,
        )
    site = Path(
        subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
    )
    # Our dependencies (numpy, numba, ...) come from this interpreter, after the fresh venv's own.
    (site / "zz_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    modules = sorted(module_files())
    assert {name.split(".")[0] for name in modules} == {"go_env", "goarena"}
    result = subprocess.run(
        [python, "-c", CHECK, site, *modules], capture_output=True, text=True, cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["ok", str(len(modules))]

    # The command line is installed under the distribution's name and runs from the namespace.
    command = subprocess.run(
        [venv / "bin" / "goarena", "--help"], capture_output=True, text=True, cwd=tmp_path
    )
    assert command.returncode == 0, command.stderr
    assert "league" in command.stdout


def test_every_package_folder_is_installed():
    """pyproject.toml lists its packages by hand (a name maps onto a folder): none is forgotten."""
    tomllib = pytest.importorskip("tomllib" if sys.version_info >= (3, 11) else "tomli")
    listed = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    folders = {
        ".".join([package, *init.parent.relative_to(ROOT / folder).parts])
        for package, folder in FOLDERS.items()
        for init in (ROOT / folder).rglob("__init__.py")
    }
    assert sorted(listed) == sorted(folders)
