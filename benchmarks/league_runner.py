"""Running a league's games: each game in a worker process, results as they finish.

A worker builds both players from their specs, plays the game through the referee and sends
back the record; a player that cannot even be built loses by forfeit.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field

from agents.base import Agent, Closeable, StatusReporter, make_agent
from benchmarks.referee import GameRecord, play_game
from go_env import Rules
from go_env.game import BLACK, WHITE


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


# ---------------------------------------------------------------------------------------
# Playing a game (in a worker process)
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PlayedGame:
    """What a worker sends back: the record and the players' versions."""

    scheduled: ScheduledGame
    record: GameRecord
    versions: dict[str, str] = field(default_factory=dict)


def goarena_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("goarena")
    except PackageNotFoundError:
        return "unknown"


def play_scheduled(game: ScheduledGame) -> PlayedGame:
    """Build both players, play the game, close the players. Never raises for a player's
    failure: one that cannot even be built loses the game by forfeit."""
    built: list[object] = []  # everything to close at the end
    players: list[Agent] = []
    versions = {}
    try:
        for index, (name, spec) in enumerate(((game.black, game.black_spec), (game.white, game.white_spec))):
            try:
                agent = make_agent(spec, seed=game.seed * 2 + index)
            except Exception as error:
                return PlayedGame(
                    game, _forfeit_record(game, index, f"crash: {type(error).__name__}: {error}")
                )
            built.append(agent)
            players.append(agent)
            built_by = "" if spec.startswith("gtp:") else f" (goarena {goarena_version()})"
            versions[name] = f"{agent.name}{built_by}"
        arbiter = None
        if game.arbiter:
            judge = make_agent(game.arbiter)  # the league's own setting: its failure stops the league
            built.append(judge)
            if not isinstance(judge, StatusReporter):
                raise LeagueRunError(f"the arbiter {game.arbiter!r} cannot name dead stones")
            arbiter = judge
        black, white = players
        record = play_game(
            black,
            white,
            game.size,
            game.rules,
            max_seconds_per_move=game.seconds_per_move,
            settle=game.settle,
            arbiter=arbiter,
            names=(game.black, game.white),
        )
        return PlayedGame(game, record, versions)
    finally:
        for thing in built:
            if isinstance(thing, Closeable):
                thing.close()


def _forfeit_record(game: ScheduledGame, loser_index: int, reason: str) -> GameRecord:
    winner = WHITE if loser_index == 0 else BLACK
    return GameRecord(
        black=game.black,
        white=game.white,
        size=game.size,
        rules=game.rules,
        handicap=0,
        moves=(),
        result=f"{'B' if winner == BLACK else 'W'}+F",
        winner=winner,
        margin=None,
        reason=reason,
        black_seconds=(),
        white_seconds=(),
        sgf=None,
    )


# ---------------------------------------------------------------------------------------
# Running the league
# ---------------------------------------------------------------------------------------


def run_local(games: list[ScheduledGame], workers: int) -> Iterator[PlayedGame]:
    """Play ``games`` in a pool of ``workers`` processes; yield each as it finishes."""
    if not games:
        return
    # spawn: workers start clean, whatever threads this process runs (progress display).
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        pending = {pool.submit(play_scheduled, game) for game in games}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                yield future.result()


def run_ray(games: list[ScheduledGame], address: str | None, workers: int) -> Iterator[PlayedGame]:
    """Play ``games`` as Ray tasks (one CPU each) on the Ray cluster at ``address``, or a
    local Ray with ``workers`` CPUs when ``address`` is None (or the Ray already joined)."""
    try:
        import ray
    except ImportError:
        raise LeagueRunError("--ray needs Ray: pip install 'goarena[ray]'") from None
    if not games:
        return
    started = not ray.is_initialized()  # else use the Ray this process already joined
    if started and address:
        ray.init(address=address, log_to_driver=False)
    elif started:
        ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
    try:
        remote = ray.remote(num_cpus=1)(play_scheduled)
        pending = [remote.remote(game) for game in games]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            yield ray.get(done[0])
    finally:
        if started:
            ray.shutdown()
