"""Value-network positions: one per self-play game, after a uniformly random move U, with the
game's outcome for the side to move; resumable chunk by chunk."""

import json
import shutil
from dataclasses import replace

import numpy as np
import pytest
import torch

from go_env import default_komi
from go_env.features.alphago import PLAYER_COLOUR, game_planes
from goarena.agents.data.dataset import ShardDataset
from goarena.agents.data.value import (
    Policies,
    ValueDataConfig,
    generate,
    main,
    play_chunk,
    replay_positions,
)
from goarena.agents.nets.checkpoint import save_model, weights_digest
from goarena.agents.nets.policy import PolicyNet

SIZE = 5
GAMES, CHUNK = 24, 8


@pytest.fixture(scope="module")
def nets(tmp_path_factory):
    root = tmp_path_factory.mktemp("nets")
    torch.manual_seed(0)
    save_model(root / "sl.pt", PolicyNet(SIZE, layers=2, filters=4))
    save_model(root / "rl.pt", PolicyNet(SIZE, layers=2, filters=4))
    save_model(root / "9x9.pt", PolicyNet(9, layers=2, filters=4))
    return root


def config(nets, out, **changes):
    tiny = ValueDataConfig(out=out, sl_policy=nets / "sl.pt", games=GAMES, chunk_size=CHUNK)
    return replace(tiny, **changes)


@pytest.fixture(scope="module")
def data(nets, tmp_path_factory):
    out = tmp_path_factory.mktemp("value") / "data"
    generate(config(nets, out))
    return out


def arrays(out, name):
    return np.concatenate([np.load(path) for path in sorted(out.glob(f"chunk-*/{name}.npy"))])


def test_every_game_gives_at_most_one_position_after_a_move_in_range(data):
    report = json.loads((data / "report.json").read_text())
    ids = arrays(data, "game_ids")
    assert len(np.unique(ids)) == len(ids) == report["positions"]
    assert set(ids) <= set(range(GAMES))
    assert report["games"] == GAMES and report["positions"] + report["ended_before_u"] == GAMES
    assert report["u_range"] == [1, SIZE * SIZE]
    u = arrays(data, "u")
    assert u.min() >= 1 and u.max() <= SIZE * SIZE and len(np.unique(u)) > 5


def test_positions_replay_from_the_stored_moves(data):
    dataset = ShardDataset(data)
    assert dataset.num_planes == 49 and dataset.board_size == SIZE
    indices = np.arange(len(dataset))
    batch = dataset.batch(indices)
    sequences, u = arrays(data, "sequences"), arrays(data, "u")
    for index, game in zip(indices, replay_positions(dataset, indices), strict=True):
        assert len(game.moves) == u[index] and game.last_move == batch.last_moves[index]
        assert np.array_equal(game_planes(game, player_colour=True), batch.planes[index])
        assert game.to_play == batch.to_play[index]
        assert game.is_legal(int(batch.moves[index]))  # the move the RL policy played there
        assert (sequences[index, u[index] :] == -1).all()
    assert np.array_equal(batch.planes[:, PLAYER_COLOUR, 0, 0] == 1, batch.to_play == 1)


def test_z_is_the_final_score_for_the_side_to_move(nets):
    policies = Policies.load(config(nets, None))
    games = play_chunk(policies, u_max=SIZE * SIZE, seed=5, index=0, first_game=100, count=16)
    recorded = games.arrays
    margins = games.margins[recorded["game_ids"] - 100]
    black = recorded["to_play"] == 1
    expected = np.where(margins == 0, 0, np.where((margins > 0) == black, 1, -1))
    assert np.array_equal(recorded["outcomes"], expected)
    assert (recorded["outcomes"] == 1).any() and (recorded["outcomes"] == -1).any()
    assert (games.plies[recorded["game_ids"] - 100] > recorded["u"]).all()  # never the last position


def test_the_final_ownership_for_the_side_to_move_sums_to_the_area_score(nets):
    policies = Policies.load(config(nets, None))
    games = play_chunk(policies, u_max=SIZE * SIZE, seed=5, index=0, first_game=100, count=16)
    recorded = games.arrays
    ownership, to_play = recorded["ownership"], recorded["to_play"]
    assert ownership.shape == (len(to_play), SIZE * SIZE) and set(np.unique(ownership)) <= {-1, 0, 1}
    np.testing.assert_array_equal(recorded["owned"], ~games.truncated[recorded["game_ids"] - 100])
    assert recorded["owned"].sum() > 10  # the cap stops few games
    black_area = np.where(to_play == 1, 1, -1) * ownership.sum(axis=1)  # Black's points minus White's
    margins = games.margins[recorded["game_ids"] - 100]
    np.testing.assert_allclose(black_area - default_komi(SIZE), margins)  # the area count, as scored
    np.testing.assert_array_equal(recorded["scores"], ownership.sum(axis=1))


