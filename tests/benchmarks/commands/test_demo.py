"""``goarena demo`` (``goarena.benchmarks.commands.demo``): random against random, each game's
result, and its SGF when asked."""

from __future__ import annotations

from go_env.sgf import load_sgf
from goarena.benchmarks import cli


def test_the_demo_prints_each_game_and_writes_its_records(tmp_path, capsys):
    prefix = tmp_path / "demo"
    cli.main(["demo", "--size", "5", "--games", "2", "--seed", "3", "--sgf", str(prefix)])
    lines = capsys.readouterr().out.splitlines()
    games = [line for line in lines if line.startswith("game ")]
    assert [line.split(":")[0] for line in games] == ["game 1", "game 2"]
    assert lines[-1].startswith("Black won ") and "of 2 under goarena rules" in lines[-1]
    for index, line in zip((1, 2), games, strict=True):
        game = load_sgf(tmp_path / f"demo-{index}.sgf").game
        assert f" {game.result()} after {game.move_number} moves" in " ".join(line.split())


def test_the_same_seed_plays_the_same_game(capsys):
    cli.main(["demo", "--size", "5", "--seed", "1", "--komi", "0.5"])
    first = capsys.readouterr().out
    cli.main(["demo", "--size", "5", "--seed", "1", "--komi", "0.5"])
    assert capsys.readouterr().out == first and "komi 0.5" in first
