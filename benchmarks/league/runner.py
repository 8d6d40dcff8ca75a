"""Running a league's games: each game in a worker process, results as they finish.

A worker builds each player once and reuses it for its next games (``Players``: a
network's weights are loaded once per worker), resets both with the game's context and
seed, plays the game through the referee and sends back the record; after each move it
rewrites the game's file in the league's ``live/`` folder (``live``), for a page that
watches. A game whose player cannot be built or reset (its weights fail to load, its device
is gone, its reset raises) is no result: it comes back as an ``UnplayedGame``, which the
league does not store, so that the same command plays it once the setup is mended. A worker
closes its players when the league has no more games for it, and sets its own threads (one
for torch: a worker plays one game at a time, and the league runs one worker per core).

The workers are processes of our own, one game at a time each, watched by the league's
process. A worker reports every call to a player before it makes it (the referee's
``Turn``: who is called, and the game so far), so when a worker dies (a segfault,
``os._exit``, the OOM killer) the game is recorded as lost by the player it was running
(``crash: worker died ...``), and when a call runs past the league's ``seconds_per_move``
(plus a grace) the worker is killed and the game lost on time. Building and resetting a
player are watched too, with or without ``seconds_per_move``: one still running after
``SETUP_SECONDS`` (or the move's limit, if longer) has its worker killed and its game left
unplayed (an ``UnplayedGame`` naming the player), and that player's later games are left
unplayed without trying it again. A fresh worker takes the next game. Workers run in
process groups of their own with their engines: Ctrl-C in the terminal reaches the league's
process alone, which stops them; and they end themselves when the league's process is gone.
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from pathlib import Path

from go_env import Rules
from go_env.game import BLACK, WHITE
from goarena.agents.gtp import GTPAgent
from goarena.agents.protocols import Agent, Closeable, StatusReporter, WeightedAgent
from goarena.agents.specs import make_agent
from goarena.benchmarks.league.live import write_live
from goarena.benchmarks.match.referee import (
    GameRecord,
    Turn,
    crash_reason,
    forfeit_record,
    format_traceback,
    play_game,
)

ENGINE_GRACE = 0.5  # seconds a GTP engine may answer past the limit before it is killed
WATCHDOG_GRACE = 2.0  # seconds a call may run past the limit before its worker is killed
SETUP_SECONDS = 300.0  # the least time building or resetting a player gets (loading weights)
CLOSE_SECONDS = 30.0  # a worker still closing its players after this long is replaced
STOP_SECONDS = 5.0  # ... or, once the league ends, killed
SETUP_CALLS = ("make_agent", "reset")  # a failure there is the setup's, not the player's play


class LeagueRunError(RuntimeError):
    """The league's own setup fails in a worker (not a player's failure)."""


@dataclass(frozen=True)
class ScheduledGame:
    """One game of the schedule, with all a worker needs to play it."""

    id: int
    black: str
    white: str
    black_spec: str
    white_spec: str
    size: int
    rules: Rules
    seed: int
    seconds_per_move: float | None
    settle: str | None = None
    arbiter: str | None = None
    device: str = "cpu"  # where the players' networks run (GameContext.device)
    run_dirs: tuple[Path | None, Path | None] = (None, None)  # Black's and White's (GameContext.run_dir)
    opening: tuple[int, ...] = ()  # moves played before the players are asked (the league's opening)
    live: Path | None = None  # the file that shows the game in progress (``live``), if any

    @property
    def names(self) -> tuple[str, str]:
        return self.black, self.white

    def limit(self, turn: Turn) -> float | None:
        """The seconds ``turn``'s call may take before its worker is stopped, if any: a
        player's setup is always watched, for one that never returns would stall the league."""
        if turn.call in SETUP_CALLS:  # loading weights, moving them to a device
            return max(self.seconds_per_move or 0.0, SETUP_SECONDS)
        if self.seconds_per_move is None:
            return None
        return self.seconds_per_move + WATCHDOG_GRACE


