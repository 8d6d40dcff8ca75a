"""Compile the kernels before they are first needed, so that a cold start is visible and early.

numba compiles a kernel on its first call and keeps it in its on-disk cache. With an empty
cache, the first move of a search or network player compiles for tens of seconds: long enough
for a GTP controller to give up on ``genmove``, or for a league to lose the game on time.
``warmup()`` calls every kernel the ``Game`` (and so the envs) uses on a tiny position, then
each warm-up it is given: the ``warmup(size)`` that players declare on their factories
(``agents.protocols.Warmable``, found by ``agents.specs.player_warmup``), so that compiling happens
at start-up, announced; with a warm cache it only loads the kernels, in a second or two, and
says nothing.

``goarena warmup`` runs it from the command line; the league and ``goarena gtp`` run it for
the players they are about to play.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from numba.core import event

from go_env import Game, Rules


def warmup(
    board_size: int = 9,
    log: Callable[[str], None] | None = None,
    warmups: Iterable[Callable[[int], None]] = (),
) -> float:
    """Compile (or load from numba's cache) the kernels of the ``Game`` and of ``warmups``.

    Args:
        board_size: the size of the position the kernels are run on (they serve every size).
        log: told, once, when a kernel is actually compiled (not loaded from the cache).
        warmups: each called with ``board_size``: players' ``warmup`` methods.

    Returns:
        The seconds it took.
    """
    start = time.perf_counter()
    announce = _FirstCompile(log)
    with event.install_listener("numba:compile", announce):
        warmup_game(board_size)
        for warm in warmups:
            warm(board_size)
    return time.perf_counter() - start


class _FirstCompile(event.Listener):
    """Logs once, when numba starts its first compile (it fires no event on a cache hit)."""

    def __init__(self, log: Callable[[str], None] | None):
        self.log = log
        self.told = False

    def on_start(self, compile_event: event.Event) -> None:
        if self.log is not None and not self.told:
            self.told = True
            self.log("compiling the kernels (first run only; this takes a while)...")

    def on_end(self, compile_event: event.Event) -> None:
        pass


def warmup_game(size: int) -> Game:
    """A game a few moves in, having run the ``Game`` kernels of every game: playing, legal
    moves, observations, copies, undo and the score; players' warm-ups search from it.
    Setup stones (handicap, SGF) and ``area_owner`` (drawings) compile when first used, in a
    second or two."""
    game = Game(size, Rules(komi=0.5))
    for move in game.legal_moves()[:3]:
        game.play(int(move))
    game.copy().undo()
    game.observe()
    game.score()
    return game
