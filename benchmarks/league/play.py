"""Leagues: players meet in round-robin or gauntlet matches, with Elo ratings at the end.

A league is a set of players (agent specs, external GTP engines included), the rules, a
board size, games per pairing and a schedule, as a TOML file::

    name = "uct-ladder"
    size = 9
    rules = "goarena"          # a rules preset; komi below overrides its komi
    komi = 7.0
    games_per_pair = 4         # colours alternate within each pairing
    schedule = "round-robin"   # or "gauntlet", with challenger = "<player name>"
    seconds_per_move = 30      # a slower move loses on time (budgets are in the specs)
    seed = 0
    opening_moves = 0          # M random moves open each pair of games (one with each colour)
    settle = "cleanup"         # or "status" (engines' dead stones, arbiter = "gtp:...") or "count"
    anchor = "gnugo-10"        # rated anchor_elo; default GNU Go level 10 = 1000, else random = 0,
                               # else the first name in alphabetical order = 0
    anchor_elo = 1000

    [players]
    random = "random"
    uct-1000 = "uct:simulations=1000"
    gnugo-10 = "gtp:gnugo --mode gtp --level 10 --chinese-rules --positional-superko"

Every option can be given on the command line too (``goarena league --help``); without a
file the default league below is played. Games run in a local process pool (one worker per
core), or on a Ray cluster with ``--ray [ADDRESS]``. Each finished game is committed to
``league.sqlite`` in the league's directory and written to ``games/`` as SGF, so a league
that is stopped (even by ``kill -9``) and started again with the same directory plays only
the games still missing. Each game in progress is shown in ``live/`` (one JSON file a game,
rewritten after each move, removed once the game is stored: see ``live``), which
``goarena serve`` watches. Started again with more games per pair or more players, it grows:
the games played are kept and only the new ones are played. Any other change is another
league, which the directory refuses, as it refuses a second league while one plays there.

Every option and every player is checked before anything is written: a misspelt spec, an
engine that will not start, or a device that is not there (``--device mps``, ``cuda``
without a GPU), stops the league before its first game. Before it, the kernels of every
player are compiled once (``warm_up``: each player's factory declares them), so that no
worker compiles inside a timed move. A player that crashes, times out or plays an illegal
move during a game loses that game, with the reason recorded, and the league goes on; a
crashed game keeps its traceback in ``crashes/`` (named as its SGF is:
``crashes/0007-black-vs-white.txt``). A game whose player cannot be built or reset (its
weights fail to load, its device is gone, or its building or reset never returns: see
``runner``) is not played and not stored: the league plays the others, then says which and
why (``LeagueSetupError``), and the same command plays them once the setup is mended.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import sys
from collections.abc import Callable, Generator, Iterable, Iterator
from pathlib import Path

from go_env.game import COLOR_NAMES
from goarena.agents.atomic import write_atomically
from goarena.agents.gtp import GTPEngineError, find_engine
from goarena.agents.protocols import Closeable, GameContext, StatusReporter
from goarena.agents.specs import AgentSpecError, check_spec, make_agent, player_warmup
from goarena.benchmarks.league.config import LeagueConfig, LeagueConfigError
from goarena.benchmarks.league.live import clear_live, live_file, remove_live
from goarena.benchmarks.league.runner import (
    LeagueRunError,
    PlayedGame,
    ScheduledGame,
    UnplayedGame,
    run_local,
    run_ray,
)
from goarena.benchmarks.league.schedule import schedule
from goarena.benchmarks.league.store import LeagueStore, LeagueStoreError, StoredGame
from goarena.search.warmup import warmup

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

GNUGO_RULES = "--chinese-rules --positional-superko"  # GNU Go's options for the goarena preset


def default_config() -> LeagueConfig:
    """The built-in league on 9x9: random, UCT at three budgets, the shipped SL and RL policy
    networks (greedy) and rollout policy, the shipped AlphaZero network at 50 simulations a
    move, and GNU Go at levels 1 and 10 when it is installed (level 10 is then the anchor,
    rated 1000)."""
    players = {
        "random": "random",
        "uct-30": "uct:simulations=30",
        "uct-300": "uct:simulations=300",
        "uct-3000": "uct:simulations=3000",
        "sl-policy": "sl-policy",
        "rl-policy": "rl-policy",
        "rollout-policy": "rollout-policy",
        "zero": "zero:simulations=50",
    }
    if find_engine("gnugo"):
        for level in (1, 10):
            players[f"gnugo-{level}"] = f"gtp:gnugo --mode gtp --level {level} {GNUGO_RULES}"
    return LeagueConfig(players=players, name="default", games_per_pair=4)


def load_config(path: Path) -> LeagueConfig:
    try:
        data = tomllib.loads(Path(path).read_text())
    except (OSError, ValueError) as error:  # unreadable, not text, not TOML
        raise LeagueConfigError(f"cannot read league file {path}: {error}") from None
    return LeagueConfig.from_dict(data)


def growth_refusals(old: LeagueConfig, new: LeagueConfig) -> list[str]:
    """The options in which ``new`` is another league than ``old``, rather than ``old``
    grown by more games per pair or more players (its players keep their specs)."""
    old_options, new_options = old.to_dict(), new.to_dict()
    refused = [
        option
        for option in old_options
        if option not in ("players", "games_per_pair") and old_options[option] != new_options[option]
    ]
    if new.games_per_pair < old.games_per_pair:
        refused.append("games_per_pair")
    if any(new.players.get(name) != spec for name, spec in old.players.items()):
        refused.append("players")
    return sorted(refused)


# ---------------------------------------------------------------------------------------
# Running the league
# ---------------------------------------------------------------------------------------


CRASHES = "crashes"  # the folder of crashed games' tracebacks, in the league's directory


class LeagueSetupError(LeagueRunError):
    """Games not played because a player could not be built or reset: the league's setup
    needs mending, after which the same command plays them."""

    def __init__(self, unplayed: list[UnplayedGame], directory: Path):
        self.unplayed = unplayed
        first: dict[str, str] = {}  # each player's first failure: the others repeat it
        for game in unplayed:
            first.setdefault(game.player, game.describe())
        failures = sorted(first.values())
        shown = "; ".join(failures[:3]) + ("; ..." if len(failures) > 3 else "")
        super().__init__(
            f"{len(unplayed)} game(s) not played, since {shown}; nothing was stored for them "
            f"(tracebacks in {directory / CRASHES}): mend the setup and run the same command to play them"
        )


def slug(text: str) -> str:
    """``text`` as part of a file name: letters, digits and ``-_.``, at most 60 characters."""
    return "".join(c if c.isalnum() or c in "-_." else "-" for c in text)[:60]


def game_file(game: ScheduledGame, folder: str, suffix: str) -> str:
    """The name of ``game``'s file in ``folder`` of the league's directory, from its row:
    ``games/0007-black-vs-white.sgf``."""
    return f"{folder}/{game.id:04d}-{slug(game.black)}-vs-{slug(game.white)}{suffix}"


def write_crash(store: LeagueStore, game: ScheduledGame, lines: list[str], trace: str | None) -> Path:
    """Write what is known of ``game``'s crash (``lines``, then the traceback when there is
    one) to ``crashes/`` in the league's directory, whole or not at all; its path."""
    path = store.directory / game_file(game, CRASHES, ".txt")
    text = "\n".join(lines) + "\n" + (f"\n{trace}" if trace else "")
    try:
        path.parent.mkdir(exist_ok=True)
        write_atomically(path, text)
    except OSError as error:
        raise LeagueStoreError(f"cannot write the league in {store.directory}: {error}") from None
    return path


