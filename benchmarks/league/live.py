"""Games in progress, shown as they are played: one small JSON file a game in ``live/``.

While a league plays, the worker playing a game rewrites its file, ``live/game-0007.json`` in
the league's directory, after each move (written whole: a temporary file renamed over it, so
that a reader never sees half of one), and the league removes it once the game is stored. A
league that starts (or stops) clears the folder; files left by a league that was killed show
no game in progress all the same, since ``playing`` tells that no league holds the directory's
lock (``LeagueStore``'s ``league.lock``, released by the system however the league ended). A
worker that cannot write there (a Ray node without the league's directory) shows
nothing and plays on. ``goarena serve`` reads these files to show a watched league's games::

    {"id": 7, "black": "uct-300", "white": "random", "size": 9, "komi": 7.0,
     "rules": {...Rules.to_dict()...}, "moves": [40, 30, 81], "to_play": "black",
     "updated": 1718000000.0}

``moves`` are go_env's points (``N*N`` a pass), the league's opening included; ``updated``
is the time of writing (seconds since the epoch).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import stat
import time
from collections.abc import Sequence
from pathlib import Path

from go_env.rules import Rules
from goarena.agents.atomic import leftovers, write_atomically
from goarena.benchmarks.league.store import LeagueStore

LIVE = "live"  # the folder of games in progress, in the league's directory
PREFIX = "game-"


def live_file(directory: Path, game_id: int) -> Path:
    """The file of game ``game_id`` in progress in the league of ``directory``."""
    return Path(directory) / LIVE / f"{PREFIX}{game_id:04d}.json"


def playing(directory: Path) -> bool:
    """Whether a league is being played in ``directory`` now: whether a process holds the
    lock on its ``league.lock``. Asked without waiting, creating nothing, following no link."""
    try:
        descriptor = os.open(
            Path(directory) / LeagueStore.LOCKNAME, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK
        )
    except OSError:  # no lock file: no league was ever played here
        return False
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            return False
        fcntl.flock(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)  # held for an instant: closed below
    except BlockingIOError:  # the league holds it
        return True
    except OSError:
        return False
    finally:
        os.close(descriptor)
    return False


def write_live(
    path: Path, game_id: int, names: tuple[str, str], size: int, rules: Rules, moves: Sequence[int]
) -> None:
    """Write the file of game ``game_id`` (Black's and White's ``names``) at ``path`` with its
    ``moves`` so far; nothing if it cannot be written (the folder is not there, the disk is
    full): the game goes on unseen."""
    data = {
        "id": game_id,
        "black": names[0],
        "white": names[1],
        "size": size,
        "komi": rules.komi,
        "rules": rules.to_dict(),
        "moves": [int(move) for move in moves],
        "to_play": "white" if len(moves) % 2 else "black",  # a league's games have no handicap
        "updated": round(time.time(), 3),
    }
    with contextlib.suppress(OSError):
        write_atomically(path, json.dumps(data))


def remove_live(directory: Path, game_id: int) -> None:
    """Remove the file of game ``game_id`` (and a half-written one): it is no longer played."""
    path = live_file(directory, game_id)
    for stale in (path, *leftovers(path)):
        with contextlib.suppress(OSError):
            stale.unlink(missing_ok=True)


def clear_live(directory: Path) -> None:
    """Leave the league of ``directory`` an empty ``live/`` folder (made if need be): no game
    is in progress."""
    folder = Path(directory) / LIVE
    with contextlib.suppress(OSError):
        folder.mkdir(exist_ok=True)
        for stale in [*folder.glob(f"{PREFIX}*"), *leftovers(folder / f"{PREFIX}*")]:
            with contextlib.suppress(OSError):
                stale.unlink()
