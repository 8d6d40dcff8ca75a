"""Ownership targets: the final owner of every point of a finished game, dead stones taken off.

A game that ends by two passes may end with dead stones on the board: players (GNU Go among
them) pass rather than capture what cannot live. Its final owners come from an engine's
judgement, asked by GTP (``final_status_list dead`` and ``final_status_list seki``), and area
scoring of the board with the dead stones taken off (``final_owner``): a stone counts for its
colour, an empty region for the colour that alone surrounds it, and an empty point in seki or
touching both colours for neither. Stones in seki stay on the board and count for their colour.

Records keep the owners as the standard territory marks of their last node (``TB``/``TW``, as
KGS and CGoban write them): ``TB`` holds Black's area points that are not Black's living stones
(its territory, the points of dead White stones included), ``TW`` likewise; so the dead stones
are the stones standing in the other side's marks (``go_env.sgf.owner_from_territory`` reads
them back). ``goarena data gnugo`` marks the games it plays; ``goarena data ownership SGF_DIR``
marks an existing folder::

    goarena data ownership data/gnugo-9x9-l1 --workers 2
    goarena data ownership games/ --engine "gnugo --mode gtp --level 10 --chinese-rules"

For each record that ended by two passes and has no marks, it replays the game into the engine
(GNU Go by default, with the options ``data gnugo`` gives it), asks for the dead and seki stones
and writes the marks into the record's last node, atomically (a ``.tmp`` file renamed over it);
every other property and variation of the record stays as it was (sgfmill re-serialises the
record). Records already marked are skipped, so a killed run rerun completes the folder. The
summary counts the records marked and those skipped by reason (``SKIP_REASONS``) and names a
few of each; an engine failure names the record it was on, and a crashed engine is restarted.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from multiprocessing.util import Finalize
from pathlib import Path

import numpy as np
from rich.progress import MofNCompleteColumn, Progress
from sgfmill import sgf

from go_env import coords
from go_env.game import BLACK, EMPTY, WHITE, Game
from go_env.rules import Rules
from go_env.seki import keep_seki_alive
from go_env.sgf import MAX_SGF_BYTES, SgfError, read_sgf, territory_marks
from goarena.agents.atomic import write_atomically
from goarena.agents.data.pool import WorkerLost, stoppable, stopped, worker_pool
from goarena.agents.data.reader import split_collection
from goarena.agents.gtp.client import GTPAgent, GTPEngineError

MARKED = "marked"  # an outcome: the marks were written
SKIP_REASONS = (
    "already marked",  # TB or TW in the last node
    "not ended by two passes",  # a resignation, the move cap, an unfinished record
    "collection",  # a file of several games: written back, the others would be lost
    "malformed",  # not an SGF game of Go, an illegal move, unreadable
    "engine error",  # the engine failed on the record (named in the summary)
)
_EXAMPLES = 3  # records named per reason in the summary


def final_owner(
    board: np.ndarray, size: int, dead: Iterable[int] = (), seki: Iterable[int] = ()
) -> np.ndarray:
    """Each point's final owner under area scoring, the ``dead`` stones taken off.

    Args:
        board: int8[N*N] (or [N, N]), 0 empty, 1 Black, 2 White: the final position.
        size: the board size N.
        dead: the points of the dead stones (an engine's ``final_status_list dead``).
        seki: the points in seki (``final_status_list seki``): their stones stay and count for
            their colour; an empty point among them counts for neither.

    Returns:
        int8[N*N]: BLACK, WHITE, or EMPTY (0) for a point that is neither's.

    Raises:
        ValueError: a dead point with no stone, a board of the wrong shape, or one that is no
            position once the dead stones are off (a group without liberties).
    """
    stones = np.array(board, np.int8).reshape(-1)
    if stones.size != size * size:
        raise ValueError(f"a board of {stones.size} points is not {size}x{size}")
    dead, seki = sorted(set(dead)), set(seki)
    if any(stones[point] == EMPTY for point in dead):
        empty = [point for point in dead if stones[point] == EMPTY]
        raise ValueError(f"dead stones asked on empty points {empty}")
    stones[dead] = EMPTY
    counted = Game(size, Rules(scoring="area"))
    try:
        counted.setup(np.flatnonzero(stones == BLACK).tolist(), np.flatnonzero(stones == WHITE).tolist())
    except ValueError as error:
        raise ValueError(f"the board without its dead stones is no position: {error}") from None
    owner = counted.area_owner().reshape(-1)
    owner[[point for point in seki if stones[point] == EMPTY]] = EMPTY
    return owner


def area_score(owner: np.ndarray) -> int:
    """Black's points minus White's in an owner map (komi not included)."""
    return int(np.count_nonzero(owner == BLACK)) - int(np.count_nonzero(owner == WHITE))


def engine_owner(engine: GTPAgent, game: Game) -> np.ndarray:
    """``final_owner`` of ``game``'s final position as ``engine`` judges its dead and seki stones,
    but for the chains in seki it calls dead (``go_env.seki.keep_seki_alive``), which stay.

    Raises:
        GTPEngineError: the engine lacks ``final_status_list``, fails it, or dies.
    """
    if "final_status_list" not in engine.known_commands:
        raise GTPEngineError(f"{engine.name} does not know final_status_list: it cannot name dead stones")
    dead = engine.final_status_list(game, "dead")
    seki = engine.final_status_list(game, "seki")
    board = game.board.reshape(-1)
    stoneless = [point for point in dead if board[point] == EMPTY]
    if stoneless:
        raise GTPEngineError(f"{engine.name} named empty points {stoneless} as dead stones")
    # A chain in seki lives, whoever called it dead (GNU Go has called seki dead).
    return final_owner(board, game.size, keep_seki_alive(game, dead), seki)


# -- marking a folder ------------------------------------------------------------------------


@dataclass
class Summary:
    """What a run did: records marked, records skipped by reason (a few named), seconds taken."""

    marked: int = 0
    skipped: Counter[str] = field(default_factory=lambda: Counter(dict.fromkeys(SKIP_REASONS, 0)))
    examples: dict[str, list[str]] = field(default_factory=dict)
    seconds: float = 0.0

    def add(self, name: str, outcome: str, detail: str = "") -> None:
        if outcome == MARKED:
            self.marked += 1
            return
        self.skipped[outcome] += 1
        if outcome == "already marked":
            return  # a rerun's every record: nothing to name
        named = self.examples.setdefault(outcome, [])
        if len(named) < _EXAMPLES or outcome == "engine error":  # every engine failure named
            named.append(f"{name}: {detail}" if detail else name)

    def lines(self) -> list[str]:
        skipped = ", ".join(f"{reason} {count}" for reason, count in self.skipped.items())
        out = [f"{self.marked} records marked in {self.seconds:.1f} s; skipped: {skipped}"]
        for reason, names in self.examples.items():
            out += [f"  {reason}: {name}" for name in names]
        return out


def mark_record(engine: GTPAgent, path: Path) -> tuple[str, str]:
    """Mark the record at ``path`` with its final owners, if it ended by two passes and has none.

    Returns:
        ``(outcome, detail)``: ``MARKED``, or one of ``SKIP_REASONS`` and why.
    """
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_SGF_BYTES + 1)
        record = read_sgf(data)
    except (SgfError, OSError) as error:
        return "malformed", str(error)
    tree = sgf.Sgf_game.from_bytes(data)  # read_sgf parsed it: this cannot fail
    last = tree.get_last_node()
    if last.has_property("TB") or last.has_property("TW"):
        return "already marked", ""
    if len(split_collection(data)) > 1:
        return "collection", "a file of several games"
    if not record.game.is_terminated:
        how = "the move cap" if record.game.is_truncated else f"RE[{record.result or ''}]"
        return "not ended by two passes", how
    try:
        owner = engine_owner(engine, record.game)
    except GTPEngineError as error:
        return "engine error", str(error)
    black, white = territory_marks(record.game.board.reshape(-1), owner)
    _set_marks(last, black, white, record.game.size)
    write_atomically(path, tree.serialise())
    return MARKED, ""


def _set_marks(node: sgf.Tree_node, black: Sequence[int], white: Sequence[int], size: int) -> None:
    """Set ``TB``/``TW`` on an sgfmill node as ``write_sgf`` does (both, even when one is empty:
    the record is marked)."""
    for prop, points in (("TB", black), ("TW", white)):
        values = [coords.to_sgf(point, size).encode("ascii") for point in sorted(points)]
        node.set_raw_list(prop, values or [b""])


def sgf_records(sgf_dir: Path) -> list[Path]:
    """The ``.sgf`` files under ``sgf_dir`` (any depth, any case), sorted."""
    if not sgf_dir.is_dir():
        raise ValueError(f"no folder of SGF files at {sgf_dir}")
    return sorted(path for path in sgf_dir.rglob("*") if path.suffix.lower() == ".sgf" and path.is_file())


def mark_folder(
    sgf_dir: Path,
    engine_command: str,
    workers: int = 1,
    on_record: Callable[[str, str, str], None] | None = None,
) -> Summary:
    """Mark every record under ``sgf_dir`` that ended by two passes and lacks marks.

    Args:
        sgf_dir: searched for ``.sgf`` files at any depth.
        engine_command: the GTP engine's command line (one engine per worker).
        workers: processes, each with its own engine.
        on_record: called with (record name, outcome, detail) as each record is done.

    Raises:
        ValueError: no such folder, or bad ``workers``.
        GTPEngineError: the engine cannot be started.
    """
    if workers < 1:
        raise ValueError(f"workers must be 1 or more, got {workers}")
    paths = sgf_records(sgf_dir)
    GTPAgent(engine_command).close()  # a bad command fails here, once, with the engine's words
    summary = Summary()
    start = time.perf_counter()
    for path, outcome, detail in _mark(paths, engine_command, workers):
        name = path.relative_to(sgf_dir).as_posix()
        summary.add(name, outcome, detail)
        if on_record is not None:
            on_record(name, outcome, detail)
    summary.seconds = time.perf_counter() - start
    return summary


def _mark(paths: list[Path], command: str, workers: int) -> Iterator[tuple[Path, str, str]]:
    if workers == 1 or len(paths) <= 1:
        worker = _Worker(command)
        try:
            yield from (worker.mark(path) for path in paths)
        finally:
            worker.close()
        return
    with worker_pool(min(workers, len(paths)), _start_worker, (command,)) as pool:
        yield from pool.imap(_mark_in_worker, paths)


class _Worker:
    """An engine that is started again after it dies."""

    def __init__(self, command: str):
        self.command = command
        self.engine: GTPAgent | None = None

    def mark(self, path: Path) -> tuple[Path, str, str]:
        if self.engine is None:
            try:
                self.engine = GTPAgent(self.command)
            except GTPEngineError as error:
                return path, "engine error", str(error)
        outcome, detail = mark_record(self.engine, path)
        if outcome == "engine error" and self.engine.process.poll() is not None:
            self.close()  # it crashed: a new one for the next record
        return path, outcome, detail

    def close(self) -> None:
        if self.engine is not None:
            self.engine.close()
            self.engine = None


_worker: _Worker | None = None  # a worker process's engine


def _start_worker(command: str) -> None:
    global _worker
    _worker = _Worker(command)
    Finalize(None, _worker.close, exitpriority=10)  # quit the engine when the pool ends


def _mark_in_worker(path: Path) -> tuple[Path, str, str]:
    assert _worker is not None, "the pool's initializer starts the worker"
    return _worker.mark(path)


# -- the command -----------------------------------------------------------------------------


def run(sgf_dir: Path, engine: str, workers: int = 1) -> Summary:
    """``mark_folder`` with a progress bar, then the summary (the command's body)."""
    total = len(sgf_records(sgf_dir))
    with stoppable(), Progress(*Progress.get_default_columns(), MofNCompleteColumn()) as progress:
        task = progress.add_task(f"ownership marks in {sgf_dir}", total=total)

        def advance(name: str, outcome: str, detail: str) -> None:
            progress.advance(task)
            if outcome == "engine error":
                progress.console.print(f"engine error on {name}: {detail}")

        try:
            summary = mark_folder(sgf_dir, engine, workers, on_record=advance)
        except (KeyboardInterrupt, WorkerLost) as reason:
            raise SystemExit(f"{stopped(reason)} marking {sgf_dir}; the same command resumes") from None
        except GTPEngineError as error:
            raise ValueError(f"the engine {engine!r} cannot be used: {error}") from None
    for line in summary.lines():
        print(line, file=sys.stdout)
    return summary
