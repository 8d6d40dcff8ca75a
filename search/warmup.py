"""Compile the kernels before they are first needed, so that a cold start is visible and early.

numba compiles a kernel on its first call and keeps it in its on-disk cache. With an empty
cache, the first move of a search player compiles for tens of seconds: long enough for a GTP
controller to give up on ``genmove``. ``warmup()`` calls every kernel the ``Game`` (and so the
envs) and the built-in players use on a tiny position, so that compiling happens at start-up,
announced; with a warm cache it only loads the kernels, in a second or two, and says nothing.

``goarena warmup`` runs it from the command line.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

from numba.core import event

from go_env import Game, Rules
from goarena.search.evaluator import RolloutEvaluator
from goarena.search.expectimax import expectimax
from goarena.search.minimax import Minimax, area_heuristic
from goarena.search.puct import PUCT
from goarena.search.uct import UCT

# Built-in players by spec name, each with what warms its kernels up (``random`` needs only
# the ``Game``'s, which are always warmed up).
PLAYERS = ("random", "uct", "puct", "minimax", "expectimax")


def warmup(
    board_size: int = 9, log: Callable[[str], None] | None = None, players: Iterable[str] = PLAYERS
) -> float:
    """Compile (or load from numba's cache) the kernels of the ``Game`` and of ``players``.

    Args:
        board_size: the size of the position the kernels are run on (they serve every size).
        log: told, once, when a kernel is actually compiled (not loaded from the cache).
        players: built-in player names (see ``PLAYERS``); others are ignored.

    Returns:
        The seconds it took.
    """
    start = time.perf_counter()
    announce = _FirstCompile(log)
    with event.install_listener("numba:compile", announce):
        game = _game(board_size)
        for name in players:
            warm = _PLAYER_WARMUPS.get(name)
            if warm is not None:
                warm(game.copy())
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


def _game(size: int) -> Game:
    """A game a few moves in, having run the ``Game`` kernels of every game: playing, legal
    moves, observations, copies, undo and the score. Setup stones (handicap, SGF) and
    ``area_owner`` (drawings) compile when first used, in a second or two."""
    game = Game(size, Rules(komi=0.5))
    for move in game.legal_moves()[:3]:
        game.play(int(move))
    game.copy().undo()
    game.observe()
    game.score()
    return game


def _uct(game: Game) -> None:
    search = UCT(seed=0)
    move = search.search(game, simulations=8)
    game.play(move)
    search.search(game, simulations=8)  # the tree follows the move: rerooting


def _puct(game: Game) -> None:
    search = PUCT(RolloutEvaluator(seed=0), batch=2, seed=0)
    move = search.search(game, simulations=8)
    game.play(move)
    search.search(game, simulations=8)


def _minimax(game: Game) -> None:
    Minimax(tt_size=64).search(game, depth=2)


def _expectimax(game: Game) -> None:
    expectimax(game, 1, None, area_heuristic)


_PLAYER_WARMUPS: dict[str, Callable[[Game], None]] = {
    "uct": _uct,
    "puct": _puct,
    "minimax": _minimax,
    "expectimax": _expectimax,
}