# ---------------------------------------------------------------------------------------
# Playing a game (in a worker process)
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlayedGame:
    """What a worker sends back: the record, the players' versions and weights digests."""

    scheduled: ScheduledGame
    record: GameRecord
    versions: dict[str, str] = field(default_factory=dict)
    digests: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class UnplayedGame:
    """A game that could not start because a player could not be built or reset (its weights
    fail to load, its device is gone): a broken setup, not the player's play, so no result.

    Attributes:
        scheduled: the game.
        color: the player whose setup failed (BLACK or WHITE).
        call: ``make_agent`` or ``reset``.
        reason: what went wrong, as a game record's reason says it.
        traceback: the Python traceback, when there is one (not for a worker that died).
    """

    scheduled: ScheduledGame
    color: int
    call: str
    reason: str
    traceback: str | None = None

    @property
    def player(self) -> str:
        return self.scheduled.names[self.color - 1]

    def describe(self) -> str:
        """``player 'sl' could not be built (crash: ...)``."""
        what = "built" if self.call == "make_agent" else "reset"
        return f"player {self.player!r} could not be {what} ({self.reason})"


def goarena_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("goarena")
    except PackageNotFoundError:
        return "unknown"


@dataclass(frozen=True)
class _Built:
    """A player built from its spec, with what the league records of it."""

    agent: Agent
    version: str
    digest: str | None


class Players:
    """The players a worker has built, kept for its next games.

    Every player is built once and reset with each game's context and seed; one spec on
    both sides (self-play) is built twice. A player that lost a game by forfeit (a crash, an
    illegal move, time), or whose setup failed, is closed and built afresh for its next
    game. Arbiters are built for each game.
    """

    def __init__(self) -> None:
        self._kept: dict[tuple[str, int], _Built] = {}
        self._per_game: list[object] = []  # closed when the game is over

    def get(self, spec: str, copy: int) -> _Built:
        """The player of ``spec`` (``copy`` 1: the second one, for self-play), built if need be."""
        key = (spec, copy)
        if key not in self._kept:
            self._kept[key] = _built(make_agent(spec), spec)
            _set_threads()
        return self._kept[key]

    def add(self, thing: object) -> None:
        """Close ``thing`` (an arbiter) with this game's players."""
        self._per_game.append(thing)

    def end_game(self, played: PlayedGame | UnplayedGame) -> None:
        """Close the players that do not outlast ``played``: the one that lost it by forfeit,
        or whose setup failed, among them."""
        failed = None
        if isinstance(played, UnplayedGame):
            failed = played.color
        elif played.record.result[2:] in ("F", "T") and played.record.winner in (BLACK, WHITE):
            failed = 3 - played.record.winner
        if failed is not None:
            lost = self._kept.pop(_keys(played.scheduled)[failed - 1], None)
            if lost is not None:
                self._per_game.append(lost.agent)
        _close(self._per_game)
        self._per_game = []

    def close(self) -> None:
        _close([built.agent for built in self._kept.values()] + self._per_game)
        self._kept, self._per_game = {}, []


def _built(agent: Agent, spec: str) -> _Built:
    """``agent`` with its version and weights digest; closed if it cannot give them."""
    built_by = "" if spec.startswith("gtp:") else f" (goarena {goarena_version()})"
    try:
        digest = agent.weights_digest() if isinstance(agent, WeightedAgent) else None
    except BaseException:
        _close([agent])
        raise
    return _Built(agent, f"{agent.name}{built_by}", digest)


def _set_threads() -> None:
    """One torch thread for this worker, once a player has imported torch: the worker owns
    its process and plays one game at a time (players never set threads themselves)."""
    if "torch" in sys.modules:
        from goarena.agents.nets.predict import set_torch_threads

        set_torch_threads(1)


