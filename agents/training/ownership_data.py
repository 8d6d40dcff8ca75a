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
  the search's policy target (its argmax is the move chosen) and the ownership of played-out
  games, but neither game numbers nor move numbers: a chunk's positions are ordered by move,
  the running games of each move together. The games are rebuilt by following the history:
  a position follows another when its boards 1..7 moves ago are the other's boards 0..6 from
  the other side's view; a game begins at the empty board with no history. A position that
  follows none (a search not recorded under playout cap randomization) begins a game of its
  own, its move number the count of stones on its board.

``play_children`` makes the history planes of the positions after given moves, from the
planes alone: the move's stone, its captures, suicide refused, and a move that would repeat
one of the 7 earlier boards the planes hold refused (simple ko, and positional superko as far
as the planes see).
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from go_env.core import (
    BLACK,
    HISTORY,
    LEGAL,
    WHITE,
    copy_into,
    kernel,
    make_geometry,
    new_state,
    play,
    reset,
    setup_stones,
)
from go_env.features import NUM_HISTORY_PLANES
from go_env.rules import Rules
from goarena.agents.data.dataset import ShardDataset, split_by_game
from goarena.agents.training.replay import read_chunk

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
        planes = np.zeros((len(indices), NUM_HISTORY_PLANES, size * size), np.int8)
        mover = self.to_play[indices].astype(np.int8)[:, None]
        for i in range(HISTORY):
            back = indices - i
            present = back >= self._first[indices]
            if not present.any():
                break
            boards = self._gather("boards", back[present])
            planes[present, i] = boards == mover[present]
            planes[present, HISTORY + i] = boards == 3 - mover[present]
        planes[:, 2 * HISTORY] = (mover == BLACK).astype(np.int8)
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


class BufferPositions(OwnershipPositions):
    """The positions of a zero run's replay buffer; the komi is the run's (its config.json)."""

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
        self._chunks = [read_chunk(path) for path in paths]
        self._chunks = [chunk for chunk in self._chunks if len(chunk)]
        if not self._chunks:
            raise ValueError(f"the buffer {self.directory} holds no positions")
        self.board_size = int(self._chunks[0].planes.shape[-1])
        self._starts = np.concatenate([[0], np.cumsum([len(chunk) for chunk in self._chunks])])
        games, moves = [], []
        offset = 0
        for chunk in self._chunks:
            if chunk.game is not None and chunk.move_number is not None:  # recorded by self-play
                chunk_games, chunk_moves = np.asarray(chunk.game), np.asarray(chunk.move_number)
            else:  # a chunk written before they were recorded
                chunk_games, chunk_moves = _rebuild_games(np.asarray(chunk.planes))
            games.append(chunk_games + offset)  # a game is within one chunk (one round)
            moves.append(chunk_moves)
            offset += int(chunk_games.max()) + 1
        self.game_ids = np.concatenate(games)
        self.move_numbers = np.concatenate(moves)
        lengths = np.zeros(self.game_ids.max() + 1, np.int64)
        np.maximum.at(lengths, self.game_ids, self.move_numbers + 1)
        self.game_lengths = lengths[self.game_ids]
        self.owned = np.concatenate([np.asarray(chunk.owned, bool) for chunk in self._chunks])
        black = (
            np.concatenate([np.asarray(chunk.planes[:, 2 * HISTORY, 0, 0]) for chunk in self._chunks]) == 1
        )
        self.komi_terms = np.where(black, -komi, komi).astype(np.float32)

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
            planes=self._gather("planes", indices).astype(np.int8),
            ownership=ownership,
            owned=self.owned[indices],
            scores=ownership.sum(axis=1).astype(np.float32),  # played out: area counting
            outcomes=self._gather("value", indices).astype(np.float32),
            chosen=self._gather("policy", indices).argmax(axis=1).astype(np.int64),
            komi_terms=self.komi_terms[indices],
            move_numbers=self.move_numbers[indices],
            game_lengths=self.game_lengths[indices],
        )


