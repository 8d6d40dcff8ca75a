"""A league's results, in one SQLite database in the league's directory.

Every finished game is committed in its own transaction the moment it is known, so a
league that is killed (even ``kill -9``) loses no finished game: SQLite's journal makes the
commit all or nothing. Games are keyed by their number in the schedule, so a game can be
stored once only. Its SGF file is written inside its transaction: a stored game always has
its file, and the file of a stored game is never written again.

The league playing in a directory holds an exclusive lock on ``league.lock`` there, which
the system releases when the process ends however it ends, so a second league started on
the same directory is refused while the first one plays. The league's configuration is
stored with the configurations it grew from (more games per pair, more players); a
directory that holds another league, or games without their database, is refused rather
than mixed with it or started over.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Iterator
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from goarena.agents.atomic import exclusive_lock, leftovers, write_atomically

TABLES = ("meta", "players", "games")
SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS players (
    name TEXT PRIMARY KEY,
    spec TEXT NOT NULL,
    version TEXT NOT NULL,
    weights TEXT                     -- the sha256 of the player's weights, if it has any
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,          -- the game's number in the schedule
    black TEXT NOT NULL,
    white TEXT NOT NULL,
    seed INTEGER NOT NULL,
    result TEXT NOT NULL,            -- SGF RE: B+3.5, W+R, B+F, W+T, 0
    winner TEXT NOT NULL,            -- black, white or draw
    margin REAL,                     -- Black's area score minus White's, komi included
    reason TEXT NOT NULL,            -- two passes, two passes after clean-up, move cap, resign, ...
    cleanup_from INTEGER,            -- moves played when the clean-up phase began
    moves TEXT NOT NULL,             -- the moves as points, space-separated (N*N = pass)
    move_count INTEGER NOT NULL,
    black_seconds REAL NOT NULL,     -- Black's thinking time in all
    white_seconds REAL NOT NULL,
    sgf TEXT NOT NULL,               -- the SGF file, relative to the league's directory
    finished_at TEXT NOT NULL
);
"""


@dataclass(frozen=True)
class StoredGame:
    """One row of ``games``."""

    id: int
    black: str
    white: str
    seed: int
    result: str
    winner: str
    margin: float | None
    reason: str
    cleanup_from: int | None
    moves: str
    move_count: int
    black_seconds: float
    white_seconds: float
    sgf: str
    finished_at: str

    @property
    def black_score(self) -> float:
        """Black's score for the ratings: 1 win, 0.5 draw, 0 loss."""
        return {"black": 1.0, "draw": 0.5, "white": 0.0}[self.winner]


class LeagueStoreError(RuntimeError):
    """The database is unreadable, unwritable, in use or holds a different league."""


