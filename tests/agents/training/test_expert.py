"""Expert games as zero-network positions, and goarena train zero's warm start from them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from go_env import BLACK, WHITE, Game, Rules
from go_env.sgf import territory_marks, write_sgf
from goarena.agents.data.reader import RANDOM_OPENING, read_expert_game
from goarena.agents.nets.checkpoint import load_model
from goarena.agents.nets.features import HISTORY_AND_RULES
from goarena.agents.training.expert import expert_positions, read_expert_folder
from goarena.agents.training.replay import ReplayBuffer
from goarena.agents.training.zero import ZeroConfig, train_zero

SIZE, KOMI = 5, 0.5
PASS = SIZE * SIZE


def walls_game() -> Game:
    """Black builds a wall on column 1, White on column 3, then both pass: Black owns columns
    0-1, White 3-4, column 2 touches both (neither's); W+0.5 by area."""
    game = Game(SIZE, Rules(komi=KOMI))
    for row in range(SIZE):
        game.play(row * SIZE + 1)
        game.play(row * SIZE + 3)
    game.play(PASS)
    game.play(PASS)
    return game


def owner_of(column: int) -> int:
    return BLACK if column < 2 else WHITE if column > 2 else 0


def write_walls(path: Path, *, marked: bool = True, result: str = "W+0.5") -> Path:
    game = walls_game()
    owner = np.array([owner_of(point % SIZE) for point in range(PASS)], np.int8)
    territory = territory_marks(game.board, owner) if marked else None
    record = write_sgf(game, result=result, comments={0: RANDOM_OPENING}, date="", territory=territory)
    path.write_bytes(record)
    return path


def test_each_expert_move_is_a_position_with_the_result_and_the_marks_for_the_side_to_move(tmp_path: Path):
    game = read_expert_game(write_walls(tmp_path / "walls.sgf"), SIZE)
    positions = expert_positions([game], HISTORY_AND_RULES)
    moves = walls_game().moves
    assert len(positions) == len(moves) - 1  # the random opening move is replayed, not learnt
    assert positions.policy.argmax(axis=1).tolist() == list(moves[1:])
    assert np.allclose(positions.policy.sum(axis=1), 1.0)
    to_play = np.where(np.arange(1, len(moves)) % 2 == 0, BLACK, WHITE)
    white = to_play == WHITE
    assert positions.value.tolist() == np.where(white, 1, -1).tolist()  # W+0.5
    assert np.array_equal(positions.root_value, positions.value.astype(np.float32))
    assert positions.owned.all()
    assert positions.score.tolist() == np.where(white, 0.5, -0.5).tolist()  # 10 - 10 - komi for Black
    black_view = np.array([{BLACK: 1, WHITE: -1, 0: 0}[owner_of(p % SIZE)] for p in range(PASS)])
    expected = np.where(white[:, None], -black_view, black_view)
    assert np.array_equal(positions.ownership, expected)
    replay = Game(SIZE, Rules(komi=KOMI))
    for i, move in enumerate(moves[:-1]):
        replay.play(move)
        mover, planes = replay.to_play, positions.planes[i]
        assert np.array_equal(planes[0], replay.board == mover)  # the side to move's stones
        assert np.array_equal(planes[8], replay.board == 3 - mover)  # the opponent's
        assert (planes[17] == (1 if mover == WHITE else -1)).all()  # the komi, half points, its view


def test_a_record_without_marks_teaches_policy_and_value_only(tmp_path: Path):
    game = read_expert_game(write_walls(tmp_path / "walls.sgf", marked=False, result="B+R"), SIZE)
    positions = expert_positions([game], HISTORY_AND_RULES)
    assert not positions.owned.any()
    assert (positions.ownership == 0).all() and (positions.score == 0).all()
    assert positions.value.tolist() == [(-1, 1)[i % 2] for i in range(len(positions))]  # White first; B+R


def test_the_folder_reader_counts_what_it_skips_and_refuses_a_folder_with_no_game(tmp_path: Path):
    write_walls(tmp_path / "a.sgf")
    (tmp_path / "b.sgf").write_text("not a record")
    games, skipped = read_expert_folder(tmp_path, SIZE)
    assert len(games) == 1 and skipped == {"unreadable": 1}
    with pytest.raises(ValueError, match="no usable 9x9 game"):
        read_expert_folder(tmp_path, 9)


def test_a_warm_started_run_learns_the_expert_games_before_its_first_round(tmp_path: Path):
    experts = tmp_path / "experts"
    experts.mkdir()
    for i in range(3):
        write_walls(experts / f"game-{i}.sgf")
    config = ZeroConfig(size=SIZE, komi=KOMI, blocks=1, filters=8, games=2, shards=1, simulations=4,
                        updates=1, batch_size=8, generation_every=1, rounds=1,
                        expert=str(experts), expert_epochs=60)  # fmt: skip
    run = tmp_path / "run"
    train_zero(config, run, progress=False)
    chunk = ReplayBuffer(run / "expert", 10**6).chunks(0)[0]
    assert len(chunk) == 3 * (len(walls_game().moves) - 1)
    generations = json.loads((run / "generations.json").read_text())
    assert generations[0]["step"] == 0 and generations[0]["seconds"] > 0  # the lessons took time
    first = load_model(run / generations[0]["weights"])  # before any self-play
    with torch.inference_mode():
        logits = first(torch.as_tensor(np.array(chunk.planes), dtype=torch.float32)).logits
    learnt = (logits.argmax(dim=1).numpy() == np.asarray(chunk.policy).argmax(axis=1)).mean()
    assert learnt > 0.5  # of 26 moves; chance is about 1 in 20
