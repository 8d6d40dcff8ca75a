"""Compile the kernels before they are first needed, so that a cold start is visible and early.

numba compiles a kernel on its first call and keeps it in its on-disk cache. With an empty
cache, the first move of a search or network player compiles for tens of seconds: long enough
for a GTP controller to give up on ``genmove``, or for a league to lose the game on time.
``warmup()`` calls every kernel the ``Game`` (and so the envs) uses on a tiny position, then
each warm-up it is given: the ``warmup(size)`` that players declare on their factories
(``agents.protocols.Warmable``, found by ``agents.specs.player_warmup``), so that compiling happens
at start-up, announced with its progress (the part being compiled of all parts, the kernels
compiled so far, the time) and, at the end, how long it took; with a warm cache it only loads
the kernels, in a second or two, and says nothing.

``goarena warmup`` runs it from the command line; the league and ``goarena gtp`` run it for
the players they are about to play.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Mapping

from numba.core import event

from go_env import Game, Rules

# While one part compiles, a line at least this often (seconds) says it is still going.
HEARTBEAT = 15.0


def warmup(
    board_size: int = 9,
    log: Callable[[str], None] | None = None,
    warmups: Iterable[Callable[[int], None]] | Mapping[str, Callable[[int], None]] = (),
) -> float:
    """Compile (or load from numba's cache) the kernels of the ``Game`` and of ``warmups``.

    Args:
        board_size: the size of the position the kernels are run on (they serve every size).
        log: told when kernels are actually compiled (not loaded from the cache): which part
            of how many, the kernels compiled so far, and the time it took at the end.
        warmups: each called with ``board_size``: players' ``warmup`` methods, by name (a
            mapping) or named by their qualified names.

    Returns:
        The seconds it took.
    """
    start = time.perf_counter()
    named = warmups.items() if isinstance(warmups, Mapping) else [(_name(warm), warm) for warm in warmups]
    parts: list[tuple[str, Callable[[int], object]]] = [("the game", warmup_game), *named]
    progress = CompileProgress(log, len(parts), HEARTBEAT)
    try:
        with event.install_listener("numba:compile", progress):
            for index, (name, warm) in enumerate(parts, 1):
                progress.begin(index, name)
                warm(board_size)
                progress.end()
    finally:
        progress.stop()
    seconds = time.perf_counter() - start
    progress.finish(seconds)
    return seconds


def _name(warm: Callable[[int], None]) -> str:
    """``UCTAgent`` for ``UCTAgent.warmup``: the player a warm-up belongs to."""
    name = getattr(warm, "__qualname__", None) or repr(warm)
    return name.removesuffix(".warmup")


class CompileProgress(event.Listener):
    """Counts numba's compiles (it fires no event on a cache hit) and logs the progress: a line
    when a part starts compiling, one every ``HEARTBEAT`` seconds while it goes on (from a
    thread of its own: one kernel may compile for a minute), one when it is done, and the
    total at the end. Silent when nothing compiles."""

    def __init__(self, log: Callable[[str], None] | None, parts: int, heartbeat: float = HEARTBEAT):
        self.log, self.parts, self.heartbeat = log, parts, heartbeat
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._ticker: threading.Thread | None = None
        self.compiled = 0  # kernels compiled, all parts
        self.started: float | None = None  # when the first compile started
        self.index, self.name = 0, ""
        self.part_compiled = 0
        self.announced = False  # whether the part's first compile was announced
        self.part_started = self.last_line = 0.0

    def _say(self, line: str) -> None:
        with self._lock:
            if self.log is not None:
                self.log(line)
            self.last_line = time.perf_counter()

    def _tick(self) -> None:
        """While a part compiles, a line whenever ``heartbeat`` seconds passed without one."""
        while not self._stopped.wait(min(1.0, self.heartbeat)):
            if self.announced and time.perf_counter() - self.last_line >= self.heartbeat:
                self._say(f"compiling {self.index}/{self.parts} ({self.name}): {self._total()}")

    def stop(self) -> None:
        """No more lines from the ticker."""
        self._stopped.set()
        if self._ticker is not None:
            self._ticker.join()

    def begin(self, index: int, name: str) -> None:
        """Part ``index`` (of ``parts``), ``name``, starts."""
        self.index, self.name, self.part_compiled, self.announced = index, name, 0, False
        self.part_started = time.perf_counter()

    def end(self) -> None:
        """The part that began last is done."""
        self.announced = False  # the ticker is quiet between parts
        if self.part_compiled:
            took = time.perf_counter() - self.part_started
            self._say(
                f"compiled {self.index}/{self.parts} ({self.name}): {_kernels(self.part_compiled)} "
                f"in {took:.1f} s ({self._total()})"
            )

    def finish(self, seconds: float) -> None:
        """All parts are done, in ``seconds``."""
        if self.compiled:
            self._say(
                f"compiled {_kernels(self.compiled)} in {seconds:.1f} s (kept in numba's cache: "
                "the next start loads them in seconds)"
            )

    def _total(self) -> str:
        elapsed = time.perf_counter() - (self.started or time.perf_counter())
        return f"{_kernels(self.compiled)} in {elapsed:.0f} s so far"

    def on_start(self, compile_event: event.Event) -> None:
        if self.started is None:
            self.started = time.perf_counter()
            if self.log is not None:
                self._ticker = threading.Thread(target=self._tick, name="compile-progress", daemon=True)
                self._ticker.start()
            self._say(
                f"compiling the kernels (first run only; this takes a while): {self.parts} parts, "
                "the game's then each player's"
            )
        if not self.announced:
            self.announced = True
            self._say(f"compiling {self.index}/{self.parts} ({self.name})...")

    def on_end(self, compile_event: event.Event) -> None:
        self.compiled += 1
        self.part_compiled += 1


def _kernels(count: int) -> str:
    return f"{count} kernel" if count == 1 else f"{count} kernels"


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
