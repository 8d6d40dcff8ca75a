"""AlphaZero's replay buffer: self-play positions on disk, in chunks read memory-mapped.

Each self-play round writes one chunk, a folder ``chunk-SSSSSSSS`` (S: the round's step)
holding one ``.npy`` file per field (planes, policy, value, ownership, owned, the search's
root value, the final margin, and each position's game, numbered within the round, and move
number) and ``digest.json``, the sha256 of each: the scheme of every array file the project
writes (``agents.data.integrity``). Chunks written before the last four fields existed are
read without them: their positions are sampled with ``scored`` false (no margin known) and
the root value 0 with ``searched`` false. A chunk is written
to a temporary folder and renamed into place, so a killed run leaves whole chunks only; a
chunk with a missing, cut, garbled, short or NaN-holding file (a disk error, an edit) is named
with the cause on one line of stderr and skipped, never trained on.

Training samples from a window of the newest positions that grows with the run, as KataGo's
does: with ``N`` positions written so far, the window holds
``c * (1 + beta * ((N / c) ** alpha - 1) / alpha)`` of them (``alpha`` 0.75, ``beta`` 0.4;
``c`` the ``window`` option), all of them while ``N <= c``. Each sample is seen under one of
the 8 symmetries of the board, drawn with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from go_env.features.symmetry import SYMMETRIES, symmetry_maps, transform_planes, transform_policy
from goarena.agents.data.integrity import DataFileError, note, read_arrays, write_arrays
from goarena.agents.training.selfplay import SelfPlayGames

FIELDS = ("planes", "policy", "value", "ownership", "owned")  # the training sample's
TARGET_FIELDS = ("root_value", "score")  # the training sample's too, absent from older chunks
GAME_FIELDS = ("game", "move_number")  # where each position stands in its game
WINDOW_ALPHA = 0.75
WINDOW_BETA = 0.4


def window_size(positions: int, base: int) -> int:
    """How many of the newest ``positions`` the training window holds (KataGo's formula)."""
    if positions <= base:
        return positions
    grown = base * (1 + WINDOW_BETA * ((positions / base) ** WINDOW_ALPHA - 1) / WINDOW_ALPHA)
    return min(positions, int(grown))


def chunk_name(step: int) -> str:
    return f"chunk-{step:08d}"


def write_chunk(directory: Path, step: int, games: SelfPlayGames) -> Path:
    """Write ``games``' positions as round ``step``'s chunk (replacing one a killed run left)."""
    final = directory / chunk_name(step)
    write_arrays(final, {field: getattr(games, field) for field in FIELDS + TARGET_FIELDS + GAME_FIELDS})
    return final


@dataclass
class Chunk:
    """One chunk's fields, memory-mapped."""

    step: int
    planes: np.ndarray
    policy: np.ndarray
    value: np.ndarray
    ownership: np.ndarray
    owned: np.ndarray
    root_value: np.ndarray | None = None  # None in chunks written before it was recorded
    score: np.ndarray | None = None
    game: np.ndarray | None = None
    move_number: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.value.shape[0])


def read_chunk(path: Path) -> Chunk:
    """The chunk at ``path``, memory-mapped, its files checked (``integrity.read_arrays``).

    Raises:
        DataFileError: a file is missing, cut, garbled, short or holds NaN (named, with the cause).
    """
    arrays = read_arrays(path, FIELDS, optional=TARGET_FIELDS + GAME_FIELDS)
    return Chunk(int(path.name.removeprefix("chunk-")), **arrays)


class ReplayBuffer:
    """The chunks of a run's ``buffer/`` folder, sampled from a growing window.

    Args:
        directory: the folder of chunks.
        window: ``c`` of the window's formula (``window_size``), in positions.
    """

    def __init__(self, directory: Path | str, window: int):
        self.directory = Path(directory)
        self.window = window
        self._chunks: dict[int, Chunk] = {}
        self._skipped: set[int] = set()

    def add(self, step: int, games: SelfPlayGames) -> None:
        """Write round ``step``'s games as a chunk."""
        self.directory.mkdir(parents=True, exist_ok=True)
        write_chunk(self.directory, step, games)
        self._chunks.pop(step, None)
        self._skipped.discard(step)

    def chunks(self, through: int) -> list[Chunk]:
        """The readable chunks of rounds up to ``through``, oldest first; a corrupt one is
        named on stderr (once) and left out."""
        steps = sorted(
            int(path.name.removeprefix("chunk-"))
            for path in self.directory.glob("chunk-*")
            if path.is_dir() and path.name.removeprefix("chunk-").isdigit()
        )
        found = []
        for step in steps:
            if step > through or step in self._skipped:
                continue
            if step not in self._chunks:
                try:
                    self._chunks[step] = read_chunk(self.directory / chunk_name(step))
                except DataFileError as error:
                    note(f"skipping a corrupt replay chunk: {error}")
                    self._skipped.add(step)
                    continue
            found.append(self._chunks[step])
        return found

    def sample(self, through: int, count: int, rng: np.random.Generator) -> dict[str, np.ndarray] | None:
        """``count`` positions drawn uniformly from the window of rounds up to ``through``,
        each under a random symmetry; None while the buffer is empty. Beside ``FIELDS`` the
        batch holds ``root_value`` and ``score``, and ``searched`` and ``scored`` (bool: the
        chunk recorded the root value; the margin is known)."""
        chunks = self.chunks(through)
        sizes = np.array([len(chunk) for chunk in chunks], np.int64)
        total = int(sizes.sum())
        if total == 0:
            return None
        held = window_size(total, self.window)
        picks = np.sort(total - held + rng.integers(held, size=count))
        starts = np.concatenate([[0], np.cumsum(sizes)])
        which = np.searchsorted(starts, picks, side="right") - 1
        parts: dict[str, list[np.ndarray]] = {
            field: [] for field in FIELDS + TARGET_FIELDS + ("searched", "scored")
        }
        for c in np.unique(which):
            chunk = chunks[c]
            rows = picks[which == c] - starts[c]
            for field in FIELDS:
                parts[field].append(np.asarray(getattr(chunk, field)[rows]))
            none = np.zeros(len(rows), np.float32)
            parts["root_value"].append(
                none if chunk.root_value is None else np.asarray(chunk.root_value[rows])
            )
            parts["score"].append(none if chunk.score is None else np.asarray(chunk.score[rows]))
            parts["searched"].append(np.full(len(rows), chunk.root_value is not None))
            parts["scored"].append(np.asarray(chunk.owned[rows]) & (chunk.score is not None))
        batch = {field: np.concatenate(values) for field, values in parts.items()}
        return _symmetries(batch, rng.integers(SYMMETRIES, size=count))


def _symmetries(batch: dict[str, np.ndarray], symmetries: np.ndarray) -> dict[str, np.ndarray]:
    """Each position ``i`` of ``batch`` under symmetry ``symmetries[i]`` (new arrays)."""
    planes, policy, ownership = batch["planes"].copy(), batch["policy"].copy(), batch["ownership"].copy()
    size = planes.shape[-1]
    maps = symmetry_maps(size)
    for k in range(1, SYMMETRIES):
        rows = np.flatnonzero(symmetries == k)
        if rows.size == 0:
            continue
        planes[rows] = transform_planes(batch["planes"][rows], k)
        policy[rows] = transform_policy(batch["policy"][rows], k, size)
        ownership[rows[:, None], maps[k][None, :-1]] = batch["ownership"][rows]  # points only
    return {**batch, "planes": planes, "policy": policy, "ownership": ownership}
