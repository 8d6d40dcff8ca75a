"""The random player."""

import numpy as np

from go_env import Game, GameBatch, Rules
from goarena.agents.players.random import RandomAgent
from goarena.agents.protocols import Actor, BatchAgent, GameContext, PolicyAgent
from goarena.agents.specs import make_agent


def test_random_agent_plays_legal_moves_and_its_policy_is_uniform():
    game = Game(5, Rules())
    agent = make_agent("random:seed=1")
    agent.reset(GameContext(game.size, game.rules))
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


def test_random_act_gives_the_uniform_policy_it_drew_from():
    game = Game(5, Rules())
    agent = RandomAgent(seed=0)
    assert isinstance(agent, Actor)
    action = agent.act(game)
    assert action.policy is not None and action.value is None
    assert action.policy[action.move] > 0 and np.allclose(action.policy, agent.policy(game))


def test_random_agent_moves_in_many_games_at_once_uniformly_among_the_legal_moves():
    batch = GameBatch(3, 4, Rules(), seed=0)
    batch.play(np.array([4, 4, 9, 0]))  # a stone in the centre; pass; pass; a corner
    agent = RandomAgent(seed=0)
    assert isinstance(agent, BatchAgent)
    legal = batch.legal_masks().astype(bool)
    drawn = np.array([agent.select_moves(batch) for _ in range(1000)])
    assert legal[np.arange(4), drawn].all()
    counts = np.stack([np.bincount(drawn[:, b], minlength=10) for b in range(4)])
    assert (counts[legal] > 60).all() and not counts[~legal].any()  # 100 or 111 each
    forced = RandomAgent(seed=0, pass_only_when_forced=True)
    assert (np.array([forced.select_moves(batch) for _ in range(50)]) != 9).all()
