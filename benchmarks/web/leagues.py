"""Read-only views of the leagues under the served directory, as the web board shows them.

A league is any directory under the root that holds a league database
(``LeagueStore.FILENAME``), at any depth; the walk follows no symbolic link to a directory, and
a database or a game file that a link puts outside the root is not read (``paths.inside``).
Leagues are named by their path under the root (``"."`` for the root itself).

``league_view`` gives a league's standings and crosstable (``build_report``, the same fit and
tables as ``goarena league table``), its Elo history (the ratings refitted on the first k
games, at ``HISTORY_POINTS`` points at most) and its games; ``replay`` gives one game position
by position, replayed by go_env from its SGF file (passes included, a clean-up phase resumed
after the two passes that opened it), and ``replay_record`` any record read by ``go_env.sgf``
(a person's own too); ``ratings`` gives each player's rating where it played most. Views are
cached until the database changes (``signature``: its size and modification time), which is
also how a watched league is seen to grow. The store keeps finished games only;
``live_games`` gives the games in progress, from the files a playing league keeps in its
``live/`` folder (``league.live``), each replayed by go_env (a file that is too large, not
JSON, or not a game is skipped), while a league plays there (``live.playing``: a killed
league's files are no games).
"""

from __future__ import annotations

import functools
import json
import math
import os
import sqlite3
import stat
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from go_env import coords
from go_env.game import BLACK, COLOR_NAMES, WHITE, Game
from go_env.rules import Rules
from go_env.sgf import SgfError, SgfRecord, load_sgf
from goarena.benchmarks.league.config import LeagueConfig, LeagueConfigError
from goarena.benchmarks.league.live import LIVE, PREFIX, playing
from goarena.benchmarks.league.ratings import Result, fit_ratings
from goarena.benchmarks.league.standings import PRIOR_GAMES, build_report
from goarena.benchmarks.league.store import LeagueStore, LeagueStoreError, StoredGame
from goarena.benchmarks.web.paths import OutsideRoot, inside, relative_id

HISTORY_POINTS = 20  # refits of the ratings in a league's Elo history
LIVE_BYTES = 256 * 1024  # the largest live file read (a 19x19 game's takes a few kB)
_SKIPPED = ("games", "crashes", LIVE)  # a league's own folders, which hold no league


class NotFound(LookupError):
    """No such league or game (answered 404)."""


_UNREADABLE = (NotFound, OutsideRoot, LeagueStoreError, LeagueConfigError, sqlite3.Error, OSError)


def league_ids(root: Path) -> list[str]:
    """The ids of the directories under ``root`` that hold a league database, sorted."""
    base = root.resolve()
    found = []
    for directory, subdirectories, files in os.walk(base):  # links to directories: not followed
        subdirectories[:] = sorted(name for name in subdirectories if not name.startswith("."))
        if LeagueStore.FILENAME in files:
            subdirectories[:] = [name for name in subdirectories if name not in _SKIPPED]
            found.append(relative_id(base, Path(directory)))
    return found


def find_leagues(root: Path) -> list[dict[str, Any]]:
    """Every league under ``root``: its id, games stored, players and last change (mtime)."""
    found = []
    for league_id in league_ids(root):
        try:
            with _open(root.resolve(), league_id) as store:
                found.append(
                    {
                        "id": league_id,
                        "games": len(store.finished_ids()),
                        "players": list(LeagueConfig.from_dict(store.config()).players),
                        "updated": store.path.stat().st_mtime,
                    }
                )
        except _UNREADABLE:
            continue  # not a league that can be read: not listed
    return found


def league_players(root: Path) -> list[tuple[str, dict[str, str]]]:
    """Every readable league under ``root`` (by id) with its players, name -> spec."""
    found = []
    for league_id in league_ids(root):
        try:
            found.append((league_id, _players(root.resolve(), league_id, signature(root, league_id))))
        except _UNREADABLE:
            continue
    return found


@functools.lru_cache(maxsize=64)
def _players(root: Path, league_id: str, version: tuple[str, int, int]) -> dict[str, str]:
    with _open(root, league_id) as store:
        return dict(LeagueConfig.from_dict(store.config()).players)


def signature(root: Path, league_id: str) -> tuple[str, int, int]:
    """What changes when a league's database does: (its path, size, mtime in ns)."""
    path = _database(root, league_id)
    stat = path.stat()
    return str(path), stat.st_size, stat.st_mtime_ns


def league_view(root: Path, league_id: str) -> dict[str, Any]:
    """A league's standings, crosstable, Elo history and games (see the module documentation),
    and how many games are in progress (``live``)."""
    view = dict(_view(root.resolve(), league_id, signature(root, league_id)))
    view["live"] = len(live_games(root, league_id))
    return view