class LeagueStore:
    """The SQLite database of one league (``league.sqlite`` in its directory).

    ``LeagueStore(directory)`` opens the league to play it: it locks the directory, and
    creates the database when there is none and no games either. ``open_existing`` opens a
    league only to read it, while it plays or after.
    """

    FILENAME = "league.sqlite"
    LOCKNAME = "league.lock"

    def __init__(self, directory: Path, *, read_only: bool = False):
        self.directory = Path(directory)
        self.path = self.directory / self.FILENAME
        self._lock = None if read_only else _lock(self.directory, self.directory / self.LOCKNAME)
        try:
            with self._storage("open"):
                self.connection = self._open(read_only)
        except BaseException:
            self._unlock()
            raise

    @classmethod
    def open_existing(cls, directory: Path) -> LeagueStore:
        """The league in ``directory``, to read."""
        path = Path(directory) / cls.FILENAME
        if not path.exists():
            raise LeagueStoreError(f"no league in {directory} (no {cls.FILENAME})")
        return cls(Path(directory), read_only=True)

    def close(self) -> None:
        self.connection.close()
        self._unlock()

    def __enter__(self) -> LeagueStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _open(self, read_only: bool) -> sqlite3.Connection:
        sgfs = len(list((self.directory / "games").glob("*.sgf")))
        if not self.path.exists() and sgfs and not read_only:
            raise LeagueStoreError(
                f"{self.directory} holds {sgfs} games but no {self.FILENAME}: it is not started over "
                "them; restore the database, or use another directory"
            )
        connection = sqlite3.connect(self.path)
        try:
            self._check(connection, read_only, sgfs)
        except BaseException:
            connection.close()
            raise
        if not read_only:
            for part in leftovers(self.directory / "games" / "*.sgf"):
                part.unlink()  # a game that was being stored when its league was killed
        return connection

    def _check(self, connection: sqlite3.Connection, read_only: bool, sgfs: int) -> None:
        """Check that the database holds a league, or create one in an empty database
        beside no games (a new league, or one killed before its configuration was stored)."""
        try:
            listed = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        except sqlite3.OperationalError:
            raise  # the disk, not the file
        except sqlite3.DatabaseError as error:
            raise LeagueStoreError(f"{self.path} is not a league database: {error}") from None
        tables = {row[0] for row in listed}
        configured = "meta" in tables and bool(
            connection.execute("SELECT 1 FROM meta WHERE key = 'config'").fetchone()
        )
        missing = [table for table in TABLES if table not in tables]
        if configured and not missing:
            if not read_only:
                _add_weights_column(connection)
            return
        played = "games" in tables and connection.execute("SELECT count(*) FROM games").fetchone()[0]
        if read_only or configured or played or sgfs:
            damage = f"has no table {', '.join(missing)}" if configured else "holds no league configuration"
            where = f"; {self.directory / 'games'} holds {sgfs} games" if sgfs else ""
            raise LeagueStoreError(
                f"{self.path} {damage}{where}: the league is not started over it; restore the "
                "database, or use another directory"
            )
        with connection:
            connection.executescript(SCHEMA)

    def _unlock(self) -> None:
        if self._lock is not None:
            os.close(self._lock)  # releases the lock
            self._lock = None

    @contextlib.contextmanager
    def _storage(self, doing: str) -> Iterator[None]:
        """Failures of the disk or the database (read-only, full, broken) as one clear error."""
        try:
            yield
        except (sqlite3.Error, OSError) as error:
            raise LeagueStoreError(f"cannot {doing} the league in {self.directory}: {error}") from None

    # -- the league's configuration ---------------------------------------------------------

    def config(self) -> dict[str, Any]:
        """The league's configuration (the latest, when it grew)."""
        configs = self.configs()
        if not configs:
            raise LeagueStoreError(f"{self.path} holds no league configuration")
        return configs[-1]

    def configs(self) -> list[dict[str, Any]]:
        """Every configuration the league was played under, the first first (none for a new
        league): a league that grows keeps the games of its earlier configurations."""
        with self._storage("read"):
            rows = dict(self.connection.execute("SELECT key, value FROM meta").fetchall())
        if "config" not in rows:
            return []
        return [*json.loads(rows.get("grown_from", "[]")), json.loads(rows["config"])]

    def add_config(self, config: dict[str, Any], *, restart: bool = False) -> None:
        """Make ``config`` the league's configuration; the one it replaces (a league that
        grows) is kept among those it grew from, unless ``restart`` (no game played yet)."""
        earlier = [] if restart else self.configs()
        with self._storage("write"), self.connection:
            self.connection.execute(
                "INSERT OR REPLACE INTO meta VALUES ('grown_from', ?)", (json.dumps(earlier),)
            )
            self.connection.execute("INSERT OR REPLACE INTO meta VALUES ('config', ?)", (json.dumps(config),))

    # -- players and games --------------------------------------------------------------------

    def add_player(self, name: str, spec: str, version: str, weights: str | None = None) -> None:
        """Register a player, or update its version (and its weights' digest, when given)."""
        with self._storage("write"), self.connection:
            self.connection.execute(
                "INSERT INTO players (name, spec, version, weights) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(name) DO UPDATE SET version = excluded.version, "
                "weights = coalesce(excluded.weights, weights)",
                (name, spec, version, weights),
            )

    def players(self) -> dict[str, tuple[str, str]]:
        """name -> (spec, version)."""
        with self._storage("read"):
            rows = self.connection.execute("SELECT name, spec, version FROM players").fetchall()
        return {name: (spec, version) for name, spec, version in rows}

    def weights(self) -> dict[str, str]:
        """name -> the sha256 of its weights, for the players that have weights."""
        with self._storage("read"):
            try:
                rows = self.connection.execute(
                    "SELECT name, weights FROM players WHERE weights IS NOT NULL"
                ).fetchall()
            except sqlite3.OperationalError as error:  # a database from before digests, read only
                if "no such column" not in str(error):
                    raise
                rows = []
        return dict(rows)

    def add_game(self, game: StoredGame, sgf: str) -> None:
        """Commit one finished game with its SGF file (``game.sgf``, the text ``sgf``).

        The file is written, whole or not at all, inside the game's transaction: the game
        is committed only once its file is there, and a game already stored is refused
        before its file is touched.
        """
        names = [f.name for f in fields(StoredGame)]
        path = self.directory / game.sgf
        with self._storage("write"), self.connection:
            try:
                self.connection.execute(
                    f"INSERT INTO games ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
                    tuple(asdict(game).values()),
                )
            except sqlite3.IntegrityError:
                raise LeagueStoreError(f"game {game.id} is stored already") from None
            path.parent.mkdir(exist_ok=True)
            write_atomically(path, sgf)

    def finished_ids(self) -> set[int]:
        with self._storage("read"):
            return {row[0] for row in self.connection.execute("SELECT id FROM games")}

    def games(self) -> list[StoredGame]:
        names = [f.name for f in fields(StoredGame)]
        with self._storage("read"):
            rows = self.connection.execute(f"SELECT {', '.join(names)} FROM games ORDER BY id").fetchall()
        return [StoredGame(*row) for row in rows]


def _add_weights_column(connection: sqlite3.Connection) -> None:
    """Bring a database from before weights digests up to date."""
    columns = {row[1] for row in connection.execute("PRAGMA table_info(players)")}
    if "weights" not in columns:
        with connection:
            connection.execute("ALTER TABLE players ADD COLUMN weights TEXT")


def _lock(directory: Path, path: Path) -> int:
    """Hold ``path`` locked (exclusively) until the file descriptor returned is closed."""
    try:
        descriptor = exclusive_lock(path)
    except OSError as error:
        raise LeagueStoreError(f"cannot open the league in {directory}: {error}") from None
    if descriptor is None:
        raise LeagueStoreError(
            f"{directory} is in use: another league is playing there now; wait for it to end, "
            "or use another directory"
        )
    return descriptor