def _keys(game: ScheduledGame) -> tuple[tuple[str, int], tuple[str, int]]:
    """Black's and White's players, as ``Players`` keeps them: (spec, copy)."""
    return (game.black_spec, 0), (game.white_spec, int(game.black_spec == game.white_spec))


_kept: Players | None = None  # a Ray worker process's players, kept for its next games


def play_kept(game: ScheduledGame) -> PlayedGame | UnplayedGame:
    """Play ``game`` in a Ray worker process with the players it built for its earlier
    games (building those it lacks). Never raises for a player's failure."""
    global _kept
    if _kept is None:
        _kept = Players()
        atexit.register(_kept.close)
    played = _play(_kept, game, None)
    _kept.end_game(played)
    return played


def _play(
    players: Players, game: ScheduledGame, on_turn: Callable[[Turn | None], None] | None
) -> PlayedGame | UnplayedGame:
    """Play ``game`` with the players of ``players``, built there when new. Never raises
    for a player's failure: a player that cannot be built or reset leaves the game unplayed
    (an ``UnplayedGame``); one that fails later loses it by forfeit."""
    seeds = (game.seed * 2, game.seed * 2 + 1)  # Black's and White's
    agents: list[Agent] = []
    versions, digests = {}, {}
    for color, name, (spec, copy) in zip((BLACK, WHITE), game.names, _keys(game), strict=True):
        turn = Turn(color, "make_agent")
        if on_turn is not None:
            on_turn(turn)
        try:
            built = players.get(spec, copy)
            if isinstance(built.agent, GTPAgent) and game.seconds_per_move is not None:
                built.agent.timeout = game.seconds_per_move + ENGINE_GRACE  # a silent engine loses on time
        except BaseException as error:  # whatever it is, it is this player's setup that failed
            reason = crash_reason(error)
            if reason is None:
                raise
            return UnplayedGame(game, color, "make_agent", reason, format_traceback(error))
        versions[name] = built.version
        if built.digest is not None:
            digests[name] = built.digest
        agents.append(built.agent)
    if on_turn is not None:
        on_turn(None)
    arbiter = None
    if game.arbiter:
        judge = make_agent(game.arbiter)  # the league's own setting: its failure stops the league
        players.add(judge)
        if not isinstance(judge, StatusReporter):
            raise LeagueRunError(f"the arbiter {game.arbiter!r} cannot name dead stones")
        arbiter = judge
    black, white = agents
    calls: list[Turn] = []  # the last call to a player
    shown = [-1]  # the moves in the game's live file

    def follow(turn: Turn | None) -> None:
        if turn is not None:
            calls[:] = [turn]
            if game.live is not None and len(turn.moves) != shown[0]:  # a move was played
                shown[0] = len(turn.moves)
                write_live(game.live, game.id, game.names, game.size, game.rules, turn.moves)
        if on_turn is not None:
            on_turn(turn)

    record = play_game(
        black,
        white,
        game.size,
        game.rules,
        max_seconds_per_move=game.seconds_per_move,
        settle=game.settle,
        arbiter=arbiter,
        names=game.names,
        on_turn=follow,
        seeds=seeds,
        device=game.device,
        run_dirs=game.run_dirs,
        opening=game.opening,
    )
    if _failed_at_reset(record, calls[-1] if calls else None):
        return UnplayedGame(game, calls[-1].color, "reset", record.reason, record.traceback)
    return PlayedGame(game, record, versions, digests)


def _failed_at_reset(record: GameRecord, last: Turn | None) -> bool:
    """Whether ``record`` is a forfeit for a player's failing reset: a setup failure. A
    player that refuses the game there (``UnsupportedGame``) did lose it: that is no setup
    to mend, and the league's check before its first game refuses such a player."""
    return (
        last is not None
        and last.call == "reset"
        and record.result[2:] == "F"
        and record.winner == 3 - last.color
        and not record.reason.startswith("unsupported game")
    )


