"""``goarena players`` (``goarena.benchmarks.commands.players``): every built-in with its
options as its declaration gives them, help and all; an unknown name refused in one line."""

from __future__ import annotations

import pytest

from goarena.agents.specs import BUILTIN_AGENTS, option_help
from goarena.benchmarks import cli


def test_every_built_in_is_listed_with_its_options_and_their_help(capsys):
    cli.main(["players"])
    shown = capsys.readouterr().out
    for name, built_in in BUILTIN_AGENTS.items():
        assert f"{name}: {built_in.summary}\n" in shown
        for line in option_help(name):
            assert f"\n    {line}\n" in shown, (name, line)
    assert "\n    play=puct " in shown and "puct or gumbel (a search)" in shown  # zero's, with its help


def test_the_players_named_alone(capsys):
    cli.main(["players", "zero", "random"])
    shown = capsys.readouterr().out
    assert shown.startswith("zero: ") and "\n\nrandom: " in shown and "uct:" not in shown
    assert len(option_help("zero")) > 10  # the network player's options, declared once


def test_an_unknown_name_is_refused_with_the_built_ins():
    with pytest.raises(SystemExit, match=r"no built-in player 'nope'; the built-ins: random, uct"):
        cli.main(["players", "nope"])
