import numpy as np
import pytest

from agents.base import AgentSpecError, PolicyAgent, make_agent, parse_options
from agents.random_agent import RandomAgent
from go_env import Game, Rules


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
    agent = make_agent("agents.random_agent:RandomAgent:seed=5")
    assert isinstance(agent, RandomAgent) and agent.seed == 5


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("nonesuch", "unknown player"),
        ("random:depth=3", "bad options"),
        ("no_such_module:factory", "cannot import"),
        ("agents.random_agent:Nothing", "has no"),
        ("gtp:", "engine's command"),
        ("builtins:dict", "did not build a player"),
        ("puct:evaluator=net", "bad options for 'puct:evaluator=net': unknown evaluator 'net'"),
        ("minimax:depth=None", "bad options for 'minimax:depth=None': give a depth"),
        ("gtp:gnugo --mode 'gtp", "bad options for .*No closing quotation"),
    ],
)
def test_bad_specs_say_what_is_wrong(spec, message):
    with pytest.raises(AgentSpecError, match=message):
        make_agent(spec)


def test_random_agent_plays_legal_moves_and_its_policy_is_uniform():
    game = Game(5, Rules())
    agent = make_agent("random:seed=1")
    agent.reset(game.rules)
    assert isinstance(agent, PolicyAgent)
    for _ in range(30):
        policy = agent.policy(game)
        legal = game.legal_mask().astype(bool)
        assert np.isclose(policy.sum(), 1.0) and np.all(policy[~legal] == 0)
        move = agent.select_move(game)
        assert legal[move]
        game.play(move)
        if game.is_over:
            break


def test_random_agent_passes_only_when_forced():
    game = Game(3, Rules())
    agent = RandomAgent(seed=0, pass_only_when_forced=True)
    for _ in range(8):
        if game.is_over:
            break
        move = agent.select_move(game)
        assert move != game.pass_move or len(game.legal_moves()) == 1
        game.play(move)
