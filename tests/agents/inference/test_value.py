"""The value network as leaf values for search: one forward pass per call, each position run
once (``inference.value.ValueNetEvaluator``)."""

import numpy as np
import pytest
import torch

from go_env import Game, Rules
from go_env.features.alphago import game_planes
from goarena.agents.inference import PolicyNetEvaluator, ValueNetEvaluator, load_policy_net, load_value_net
from goarena.agents.protocols import UnsupportedGame
from goarena.search import PUCT, Leaves

SIZE = 5


def random_games(count, seed=0):
    """Positions of random games, some far into the game."""
    rng = np.random.default_rng(seed)
    games = []
    for index in range(count):
        game = Game(SIZE, Rules(komi=7))
        for _ in range(index * 3):
            if game.is_over:
                break
            game.play(int(rng.choice(game.legal_moves())))
        if not game.is_over:
            games.append(game)
    return games


def leaves(games):
    states = type(games[0].state)(
        *(np.stack(fields) for fields in zip(*(g.state for g in games), strict=True))
    )
    return Leaves(states, np.stack([g.legal_mask() for g in games]), games[0].geometry)


def test_batched_values_match_one_position_at_a_time(value_weights):
    model, _ = load_value_net(value_weights)
    evaluator = ValueNetEvaluator(model)
    games = random_games(12)
    batched = evaluator.values(leaves(games))
    one_by_one = np.concatenate([evaluator.values(leaves([game])) for game in games])
    np.testing.assert_allclose(batched, one_by_one, atol=1e-6)
    with torch.no_grad():
        direct = model(torch.as_tensor(np.stack([game_planes(g, player_colour=True) for g in games])).float())
    np.testing.assert_allclose(batched, direct.numpy(), atol=1e-6)
    assert batched.shape == (len(games),) and np.abs(batched).max() < 1 and batched.std() > 0


class _Counting(torch.nn.Module):
    """A value network that counts the positions it is run on."""

    def __init__(self, model):
        super().__init__()
        self.model, self.board_size, self.positions = model, model.board_size, 0

    def forward(self, planes):
        self.positions += len(planes)
        return self.model(planes)


def test_the_evaluator_runs_the_network_once_per_position(value_weights):
    model = _Counting(load_value_net(value_weights)[0])
    games = random_games(8)
    remembering, fresh = ValueNetEvaluator(model, cache=5), ValueNetEvaluator(model.model, cache=0)
    first = remembering.values(leaves(games[:4]))
    assert model.positions == 4
    again = remembering.values(leaves(games[2:6]))  # two seen, two new
    assert model.positions == 6
    np.testing.assert_allclose(np.concatenate([first, again[2:]]), fresh.values(leaves(games[:6])), atol=1e-6)
    np.testing.assert_array_equal(again[:2], first[2:])
    remembering.values(leaves(games[:1]))  # the oldest went when the sixth came
    assert model.positions == 7
    ValueNetEvaluator(model, cache=0).values(leaves(games[:4]))
    assert model.positions == 11
    with pytest.raises(ValueError, match="cache counts positions"):
        ValueNetEvaluator(model.model, cache=-1)


def test_the_evaluator_gives_puct_its_values(value_weights, policy_weights):
    evaluator = PolicyNetEvaluator(
        load_policy_net(policy_weights)[0], values=ValueNetEvaluator(load_value_net(value_weights)[0])
    )
    game = random_games(3)[-1]
    move = PUCT(evaluator, seed=0).search(game, simulations=50)
    assert game.is_legal(move)


def test_the_evaluator_refuses_another_board(value_weights):
    evaluator = ValueNetEvaluator(load_value_net(value_weights)[0])
    with pytest.raises(UnsupportedGame, match="5x5, not 9x9"):
        evaluator.values(leaves([Game(9)]))