def _lost(
    game: ScheduledGame, turn: Turn, code: str, reason: str, seconds: float | None = None
) -> GameRecord:
    """The record of ``game`` lost by the player of ``turn``."""
    return forfeit_record(
        turn, code, reason, size=game.size, rules=game.rules, names=game.names, seconds=seconds
    )


def _close(built: list[object]) -> None:
    for thing in built:
        with contextlib.suppress(BaseException):  # the game is over: its record stands
            if isinstance(thing, Closeable):
                thing.close()


def _work(connection: Connection, league: int) -> None:
    """A worker's life: play the games it is sent, reporting every call to a player."""
    os.setpgrp()  # a group of its own, with its engines: stopped together, and out of Ctrl-C's way
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the league's process handles Ctrl-C
    signal.signal(signal.SIGTERM, lambda number, frame: _end_group())
    threading.Thread(target=_end_with, args=(league,), daemon=True).start()
    players = Players()
    try:
        connection.send(("ready",))
        while True:
            game = connection.recv()
            if game is None:  # no more games
                players.close()
                return
            try:
                played = _play(players, game, lambda turn: connection.send(("turn", turn)))
            except Exception as error:  # the league's own failure (its arbiter), not a player's
                ours = isinstance(error, LeagueRunError)
                connection.send(("error", str(error) if ours else f"{type(error).__name__}: {error}"))
                return
            connection.send(("done", played))
            players.end_game(played)
            connection.send(("ready",))
    except (EOFError, OSError):  # the league is gone
        _end_group()


def _end_with(league: int) -> None:
    """End this worker and its engines once the league's process is gone (``kill -9``)."""
    while os.getppid() == league:
        time.sleep(0.5)
    _end_group()


def _end_group() -> None:
    if os.getpgrp() == os.getpid():  # never the league's own group
        os.killpg(0, signal.SIGKILL)
    os.kill(os.getpid(), signal.SIGKILL)


# ---------------------------------------------------------------------------------------
# The workers (in the league's process)
# ---------------------------------------------------------------------------------------


@dataclass(eq=False)
class _Worker:
    """A worker process and what the league knows of it."""

    process: BaseProcess
    connection: Connection
    ready: bool = False  # started, not playing, its last game's players closed
    started: bool = False  # has been ready once
    stopping: bool = False  # told there are no more games: closing its players
    game: ScheduledGame | None = None
    turn: Turn | None = None  # the last call to a player it reported
    since: float = 0.0  # when that call began
    deadline: float | None = None  # when it is stopped

    def send(self, game: ScheduledGame) -> bool:
        """Hand it ``game``; False if it died waiting."""
        try:
            self.connection.send(game)
        except OSError:
            return False
        self.ready, self.game, self.turn, self.deadline = False, game, None, None
        return True

    def stop(self) -> None:
        """Tell it there are no more games: it closes its players and ends."""
        with contextlib.suppress(OSError):  # dead already
            self.connection.send(None)
        self.ready, self.stopping = False, True

    def kill(self) -> None:
        """Kill the worker and its engines, and reap it."""
        if self.process.pid:
            with contextlib.suppress(OSError):  # no group yet (or any more)
                os.killpg(self.process.pid, signal.SIGKILL)
        self.process.kill()
        self.process.join()
        self.connection.close()