def store_game(store: LeagueStore, played: PlayedGame) -> StoredGame:
    """Commit a played game to the database, with its SGF in ``games/`` and, when it was
    lost to a crash, its traceback in ``crashes/``."""
    game, record = played.scheduled, played.record
    if record.reason.startswith("crash:"):
        write_crash(
            store,
            game,
            [
                f"Game {game.id}: {game.black} (Black) vs {game.white} (White), seed {game.seed}",
                f"Result {record.result} after {len(record.moves)} moves: {record.reason}",
            ],
            record.traceback,
        )
    else:  # a rerun after the fix: the crash of an earlier try is no more
        (store.directory / game_file(game, CRASHES, ".txt")).unlink(missing_ok=True)
    stored = StoredGame(
        id=game.id,
        black=game.black,
        white=game.white,
        seed=game.seed,
        result=record.result,
        winner=COLOR_NAMES.get(record.winner, "draw"),
        margin=record.margin,
        reason=record.reason,
        cleanup_from=record.cleanup_from,
        moves=" ".join(map(str, record.moves)),
        move_count=len(record.moves),
        black_seconds=round(sum(record.black_seconds), 3),
        white_seconds=round(sum(record.white_seconds), 3),
        sgf=game_file(game, "games", ".sgf"),
        finished_at=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    )
    for name, version in played.versions.items():
        spec = game.black_spec if name == game.black else game.white_spec
        store.add_player(name, spec, version, played.digests.get(name))
    store.add_game(stored, record.sgf or "")
    return stored


