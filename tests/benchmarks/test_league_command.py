"""``goarena league``'s last lines: where the games are, and the commands that show them."""

from goarena.benchmarks.commands.league import league

TWO_RANDOM = ["--player", "random", "--player", "random-2=random", "--size", "5", "--workers", "1"]


def test_the_last_lines_say_how_to_look_at_the_league(tmp_path, capsys):
    directory = tmp_path / "league"
    league([*TWO_RANDOM, "--games-per-pair", "2", "--dir", str(directory), "--no-progress"])
    lines = capsys.readouterr().out.rstrip("\n").splitlines()
    assert lines[-3] == f"Games (SGF) and results in {directory}; ladder plot {directory / 'ladder.png'}."
    assert lines[-2] == f"Watch and replay the games in a browser: goarena serve --dir {directory}"
    assert lines[-1] == f"The tables again: goarena league table {directory}  (--json for machines)"
    assert any(line.startswith("Anchor: random fixed at 0 (Elo rates differences)") for line in lines)
