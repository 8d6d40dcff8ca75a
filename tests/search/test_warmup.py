"""``warmup``: every kernel compiled (or loaded) up front, announced only when it compiles, with
its progress, and each warm-up it is given named. Each player declares its own kernels
(``warmup(size)`` on its factory), and the league, ``goarena warmup`` and ``goarena gtp`` ask
the players they will run: ``tests/benchmarks/league/test_play.py``,
``tests/benchmarks/commands/test_warmup.py`` and ``tests/agents/gtp/test_engine.py``."""

from __future__ import annotations

import time

import numba

from goarena.search.warmup import warmup


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