class _Pool:
    """Worker processes, each playing one game at a time, replaced when they die."""

    def __init__(self, size: int):
        self.size = size
        # spawn: workers start clean, whatever threads this process runs (progress display).
        self.context = multiprocessing.get_context("spawn")
        self.workers: list[_Worker] = []
        atexit.register(self.close)

    def start(self) -> None:
        while len(self.workers) < self.size:
            ours, theirs = self.context.Pipe()
            process = self.context.Process(target=_work, args=(theirs, os.getpid()), name="goarena-league")
            with _ctrl_c_ignored():  # a worker ignores it from its first instruction
                process.start()
            theirs.close()
            self.workers.append(_Worker(process, ours))

    def close(self) -> None:
        """Stop the workers: those between games close their players first (for a few
        seconds at most); those in a game are killed at once."""
        atexit.unregister(self.close)
        idle = [w for w in self.workers if w.game is None and w.process.is_alive()]
        for worker in idle:
            if not worker.stopping:
                worker.stop()
        deadline = time.monotonic() + STOP_SECONDS
        for worker in idle:
            worker.process.join(max(0.0, deadline - time.monotonic()))
        for worker in self.workers:
            worker.kill()
        self.workers = []

    def play(self, games: list[ScheduledGame]) -> Iterator[PlayedGame | UnplayedGame]:
        """Play ``games``, yielding each as it finishes (or is lost by a dead worker, or could
        not start)."""
        todo = deque(games)
        hung: dict[str, UnplayedGame] = {}  # the players whose setup overran, with that game
        while True:
            yield from _not_tried(todo, hung)
            if not todo and not any(worker.game for worker in self.workers):
                return
            self.size = min(self.size, len(todo) + sum(1 for w in self.workers if w.game))
            self.start()
            for worker in self.workers:
                yield from _not_tried(todo, hung)
                if worker.ready and not todo:
                    worker.stop()
                elif worker.ready:
                    if worker.send(todo[0]):
                        todo.popleft()
                    else:
                        worker.ready = False  # it died waiting: replaced, nothing lost
            for played in self._wait():
                if isinstance(played, UnplayedGame) and played.reason.startswith("time:"):
                    hung.setdefault(played.player, played)
                yield played

    def _wait(self) -> Iterator[PlayedGame | UnplayedGame]:
        """Wait for the workers' news (or a deadline); the games it ends."""
        deadlines = [w.deadline for w in self.workers if w.deadline is not None]
        timeout = max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
        waitables = [w.connection for w in self.workers] + [w.process.sentinel for w in self.workers]
        wait(waitables, timeout)
        for worker in list(self.workers):
            alive = worker.process.is_alive()  # before reading: what a dead one sent is all there
            played = self._read(worker)
            if played is not None:
                yield played
            lost = self._check(worker, alive)
            if lost is not None:
                yield lost

    def _read(self, worker: _Worker) -> PlayedGame | UnplayedGame | None:
        """Take in what ``worker`` sent; the game it finished, if any."""
        played = None
        try:
            while worker.connection.poll():
                message = worker.connection.recv()
                kind = message[0]
                if kind == "ready":
                    worker.ready = worker.started = True
                    worker.deadline = None
                elif kind == "turn":  # a call begins (a Turn), or no player is called (None)
                    turn, worker.since, worker.deadline = message[1], time.monotonic(), None
                    if turn is not None and worker.game is not None:
                        worker.turn = turn
                        limit = worker.game.limit(turn)
                        worker.deadline = None if limit is None else worker.since + limit
                elif kind == "done":
                    played, worker.game, worker.turn = message[1], None, None
                    worker.deadline = time.monotonic() + CLOSE_SECONDS
                elif kind == "error":
                    raise LeagueRunError(message[1])
        except (EOFError, OSError):  # it died: see _check
            pass
        return played

    def _check(self, worker: _Worker, alive: bool) -> PlayedGame | UnplayedGame | None:
        """Replace ``worker`` if it died or ran past its deadline; the game it thus lost (or,
        while it built or reset a player, could not start)."""
        overdue = worker.deadline is not None and time.monotonic() > worker.deadline
        if alive and not overdue:
            return None
        elapsed = time.monotonic() - worker.since
        worker.kill()
        self.workers.remove(worker)
        code = worker.process.exitcode
        if not worker.started:
            raise LeagueRunError(f"a worker process could not start ({_exit_words(code)})")
        game, turn = worker.game, worker.turn
        if game is None:  # between games: nothing lost
            return None
        if turn is None:
            raise LeagueRunError(f"a worker died before game {game.id} began ({_exit_words(code)})")
        if alive:  # overdue
            over = "" if turn.call in SETUP_CALLS else f", over {game.seconds_per_move:g} s"
            reason = f"time: {turn.describe()} still running after {elapsed:.2f} s{over}; stopped"
            if turn.call in SETUP_CALLS:
                return UnplayedGame(game, turn.color, turn.call, reason)
            return PlayedGame(game, _lost(game, turn, "T", reason, elapsed))
        reason = f"crash: worker died during {turn.describe()} ({_exit_words(code)})"
        if turn.call in SETUP_CALLS:
            return UnplayedGame(game, turn.color, turn.call, reason)
        return PlayedGame(game, _lost(game, turn, "F", reason))


