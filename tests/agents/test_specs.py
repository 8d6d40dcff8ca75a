import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from go_env import Rules
from goarena.agents.players.minimax import MinimaxAgent
from goarena.agents.players.random import RandomAgent
from goarena.agents.players.sb3 import SB3Agent
from goarena.agents.protocols import GameContext
from goarena.agents.specs import (
    AgentSpecError,
    builtin_name,
    check_spec,
    make_agent,
    parse_options,
    player_factory,
    player_warmup,
)

NET_PLAYERS = """
from goarena.agents.protocols import UnsupportedGame

BUILT = []


class NetPlayer:  # stands for a network player: building it would load its weights
    name = "net"

    def __init__(self, weights: str, size: int = 9):
        BUILT.append(weights)

    @staticmethod
    def check_options(context, weights: str, size: int = 9):
        if context is not None and context.size != size:
            raise UnsupportedGame(f"trained for {size}x{size}, not {context.size}x{context.size}")

    def reset(self, context):
        pass

    def select_move(self, game):
        return game.pass_move


def plain_player(depth: int = 1):
    BUILT.append(depth)
    return NetPlayer("plain")
"""


def test_parse_options_reads_literals_and_plain_strings():
    assert parse_options("playouts=2000, c=1.4,rave=true,name=bob,limit=None") == {
        "playouts": 2000,
        "c": 1.4,
        "rave": True,
        "name": "bob",
        "limit": None,
    }
    assert parse_options("") == {}
    with pytest.raises(AgentSpecError, match="key=value"):
        parse_options("playouts")


def test_builtin_spec_with_options():
    agent = make_agent("random:seed=3,pass_only_when_forced=true")
    assert isinstance(agent, RandomAgent)
    assert agent.seed == 3 and agent.pass_only_when_forced


def test_module_factory_spec_with_options():
    agent = make_agent("goarena.agents.players.random:RandomAgent:seed=5")
    assert isinstance(agent, RandomAgent) and agent.seed == 5


MY_BOT = """
from goarena.agents.players.random import RandomAgent


def make_player(seed=None):
    player = RandomAgent(seed=seed)
    player.name = "mybot"
    return player
"""


def test_a_module_in_the_working_directory_is_found_as_python_m_would(tmp_path, monkeypatch):
    (tmp_path / "my_bot_here.py").write_text(MY_BOT)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [entry for entry in sys.path if entry not in ("", str(tmp_path))])
    assert make_agent("my_bot_here:make_player").name == "mybot"


def test_the_league_command_plays_a_module_from_the_working_directory(tmp_path):
    """As a user runs it: ``goarena`` is a console script, whose import path holds its own folder."""
    (tmp_path / "my_league_bot.py").write_text(MY_BOT)
    command = [
        str(Path(sys.executable).parent / "goarena"),
        "league",
        "--player=bot=my_league_bot:make_player",
        "--player=random",
        "--size=5",
        "--games-per-pair=2",
        "--workers=1",
        f"--dir={tmp_path / 'league'}",
    ]
    result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "bot" in result.stdout and (tmp_path / "league" / "league.sqlite").exists()


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nonesuch", "unknown player"),
        ("random:depth=3", "bad options"),
        ("no_such_module:factory", "cannot import"),
        ("goarena.agents.players.random:Nothing", "has no"),
        ("gtp:", "engine's command"),
        ("sb3:", "model's path"),
        ("torch:,sample=true", "model's path: torch:policy.pt2"),
        ("builtins:dict", "did not build a player"),
        ("puct:evaluator=net", "bad options for 'puct:evaluator=net': unknown evaluator 'net'"),
        ("minimax:depth=None", "bad options for 'minimax:depth=None': give a depth"),
        ("gtp:gnugo --mode 'gtp", "bad options for .*No closing quotation"),
    ],
)
def test_bad_specs_say_what_is_wrong(spec, message):
    with pytest.raises(AgentSpecError, match=message):
        make_agent(spec)


@pytest.mark.parametrize(
    ("spec", "options"),
    [("uct:simulationz=10", "simulations, seconds, c, rave"), ("random:depth=3", "seed"),
     ("sl-policy:temp=1", "weights, play, temperature, simulations, seconds, device, seed")],
)  # fmt: skip
def test_an_unknown_option_lists_the_players_options(spec, options):
    for check in (make_agent, lambda spec: check_spec(spec, GameContext(9, Rules()))):
        with pytest.raises(AgentSpecError, match=f"its options: {options}"):
            check(spec)
    with pytest.raises(AgentSpecError) as refused:  # a bad value among known options: no list
        make_agent("minimax:depth=None")
    assert "its options" not in str(refused.value)