@functools.lru_cache(maxsize=32)
def _view(root: Path, league_id: str, version: tuple[str, int, int]) -> dict[str, Any]:
    with _open(root, league_id) as store:
        try:
            report = build_report(store)
            config = LeagueConfig.from_dict(store.config())
        except (LeagueStoreError, LeagueConfigError) as error:
            raise NotFound(f"league {league_id!r} cannot be read: {_said(root, error)}") from None
        games = store.games()
    tally: defaultdict[str, Counter[str]] = defaultdict(Counter)
    for game in games:
        tally[game.black][_outcome(game, "black")] += 1
        tally[game.white][_outcome(game, "white")] += 1
    names = [row.name for row in report.standings]
    cells: list[list[dict[str, float] | None]] = [
        [None if a == b else _cell(report.crosstable[a][b]) for b in names] for a in names
    ]
    return {
        "id": league_id,
        "name": report.name,
        "size": config.size,
        "scheduled": report.scheduled,
        "anchor": report.anchor,
        "standings": [
            {
                "name": row.name,
                "spec": report.specs[row.name],
                "games": row.games,
                "wins": tally[row.name]["win"],
                "losses": tally[row.name]["loss"],
                "draws": tally[row.name]["draw"],
                "points": row.points,
                "elo": row.elo,
                "elo_low": row.low,
                "elo_high": row.high,
            }
            for row in report.standings
        ],
        "crosstable": {"names": names, "cells": cells},
        "elo_history": elo_history(games, *config.rated_anchor()),
        "games": [
            {
                "id": game.id,
                "black": game.black,
                "white": game.white,
                "result": game.result,
                "winner": game.winner,
                "reason": game.reason,
                "moves": game.move_count,
            }
            for game in games
        ],
    }


def _cell(record: list[float]) -> dict[str, float]:
    """A crosstable cell from ``Report.crosstable``'s [points as Black, games, as White, games]."""
    black_points, black_games, white_points, white_games = record
    return {"points": black_points + white_points, "games": int(black_games + white_games)}


def _outcome(game: StoredGame, color: str) -> str:
    return "draw" if game.winner == "draw" else "win" if game.winner == color else "loss"


def elo_history(games: list[StoredGame], anchor: str, anchor_elo: float) -> list[dict[str, Any]]:
    """The ratings fitted on the first k games (the league's own fit: colour term, prior),
    for at most ``HISTORY_POINTS`` values of k up to all the games; a k before the anchor
    has played is left out, and a player appears once it has played."""
    count = len(games)
    history = []
    for k in sorted({math.ceil(count * i / HISTORY_POINTS) for i in range(1, HISTORY_POINTS + 1)}):
        results = [Result(g.black, g.white, g.black_score) for g in games[:k]]
        if not any(anchor in (r.black, r.white) for r in results):
            continue
        ratings = fit_ratings(results, anchor, anchor_elo, prior_games=PRIOR_GAMES)
        elo = {name: round(float(value), 1) for name, value in zip(ratings.players, ratings.elo, strict=True)}
        history.append({"game": k, "ratings": elo})
    return history


def load_game(root: Path, league_id: str, game_id: str) -> tuple[StoredGame, SgfRecord, str]:
    """A stored game, its record read from its SGF file, and the file's text."""
    try:
        number = int(game_id)
    except ValueError:
        raise NotFound(f"no game {game_id!r} in league {league_id!r}") from None
    with _open(root.resolve(), league_id) as store:
        stored = next((game for game in store.games() if game.id == number), None)
    if stored is None:
        raise NotFound(f"no game {number} in league {league_id!r}")
    path = inside(root, f"{league_id}/{stored.sgf}")
    try:
        record = load_sgf(path)
        text = path.read_text(encoding="utf-8", errors="replace")
    except (OSError, SgfError) as error:
        raise NotFound(f"game {number}'s record cannot be read: {_said(root, error)}") from None
    return stored, record, text


def start_of(record: SgfRecord) -> Game:
    """The game's first position: its setup stones (a handicap) and who moves first."""
    played = record.game
    game = Game(played.size, record.rules)
    if played.setup_black or played.setup_white or played.first_to_play != BLACK:
        game.setup(played.setup_black, played.setup_white, played.first_to_play)
    game.handicap = played.handicap
    return game


def replay(root: Path, league_id: str, game_id: str) -> dict[str, Any]:
    """A stored game, position by position (position 0 the start, then one per move)."""
    stored, record, text = load_game(root, league_id, game_id)
    return {
        **replay_record(record, text),
        "id": stored.id,
        "black": stored.black,
        "white": stored.white,
        "result": stored.result,
        "reason": stored.reason,
    }


def replay_record(record: SgfRecord, text: str) -> dict[str, Any]:
    """A game record (a league's, or a person's own SGF read by ``go_env.sgf``), position by
    position: ``{"size", "komi", "rules", "black", "white", "result", "reason", "sgf",
    "positions": [{"board", "move", "color", "captures", "comment"}]}``."""
    game = start_of(record)
    positions = [_position(game, None, None, "")]
    for index, move in enumerate(record.moves):
        color = game.to_play
        if game.is_terminated:  # moves after two passes: the clean-up phase
            game.resume()
        game.play(move)
        positions.append(_position(game, move, color, record.comments.get(index, "")))
    return {
        "size": game.size,
        "komi": record.komi,
        "rules": record.rules.name,
        "black": record.black,
        "white": record.white,
        "result": record.result or "",
        "reason": "",
        "sgf": text,
        "positions": positions,
    }


