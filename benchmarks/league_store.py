"""A league's results, in one SQLite database in the league's directory.

Every finished game is committed in its own transaction the moment it is known, so a
league that is killed (even ``kill -9``) loses no finished game: SQLite's journal makes the
commit all or nothing. Games are keyed by their number in the schedule, so a game can be
stored once only. The league's configuration is stored with its first game; a directory
that holds another league is refused rather than mixed with it.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS players (
    name TEXT PRIMARY KEY,
    spec TEXT NOT NULL,
    version TEXT NOT NULL
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
    """The database is unreadable or holds a different league."""


class LeagueStore:
    """The SQLite database of one league (``league.sqlite`` in its directory)."""

    FILENAME = "league.sqlite"

    def __init__(self, directory: Path):
        self.directory = Path(directory)
        self.path = self.directory / self.FILENAME
        try:
            self.connection = sqlite3.connect(self.path)
            self.connection.executescript(SCHEMA)
        except sqlite3.DatabaseError as error:
            raise LeagueStoreError(f"{self.path} is not a league database: {error}") from None

    @classmethod
    def open_existing(cls, directory: Path) -> LeagueStore:
        path = Path(directory) / cls.FILENAME
        if not path.exists():
            raise LeagueStoreError(f"no league in {directory} (no {cls.FILENAME})")
        return cls(Path(directory))

    def close(self) -> None:
        self.connection.close()

    # -- the league's configuration ---------------------------------------------------------

    def bind_config(self, config: dict[str, Any]) -> None:
        """Store the configuration, or check that it is the one already stored."""
        text = json.dumps(config, sort_keys=True)
        row = self.connection.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()
        if row is None:
            with self.connection:
                self.connection.execute("INSERT INTO meta VALUES ('config', ?)", (text,))
        elif row[0] != text:
            stored = json.loads(row[0])
            changed = sorted(k for k in set(stored) | set(config) if stored.get(k) != config.get(k))
            raise LeagueStoreError(
                f"{self.directory} holds another league (it differs in: {', '.join(changed)}); "
                "use a new directory, or the same options to resume it"
            )

    def config(self) -> dict[str, Any]:
        row = self.connection.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()
        if row is None:
            raise LeagueStoreError(f"{self.path} holds no league configuration")
        return dict(json.loads(row[0]))

    # -- players and games --------------------------------------------------------------------

    def add_player(self, name: str, spec: str, version: str) -> None:
        with self.connection:
            self.connection.execute(
                "INSERT INTO players VALUES (?, ?, ?) "
                "ON CONFLICT(name) DO UPDATE SET version = excluded.version",
                (name, spec, version),
            )

    def players(self) -> dict[str, tuple[str, str]]:
        """name -> (spec, version)."""
        rows = self.connection.execute("SELECT name, spec, version FROM players").fetchall()
        return {name: (spec, version) for name, spec, version in rows}

    def add_game(self, game: StoredGame) -> None:
        """Commit one finished game (a game already stored is an error)."""
        names = [f.name for f in fields(StoredGame)]
        with self.connection:
            self.connection.execute(
                f"INSERT INTO games ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})",
                tuple(asdict(game).values()),
            )

    def finished_ids(self) -> set[int]:
        return {row[0] for row in self.connection.execute("SELECT id FROM games")}

    def games(self) -> list[StoredGame]:
        names = [f.name for f in fields(StoredGame)]
        rows = self.connection.execute(f"SELECT {', '.join(names)} FROM games ORDER BY id").fetchall()
        return [StoredGame(*row) for row in rows]
