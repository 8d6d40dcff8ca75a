"""Every example of ``docs/guide.md`` and ``docs/networks.md``, each page's run in order in one
fresh directory, as a user would.

A fenced block is run by its language: ``python`` as a script, ``bash`` by bash (failing at
the first failing command). An HTML comment just above a block changes how it is run:
``<!-- file: NAME -->`` writes the block to ``NAME`` instead of running it, and
``<!-- test: replace "OLD" "NEW" -->`` runs it with ``OLD`` replaced by ``NEW``, a smaller
budget where the example would take minutes (the test fails if ``OLD`` is not there).
Packages the guide installs go to ``site`` in that directory, which is on ``PYTHONPATH``.

An example passes when it exits 0 and, for every league it plays (``--dir`` or ``--out``),
every scheduled game is stored and none was forfeited (a crash, an illegal move, time): a
league exits 0 when its players crash in every game, which the user would see in its table.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from goarena.benchmarks.league.config import LeagueConfig
from goarena.benchmarks.league.store import LeagueStore

DOCS = Path(__file__).resolve().parents[1] / "docs"
GUIDE = DOCS / "guide.md"
NETWORKS = DOCS / "networks.md"  # a network of one's own as a player, in under 60 lines
WALKTHROUGH_LINES = 60
BLOCK = re.compile(r"((?:<!-- .*? -->\n)*)```(\w+)\n(.*?)```", re.DOTALL)
REPLACE = re.compile(r'<!-- test: replace "(.*?)" "(.*?)" -->')
FILE = re.compile(r"<!-- file: (\S+) -->")
LEAGUE_DIR = re.compile(r"--(?:dir|out) (\S+)")
FORFEITS = ("crash", "illegal move", "time", "unsupported game")


@dataclass
class Example:
    language: str
    code: str
    line: int
    file: str | None = None
    replacements: list[tuple[str, str]] = field(default_factory=list)


def examples(text: str) -> list[Example]:
    found = []
    for match in BLOCK.finditer(text):
        comments, language, code = match.groups()
        example = Example(language, code, text.count("\n", 0, match.start(2)) + 1)
        if file := FILE.search(comments):
            example.file = file.group(1)
        example.replacements = REPLACE.findall(comments)
        found.append(example)
    return found


def test_the_reader_finds_blocks_and_their_comments():
    text = (
        '<!-- file: a.py -->\n```python\nx = 1\n```\n\n<!-- test: replace "1" "2" -->\n```bash\necho 1\n```\n'
    )
    first, second = examples(text)
    assert (first.language, first.file, first.code) == ("python", "a.py", "x = 1\n")
    assert (second.language, second.replacements, second.line) == ("bash", [("1", "2")], 7)


def run(example: Example, directory: Path) -> None:
    code = example.code
    for old, new in example.replacements:
        assert old in code, f"guide line {example.line}: {old!r} is not in the example"
        code = code.replace(old, new)
    if example.file is not None:
        (directory / example.file).write_text(code)
        return
    environment = dict(os.environ)
    environment["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{environment['PATH']}"
    environment["PYTHONPATH"] = os.pathsep.join([str(directory / "site"), str(directory)])
    environment["MPLBACKEND"] = "Agg"
    if example.language == "python":
        command = [sys.executable, "-c", code]
    elif example.language == "bash":
        command = ["bash", "-euo", "pipefail", "-c", code]
    else:
        raise AssertionError(f"guide line {example.line}: no way to run a {example.language!r} block")
    result = subprocess.run(
        command, cwd=directory, env=environment, capture_output=True, text=True, timeout=900
    )
    assert result.returncode == 0, f"guide line {example.line} failed:\n{result.stdout}\n{result.stderr}"
    for folder in LEAGUE_DIR.findall(code):
        check_league(directory / folder, example.line)


def check_league(folder: Path, line: int) -> None:
    """Every game of the league in ``folder`` is stored, and none was forfeited."""
    if not (folder / LeagueStore.FILENAME).exists():
        return  # not a league's directory
    with LeagueStore.open_existing(folder) as store:
        games, config = store.games(), LeagueConfig.from_dict(store.config())
    forfeits = [f"game {game.id}: {game.reason}" for game in games if game.reason.startswith(FORFEITS)]
    shown = "; ".join(forfeits[:5])
    assert not forfeits, f"guide line {line}: {len(forfeits)} of {len(games)} games forfeited: {shown}"
    assert len(games) == config.game_count, (
        f"guide line {line}: {len(games)} of {config.game_count} games played"
    )


@pytest.mark.slow  # leagues, PPO training and pip: minutes
def test_every_example_of_the_guide_runs(tmp_path):
    found = examples(GUIDE.read_text())
    assert {example.language for example in found} >= {"python", "bash"}
    for example in found:
        run(example, tmp_path)


def test_a_network_of_ones_own_plays_greedy_by_puct_and_by_gumbel_as_its_page_shows(tmp_path):
    found = examples(NETWORKS.read_text())
    code = [line for example in found for line in example.code.splitlines() if line.strip()]
    assert len(code) < WALKTHROUGH_LINES, f"the walkthrough's code is {len(code)} lines"
    league = next(example for example in found if "goarena league" in example.code)
    assert all(f"play={way}" in league.code for way in ("puct", "gumbel"))
    for example in found:
        run(example, tmp_path)
    assert (tmp_path / "runs" / "mynet" / LeagueStore.FILENAME).exists()  # each way played its games


CRASHING_PLAYER = """
class Crashing:
    name = "crashing"

    def reset(self, context):
        pass

    def select_move(self, game):
        raise RuntimeError("every move fails")


def make_player():
    return Crashing()
"""


@pytest.mark.slow  # a league in a process of its own
def test_an_example_whose_league_games_crash_fails_the_test(tmp_path):
    run(Example("python", CRASHING_PLAYER, 1, file="crashing.py"), tmp_path)
    league = (
        "goarena league --player bad=crashing:make_player --player random --size 5 "
        "--games-per-pair 2 --workers 1 --no-progress --dir runs/crashing\n"
    )
    with pytest.raises(AssertionError, match="2 of 2 games forfeited: game 0: crash: RuntimeError: every"):
        run(Example("bash", league, 1), tmp_path)  # the league itself exits 0


@pytest.mark.parametrize("language", ["python", "bash"])
def test_a_failing_example_fails_the_test(tmp_path, language):
    code = "raise SystemExit(3)\n" if language == "python" else "false\necho unreachable\n"
    with pytest.raises(AssertionError, match="failed"):
        run(Example(language, code, 1), tmp_path)
