"""Positions with final owners for ``goarena train ownership``: shards or a zero run's buffer.

Two sources give the same view (``OwnershipPositions``): for every position its 17 history
planes (``go_env.features.history_planes``, channels first), the final owner of each point
from its side to move's view, whether that is known (``owned``), the final area score (komi
not included), the game's result, the move chosen there, its game, its move number and the
length of its game.

- A shard folder (``goarena data shards`` with ownership, from GNU Go games): the arrays stay
  on disk, memory-mapped. A position's history planes are made from the boards of the
  positions before it in its game (they are consecutive, in move order). A record's random
  opening moves are no positions of the shards, so the first position of such a game has no
  history (the planes of a position set up from its board); its move number is the count of
  stones on its board (the opening's moves, captures and passes aside), and the positions
  after it count on from there.
- A zero run's replay buffer (``agents.training.replay``): the chunks hold the history planes,
  the search's policy target (its argmax is the move chosen), the ownership of played-out
  games, and each position's game and move number, as self-play recorded them. A chunk
  written before self-play recorded those is named on stderr and left out.

The planes' layout is ``go_env.features.history``'s, which also makes the positions after given
moves from the planes alone (``children_planes``) for the methods that train on children.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from go_env.core import BLACK, HISTORY
from go_env.features.history import (
    NUM_HISTORY_PLANES,
    after_a_pass,
    black_to_play,
    occupied,
    planes_from_boards,
)
from goarena.agents.data.dataset import ShardDataset, split_by_game
from goarena.agents.data.integrity import note
from goarena.agents.training.replay import Chunk, read_chunk

MOVE_BUCKET = 10  # moves per bucket of the held-out metrics


@dataclass(frozen=True)
class OwnershipBatch:
    """Positions for ownership training (B of them, on N x N boards).

    Attributes:
        planes: int8[B, 17, N, N], history planes from the side to move's view.
        ownership: int8[B, N*N], the final owner of each point for the side to move (+1 its
            own, -1 the opponent's, 0 neither); 0 where not ``owned``.
        owned: bool[B], the final owners are known.
        scores: float32[B], the final area score for the side to move, komi not included.
        outcomes: float32[B], the game's result for the side to move: +1, -1, 0 a draw.
        chosen: int64[B], the move played (an expert's) or searched best (self-play), N*N a pass.
        komi_terms: float32[B], the komi from the side to move's view (+komi for White).
        move_numbers, game_lengths: int64[B], the position's move number and its game's moves.
    """

    planes: np.ndarray
    ownership: np.ndarray
    owned: np.ndarray
    scores: np.ndarray
    outcomes: np.ndarray
    chosen: np.ndarray
    komi_terms: np.ndarray
    move_numbers: np.ndarray
    game_lengths: np.ndarray

    def __len__(self) -> int:
        return len(self.chosen)


class OwnershipPositions:
    """Positions of a shard folder or a zero run's buffer (``open_positions`` picks one).

    Attributes:
        board_size: N.
        game_ids, move_numbers, game_lengths: int64[n] of every position.
        owned: bool[n].
    """

    board_size: int
    directory: Path
    game_ids: np.ndarray
    move_numbers: np.ndarray
    game_lengths: np.ndarray
    owned: np.ndarray

    def __len__(self) -> int:
        return len(self.game_ids)

    def split_by_game(self, held_out_fraction: float, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """``dataset.split_by_game`` of these positions."""
        return split_by_game(self.game_ids, held_out_fraction, seed)

    def fetch(self, indices: np.ndarray) -> OwnershipBatch:
        """The positions at ``indices`` (int[B])."""
        raise NotImplementedError

    def _check(self, indices: np.ndarray) -> np.ndarray:
        indices = np.asarray(indices, np.int64)
        if indices.ndim != 1 or (len(indices) and (indices.min() < 0 or indices.max() >= len(self))):
            raise IndexError(f"indices must be a 1-d array in 0..{len(self) - 1}")
        return indices


def open_positions(directory: Path | str) -> OwnershipPositions:
    """The positions in ``directory``: a shard folder (``manifest.json``), or a zero run (its
    ``buffer/`` of chunks) or that buffer folder itself.

    Raises:
        ValueError: neither, shards without ownership, or no positions.
    """
    directory = Path(directory)
    if (directory / "manifest.json").is_file():
        return ShardPositions(directory)
    buffer = directory / "buffer" if (directory / "buffer").is_dir() else directory
    if any(buffer.glob("chunk-*")):
        return BufferPositions(buffer)
    raise ValueError(
        f"{directory} holds neither shards (manifest.json: goarena data shards) nor a zero run's "
        "replay buffer (chunk-* folders: goarena train zero)"
    )


def _game_runs(game_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For consecutive positions of games: the index of each position's game's first and last one."""
    n = len(game_ids)
    new = np.ones(n, bool)
    new[1:] = game_ids[1:] != game_ids[:-1]
    starts = np.flatnonzero(new)
    ends = np.append(starts[1:], n) - 1
    run = np.cumsum(new) - 1
    return starts[run], ends[run]


class ShardPositions(OwnershipPositions):
    """The positions of a shard folder with ownership (``goarena data shards``)."""

    _BIG = ("boards", "ownership")

    def __init__(self, directory: Path | str):
        dataset = ShardDataset(directory)  # checks the manifest's format
        self.directory = dataset.directory
        self.board_size = dataset.board_size
        small: dict[str, list[np.ndarray]] = {
            key: [] for key in ("to_play", "moves", "outcomes", "game_ids", "owned", "scores")
        }
        self._big: list[dict[str, np.ndarray]] = []
        komi = []
        if not dataset.has_ownership:
            raise ValueError(
                f"the shards in {self.directory} carry no ownership targets (built before them): build "
                "them again with goarena data shards, from records with ownership marks (goarena data "
                "ownership SGF_DIR adds them)"
            )
        for number, shard in enumerate(dataset.shards):
            arrays = dataset.arrays(number)  # memory-mapped, checked when the dataset opened
            for key in small:
                small[key].append(arrays[key])
            self._big.append({key: arrays[key] for key in self._BIG})
            komi.append(np.full(len(small["moves"][-1]), float(shard["komi"]), np.float32))
        arrays = {key: np.concatenate(parts) for key, parts in small.items()}
        self._starts = np.concatenate([[0], np.cumsum([len(part) for part in small["moves"]])])
        self.to_play = arrays["to_play"].astype(np.int8)
        self.chosen = arrays["moves"].astype(np.int64)
        self.outcomes = arrays["outcomes"].astype(np.float32)
        self.game_ids = arrays["game_ids"].astype(np.int64)
        self.owned = arrays["owned"].astype(bool)
        self.scores = arrays["scores"].astype(np.float32)
        black = self.to_play == BLACK
        self.komi_terms = np.where(black, -1.0, 1.0).astype(np.float32) * np.concatenate(komi)
        first, last = _game_runs(self.game_ids)
        first_boards = self._gather("boards", np.unique(first))
        stones = dict(zip(np.unique(first).tolist(), (first_boards != 0).sum(axis=1).tolist(), strict=True))
        offset = np.array([stones[f] for f in first.tolist()], np.int64)
        self.move_numbers = np.arange(len(self), dtype=np.int64) - first + offset
        self.game_lengths = self.move_numbers[last] + 1
        self._first = first

    def _gather(self, key: str, indices: np.ndarray) -> np.ndarray:
        shard_of = np.searchsorted(self._starts, indices, side="right") - 1
        rows = indices - self._starts[shard_of]
        sample = self._big[0][key]
        out = np.empty((len(indices), *sample.shape[1:]), sample.dtype)
        for shard in np.unique(shard_of):
            where = np.flatnonzero(shard_of == shard)
            out[where] = self._big[shard][key][rows[where]]
        return out

    def fetch(self, indices: np.ndarray) -> OwnershipBatch:
        indices = self._check(indices)
        size = self.board_size
        boards = np.zeros((len(indices), HISTORY, size * size), np.int8)  # empty before the game
        for i in range(HISTORY):
            back = indices - i
            present = back >= self._first[indices]
            if not present.any():
                break
            boards[present, i] = self._gather("boards", back[present])
        planes = planes_from_boards(boards, self.to_play[indices])
        return OwnershipBatch(
            planes=planes.reshape(len(indices), NUM_HISTORY_PLANES, size, size),
            ownership=self._gather("ownership", indices).astype(np.int8),
            owned=self.owned[indices],
            scores=self.scores[indices],
            outcomes=self.outcomes[indices],
            chosen=self.chosen[indices],
            komi_terms=self.komi_terms[indices],
            move_numbers=self.move_numbers[indices],
            game_lengths=self.game_lengths[indices],
        )


def _records_games(path: Path, chunk: Chunk) -> bool:
    """Whether self-play recorded the chunk's games and move numbers; if not, it is named on stderr."""
    if chunk.game is not None and chunk.move_number is not None:
        return True
    note(f"{path}: written before self-play recorded each position's game and move number; left out")
    return False


class BufferPositions(OwnershipPositions):
    """The positions of a zero run's replay buffer; the komi is the run's (its config.json), or
    each game's own where the chunks hold the rules planes (a network that reads the komi)."""

    def __init__(self, directory: Path | str):
        self.directory = Path(directory)
        config = self.directory.parent / "config.json"
        try:
            komi = float(json.loads(config.read_text())["komi"])
        except (OSError, ValueError, KeyError, TypeError):
            raise ValueError(
                f"{self.directory} is read as a zero run's buffer, but its run's {config} gives no komi"
            ) from None
        paths = sorted(p for p in self.directory.glob("chunk-*") if p.is_dir())
        read = [(path, read_chunk(path)) for path in paths]
        self._chunks = [chunk for path, chunk in read if len(chunk) and _records_games(path, chunk)]
        if not self._chunks:
            raise ValueError(f"the buffer {self.directory} holds no positions")
        self.board_size = int(self._chunks[0].planes.shape[-1])
        self._starts = np.concatenate([[0], np.cumsum([len(chunk) for chunk in self._chunks])])
        games, moves = [], []
        offset = 0
        for chunk in self._chunks:
            chunk_games, chunk_moves = np.asarray(chunk.game), np.asarray(chunk.move_number)
            games.append(chunk_games + offset)  # a game is within one chunk (one round)
            moves.append(chunk_moves)
            offset += int(chunk_games.max()) + 1
        self.game_ids = np.concatenate(games)
        self.move_numbers = np.concatenate(moves)
        lengths = np.zeros(self.game_ids.max() + 1, np.int64)
        np.maximum.at(lengths, self.game_ids, self.move_numbers + 1)
        self.game_lengths = lengths[self.game_ids]
        self.owned = np.concatenate([np.asarray(chunk.owned, bool) for chunk in self._chunks])
        black = np.concatenate([black_to_play(np.asarray(chunk.planes)) for chunk in self._chunks])
        self.komi_terms = np.where(black, -komi, komi).astype(np.float32)
        if self._chunks[0].planes.shape[1] > NUM_HISTORY_PLANES:  # each game's own komi, in the rules plane
            self.komi_terms = np.concatenate(
                [0.5 * np.asarray(chunk.planes[:, NUM_HISTORY_PLANES, 0, 0]) for chunk in self._chunks]
            ).astype(np.float32)

    def _gather(self, key: str, indices: np.ndarray) -> np.ndarray:
        chunk_of = np.searchsorted(self._starts, indices, side="right") - 1
        rows = indices - self._starts[chunk_of]
        sample = getattr(self._chunks[0], key)
        out = np.empty((len(indices), *sample.shape[1:]), sample.dtype)
        for c in np.unique(chunk_of):
            where = np.flatnonzero(chunk_of == c)
            out[where] = getattr(self._chunks[c], key)[rows[where]]
        return out

    def fetch(self, indices: np.ndarray) -> OwnershipBatch:
        indices = self._check(indices)
        ownership = self._gather("ownership", indices).astype(np.int8)
        return OwnershipBatch(
            planes=self._gather("planes", indices)[:, :NUM_HISTORY_PLANES].astype(np.int8),
            ownership=ownership,
            owned=self.owned[indices],
            scores=ownership.sum(axis=1).astype(np.float32),  # played out: area counting
            outcomes=self._gather("value", indices).astype(np.float32),
            chosen=self._gather("policy", indices).argmax(axis=1).astype(np.int64),
            komi_terms=self.komi_terms[indices],
            move_numbers=self.move_numbers[indices],
            game_lengths=self.game_lengths[indices],
        )


def game_ending_scores(positions: OwnershipBatch) -> np.ndarray:
    """float32[B]: the final area score where passing at the position ends the game, NaN elsewhere.

    That is the last position of a game ended by two passes (its final owners known, the move
    before it a pass): its pass child is the end-game position, whose value the seed defines
    exactly, the area score, for the side to move."""
    previous_passed = after_a_pass(positions.planes)
    last = positions.move_numbers == positions.game_lengths - 1
    ends = positions.owned & last & previous_passed & (positions.move_numbers > 0)
    return np.where(ends, positions.scores, np.nan).astype(np.float32)


def candidate_moves(
    planes: np.ndarray, chosen: np.ndarray, count: int, rng: np.random.Generator
) -> np.ndarray:
    """int64[B, count]: for each position, ``count`` moves other than ``chosen`` drawn without
    replacement from its empty points and the pass, -1 where there are fewer (the children's
    own check refuses the illegal ones among them)."""
    size = planes.shape[-1]
    num_points = size * size
    taken = occupied(planes).reshape(len(planes), num_points)
    open_moves = np.concatenate([~taken, np.ones((len(planes), 1), bool)], axis=1)
    open_moves[np.arange(len(planes)), chosen] = False
    keys = rng.random(open_moves.shape)
    keys[~open_moves] = np.inf
    order = np.argsort(keys, axis=1, kind="stable")[:, :count]
    picked = np.take_along_axis(keys, order, axis=1)
    moves = np.full((len(planes), count), -1, np.int64)
    moves[:, : order.shape[1]] = np.where(np.isfinite(picked), order, -1)
    return moves
