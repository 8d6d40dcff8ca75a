"""``goarena league`` (``goarena.benchmarks.commands.league``): its options read into a league
(komi from the board size), bad ones refused in one line before anything is written, its JSON and
its table, its last lines (where the games are, and the commands that show them), the crashes it
counts, and a directory in use, unwritable or full."""

from __future__ import annotations

import errno
import json
import os
import pathlib
import re
import subprocess
import sys

import pytest

from goarena.benchmarks import cli
from goarena.benchmarks.commands.league import league, league_config
from goarena.benchmarks.commands.league import parser as league_parser
from goarena.benchmarks.league.config import LeagueConfig, LeagueConfigError
from goarena.benchmarks.league.play import run_league
from goarena.benchmarks.league.store import LeagueStore, LeagueStoreError
from tests.benchmarks.league.test_runner import counted_players

HERE = pathlib.Path(__file__).parents[1]  # misbehaving_players

TWO_RANDOM = ["--player", "random", "--player", "random-2=random", "--size", "5", "--workers", "1"]


def test_the_last_lines_say_how_to_look_at_the_league(tmp_path, capsys):
    directory = tmp_path / "league"
    league([*TWO_RANDOM, "--games-per-pair", "2", "--dir", str(directory), "--no-progress"])
    lines = capsys.readouterr().out.rstrip("\n").splitlines()
    assert lines[-3] == f"Games (SGF) and results in {directory}; ladder plot {directory / 'ladder.png'}."
    assert lines[-2] == f"Watch and replay the games in a browser: goarena serve --dir {directory}"
    assert lines[-1] == f"The tables again: goarena league table {directory}  (--json for machines)"
    assert any(line.startswith("Anchor: random fixed at 0 (Elo rates differences)") for line in lines)


def test_two_players_of_one_name_are_refused_naming_it():
    argv = ["--player", "a=random", "--player", "a=uct:simulations=10", "--player", "b=random"]
    with pytest.raises(
        LeagueConfigError, match=r"two players are named 'a' \(random and uct:simulations=10\)"
    ):
        league_config(league_parser().parse_args(argv))


def test_command_line_json_and_the_table_of_a_finished_league(tmp_path, capsys):
    from goarena.benchmarks.commands.league import league as main

    league_dir = tmp_path / "league"
    options = ["--player", "random", "--player", "uct-20=uct:simulations=20", "--games-per-pair", "2"]
    main([*options, "--workers", "1", "--dir", str(league_dir), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert [row["name"] for row in report["standings"]] == ["uct-20", "random"]
    assert report["anchor"] == "random" and report["games"] == 2
    assert report["crosstable"]["uct-20"]["random"] == [1.0, 1.0, 1.0, 1.0]
    main(["table", str(league_dir), "--json"])
    assert json.loads(capsys.readouterr().out) == report
    main(["table", str(league_dir), "--plot", str(tmp_path / "ladder.png")])
    text = capsys.readouterr().out
    assert "uct-20" in text and "Points of the row player" in text and "Anchor: random fixed at 0" in text
    assert (tmp_path / "ladder.png").exists()
    with pytest.raises(SystemExit, match="no league"):
        main(["table", str(tmp_path / "nowhere")])


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--size", "1"], "size must be a whole number from 2 to 25, got 1"),
        (["--size", "26"], "size must be"),
        (["--seconds-per-move", "0"], "seconds_per_move must be a number of seconds above 0"),
        (["--seconds-per-move", "-1"], "seconds_per_move must be"),
        (["--seconds-per-move", "nan"], "seconds_per_move must be"),
        (["--games-per-pair", "100000000"], "games_per_pair must be a whole number from 1 to 10000"),
        (["--games-per-pair", "0"], "games_per_pair must be"),
        (["--komi", "nan"], "komi must be a finite number"),
        (["--komi", "inf"], "komi must be a finite number"),
        (["--komi", "0.3"], "multiple of 0.5"),
        (["--seed", "-1"], "seed must be"),
        (["--anchor", "random=strong"], "--anchor takes NAME or NAME=ELO"),
        (["--player", "puct:evaluator=net"], "bad options for 'puct:evaluator=net': unknown evaluator"),
        (["--player", "deep=minimax:depth=None"], "player 'deep': bad options for 'minimax:depth=None'"),
        (["--player", "gtp:gnugoo --mode gtp"], "cannot start GTP engine 'gnugoo --mode gtp'"),
        (["--player", "sl-policy:device='mps'"], "unsupported device 'mps': use cpu or cuda"),
    ],
)
def test_bad_options_are_refused_in_one_line_before_anything_is_written(tmp_path, options, message):
    from goarena.benchmarks.commands.league import league as main

    league_dir = tmp_path / "league"
    with pytest.raises(SystemExit) as exit:
        main([*TWO_RANDOM, *options, "--dir", str(league_dir)])
    text = str(exit.value.code)
    assert text.startswith("goarena league: ") and "\n" not in text
    assert re.search(message, text), text
    assert not league_dir.exists()


