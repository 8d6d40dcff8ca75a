"""``warmup``: every kernel compiled (or loaded) up front, announced only when it compiles; each
player declares its own kernels (``warmup(size)`` on its factory), and the league, ``goarena
warmup`` and ``goarena gtp`` ask the players they will run; the GTP engine answers protocol
commands meanwhile and holds moves until it is done."""

from __future__ import annotations

import queue
import subprocess
import sys
import threading
import time

import numba
import pytest

from goarena.agents.gtp.engine import GTPEngine, warm_up_in_background
from goarena.agents.players.random import RandomAgent
from goarena.agents.specs import BUILTIN_AGENTS, make_agent, player_warmup
from goarena.benchmarks import cli
from goarena.benchmarks.league import play
from goarena.benchmarks.league.config import LeagueConfig
from goarena.search.warmup import warmup

BUILT_INS = [spec for spec in BUILTIN_AGENTS if spec not in ("gtp", "sb3", "torch")]

WARMED_PLAYERS = """
import os


class Warmed:
    # A player whose kernels are nobody's list but its own: its warm-up logs each call.

    name = "warmed"

    @staticmethod
    def warmup(size):
        with open(os.environ["WARMED_LOG"], "a") as log:
            log.write(f"{size}\\n")

    def reset(self, context):
        pass

    def select_move(self, game):
        return game.pass_move
"""


@pytest.fixture
def warmed(tmp_path, monkeypatch):
    """The spec of a plug-in player with a warm-up hook, and a reader of the sizes it was warmed at."""
    (tmp_path / "warmed_players.py").write_text(WARMED_PLAYERS)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("WARMED_LOG", str(tmp_path / "warmed.log"))
    log = tmp_path / "warmed.log"

    def sizes() -> list[int]:
        return [int(line) for line in log.read_text().split()] if log.exists() else []

    yield "warmed_players:Warmed", sizes
    sys.modules.pop("warmed_players", None)


def test_warmup_runs_every_players_kernels_and_is_silent_once_warm():
    warmups = [player_warmup(spec) for spec in BUILT_INS]
    assert warmup(3, warmups=[warm for warm in warmups if warm is not None]) > 0
    lines: list[str] = []
    warmup(3, log=lines.append, warmups=[warm for warm in warmups if warm is not None])
    assert lines == []  # nothing left to compile


def test_warmup_shows_the_progress_of_a_compile_and_how_long_it_took():
    @numba.njit  # never cached: compiled by this very test
    def fresh(x, y):
        return x * y + 1

    lines: list[str] = []
    parts = {"ints": lambda size: fresh(2, size), "floats": lambda size: fresh(2.0, 3.0)}
    warmup(3, log=lines.append, warmups=parts)
    assert "compiling the kernels" in lines[0] and "3 parts" in lines[0]
    assert "compiling 2/3 (ints)..." in lines and "compiling 3/3 (floats)..." in lines
    assert any(line.startswith("compiled 3/3 (floats): 1 kernel in ") for line in lines)
    assert lines[-1].startswith("compiled ") and " kernels in " in lines[-1]  # all of them, and the time


def test_a_long_compile_says_it_is_still_going(monkeypatch):
    import goarena.search.warmup as warmup_module

    @numba.njit
    def fresh(x):
        return x - 1

    def slow(size):
        fresh(size)
        time.sleep(1.0)  # as a long compile: the ticker speaks meanwhile

    monkeypatch.setattr(warmup_module, "HEARTBEAT", 0.2)
    lines: list[str] = []
    warmup(3, log=lines.append, warmups={"slow": slow})
    assert any(line.startswith("compiling 2/2 (slow): ") and "so far" in line for line in lines)


def test_warmup_names_a_players_warmup_by_its_class():
    @numba.njit
    def fresh(x):
        return x + 1

    class Player:
        @staticmethod
        def warmup(size):
            fresh(size)

    lines: list[str] = []
    warmup(3, log=lines.append, warmups=[Player.warmup])
    assert any(line.startswith("compiling 2/2 (") and "Player)..." in line for line in lines)


def test_goarena_warmup_warms_the_players_it_is_given(capsys, warmed):
    spec, sizes = warmed
    cli.main(["warmup", "--size", "3", "--player", spec])
    assert capsys.readouterr().out.startswith("kernels ready in ")
    assert sizes() == [3]


@pytest.mark.slow  # every built-in player's kernels
def test_goarena_warmup_warms_every_built_in(capsys):
    cli.main(["warmup", "--size", "3"])
    assert capsys.readouterr().out.startswith("kernels ready in ")


def test_the_league_warms_up_the_players_it_will_run(warmed, monkeypatch):
    spec, sizes = warmed
    config = LeagueConfig(players={"warmed": spec, "random": "random"}, size=5)
    play.warm_up(config)
    assert sizes() == [5]


def test_the_gtp_engine_warms_up_its_player(warmed):
    spec, sizes = warmed
    logged: list[str] = []
    assert warm_up_in_background(make_agent(spec), 7, logged.append).wait(timeout=120)
    assert sizes() == [7]


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


def test_the_gtp_engine_answers_at_once_and_moves_wait_for_the_warmup():
    ready = threading.Event()
    engine = GTPEngine(RandomAgent(seed=1), size=9, ready=ready)
    assert engine.handle("name") == "= random\n\n"
    answers: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: answers.put(engine.handle("genmove b")), daemon=True).start()
    with pytest.raises(queue.Empty):
        answers.get(timeout=0.2)  # the player is not asked while it warms up
    ready.set()
    assert answers.get(timeout=10).startswith("= ")