@pytest.fixture
def checked_players(tmp_path, monkeypatch):
    (tmp_path / "checked_players.py").write_text(textwrap.dedent(NET_PLAYERS))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield __import__("checked_players")
    sys.modules.pop("checked_players", None)


def test_check_spec_checks_plugins_without_building_them(checked_players):
    nine, big = GameContext(9, Rules()), GameContext(19, Rules())
    check_spec("checked_players:NetPlayer:weights='a.pt'", nine)
    check_spec("checked_players:plain_player:depth=3", big)  # its signature alone: no check_options
    with pytest.raises(AgentSpecError, match="cannot play this game: trained for 9x9, not 19x19"):
        check_spec("checked_players:NetPlayer:weights='a.pt'", big)
    with pytest.raises(AgentSpecError, match="bad options for 'checked_players:plain_player:width=3'"):
        check_spec("checked_players:plain_player:width=3")
    with pytest.raises(AgentSpecError, match="bad options for 'checked_players:NetPlayer'"):
        check_spec("checked_players:NetPlayer")  # no weights
    assert checked_players.BUILT == []
    with pytest.raises(AgentSpecError, match="unknown evaluator 'net'"):
        check_spec("puct:evaluator=net")  # built-ins are built: their values are checked too
    with pytest.raises(AgentSpecError, match="unknown player"):
        check_spec("nonesuch")


WARMED_PLAYERS = """
WARMED = []


class Warmed:
    name = "warmed"

    @staticmethod
    def warmup(size):
        WARMED.append(size)

    def reset(self, context):
        pass

    def select_move(self, game):
        return game.pass_move
"""


def test_a_players_warmup_is_found_from_its_spec_without_building_it(tmp_path, monkeypatch):
    (tmp_path / "warmed_players.py").write_text(WARMED_PLAYERS)
    monkeypatch.syspath_prepend(str(tmp_path))
    warm = player_warmup("warmed_players:Warmed:depth=3")  # options unread: nothing is built
    assert warm is not None
    warm(7)
    assert __import__("warmed_players").WARMED == [7]
    assert player_warmup("random") is None  # the game's kernels are all it runs
    for spec in ("uct", "puct", "alphago", "sl-policy", "rl-policy", "value-greedy", "rollout-policy"):
        assert player_warmup(spec) is not None, spec
    sys.modules.pop("warmed_players", None)


def test_a_spec_names_a_built_in_only_as_make_agent_reads_it(tmp_path, monkeypatch):
    for spec, name in [
        ("uct", "uct"),
        (" uct:simulations=20 ", "uct"),
        ("sb3:model.zip,simulations=2", "sb3"),
        ("gtp:gnugo --mode gtp", "gtp"),
        ("uct :make", None),  # a module named "uct "
        ("UCT", None),
        ("mybot:make_player", None),
    ]:
        assert builtin_name(spec) == name, spec
    (tmp_path / "uct .py").write_text("RAN = True\ndef make():\n    raise SystemExit('built')\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(SystemExit, match="built"):  # what builtin_name says: not the built-in uct
        make_agent("uct :make")
    sys.modules.pop("uct ", None)


def test_a_players_factory_is_found_without_building_it(tmp_path):
    model = tmp_path / "missing.zip"  # never read: the class is only looked up
    assert player_factory(f"sb3:{model},simulations=2") is SB3Agent
    assert player_factory("minimax:depth=2") is MinimaxAgent
    with pytest.raises(AgentSpecError, match="unknown player"):
        player_factory("nonesuch")


def test_a_quoted_option_value_may_hold_commas():
    options = parse_options("weights='runs/own/end,moves/ownership.pt',device=cpu")
    assert options == {"weights": "runs/own/end,moves/ownership.pt", "device": "cpu"}
    with pytest.raises(AgentSpecError, match=r"malformed option 'moves/ownership.pt'.*quote a value"):
        parse_options("weights=runs/own/end,moves/ownership.pt")
    with pytest.raises(AgentSpecError, match="unclosed quote"):
        parse_options("weights='runs/own/end,moves")
