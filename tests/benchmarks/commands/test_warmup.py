"""``goarena warmup`` (``goarena.benchmarks.commands.warmup``): it warms the players it is given,
or every built-in; every built-in player's warm-up leaves nothing to compile (the warm-up itself:
``tests/search/test_warmup.py``; the GTP engine's: ``tests/agents/gtp/test_engine.py``)."""

from __future__ import annotations

import pytest

from goarena.agents.specs import BUILTIN_AGENTS, player_warmup
from goarena.benchmarks import cli
from goarena.search.warmup import warmup
from tests.agents.gtp.test_engine import warmed_player


@pytest.fixture
def warmed(tmp_path, monkeypatch):
    """The spec of a plug-in player with a warm-up hook, and a reader of the sizes it was warmed at."""
    yield from warmed_player(tmp_path, monkeypatch)


BUILT_INS = [spec for spec in BUILTIN_AGENTS if spec not in ("gtp", "sb3", "torch")]


def test_warmup_runs_every_players_kernels_and_is_silent_once_warm():
    warmups = [player_warmup(spec) for spec in BUILT_INS]
    assert warmup(3, warmups=[warm for warm in warmups if warm is not None]) > 0
    lines: list[str] = []
    warmup(3, log=lines.append, warmups=[warm for warm in warmups if warm is not None])
    assert lines == []  # nothing left to compile


def test_goarena_warmup_warms_the_players_it_is_given(capsys, warmed):
    spec, sizes = warmed
    cli.main(["warmup", "--size", "3", "--player", spec])
    assert capsys.readouterr().out.startswith("kernels ready in ")
    assert sizes() == [3]


@pytest.mark.slow  # every built-in player's kernels
def test_goarena_warmup_warms_every_built_in(capsys):
    cli.main(["warmup", "--size", "3"])
    assert capsys.readouterr().out.startswith("kernels ready in ")
