"""``ShardDataset``: positions across shards, the held-out split by game, symmetry augmentation."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from go_env import Game, Rules
from go_env.core import INFO_TO_PLAY
from go_env.features.symmetry import symmetry_maps, transform_planes
from go_env.sgf import write_sgf
from goarena.agents.data.dataset import ShardDataset
from goarena.agents.data.shards import build_shards

SIZE = 5


def stone_planes(state, geometry, out: np.ndarray) -> None:
    """A stand-in for the 48 planes: own stones, opponent stones, empty points."""
    size = out.shape[-1]
    board = state.board[: size * size].reshape(size, size)
    to_play = state.info[INFO_TO_PLAY]
    out[:] = 0
    out[0], out[1], out[2] = board == to_play, board == 3 - to_play, board == 0


@pytest.fixture(scope="module")
def shards(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """12 random 5x5 games in shards of 5 games."""
    root = tmp_path_factory.mktemp("data")
    rng = np.random.default_rng(5)
    for index in range(12):
        game = Game(SIZE, Rules(komi=0.5, max_moves=int(rng.integers(6, 30))))
        while not game.is_over:
            game.play(int(rng.choice(game.legal_moves())))
        (root / "sgf").mkdir(exist_ok=True)
        (root / "sgf" / f"{index:02d}.sgf").write_bytes(write_sgf(game, result="B+1" if index % 3 else "W+R"))
    build_shards(root / "sgf", root / "shards", size=SIZE, chunk_size=5, encoder=stone_planes)
    return root / "shards"


def test_positions_are_read_across_shards_in_any_order(shards: Path) -> None:
    data = ShardDataset(shards)
    assert data.board_size == SIZE and len(data.shards) == 3
    rows = {
        key: np.concatenate([np.load(path) for path in sorted(shards.glob(f"*/{key}.npy"))])
        for key in ("moves", "boards", "outcomes", "last_moves")
    }
    assert len(data) == len(rows["moves"])
    indices = np.array([len(data) - 1, 0, 3, 3, len(data) // 2, 1])

    batch = data.batch(indices)

    assert batch.planes.shape == (6, 48, SIZE, SIZE) and batch.planes.dtype == np.float32
    assert batch.moves.dtype == np.int64 and batch.moves.tolist() == rows["moves"][indices].tolist()
    assert (batch.boards == rows["boards"][indices]).all()
    assert batch.outcomes.tolist() == rows["outcomes"][indices].tolist()
    assert (batch.last_moves == rows["last_moves"][indices]).all()
    own = (batch.boards == batch.to_play[:, None]).reshape(-1, SIZE, SIZE)
    assert (batch.planes[:, 0] == own).all() and not batch.symmetries.any()


def test_augmentation_turns_the_target_with_the_stones(shards: Path) -> None:
    data = ShardDataset(shards)
    indices = np.arange(len(data))
    plain = data.batch(indices)
    turned = data.batch(indices, rng=np.random.default_rng(1), augment=True)

    assert set(turned.symmetries.tolist()) == set(range(8))
    maps = symmetry_maps(SIZE)
    for b, k in enumerate(turned.symmetries):
        assert (turned.planes[b] == transform_planes(plain.planes[b], k)).all()
        assert turned.moves[b] == maps[k, plain.moves[b]]
        assert (turned.boards[b][maps[k, :-1]] == plain.boards[b]).all()
        assert turned.last_moves[b] == (maps[k, plain.last_moves[b]] if plain.last_moves[b] >= 0 else -1)
    # Every target is an empty point (or a pass) of its own, turned, board and planes.
    on_board = turned.moves < SIZE * SIZE
    targets = turned.moves[on_board]
    assert (turned.boards[on_board, targets] == 0).all()
    assert (turned.planes[on_board, 2].reshape(-1, SIZE * SIZE)[np.arange(len(targets)), targets] == 1).all()
    assert not (turned.moves == plain.moves).all()


def test_the_held_out_split_keeps_games_whole(shards: Path) -> None:
    data = ShardDataset(shards)
    train, held_out = data.split_by_game(0.25, seed=3)

    ids = data.game_ids
    assert not set(ids[train].tolist()) & set(ids[held_out].tolist())
    assert len(set(ids[held_out].tolist())) == 3  # a quarter of 12 games
    assert np.array_equal(np.sort(np.concatenate([train, held_out])), np.arange(len(data)))
    again = data.split_by_game(0.25, seed=3)
    assert np.array_equal(again[1], held_out)


def test_bad_requests_are_refused(shards: Path, tmp_path: Path) -> None:
    data = ShardDataset(shards)
    with pytest.raises(IndexError, match="indices must be in"):
        data.batch(np.array([len(data)]))
    with pytest.raises(TypeError, match="integer"):
        data.batch(np.array([0.5]))
    with pytest.raises(ValueError, match="held_out_fraction"):
        data.split_by_game(1.0)
    with pytest.raises(ValueError, match="manifest.json is missing"):
        ShardDataset(tmp_path)