def check_players(config: LeagueConfig, device: str = "cpu") -> None:
    """Check ``device`` and every player's spec for the league's board, rules and device
    (``check_spec``: network players without building their networks; the cheap built-ins
    built, external engines started once) and build the arbiter, so that a misspelt spec,
    an engine that will not start, a network trained for another board or a device that is
    not there stops the league before its first game, rather than forfeiting all of its
    games."""
    check_device(device)
    context = GameContext(config.size, config.game_rules(), device=device)
    for name, spec in config.players.items():
        with _refused(f"player {name!r}: " if name != spec else "", spec):
            check_spec(spec, context)
    if config.arbiter is not None:
        with _refused("the arbiter: ", config.arbiter):
            arbiter = make_agent(config.arbiter)
        try:
            if not isinstance(arbiter, StatusReporter):
                raise LeagueConfigError(f"the arbiter {config.arbiter!r} cannot name dead stones")
        finally:
            if isinstance(arbiter, Closeable):
                arbiter.close()


def check_device(device: str) -> None:
    """Refuse (``LeagueConfigError``) a device the players' networks cannot run on: not
    ``cpu`` or ``cuda[:N]``, or a CUDA device this machine lacks. torch is imported only
    for a device other than the CPU."""
    if device == "cpu":
        return
    try:
        from goarena.agents.nets.predict import resolve_device
    except ImportError as error:
        raise LeagueConfigError(f"--device {device} needs torch: {error}") from None
    try:
        resolve_device(device)
    except ValueError as error:
        raise LeagueConfigError(f"--device: {error}") from None


@contextlib.contextmanager
def _refused(role: str, spec: str) -> Iterator[None]:
    """A failure to check or build ``spec`` as a ``LeagueConfigError`` naming its ``role``."""
    try:
        yield
    except (AgentSpecError, GTPEngineError) as error:
        raise LeagueConfigError(f"{role}{error}") from None
    except Exception as error:  # a plug-in's own failure
        raise LeagueConfigError(f"{role}cannot build {spec!r}: {type(error).__name__}: {error}") from None


def open_league(config: LeagueConfig, directory: Path) -> tuple[LeagueStore, list[ScheduledGame]]:
    """Open the league in ``directory`` to play it, creating both when new.

    The directory stays locked until the store is closed. It must hold this league, or one
    that ``config`` grows (see ``growth_refusals``); every game already stored must be the
    game of the same number in the schedule.

    Returns:
        The store and the league's schedule, the games already stored included.
    """
    directory = Path(directory)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise LeagueStoreError(f"cannot create the league's directory {directory}: {error}") from None
    store = LeagueStore(directory)
    try:
        return store, _bind(store, config)
    except BaseException:
        store.close()
        raise


def _bind(store: LeagueStore, config: LeagueConfig) -> list[ScheduledGame]:
    """Schedule the league and check its games so far; store ``config`` as the league's."""
    configs = [LeagueConfig.from_dict(options) for options in store.configs()]
    restart = bool(configs) and not store.finished_ids()  # no game yet: the options decide
    if restart:
        configs = []
    grows = configs[-1:] != [config]
    refused = growth_refusals(configs[-1], config) if grows and configs else []
    if refused:
        raise LeagueStoreError(
            f"{store.directory} holds another league (it differs in: {', '.join(refused)}); "
            "use a new directory, or the same options to resume it "
            "(more games per pair or more players grow it)"
        )
    games = schedule(config, grown_from=configs if grows else configs[:-1])
    for stored in store.games():
        scheduled = games[stored.id] if stored.id < len(games) else None
        if scheduled is None or (scheduled.black, scheduled.white) != (stored.black, stored.white):
            raise LeagueStoreError(
                f"{store.directory} holds game {stored.id} as {stored.black} (B) vs {stored.white} (W), "
                "which this league schedules otherwise: list the players in their first order, "
                "or use a new directory"
            )
    if grows:
        store.add_config(config.to_dict(), restart=restart)
    registered = store.players()
    for name, spec in config.players.items():
        if name not in registered:
            store.add_player(name, spec, "")
    return games