def test_a_device_the_players_cannot_run_on_is_refused_before_anything_is_written(tmp_path, capsys):
    from goarena.benchmarks.commands.league import league as main

    with pytest.raises(SystemExit) as exit:
        main([*TWO_RANDOM, "--device", "mps", "--dir", str(tmp_path / "mps")])
    assert (
        exit.value.code == 2
        and "unsupported device 'mps': use cpu, cuda or cuda:N" in capsys.readouterr().err
    )
    with pytest.raises(SystemExit) as exit:
        main([*TWO_RANDOM, "--device", "cuda:7", "--dir", str(tmp_path / "cuda")])
    assert re.fullmatch(r"goarena league: --device: device 'cuda:7' asked for, but .*", str(exit.value.code))
    assert not (tmp_path / "mps").exists() and not (tmp_path / "cuda").exists()


def test_games_per_pair_that_is_no_whole_number_is_refused_by_the_parser(tmp_path, capsys):
    from goarena.benchmarks.commands.league import league as main

    with pytest.raises(SystemExit) as exit:
        main([*TWO_RANDOM, "--games-per-pair", "1e8", "--dir", str(tmp_path / "league")])
    assert exit.value.code == 2 and "invalid int value: '1e8'" in capsys.readouterr().err
    assert not (tmp_path / "league").exists()


def test_players_that_write_to_stdout_leave_the_leagues_json_valid(tmp_path):
    """A print, a write to descriptor 1 and a child process's output, in the league's
    workers: all go to stderr, and stdout holds the JSON alone."""
    options = ["--player", "noisy=misbehaving_players:Noisy", "--player", "random", "--size", "5"]
    process = subprocess.run(
        [sys.executable, "-m", "goarena.benchmarks.cli", "league", *options, "--games-per-pair", "2",
         "--workers", "1", "--json", "--dir", str(tmp_path / "league")],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])},
    )  # fmt: skip
    assert process.returncode == 0, process.stderr
    report = json.loads(process.stdout)
    assert report["games"] == 2 and {row["name"] for row in report["standings"]} == {"noisy", "random"}
    assert "= noisy os.write when asked for a move" in process.stderr
    assert "= noisy child when reset" in process.stderr


@pytest.mark.parametrize("spec", ["puct:evaluator=net", "minimax:depth=None", "uct:simulations=-5"])
def test_a_bad_option_value_reads_the_same_in_the_league_and_the_gtp_engine(tmp_path, spec):
    from goarena.benchmarks.commands.league import league as main

    with pytest.raises(SystemExit) as engine:
        cli.main(["gtp", "--agent", spec])
    with pytest.raises(SystemExit) as league:
        main(["--player", spec, "--player", "random", "--dir", str(tmp_path / "league")])
    said_by_engine = str(engine.value.code).removeprefix("goarena gtp: ")
    assert said_by_engine == str(league.value.code).removeprefix("goarena league: ")
    assert said_by_engine.startswith(f"bad options for {spec!r}: ")


def test_a_second_league_on_a_directory_stops_with_one_line_while_the_first_plays(tmp_path):
    from goarena.benchmarks.commands.league import league as main

    config = LeagueConfig(players={"random": "random", "random-2": "random"}, size=5, games_per_pair=1)
    store = LeagueStore(tmp_path)  # as a league playing there now holds it
    with pytest.raises(SystemExit, match=f"goarena league: {re.escape(str(tmp_path))} is in use"):
        main([*TWO_RANDOM, "--games-per-pair", "1", "--dir", str(tmp_path)])
    with pytest.raises(LeagueStoreError, match="is in use"):
        run_league(config, tmp_path, workers=1)
    store.close()
    run_league(config, tmp_path, workers=1).close()
    assert len(list((tmp_path / "games").glob("*.sgf"))) == 1