def test_a_game_that_ends_before_u_gives_no_position(nets):
    policies = Policies.load(config(nets, None))
    games = play_chunk(policies, u_max=1000, seed=1, index=0, first_game=0, count=8)
    assert games.plies.max() <= 2 * SIZE * SIZE  # the move cap: U is beyond most games' end
    kept = games.arrays["game_ids"]
    assert len(kept) < 8 and (games.plies[kept] > games.arrays["u"]).all()


def shard_files(out):
    return {path.relative_to(out).as_posix(): path.read_bytes() for path in sorted(out.glob("chunk-*/*.npy"))}


def test_a_rerun_plays_only_the_missing_chunks_and_gives_the_same_shards(nets, data, tmp_path):
    out = tmp_path / "data"
    generate(config(nets, out))
    manifest = json.loads((out / "manifest.json").read_text())
    del manifest["chunks"]["1"]  # as if killed while chunk 1 was being written
    (out / "manifest.json").write_text(json.dumps(manifest))
    shutil.rmtree(out / "chunk-000001-0")
    (out / ".tmp-chunk-000002-0").mkdir()  # a half-written shard
    summary = generate(config(nets, out))
    assert summary.existing_chunks == 2 and summary.played_games == CHUNK
    assert shard_files(out) == shard_files(data)
    assert generate(config(nets, out)).played_games == 0


def test_workers_give_the_same_shards_as_one_process(nets, data, tmp_path):
    generate(config(nets, tmp_path / "data"), workers=2)
    assert shard_files(tmp_path / "data") == shard_files(data)


def test_each_chunk_is_its_own_seed_and_another_seed_gives_other_games(nets, data, tmp_path):
    generate(config(nets, tmp_path / "more", games=GAMES + CHUNK))
    assert shard_files(tmp_path / "more").items() >= shard_files(data).items()
    generate(config(nets, tmp_path / "other", seed=1))
    assert not np.array_equal(arrays(tmp_path / "other", "sequences"), arrays(data, "sequences"))


def test_a_folder_made_otherwise_is_refused_naming_what_differs(nets, data):
    with pytest.raises(ValueError, match=r"seed: 0 -> 1"):
        generate(config(nets, data, seed=1))
    with pytest.raises(ValueError, match=r"rl_policy"):
        generate(config(nets, data, rl_policy=nets / "rl.pt"))


def test_an_rl_policy_plays_after_u(nets, tmp_path):
    report = generate(config(nets, tmp_path / "data", rl_policy=nets / "rl.pt", games=CHUNK)).report
    assert report["sl_policy"] == weights_digest(nets / "sl.pt")
    assert report["rl_policy"] == weights_digest(nets / "rl.pt") != report["sl_policy"]
    with pytest.raises(ValueError, match="the RL policy plays 9x9"):
        generate(config(nets, tmp_path / "mixed", rl_policy=nets / "9x9.pt"))


def test_bad_options_are_refused():
    for changes, match in (
        ({"games": 0}, "games"),
        ({"chunk_size": 0}, "chunk_size"),
        ({"u_max": 0}, "u_max"),
    ):
        with pytest.raises(ValueError, match=match):
            ValueDataConfig(out=None, **changes)


def test_the_command_prints_what_it_wrote(nets, tmp_path, capsys):
    main(
        ["--out", str(tmp_path / "data"), "--sl-policy", str(nets / "sl.pt"), "--games", "4", "--u-max", "10"]
    )
    out = capsys.readouterr().out
    assert "4 games in" in out and "U in 1..10" in out and "report.json" in out


def test_the_command_line_passes_the_jobs_options_on(nets, data, tmp_path, capsys):
    """``goarena data value ...`` hands its options to this ``main`` (``goarena -h`` for every
    command: ``tests/benchmarks/test_cli.py``)."""
    with pytest.raises(SystemExit) as exit_:
        main(["-h"])
    assert exit_.value.code == 0 and "goarena data value" in capsys.readouterr().out
    out = tmp_path / "again"
    options = ["--out", str(out), "--sl-policy", str(nets / "sl.pt"), "--games", str(GAMES)]
    main([*options, "--chunk-size", str(CHUNK)])
    assert np.array_equal(arrays(out, "outcomes"), arrays(data, "outcomes"))


def test_the_games_take_the_board_size_komi(nets, data):
    """The networks' board size sets the komi (``go_env.default_komi``), recorded with the shards
    and used again when the positions are replayed."""
    manifest = json.loads((data / "manifest.json").read_text())
    assert manifest["komi"] == default_komi(SIZE) == 7.5
    assert {shard["komi"] for entry in manifest["chunks"].values() for shard in entry["shards"]} == {7.5}
    assert replay_positions(ShardDataset(data), np.arange(2))[0].rules.komi == 7.5