def play_league(
    store: LeagueStore,
    games: list[ScheduledGame],
    *,
    workers: int = 1,
    ray_address: str | None = None,
    use_ray: bool = False,
    on_game: Callable[[StoredGame, int, int], None] | None = None,
    device: str = "cpu",
) -> list[UnplayedGame]:
    """Play the games of ``games`` not yet in ``store``, committing each as it finishes.

    ``on_game(game, finished, total)`` is called after each game is committed; ``finished``
    counts the games stored before too. Players learn ``device`` at reset, and a directory
    of their own to write to: ``players/NAME`` in the league's directory.

    Returns:
        The games that could not start, a player's setup failing (stored: nothing; written:
        their tracebacks, in ``crashes/``).
    """
    finished = store.finished_ids()
    clear_live(store.directory)  # what a league killed here left
    todo = [_placed(game, store.directory, device) for game in games if game.id not in finished]
    results: Iterable[PlayedGame | UnplayedGame] = (
        run_ray(todo, ray_address, workers) if use_ray else run_local(todo, workers)
    )
    count = len(finished)
    unplayed: list[UnplayedGame] = []
    try:
        for played in results:
            if isinstance(played, UnplayedGame):
                game = played.scheduled
                write_crash(
                    store,
                    game,
                    [
                        f"Game {game.id}: {game.black} (Black) vs {game.white} (White), seed {game.seed}",
                        f"Not played, not stored: {played.describe()}",
                    ],
                    played.traceback,
                )
                remove_live(store.directory, game.id)
                unplayed.append(played)
                continue
            stored = store_game(store, played)
            remove_live(store.directory, stored.id)
            count += 1
            if on_game is not None:
                on_game(stored, count, len(games))
    finally:  # a game that cannot be stored stops the workers now, not when collected
        if isinstance(results, Generator):
            results.close()
        clear_live(store.directory)  # the games cut short are no longer played
    return unplayed


def _placed(game: ScheduledGame, directory: Path, device: str) -> ScheduledGame:
    """``game`` with the device, the players' directories of this run (made here) and its
    live file."""
    black, white = (directory / "players" / slug(name) for name in game.names)
    for run_dir in (black, white):
        run_dir.mkdir(parents=True, exist_ok=True)
    live = live_file(directory, game.id)
    return dataclasses.replace(game, device=device, run_dirs=(black, white), live=live)


def run_league(
    config: LeagueConfig,
    directory: Path,
    *,
    workers: int = 1,
    ray_address: str | None = None,
    use_ray: bool = False,
    on_game: Callable[[StoredGame, int, int], None] | None = None,
    device: str = "cpu",
) -> LeagueStore:
    """Check the players, then play every scheduled game not yet in ``directory``'s database.

    Returns the (open) store.

    Raises:
        LeagueSetupError: games were left unplayed, a player's setup failing (the others
            are stored; the store is closed).
    """
    check_players(config, device)
    store, games = open_league(config, directory)
    try:
        unplayed = play_league(
            store,
            games,
            workers=workers,
            ray_address=ray_address,
            use_ray=use_ray,
            on_game=on_game,
            device=device,
        )
        if unplayed:
            raise LeagueSetupError(unplayed, store.directory)
    except BaseException:
        store.close()
        raise
    return store


def warm_up(config: LeagueConfig) -> None:
    """Compile the kernels of the rules and of every player here, once (the ``warmup`` each
    player's factory declares, see ``agents.protocols.Warmable``), so that the workers load them
    from numba's cache rather than compile them inside a timed move; a compile (minutes on two
    cores, on the first run only) is announced on stderr with its progress (``search.warmup``)."""
    warmups: dict[str, tuple[list[str], Callable[[int], None]]] = {}
    for name, spec in config.players.items():
        warm = player_warmup(spec)
        if warm is not None:  # a class once, named by the players it serves
            key = getattr(warm, "__qualname__", repr(warm))
            warmups.setdefault(key, ([], warm))[0].append(name)
    warmup(
        config.size,
        log=lambda message: print(f"goarena league: {message}", file=sys.stderr, flush=True),
        warmups={", ".join(names): warm for names, warm in warmups.values()},
    )