def test_an_unwritable_directory_or_a_full_disk_stops_the_league_with_one_line(tmp_path, monkeypatch):
    from goarena.benchmarks.commands.league import league as main

    (tmp_path / "file").write_text("")
    with pytest.raises(SystemExit, match="goarena league: cannot create the league's directory"):
        main([*TWO_RANDOM, "--dir", str(tmp_path / "file" / "league")])

    opened = os.open

    def read_only(path, *args, **kwargs):
        if str(path).endswith(LeagueStore.LOCKNAME):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return opened(path, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(os, "open", read_only)
        with pytest.raises(SystemExit, match="goarena league: cannot open the league in .*Permission denied"):
            main([*TWO_RANDOM, "--dir", str(tmp_path / "read-only")])

    def full(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pathlib.Path, "write_text", full)
    with pytest.raises(SystemExit) as exit:
        main([*TWO_RANDOM, "--games-per-pair", "1", "--no-progress", "--dir", str(tmp_path / "full")])
    assert re.fullmatch(
        r"goarena league: cannot write the league in .*No space left on device", exit.value.code
    )
    with LeagueStore.open_existing(tmp_path / "full") as store:
        assert store.games() == []


def test_a_resumed_league_shows_every_game_it_played_and_says_when_it_compiles(tmp_path, monkeypatch, capsys):
    from goarena.benchmarks.league import play, standings

    shown: list[dict] = []

    class Progress(standings.LiveProgress):
        def __init__(self, config, total, enabled=True, finished=()):
            super().__init__(config, total, enabled, finished=finished)
            shown.append({"total": total, "finished": [game.id for game in finished], "updates": []})

        def update(self, game, finished, total):
            super().update(game, finished, total)
            shown[-1]["updates"].append(finished)

    warmed: list[tuple[int, list]] = []

    def warmup(board_size=9, log=None, warmups=()):  # as on a cold cache
        warmed.append((board_size, list(warmups)))
        log("compiling the kernels (first run only; this takes a while)...")
        return 60.0

    monkeypatch.setattr(standings, "LiveProgress", Progress)
    monkeypatch.setattr(play, "warmup", warmup)
    options = [*TWO_RANDOM, "--json", "--dir", str(tmp_path)]
    cli.main(["league", *options, "--games-per-pair", "1"])
    assert "goarena league: compiling the kernels" in capsys.readouterr().err
    assert warmed == [(5, [])]  # random runs the game's kernels alone
    cli.main(["league", *options, "--games-per-pair", "3"])
    assert shown[-1] == {"total": 3, "finished": [0], "updates": [2, 3]}


@pytest.fixture
def counted(tmp_path, monkeypatch):
    """Logged players that fail the games asked (``tests/benchmarks/league/test_runner.py``)."""
    return counted_players(tmp_path, monkeypatch)


def test_the_league_command_says_how_many_games_crashed_and_where(counted, tmp_path, capsys):
    from goarena.benchmarks.commands.league import league as main

    spec, _ = counted
    directory = tmp_path / "league"
    options = ["--player", f"a={spec('a', fail_seed=0)}", "--player", f"b={spec('b')}", "--size", "5"]
    main([*options, "--games-per-pair", "2", "--workers", "1", "--no-progress", "--dir", str(directory)])
    out = capsys.readouterr().out
    assert f"Crashed: 1 of 2 games; tracebacks in {directory / 'crashes'}/." in " ".join(out.split())


@pytest.mark.parametrize(("size", "komi"), [(9, 7.0), (5, 7.5), (19, 7.5)])
def test_the_default_leagues_komi_follows_its_board_size(size, komi):
    assert league_config(league_parser().parse_args(["--size", str(size)])).komi == komi
    given = league_parser().parse_args(["--size", str(size), "--komi", "0.5"])
    assert league_config(given).komi == 0.5
