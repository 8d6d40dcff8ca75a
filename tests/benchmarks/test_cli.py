"""The ``goarena`` command line: one registry, every command wired one way, one meaning for
``goarena bench --seconds``, help in plain text."""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys

import pytest

from goarena.benchmarks import cli


def options(name: str) -> dict[str, argparse.Action]:
    """The options of the registered command ``name``, by their first spelling."""
    module = importlib.import_module(cli.COMMANDS[name].module)
    parser = argparse.ArgumentParser()
    module.add_arguments(parser)
    return {action.option_strings[0]: action for action in parser._actions if action.option_strings}


@pytest.mark.parametrize("name", sorted(cli.COMMANDS))
def test_every_command_module_gives_its_options_and_its_run(name):
    module = importlib.import_module(cli.COMMANDS[name].module)
    if cli.parses_its_own_options(module):
        assert callable(module.parser) and callable(module.main)
        assert module.parser().prog == f"goarena {name}"
    else:
        assert callable(module.add_arguments) and callable(module.command)
        parser = cli.build_parser(name, module)
        with pytest.raises(SystemExit) as shown:
            parser.parse_args([*name.split(), "--help"])
        assert shown.value.code == 0


def test_the_top_level_help_imports_no_command():
    code = (
        "import sys\n"
        "from goarena.benchmarks import cli\n"
        "try:\n"
        "    cli.main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith(('torch', 'goarena.benchmarks.bench.'))))\n"
    )
    shown = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "bench" in shown.stdout and shown.stdout.strip().endswith("[]")


BENCHES = sorted(name for name in cli.COMMANDS if name.startswith("bench "))


@pytest.mark.parametrize("name", BENCHES)
def test_bench_seconds_is_the_time_of_one_measurement_everywhere(name):
    seconds = options(name).get("--seconds")
    if seconds is not None and seconds.help != argparse.SUPPRESS:
        assert seconds.help.startswith("time per measurement"), (name, seconds.help)


@pytest.mark.parametrize("name", ["bench alphago", "bench ablation"])
def test_a_players_search_time_is_search_seconds_and_the_old_flag_still_works(name, capsys):
    module = importlib.import_module(cli.COMMANDS[name].module)
    parser = cli.build_parser(name, module)
    args = parser.parse_args([*name.split(), "--search-seconds", "0.25"])
    assert args.search_seconds == 0.25 and "deprecated" not in capsys.readouterr().err
    args = parser.parse_args([*name.split(), "--seconds", "0.75"])
    assert args.search_seconds == 0.75
    said = capsys.readouterr().err
    assert f"goarena {name}: --seconds is deprecated here, use --search-seconds" in said


HELPS = [
    [],
    *([group] for group in cli.GROUPS),
    *(name.split() for name in cli.COMMANDS),
    ["league", "table"],
]


@pytest.mark.parametrize("argv", HELPS, ids=" ".join)
def test_every_help_is_plain_text(argv, capsys):
    with pytest.raises(SystemExit) as shown:
        cli.main([*argv, "--help"])
    assert shown.value.code == 0
    text = capsys.readouterr().out
    assert text.startswith(f"usage: goarena {' '.join(argv)}".rstrip())
    for markup in ("``", ":class:", ":func:", "===="):
        assert markup not in text, (markup, text)


def test_the_league_help_lists_every_built_in_player_spec(capsys):
    from goarena.agents.specs import BUILTIN_AGENTS

    with pytest.raises(SystemExit):
        cli.main(["league", "--help"])
    lines = capsys.readouterr().out.splitlines()
    for name, built_in in BUILTIN_AGENTS.items():
        spec = {"gtp": "gtp:COMMAND", "sb3": "sb3:PATH", "torch": "torch:PATH"}.get(name, name)
        assert any(line.split()[:1] == [spec] and line.endswith(built_in.summary) for line in lines), spec
    assert any(line.split()[:1] == ["module:factory"] for line in lines)


def test_the_bench_help_names_only_the_peers_that_are_run(capsys):
    with pytest.raises(SystemExit):
        cli.main(["bench", "--help"])
    with pytest.raises(SystemExit):
        cli.main(["bench", "env", "--help"])
    text = capsys.readouterr().out
    assert "PettingZoo" in text and "OpenSpiel" in text and "pgx" not in text


def test_an_unknown_command_or_none_is_a_usage_error(capsys):
    for argv in ([], ["bench"], ["nonsense"], ["bench", "nonsense"]):
        with pytest.raises(SystemExit) as usage:
            cli.main(argv)
        assert usage.value.code == 2
    assert "usage: goarena" in capsys.readouterr().err