def ratings(root: Path) -> dict[str, dict[str, Any]]:
    """Each player's spec -> its rating in the league under ``root`` where it played most:
    ``{"elo", "league", "games", "anchor"}`` (a league that cannot be read is left out)."""
    found: dict[str, dict[str, Any]] = {}
    for league_id in league_ids(root):
        try:
            view = _view(root.resolve(), league_id, signature(root, league_id))
        except _UNREADABLE:
            continue
        for row in view["standings"]:
            known = found.get(row["spec"])
            if row["elo"] is not None and (known is None or row["games"] > known["games"]):
                anchor = row["name"] == view["anchor"]
                found[row["spec"]] = {
                    "elo": row["elo"],
                    "league": league_id,
                    "games": row["games"],
                    "anchor": anchor,
                }
    return found


def _position(game: Game, move: int | None, color: int | None, comment: str) -> dict[str, Any]:
    return {
        "board": game.board.ravel().tolist(),
        "move": move,
        "color": color,
        "captures": [game.captures(BLACK), game.captures(WHITE)],
        "comment": comment,
    }


def live_games(root: Path, league_id: str) -> list[dict[str, Any]]:
    """The league's games in progress, by id: ``{"id", "black", "white", "size", "komi",
    "moves": [GTP vertices], "board": [int]*N*N, "to_play": "black"|"white", "last": vertex
    or None}``, the board as go_env replays the moves."""
    shown = []
    for path in _live_files(root, league_id):
        try:
            found = path.stat()
        except OSError:  # gone since: the game was stored
            continue
        if stat.S_ISREG(found.st_mode) and found.st_size <= LIVE_BYTES:  # never a FIFO, nor a huge file
            game = _live_game(path, found.st_size, found.st_mtime_ns)
            if game is not None:
                shown.append(game)
    return sorted(shown, key=lambda game: game["id"])


def _live_files(root: Path, league_id: str) -> list[Path]:
    """The files of the league's games in progress, resolved: those inside its directory
    only, and none when no league plays there (a killed league's are left over)."""
    league = _database(root, league_id).parent
    if not playing(league):
        return []
    try:
        folder = inside(root, f"{league_id}/{LIVE}")
        names = [path.name for path in folder.glob(f"{PREFIX}*.json")]
    except (OutsideRoot, OSError):
        return []
    files = []
    for name in names:
        try:
            path = inside(root, f"{league_id}/{LIVE}/{name}")
        except OutsideRoot:  # a link that leads away
            continue
        if path.is_relative_to(league):
            files.append(path)
    return files


@functools.lru_cache(maxsize=64)
def _live_game(path: Path, size: int, mtime: int) -> dict[str, Any] | None:
    """The game in progress that ``path`` shows (as of its ``size`` and ``mtime``), or None
    when it is no such file."""
    try:
        with path.open("rb") as file:
            data = json.loads(file.read(LIVE_BYTES + 1))
        rules = Rules(**data["rules"])
        game = Game(data["size"], rules)
        game.replay([int(move) for move in data["moves"]], resume=True)
        moves = [coords.to_gtp(move, game.size) for move in game.moves]
        return {
            "id": int(data["id"]),
            "black": str(data["black"]),
            "white": str(data["white"]),
            "size": game.size,
            "komi": rules.komi,
            "moves": moves,
            "board": game.board.ravel().tolist(),
            "to_play": COLOR_NAMES[game.to_play],
            "last": moves[-1] if moves else None,
        }
    except (OSError, ValueError, TypeError, KeyError, AttributeError, RecursionError):  # no game
        return None


def _database(root: Path, league_id: str) -> Path:
    """The league database of ``league_id``, inside ``root`` (else ``OutsideRoot``), or
    ``NotFound``."""
    path = inside(root, f"{league_id}/{LeagueStore.FILENAME}")
    try:
        found = inside(root, league_id).is_dir() and path.is_file()
    except OSError:  # a name too long for the file system, say
        found = False
    if not found:
        raise NotFound(f"no league {league_id!r}")
    return path


def _open(root: Path, league_id: str) -> LeagueStore:
    """The league of ``league_id``, opened to read (``NotFound`` if it cannot be)."""
    path = _database(root, league_id)
    try:
        return LeagueStore.open_existing(path.parent)
    except (LeagueStoreError, sqlite3.Error) as error:
        raise NotFound(f"league {league_id!r} cannot be read: {_said(root, error)}") from None


def _said(root: Path, error: Exception) -> str:
    """An error's text for the browser, without the served folder's path (none of its
    business): an OSError's reason alone, any other's with the folder's path left out."""
    if isinstance(error, OSError):
        return error.strerror or type(error).__name__
    base = str(root.resolve())
    return str(error).replace(base + os.sep, "").replace(base, ".")
