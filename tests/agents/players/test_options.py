"""One vocabulary for every built-in player: a search budget is ``simulations`` or ``seconds``,
``temperature=0`` plays the most likely (or most visited) move, a player's own network file is
``weights``; an old spelling keeps working for one release, with a DeprecationWarning, and
builds the same player (``agents.specs.renamed_options``)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from go_env import Game, Rules
from goarena.agents.protocols import GameContext
from goarena.agents.specs import AgentSpecError, check_spec, make_agent, renamed_options
from goarena.agents.weights import ROLLOUT_9X9

GREEDY_PLAYERS = [
    "sl-policy:temperature=0",
    "rl-policy:temperature=0",
    "rollout-policy:temperature=0",
    "puct:simulations=32,evaluator=rollout,temperature=0",
    "alphago:simulations=16,temperature=0",
]


def opening(moves: int = 4) -> Game:
    game = Game(9, Rules(komi=7.0))
    for move in (40, 30, 50, 22)[:moves]:
        game.play(move)
    return game


def moves_of(spec: str, seeds: range) -> set[int]:
    game = opening()
    played = set()
    for seed in seeds:
        player = make_agent(spec, seed=seed)
        player.reset(GameContext(9, Rules(komi=7.0), seed=seed))
        played.add(player.select_move(game))
    return played


@pytest.mark.parametrize("spec", GREEDY_PLAYERS)
def test_temperature_0_plays_the_best_move_whatever_the_seed(spec):
    game = opening()
    player = make_agent(spec, seed=0)
    player.reset(GameContext(9, Rules(komi=7.0), seed=0))
    policy = player.policy(game)  # the network's distribution, or the search's visits
    move = player.select_move(game)
    assert policy[move] == policy.max()
    if not spec.startswith(("puct", "alphago")):  # a search's visits depend on its seed
        assert moves_of(spec, range(4)) == {move}


def test_uct_takes_simulations_and_playouts_is_its_old_spelling():
    game = opening()
    new = make_agent("uct:simulations=200,seed=3")
    with pytest.warns(DeprecationWarning, match="playouts= is now simulations="):
        old = make_agent("uct:playouts=200,seed=3")
    assert old.simulations == new.simulations == 200
    for player in (new, old):
        player.reset(GameContext(9, Rules(komi=7.0)))
    assert old.select_move(game) == new.select_move(game)
    assert np.array_equal(old.policy(game), new.policy(game))  # the same search, visit for visit


def test_an_option_given_by_both_spellings_is_refused():
    with pytest.raises(AgentSpecError, match="not both simulations= and playouts="):
        make_agent("uct:simulations=10,playouts=10")
    with pytest.raises(AgentSpecError, match="unexpected option 'simulation'"):
        make_agent("uct:simulation=10")  # a misspelling is still an unknown option


def test_rollout_policys_greedy_is_temperature_0():
    game = opening()
    with pytest.warns(DeprecationWarning, match="temperature=greedy is now temperature=0"):
        old = make_agent("rollout-policy:temperature=greedy")
    with pytest.warns(DeprecationWarning):
        check_spec("rollout-policy:temperature=greedy", GameContext(9, Rules()))
    new = make_agent("rollout-policy:temperature=0")
    assert old.temperature == new.temperature == 0.0
    assert old.select_move(game) == new.select_move(game)
    assert np.array_equal(old.policy(game), new.policy(game))


def test_the_new_spellings_give_no_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        make_agent("uct:simulations=10")
        make_agent("rollout-policy:temperature=0")
        make_agent(f"rollout-policy:weights={str(ROLLOUT_9X9)!r}")
        check_spec("uct:simulations=10,seconds=1", GameContext(9, Rules()))


def test_renamed_options_converts_an_old_value_and_refuses_what_it_does_not_know():
    renames = {"deterministic": ("temperature", lambda value: 0.0 if value else 1.0)}
    with pytest.warns(DeprecationWarning, match="player: the option deterministic= is now temperature="):
        assert renamed_options("player", {"deterministic": False}, renames, temperature=None) == {
            "temperature": 1.0
        }
    assert renamed_options("player", {}, renames, temperature=0.5) == {"temperature": 0.5}
    with pytest.raises(TypeError, match="unexpected option 'depth'"):
        renamed_options("player", {"depth": 3}, renames, temperature=None)


# -- one declaration per player: keywords, check_options, help and old spellings -------------


def test_a_declaration_gives_the_keywords_their_checks_and_old_spellings():
    from dataclasses import dataclass

    from goarena.agents.declared import option, positive
    from goarena.agents.players.options import PlayerOptions

    @dataclass(frozen=True, kw_only=True)
    class Options(PlayerOptions):
        depth: int = option(2, "plies searched", check=positive)
        greedy: bool = option(False, "play the best move")
        RENAMES = {"plies": ("depth", None)}

    assert Options.read("p", {}) == Options(depth=2, greedy=False)
    assert Options.read("p", {"depth": 3}).depth == 3
    with pytest.warns(DeprecationWarning, match="plies= is now depth="):
        assert Options.read("p", {"plies": 4}).depth == 4
    with pytest.raises(TypeError, match="depth must be an integer, got 'abc'"):
        Options.read("p", {"depth": "abc"})
    with pytest.raises(ValueError, match="depth must be positive, got 0"):
        Options.read("p", {"depth": 0})
    with pytest.raises(TypeError, match="unexpected option 'width'"):
        Options.read("p", {"width": 3})
    assert Options.help() == ["depth=2       plies searched", "greedy=False  play the best move"]
    assert Options(depth=5).given() == {"depth": 5}


@pytest.mark.parametrize(
    "name", ["puct", "alphago", "sl-policy", "rl-policy", "value-greedy", "ownership-greedy", "zero"]
)
def test_a_players_signature_check_and_help_come_from_its_declaration(name):
    import inspect
    from dataclasses import fields

    from goarena.agents.specs import builtin_factory, option_help

    factory = builtin_factory(name)
    assert builtin_factory(name) is factory  # the entry's class, made once
    declared = [each.name for each in factory.Options.ordered()]  # its FIRST options first
    assert sorted(declared) == sorted(each.name for each in fields(factory.Options))
    assert sorted(inspect.signature(factory).parameters) == sorted(declared)
    help = option_help(name)
    assert [line.split("=")[0] for line in help] == declared
    assert all(len(line.split(None, 1)) == 2 for line in help)  # every option has its help
    with pytest.raises(AgentSpecError, match="unexpected option 'nonsense'"):
        check_spec(f"{name}:nonsense=1", GameContext(9, Rules()))
    with pytest.raises(AgentSpecError, match="unexpected option 'nonsense'"):
        make_agent(f"{name}:nonsense=1")


def test_an_entry_configures_its_players_defaults_and_refuses_its_fixed_options():
    from goarena.agents.specs import builtin_factory

    alphago = make_agent("alphago:simulations=4")
    assert (
        alphago.name == "alphago" and alphago.options.c_puct == 5.0 and alphago.options.selection == "alphago"
    )
    assert make_agent("puct:simulations=4").options.c_puct == 1.5  # the player itself keeps its own
    with pytest.raises(AgentSpecError, match="alphago takes no evaluator"):
        make_agent("alphago:evaluator=rollout")
    zero, policy = builtin_factory("zero"), builtin_factory("sl-policy")
    from goarena.agents.players.network import NetworkPlayer

    assert issubclass(zero, NetworkPlayer) and issubclass(policy, NetworkPlayer)  # one player under both
    assert (zero.kind, zero.Options().play) == ("zero", "puct")
    assert (policy.kind, policy.Options().play) == ("policy", "policy")


def test_a_network_player_refuses_a_way_of_playing_its_network_cannot():
    with pytest.raises(
        AgentSpecError, match="cannot play=greedy: its network has no value or ownership head"
    ):
        check_spec("sl-policy:play=greedy", GameContext(9, Rules()))
    with pytest.raises(AgentSpecError, match="cannot play=policy: its network has no policy head"):
        check_spec("value-greedy:play=policy", GameContext(9, Rules()))
    with pytest.raises(AgentSpecError, match="c_puct: search options need simulations= or seconds="):
        check_spec("sl-policy:c_puct=2", GameContext(9, Rules()))
    with pytest.raises(AgentSpecError, match="play=greedy plays its best child: it takes no temperature"):
        make_agent("value-greedy:temperature=1")


def test_options_taken_by_position_before_their_declaration_still_are():
    from goarena.agents.players.minimax import MinimaxAgent
    from goarena.agents.players.random import RandomAgent
    from goarena.agents.players.search import UCTAgent

    player = RandomAgent(3, True)
    assert (player.seed, player.pass_only_when_forced) == (3, True)
    assert MinimaxAgent(2).depth == 2 and UCTAgent(50).simulations == 50
    with pytest.raises(TypeError, match="got seed twice"):
        RandomAgent(3, seed=4)
    with pytest.raises(TypeError, match="takes 2 options by position, got 3"):
        RandomAgent(3, True, 5)


def test_a_shipped_default_is_shown_by_its_name_not_where_it_is_installed():
    from goarena.agents import weights
    from goarena.agents.specs import option_help

    lines = option_help("zero")
    assert any(line.startswith("weights=(the shipped zero-9x9.pt)") for line in lines)
    assert not any(str(weights.FOLDER) in line for line in lines)
