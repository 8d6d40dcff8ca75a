"""``warmup``: every kernel compiled (or loaded) up front, announced only when it compiles; the
GTP engine answers protocol commands meanwhile and holds moves until it is done."""

from __future__ import annotations

import queue
import threading

import numba
import pytest

from goarena.agents.gtp.engine import GTPEngine
from goarena.agents.random_agent import RandomAgent
from goarena.benchmarks import cli
from goarena.search import warmup as warmup_module
from goarena.search.warmup import PLAYERS, warmup


def test_warmup_runs_every_players_kernels_and_is_silent_once_warm():
    assert warmup(3, players=PLAYERS) > 0
    lines: list[str] = []
    warmup(3, log=lines.append, players=PLAYERS)
    assert lines == []  # nothing left to compile


def test_warmup_announces_a_compile_once(monkeypatch):
    @numba.njit  # never cached: compiled by this very test
    def fresh(x, y):
        return x * y + 1

    monkeypatch.setitem(warmup_module._PLAYER_WARMUPS, "fresh", lambda game: (fresh(2, 3), fresh(2.0, 3.0)))
    lines: list[str] = []
    warmup(3, log=lines.append, players=["fresh", "no-such-player"])
    assert len(lines) == 1 and "compiling" in lines[0]


def test_goarena_warmup(capsys):
    cli.main(["warmup", "--size", "3"])
    assert capsys.readouterr().out.startswith("kernels ready in ")


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