def _not_tried(todo: deque[ScheduledGame], hung: dict[str, UnplayedGame]) -> Iterator[UnplayedGame]:
    """Take the games at the head of ``todo`` that a player of ``hung`` plays (its setup ran
    past its limit in an earlier game: trying it again would cost as much), left unplayed."""
    while todo:
        game = todo[0]
        color = next((c for c, name in zip((BLACK, WHITE), game.names, strict=True) if name in hung), None)
        if color is None:
            return
        todo.popleft()
        earlier = hung[game.names[color - 1]]
        reason = f"{earlier.reason} in game {earlier.scheduled.id}, so not tried again"
        yield UnplayedGame(game, color, earlier.call, reason)


def _exit_words(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            return f"signal {-code} {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit code {code}"


@contextlib.contextmanager
def _ctrl_c_ignored() -> Iterator[None]:
    """Ctrl-C ignored for a moment (a process started now inherits that); one pressed then
    is lost."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous if previous is not None else signal.SIG_DFL)


# ---------------------------------------------------------------------------------------
# Running the league
# ---------------------------------------------------------------------------------------


def run_local(games: list[ScheduledGame], workers: int) -> Iterator[PlayedGame | UnplayedGame]:
    """Play ``games`` in ``workers`` processes; yield each as it finishes (an
    ``UnplayedGame`` for one that could not start).

    Stopping (Ctrl-C's ``KeyboardInterrupt``, or closing the iterator) kills the workers
    and their engines; the games they were playing are lost.
    """
    if not games:
        return
    pool = _Pool(max(1, min(workers, len(games))))
    try:
        yield from pool.play(games)
    finally:
        with _ctrl_c_ignored():  # a second Ctrl-C must not cut the clean-up short
            pool.close()


def run_ray(
    games: list[ScheduledGame], address: str | None, workers: int
) -> Iterator[PlayedGame | UnplayedGame]:
    """Play ``games`` as Ray tasks (one CPU each) on the Ray cluster at ``address``, or a
    local Ray with ``workers`` CPUs when ``address`` is None (or the Ray already joined).

    The referee's protections hold, but Ray's workers are not watched: a worker that dies
    stops the league with a ``LeagueRunError``, and a Python player stuck in a move is not
    stopped (engines are, by their timeout). Each Ray worker process keeps the players it
    built for its next games, as a local worker does; they end with the process.
    """
    try:
        import ray
    except ImportError:
        raise LeagueRunError("--ray needs the ray extra: pip install 'goarena[ray]'") from None
    if not games:
        return
    started = not ray.is_initialized()  # else use the Ray this process already joined
    if started and address:
        ray.init(address=address, log_to_driver=False)
    elif started:
        ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    pending: list = []
    try:
        remote = ray.remote(num_cpus=1, max_retries=0)(play_kept)
        pending = [remote.remote(game) for game in games]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            try:
                yield ray.get(done[0])
            except ray.exceptions.RayError as error:
                raise LeagueRunError(f"a Ray worker failed: {error}") from None
    finally:
        for task in pending:  # stopped early: the Ray we joined must not play on
            with contextlib.suppress(Exception):
                ray.cancel(task, force=True)
        if started:
            ray.shutdown()
