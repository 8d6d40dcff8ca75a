"""GNU Go self-play records: distinct games the reader reads back, random openings marked, resuming."""

from __future__ import annotations

from pathlib import Path

import pytest

from go_env import default_komi
from go_env.sgf import load_sgf
from goarena.agents.data.gnugo import GnuGoConfig, generate, missing_games
from goarena.agents.data.reader import RANDOM_OPENING, read_expert_game
from goarena.agents.gtp import find_engine

needs_gnugo = pytest.mark.skipif(
    find_engine("gnugo") is None, reason="GNU Go is not installed (e.g. `apt install gnugo`)"
)


@needs_gnugo
def test_games_differ_and_read_back_with_their_random_openings_marked(tmp_path: Path) -> None:
    config = GnuGoConfig(tmp_path, size=5, games=6, seed=7)
    summary = generate(config)

    assert (summary.written, summary.existing) == (6, 0)
    paths = sorted(tmp_path.iterdir())
    assert [path.name for path in paths] == [f"game-{i:06d}.sgf" for i in range(6)]
    games = [read_expert_game(path, 5) for path in paths]
    assert len({game.moves for game in games}) == 6
    for path, game in zip(paths, games, strict=True):
        record = load_sgf(path)
        assert record.black == record.white == "GNU Go 3.8 level 1"
        assert record.komi == default_komi(5) and record.rules.scoring == "area"
        assert (record.result or "")[:2] in ("B+", "W+") or record.result == "0"
        opening = [i for i, text in record.comments.items() if text == RANDOM_OPENING]
        assert opening == list(range(game.first_target))
        for move in game.moves[: game.first_target]:
            assert 1 <= move // 5 <= 3 and 1 <= move % 5 <= 3  # off the first line
    assert {game.first_target for game in games} != {0}


@needs_gnugo
def test_a_killed_run_resumes_without_replaying_finished_games(tmp_path: Path) -> None:
    config = GnuGoConfig(tmp_path, size=5, games=4, seed=3)
    generate(config)
    originals = {path.name: path.read_bytes() for path in tmp_path.iterdir()}
    finished = {path.name: path.stat().st_mtime_ns for path in tmp_path.iterdir()}
    # As a run killed while writing games 1 and 3 would leave the folder.
    (tmp_path / "game-000001.sgf").unlink()
    (tmp_path / "game-000003.sgf").rename(tmp_path / ".game-000003.sgf.k1ll3d.tmp")
    (tmp_path / ".game-000003.sgf.k1ll3d.tmp").write_bytes(originals["game-000003.sgf"][:40])
    assert missing_games(config) == [1, 3]

    summary = generate(config)

    assert (summary.written, summary.existing) == (2, 2)
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(originals)
    for name in ("game-000000.sgf", "game-000002.sgf"):
        assert (tmp_path / name).stat().st_mtime_ns == finished[name]
    # A game is a function of the seed and its index alone: the rerun writes the same records.
    assert {path.name: path.read_bytes() for path in tmp_path.iterdir()} == originals


@pytest.mark.slow  # two worker processes start up: some 20 s on a busy machine
@needs_gnugo
def test_workers_write_the_same_games_as_one_process(tmp_path: Path) -> None:
    one, two = (GnuGoConfig(tmp_path / name, size=5, games=3, seed=11) for name in ("one", "two"))
    generate(one)
    generate(two, workers=2)
    assert [p.read_bytes() for p in sorted(one.out.iterdir())] == [
        p.read_bytes() for p in sorted(two.out.iterdir())
    ]


def test_a_missing_gnugo_is_a_clear_error(tmp_path: Path) -> None:
    config = GnuGoConfig(tmp_path / "games", size=5, games=2, gnugo="no-such-gnugo")
    with pytest.raises(ValueError, match="GNU Go .* is not installed"):
        generate(config)
    assert not config.out.exists()


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [("size", 4, "5x5 to 19x19"), ("level", 11, "level"), ("komi", 7.2, "komi"), ("games", -1, "games")],
)
def test_bad_settings_are_refused(tmp_path: Path, field: str, value: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        GnuGoConfig(tmp_path, **{field: value})  # type: ignore[arg-type]


def test_the_komi_is_the_board_size_unless_given(tmp_path: Path) -> None:
    assert GnuGoConfig(tmp_path, size=9).komi == default_komi(9) == 7.0
    assert GnuGoConfig(tmp_path, size=13).komi == default_komi(13) == 7.5
    assert GnuGoConfig(tmp_path, size=13, komi=0.5).komi == 0.5
