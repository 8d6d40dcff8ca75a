"""The value network as leaf values for search (one forward pass per call) and as a player that
looks one move ahead."""

import numpy as np
import pytest
import torch

from go_env import Game, Rules
from go_env.features.alphago import game_planes
from goarena.agents.inference import PolicyNetEvaluator, ValueNetEvaluator, load_policy_net, load_value_net
from goarena.agents.inference.network import LeafOutputs
from goarena.agents.nets.checkpoint import save_model, weights_digest
from goarena.agents.nets.policy import PolicyNet
from goarena.agents.nets.value import ValueNet
from goarena.agents.protocols import Actor, GameContext, UnsupportedGame, WeightedAgent
from goarena.agents.specs import AgentSpecError, builtin_factory, check_spec, make_agent
from goarena.agents.weights import VALUE_9X9
from goarena.search import PUCT, Leaves
from goarena.search.evaluator import uniform_priors

SIZE = 5
SPEC = "value-greedy"
ValueGreedyAgent = builtin_factory(SPEC)


@pytest.fixture(scope="module")
def value_weights(tmp_path_factory):
    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("nets") / "value.pt"
    save_model(path, ValueNet(SIZE, layers=3, filters=8, hidden=16))
    return path


@pytest.fixture(scope="module")
def policy_weights(tmp_path_factory):
    path = tmp_path_factory.mktemp("nets") / "policy.pt"
    save_model(path, PolicyNet(SIZE, layers=2, filters=4))
    return path


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


class Outputs:
    """A hand-made value function as the network's outputs (uniform priors, no ownership)."""

    def __init__(self, function):
        self.function = function

    def outputs(self, leaves):
        return LeafOutputs(uniform_priors(leaves.legal), self.function.values(leaves), None, None)


class CornerLover:
    """A hand-made value function: a position is worth -1 to the side to move when its
    opponent holds point 6, and 0 otherwise."""

    def values(self, leaves):
        board = leaves.states.board[:, 6]
        to_play = leaves.states.info[:, 0]
        return np.where((board != 0) & (board != to_play), -1.0, 0.0)


def test_the_player_picks_the_move_the_value_function_favours(value_weights):
    player = ValueGreedyAgent(weights=value_weights)
    player.evaluator = Outputs(CornerLover())
    game = Game(SIZE, Rules(komi=7))
    action = player.act(game)
    assert action.move == 6 and action.value == 1.0
    assert action.policy[6] == 1.0 and action.policy.sum() == 1.0
    found = player.move_values(game)
    moves, values = found.moves, found.values
    assert list(moves) == list(game.legal_moves()) and values[list(moves).index(6)] == 1.0
    assert (np.delete(values, list(moves).index(6)) == 0).all()


class Even:
    """Every unfinished position worth 0 to either side."""

    def values(self, leaves):
        return np.zeros(len(leaves))


def test_a_pass_that_ends_the_game_is_valued_by_the_score(value_weights):
    player = ValueGreedyAgent(weights=value_weights)
    player.evaluator = Outputs(Even())
    game = Game(SIZE, Rules(komi=7))
    game.play(SIZE * SIZE)  # Black passes: White wins by komi if it passes too
    action = player.act(game)
    assert action.move == SIZE * SIZE and action.value == 1.0
    game = Game(SIZE, Rules(komi=-7))
    game.play(SIZE * SIZE)
    found = player.move_values(game)
    moves, values = found.moves, found.values
    assert values[-1] == -1.0 and moves[-1] == SIZE * SIZE  # now passing loses


def test_the_player_plays_legal_moves_to_the_end(value_weights):
    player = make_agent(f"{SPEC}:weights={value_weights}")
    assert isinstance(player, Actor) and isinstance(player, WeightedAgent)
    game = Game(SIZE, Rules(komi=7))
    player.reset(GameContext(SIZE, game.rules))
    while not game.is_over:
        game.play(player.select_move(game))  # raises on an illegal move
    assert len(game.moves) > 2


def test_the_player_refuses_another_board_and_reports_its_weights(value_weights):
    player = ValueGreedyAgent(weights=value_weights)
    with pytest.raises(UnsupportedGame, match="trained for 5x5, not 9x9"):
        player.reset(GameContext(9, Rules()))
    assert player.weights_digest() == weights_digest(value_weights)


def test_specs_are_checked_without_building_the_player(value_weights, policy_weights):
    check_spec(f"{SPEC}:weights={value_weights}", GameContext(SIZE, Rules()))
    with pytest.raises(AgentSpecError, match="5x5, not 9x9"):
        check_spec(f"{SPEC}:weights={value_weights}", GameContext(9, Rules()))
    with pytest.raises(AgentSpecError, match="not a value network"):
        check_spec(f"{SPEC}:weights={policy_weights}")
    with pytest.raises(AgentSpecError, match="temperature"):
        check_spec(f"{SPEC}:weights={value_weights},temperature=1")


def test_the_shipped_9x9_value_network_is_the_default():
    player = make_agent(SPEC)
    assert player.weights_digest() == weights_digest(VALUE_9X9)
    game = Game(9)
    player.reset(GameContext(9, game.rules))
    found = player.move_values(game)
    moves, values = found.moves, found.values
    assert len(moves) == 82 and np.all(np.abs(values) < 1)
    assert game.is_legal(player.select_move(game))