def _rebuild_games(planes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Game ids and move numbers of a chunk's positions (int8[T, 17, N, N]), by following
    each position's history to the one before it (see the module's docs)."""
    count = len(planes)
    flat = planes.reshape(count, NUM_HISTORY_PLANES, -1)
    own, theirs = flat[:, :HISTORY], flat[:, HISTORY : 2 * HISTORY]
    games = np.empty(count, np.int64)
    moves = np.empty(count, np.int64)
    waiting: dict[bytes, deque[int]] = {}  # a position's boards 0..6 -> positions awaiting a successor
    empty_history = np.logical_not(own.any(axis=(1, 2)) | theirs.any(axis=(1, 2)))
    black: np.ndarray = flat[:, 2 * HISTORY, 0] == 1
    next_game = 0
    for t in range(count):
        start = bool(empty_history[t] and black[t])  # the empty board, no move before it
        key = theirs[t, 1:].tobytes() + own[t, 1:].tobytes()  # the one before, from its own view
        queue = None if start else waiting.get(key)
        if queue:
            before = queue.popleft()
            games[t], moves[t] = games[before], moves[before] + 1
        else:
            games[t] = next_game
            next_game += 1
            moves[t] = 0 if start else int(own[t, 0].sum() + theirs[t, 0].sum())
        waiting.setdefault(own[t, :-1].tobytes() + theirs[t, :-1].tobytes(), deque()).append(t)
    return games, moves


# -- the positions after moves, from history planes alone ------------------------------


@kernel
def _play_children(planes, moves, parent, child, geometry, rules, points, colors, out, legal):
    """The rules core plays each move on the position set up from the planes' board (the side
    to move as Black, colours being relative); a child that repeats one of the 7 earlier
    boards the planes hold is refused too (the ko the setup position cannot know)."""
    count, width = moves.shape
    size = geometry.size
    num_points = size * size
    for b in range(count):
        reset(parent, geometry, rules)
        stones = 0
        for p in range(num_points):
            row, col = p // size, p % size
            if planes[b, 0, row, col] or planes[b, HISTORY, row, col]:
                points[stones] = p
                colors[stones] = BLACK if planes[b, 0, row, col] else WHITE
                stones += 1
        valid = setup_stones(parent, geometry, points[:stones], colors[:stones], BLACK) == LEGAL
        for m in range(width):
            move = moves[b, m]
            ok = valid and 0 <= move <= num_points
            if ok:
                copy_into(child, parent)
                ok = play(child, geometry, move) == LEGAL
            for i in range(1, HISTORY):  # no earlier board again
                if not ok or move == num_points:
                    break
                same = True
                for p in range(num_points):
                    row, col = p // size, p % size
                    if (child.board[p] == BLACK) != (planes[b, i, row, col] == 1) or (
                        child.board[p] == WHITE
                    ) != (planes[b, HISTORY + i, row, col] == 1):
                        same = False
                        break
                ok = not same
            legal[b, m] = ok
            for p in range(num_points):  # the child's mover is White here; an illegal one's all 0
                row, col = p // size, p % size
                out[b, m, 0, row, col] = ok and child.board[p] == WHITE
                out[b, m, HISTORY, row, col] = ok and child.board[p] == BLACK
                for i in range(HISTORY - 1):
                    out[b, m, 1 + i, row, col] = planes[b, HISTORY + i, row, col] if ok else 0
                    out[b, m, HISTORY + 1 + i, row, col] = planes[b, i, row, col] if ok else 0
                out[b, m, 2 * HISTORY, row, col] = 1 - planes[b, 2 * HISTORY, row, col] if ok else 0


def play_children(planes: np.ndarray, moves: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The positions after ``moves`` from the positions of ``planes``.

    Args:
        planes: int8[B, 17, N, N], history planes from the side to move's view.
        moves: int[B, M], moves for the side to move there (N*N a pass; a negative number,
            no move: its child is refused).

    Returns:
        (children int8[B, M, 17, N, N], the history planes of each position after its move
        from its new side to move's view; legal bool[B, M]). An illegal move's planes are 0.
    """
    planes = np.ascontiguousarray(planes, np.int8)
    moves = np.ascontiguousarray(moves, np.int64)
    if planes.ndim != 4 or planes.shape[1] != NUM_HISTORY_PLANES or moves.shape[:1] != planes.shape[:1]:
        raise ValueError(f"planes [B, 17, N, N] and moves [B, M], got {planes.shape} and {moves.shape}")
    size = planes.shape[-1]
    out = np.empty((*moves.shape, *planes.shape[1:]), np.int8)
    legal = np.empty(moves.shape, np.bool_)
    rules = np.array(Rules(ko="positional").kernel_rules(size), np.int64)
    parent, child = (new_state(size, *rules) for _ in range(2))
    points = np.empty(size * size, np.int64)
    colors = np.empty(size * size, np.int8)
    _play_children(planes, moves, parent, child, make_geometry(size), rules, points, colors, out, legal)
    return out, legal


def game_ending_scores(positions: OwnershipBatch) -> np.ndarray:
    """float32[B]: the final area score where passing at the position ends the game, NaN elsewhere.

    That is the last position of a game ended by two passes (its final owners known, the move
    before it a pass): its pass child is the end-game position, whose value the seed defines
    exactly, the area score, for the side to move."""
    planes = positions.planes
    previous_passed = (planes[:, 0] == planes[:, 1]).all(axis=(1, 2)) & (
        planes[:, HISTORY] == planes[:, HISTORY + 1]
    ).all(axis=(1, 2))
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
    occupied = (planes[:, 0] | planes[:, HISTORY]).reshape(len(planes), num_points).astype(bool)
    open_moves = np.concatenate([~occupied, np.ones((len(planes), 1), bool)], axis=1)
    open_moves[np.arange(len(planes)), chosen] = False
    keys = rng.random(open_moves.shape)
    keys[~open_moves] = np.inf
    order = np.argsort(keys, axis=1, kind="stable")[:, :count]
    picked = np.take_along_axis(keys, order, axis=1)
    moves = np.full((len(planes), count), -1, np.int64)
    moves[:, : order.shape[1]] = np.where(np.isfinite(picked), order, -1)
    return moves
