"""Training positions read back from shards (``shards``): memory-mapped, split by game, augmented.

::

    data = ShardDataset("data/shards-9x9")
    train, held_out = data.split_by_game(0.05, seed=0)
    batch = data.batch(rng.choice(train, 256), rng=rng, augment=True)
    batch.planes  # float32[256, 48, 9, 9]; batch.moves int64[256], the targets

Every shard's arrays stay on disk (``np.load(mmap_mode="r")``); a batch reads only its rows.
Each file is checked once when the folder is opened (``integrity``: its size, its sha256, no
NaN, its rows), so a cut, garbled or short file is refused by name before any training.
The ownership targets (shards of format 2 on) are read apart, in the batch's symmetries::

    targets = data.ownership(indices, batch.symmetries)
    targets.ownership  # int8[256, 81]: +1 the mover's point at the end, -1 the opponent's, 0 neither's
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from go_env.features.symmetry import SYMMETRIES, transform_moves, transform_planes
from goarena.agents.data.integrity import DIGESTS, DataFileError, note, read_arrays, read_json
from goarena.agents.data.shards import ARRAYS, DIGESTED, FORMATS, MANIFEST, OWNERSHIP_ARRAYS

VALUE_ARRAYS = ("u", "sequences")  # the arrays ``data value`` adds


@dataclass(frozen=True)
class PositionBatch:
    """Positions with their targets, every array in the same symmetry of the board.

    Attributes:
        planes: float32[B, C, N, N], the input planes (C = 48).
        moves: int64[B], the expert move, ``N*N`` for a pass.
        outcomes: float32[B], +1 if the side to move won the game, -1 if it lost, 0 a draw.
        boards: int8[B, N*N], 0 empty, 1 Black, 2 White.
        to_play: int8[B], 1 Black, 2 White.
        last_moves: int16[B], the move before, -1 none, ``N*N`` a pass.
        symmetries: int64[B], the symmetry applied to each position (0: none; see
            ``go_env.features.symmetry``).
    """

    planes: np.ndarray
    moves: np.ndarray
    outcomes: np.ndarray
    boards: np.ndarray
    to_play: np.ndarray
    last_moves: np.ndarray
    symmetries: np.ndarray

    def __len__(self) -> int:
        return len(self.moves)


@dataclass(frozen=True)
class OwnershipBatch:
    """The ownership targets of positions, in the symmetries they were asked in.

    Attributes:
        ownership: int8[B, N*N], each point's final owner from the side to move's view: +1 its
            own, -1 the opponent's, 0 neither's (all 0 where ``owned`` is False).
        owned: bool[B], the position's game has ownership marks.
        scores: float32[B], the final area score from the side to move's view, komi not
            included (0 where ``owned`` is False).
    """

    ownership: np.ndarray
    owned: np.ndarray
    scores: np.ndarray

    def __len__(self) -> int:
        return len(self.owned)


def split_by_game(
    game_ids: np.ndarray, held_out_fraction: float, seed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """Indices of (training, held-out) positions of the games ``game_ids`` (one per position),
    about ``held_out_fraction`` of the games held out, and every game wholly on one side. Both
    int64 arrays, sorted."""
    if not 0 <= held_out_fraction < 1:
        raise ValueError(f"held_out_fraction must be in [0, 1), got {held_out_fraction}")
    games = np.unique(game_ids)
    count = round(held_out_fraction * len(games))
    held_out = np.isin(game_ids, np.random.default_rng(seed).choice(games, count, replace=False))
    return np.flatnonzero(~held_out), np.flatnonzero(held_out)


class ShardDataset:
    """Every shard of a folder built by ``shards.build_shards``, as one indexed set of positions.

    Args:
        directory: the shards' folder (with ``manifest.json``).

    Raises:
        ValueError: no manifest there, one of another format, or no positions.
        DataFileError: a file of the shards is missing, cut, garbled, short or holds NaN
            (named, with the cause).

    Attributes:
        has_ownership: every shard holds the ownership targets (``ownership``); shards built
            before them (format 1) and value positions (``data value``) do not.
    """

    def __init__(self, directory: str | Path):
        self.directory = Path(directory)
        path = self.directory / MANIFEST
        if not path.is_file():
            raise ValueError(f"no shards in {self.directory}: {MANIFEST} is missing (goarena data shards)")
        manifest = read_json(path)
        if manifest.get("format") not in FORMATS:
            raise ValueError(f"{path} is of format {manifest.get('format')!r}, not one of {FORMATS}")
        try:
            self.board_size: int = manifest["size"]
            self.num_planes: int = manifest["planes"]
            self.shards = [shard for entry in manifest["chunks"].values() for shard in entry["shards"]]
            folders = [(self.directory / shard["name"], int(shard["positions"])) for shard in self.shards]
        except (KeyError, TypeError, AttributeError, ValueError) as error:
            raise DataFileError(f"{path}: garbled: no shard list ({error!r})") from None
        older = manifest["format"] < DIGESTED  # its shards may have no digest.json
        optional = OWNERSHIP_ARRAYS + VALUE_ARRAYS
        self._arrays = [
            read_arrays(folder, ARRAYS, optional=optional, rows=rows, unlisted=older)
            for folder, rows in folders
        ]
        if any(not (folder / DIGESTS).is_file() for folder, _ in folders):
            note(
                f"the shards in {self.directory} carry no digests (written before goarena checked its "
                "data files): read without that check; rebuild them (the goarena data command that "
                "wrote them, into the same folder) to have them checked"
            )
        self.has_ownership = all(key in arrays for arrays in self._arrays for key in OWNERSHIP_ARRAYS)
        lengths = [len(arrays["moves"]) for arrays in self._arrays]
        self._starts = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)])
        if not len(self):
            raise ValueError(f"the shards in {self.directory} hold no positions")

    def arrays(self, shard: int) -> Mapping[str, np.ndarray]:
        """The checked, memory-mapped arrays of shard number ``shard`` (of ``shards``), by name."""
        return self._arrays[shard]

    def __len__(self) -> int:
        return int(self._starts[-1])

    @property
    def game_ids(self) -> np.ndarray:
        """int32[len(self)]: the game of every position."""
        return np.concatenate([arrays["game_ids"] for arrays in self._arrays])

    def split_by_game(self, held_out_fraction: float, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """``split_by_game`` of the shards' positions."""
        return split_by_game(self.game_ids, held_out_fraction, seed)

    def batch(
        self, indices: np.ndarray, rng: np.random.Generator | None = None, augment: bool = False
    ) -> PositionBatch:
        """The positions at ``indices`` (int[B]); with ``augment``, each in one of the 8 board
        symmetries drawn from ``rng``, inputs and targets alike."""
        indices = self._check(indices)
        rows = self._gather(indices)
        size, num_points = self.board_size, self.board_size**2
        planes = np.unpackbits(rows["planes"], axis=-1, count=num_points)
        planes = planes.reshape(len(indices), -1, size, size)
        moves = rows["moves"].astype(np.int64)
        boards, last_moves = rows["boards"], rows["last_moves"]
        symmetries = np.zeros(len(indices), np.int64)
        if augment:
            symmetries = (rng or np.random.default_rng()).integers(SYMMETRIES, size=len(indices))
            for k in np.unique(symmetries[symmetries > 0]):
                chosen = symmetries == k
                planes[chosen] = transform_planes(planes[chosen], k)
                moves[chosen] = transform_moves(moves[chosen], k, size)
                turned = transform_planes(boards[chosen].reshape(-1, size, size), k)
                boards[chosen] = turned.reshape(-1, num_points)
                moved = chosen & (last_moves >= 0)
                last_moves[moved] = transform_moves(last_moves[moved], k, size)
        return PositionBatch(
            planes=planes.astype(np.float32),
            moves=moves,
            outcomes=rows["outcomes"].astype(np.float32),
            boards=boards,
            to_play=rows["to_play"],
            last_moves=last_moves,
            symmetries=symmetries,
        )

    def ownership(self, indices: np.ndarray, symmetries: np.ndarray | None = None) -> OwnershipBatch:
        """The ownership targets of the positions at ``indices`` (int[B]), each turned by its
        symmetry in ``symmetries`` (int[B], a ``batch``'s ``symmetries``; none by default).

        Raises:
            ValueError: the shards hold no ownership targets (built before them: rerun
                ``goarena data shards`` into a new folder, or into this one to rebuild it).
        """
        if not self.has_ownership:
            raise ValueError(
                f"the shards in {self.directory} hold no ownership targets (built before them, or value "
                "positions): rebuild them with `goarena data shards` from records with ownership marks "
                "(`goarena data ownership SGF_DIR` adds them)"
            )
        indices = self._check(indices)
        rows = self._gather(indices, OWNERSHIP_ARRAYS)
        ownership = rows["ownership"]
        if symmetries is not None:
            symmetries = np.asarray(symmetries)
            if symmetries.shape != indices.shape:
                raise ValueError(f"symmetries must match indices, got {symmetries.shape} for {indices.shape}")
            size = self.board_size
            for k in np.unique(symmetries[symmetries > 0]):
                chosen = symmetries == k
                turned = transform_planes(ownership[chosen].reshape(-1, size, size), k)
                ownership[chosen] = turned.reshape(-1, size * size)
        return OwnershipBatch(ownership=ownership, owned=rows["owned"], scores=rows["scores"])

    def _check(self, indices: np.ndarray) -> np.ndarray:
        indices = np.asarray(indices)
        if not np.issubdtype(indices.dtype, np.integer) or indices.ndim != 1:
            raise TypeError(f"indices must be a 1-d integer array, got {indices.dtype}{list(indices.shape)}")
        if len(indices) and (indices.min() < 0 or indices.max() >= len(self)):
            raise IndexError(f"indices must be in 0..{len(self) - 1}, got {indices.min()}..{indices.max()}")
        return indices

    def _gather(self, indices: np.ndarray, keys: tuple[str, ...] = ARRAYS) -> dict[str, np.ndarray]:
        """The shard rows of ``indices`` in the shards' arrays ``keys``, read shard by shard in
        row order."""
        shard_of = np.searchsorted(self._starts, indices, side="right") - 1
        rows = indices - self._starts[shard_of]
        first = self._arrays[0]
        out = {key: np.empty((len(indices), *first[key].shape[1:]), first[key].dtype) for key in keys}
        for shard in np.unique(shard_of):
            where = np.flatnonzero(shard_of == shard)
            where = where[np.argsort(rows[where], kind="stable")]
            for key in keys:
                out[key][where] = self._arrays[shard][key][rows[where]]
        return out
