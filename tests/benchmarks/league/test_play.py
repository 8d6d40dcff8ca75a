"""The league's play (``goarena.benchmarks.league.play``): it warms up the players it will run,
and a network player's kernels are compiled by the warm-up of the league (and of the GTP engine),
not in its first timed move."""

from __future__ import annotations

import subprocess
import sys

import pytest

from goarena.benchmarks.league import play
from goarena.benchmarks.league.config import LeagueConfig
from tests.agents.gtp.test_engine import warmed_player


@pytest.fixture
def warmed(tmp_path, monkeypatch):
    """The spec of a plug-in player with a warm-up hook, and a reader of the sizes it was warmed at."""
    yield from warmed_player(tmp_path, monkeypatch)


def test_the_league_warms_up_the_players_it_will_run(warmed, monkeypatch):
    spec, sizes = warmed
    config = LeagueConfig(players={"warmed": spec, "random": "random"}, size=5)
    play.warm_up(config)
    assert sizes() == [5]


WARMED_KERNELS = """
import sys

from go_env.features import alphago

assert not alphago.alphago_planes.signatures  # nothing has run the feature planes yet
if sys.argv[1] == "league":
    from goarena.benchmarks.league.config import LeagueConfig
    from goarena.benchmarks.league.play import warm_up

    warm_up(LeagueConfig(players={"sl": "sl-policy", "random": "random"}))
else:
    from goarena.agents.specs import make_agent
    from goarena.agents.gtp.engine import warm_up_in_background

    warm_up_in_background(make_agent("sl-policy"), 9, print).wait()
print(len(alphago.alphago_planes.signatures))
"""


@pytest.mark.slow  # a fresh process that loads torch and the kernels
@pytest.mark.parametrize("path", ["league", "gtp"])
def test_the_network_players_feature_planes_are_compiled_by_the_warm_up(path):
    """sl-policy's kernels (the feature planes, ladders included) are compiled or loaded by the
    warm-up of the league and of the GTP engine, not in its first timed move: in a fresh
    process, the kernel has a compiled signature once the warm-up is over."""
    result = subprocess.run(
        [sys.executable, "-c", WARMED_KERNELS, path], capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr
    assert int(result.stdout.split()[-1]) >= 1
