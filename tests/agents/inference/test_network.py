"""One network evaluator per position: a leaf batch's planes made once for both networks (or one
dual-head network), priors only where the search wants them, outputs remembered by position."""

from __future__ import annotations

import sys

import numpy as np
import pytest
import torch

from go_env import Game, Rules
from go_env.features import alphago as features
from go_env.features.alphago import game_planes
from go_env.features.patterns import pattern_tables, save_weights
from goarena.agents.inference import NetworkEvaluator
from goarena.agents.nets.checkpoint import save_model
from goarena.agents.nets.policy import PolicyNet
from goarena.agents.nets.predict import masked_softmax
from goarena.agents.nets.value import ValueNet
from goarena.agents.protocols import GameContext, UnsupportedGame
from goarena.agents.specs import make_agent
from goarena.search import Leaves, RolloutEvaluator

SIZE = 5


@pytest.fixture(scope="module")
def nets(tmp_path_factory):
    root = tmp_path_factory.mktemp("nets")
    torch.manual_seed(0)
    save_model(root / "policy.pt", PolicyNet(SIZE, layers=3, filters=8))
    save_model(root / "value.pt", ValueNet(SIZE, layers=3, filters=8, hidden=16))
    save_weights(
        root / "rollout.npz", np.random.default_rng(1).normal(0, 0.5, pattern_tables().num_features), SIZE
    )
    return root


class Counting(torch.nn.Module):
    """A network that counts its forward passes and the positions they ran on."""

    def __init__(self, model: torch.nn.Module):
        super().__init__()
        self.model, self.board_size, self.planes = model, model.board_size, model.planes
        self.calls = self.positions = 0

    def forward(self, planes):
        self.calls += 1
        self.positions += len(planes)
        return self.model(planes)


class DualHead(torch.nn.Module):
    """A policy and a value network as one module with both heads over 49 planes."""

    def __init__(self, size: int):
        super().__init__()
        torch.manual_seed(2)
        self.policy, self.value = (
            PolicyNet(size, planes=49, layers=2, filters=4),
            ValueNet(size, layers=2, filters=4),
        )
        self.board_size, self.planes, self.calls = size, 49, 0

    def forward(self, planes):
        self.calls += 1
        return self.policy(planes), self.value(planes)


def random_games(count: int, seed: int = 0) -> list[Game]:
    rng = np.random.default_rng(seed)
    games = []
    for index in range(count):
        game = Game(SIZE, Rules(komi=7))
        for _ in range(index * 2):
            if not game.is_over:
                game.play(int(rng.choice(game.legal_moves())))
        if not game.is_over:
            games.append(game)
    return games


def leaves(games: list[Game], expanding: list[bool] | None = None) -> Leaves:
    states = type(games[0].state)(
        *(np.stack(fields) for fields in zip(*(g.state for g in games), strict=True))
    )
    wanted = None if expanding is None else np.array(expanding, np.int8)
    return Leaves(states, np.stack([g.legal_mask() for g in games]), games[0].geometry, wanted)


def normalised(weights: np.ndarray) -> np.ndarray:
    weights = weights.astype(np.float64)
    return weights / weights.sum(axis=1, keepdims=True)


@pytest.fixture
def planes_calls(monkeypatch):
    """Counts the calls of AlphaGo's batched planes kernel, wherever a module holds it."""
    calls = []
    original = features.batch_alphago_planes

    def counted(*args):
        calls.append(len(args[2]))
        return original(*args)

    for module in list(sys.modules.values()):
        if getattr(module, "batch_alphago_planes", None) is original:
            monkeypatch.setattr(module, "batch_alphago_planes", counted)
    return calls


def test_alphago_makes_each_leaf_batchs_planes_once(nets, planes_calls):
    files = f"prior={str(nets / 'policy.pt')!r},value={str(nets / 'value.pt')!r}"
    player = make_agent(
        f"alphago:simulations=48,batch=8,{files},rollout_weights={str(nets / 'rollout.npz')!r}"
    )
    player.reset(GameContext(SIZE, Rules(komi=7), seed=0))
    evaluator = player.searcher.evaluator
    evaluations = []
    inner = evaluator.evaluate

    def counted(batch):
        evaluations.append(len(batch))
        return inner(batch)

    evaluator.evaluate = counted
    game = random_games(4)[-1]
    assert game.is_legal(player.select_move(game))
    assert len(evaluations) > 1
    assert planes_calls == evaluations  # one kernel call a batch, for the policy and the value network


def test_priors_and_values_are_each_networks_on_its_planes(nets):
    policy = PolicyNet(SIZE, layers=3, filters=8)
    value = ValueNet(SIZE, layers=3, filters=8, hidden=16)
    games = random_games(6)
    priors, values = NetworkEvaluator(policy, value).evaluate(leaves(games))
    planes = torch.as_tensor(np.stack([game_planes(g, player_colour=True) for g in games])).float()
    with torch.no_grad():
        logits, expected_values = policy(planes[:, :48]).numpy(), value(planes).numpy()
    legal = np.stack([g.legal_mask() for g in games])
    assert (priors[legal == 0] == 0).all()
    np.testing.assert_allclose(normalised(priors), masked_softmax(logits, legal), atol=1e-6)
    np.testing.assert_allclose(values, expected_values, atol=1e-6)


def test_each_network_runs_once_per_position_and_the_policy_only_where_priors_are_wanted():
    policy = Counting(PolicyNet(SIZE, layers=2, filters=4))
    value = Counting(ValueNet(SIZE, layers=2, filters=4, hidden=8))
    evaluator = NetworkEvaluator(policy, value)
    games = random_games(6)
    priors, first = evaluator.evaluate(leaves(games[:4], expanding=[True, False, False, True]))
    assert (policy.calls, policy.positions, value.calls, value.positions) == (1, 2, 1, 4)
    legal = leaves(games[1:3]).legal
    np.testing.assert_allclose(priors[1:3], normalised(legal))  # uniform: not asked for
    # Leaf 1 now wants its priors: the policy runs on it alone, its value is remembered.
    _, again = evaluator.evaluate(leaves(games[1:2] + games[4:6]))
    assert (policy.calls, policy.positions, value.calls, value.positions) == (2, 5, 2, 6)
    assert again[0] == first[1]
    evaluator.evaluate(leaves([games[0], games[1], games[3]]))  # everything known
    assert (policy.calls, value.calls) == (2, 2)
    fresh = NetworkEvaluator(policy, value, cache=0)
    fresh.evaluate(leaves(games[:2]))
    fresh.evaluate(leaves(games[:2]))
    assert (policy.positions, value.positions) == (9, 10)


def test_a_dual_head_network_runs_once_for_both():
    network = DualHead(SIZE)
    evaluator = NetworkEvaluator(network, network)
    assert evaluator.dual
    games = random_games(5)
    priors, values = evaluator.evaluate(leaves(games))
    assert network.calls == 1
    planes = torch.as_tensor(np.stack([game_planes(g, player_colour=True) for g in games])).float()
    with torch.no_grad():
        logits, expected = network.policy(planes).numpy(), network.value(planes).numpy()
    legal = np.stack([g.legal_mask() for g in games])
    np.testing.assert_allclose(normalised(priors), masked_softmax(logits, legal), atol=1e-6)
    np.testing.assert_allclose(values, expected, atol=1e-6)
    evaluator.evaluate(leaves(games))
    assert network.calls == 1  # remembered


def test_without_a_value_network_the_values_come_from_playouts_or_are_zero():
    policy = PolicyNet(SIZE, layers=2, filters=4)
    games = random_games(4)
    _, values = NetworkEvaluator(policy).evaluate(leaves(games))
    assert (values == 0).all()
    _, rollouts = NetworkEvaluator(policy, values=RolloutEvaluator(8, seed=1)).evaluate(leaves(games))
    np.testing.assert_array_equal(rollouts, RolloutEvaluator(8, seed=1).values(leaves(games)))
    priors, values = NetworkEvaluator(value=ValueNet(SIZE, layers=2, filters=4)).evaluate(leaves(games))
    legal = leaves(games).legal
    np.testing.assert_allclose(priors, normalised(legal))  # no policy: uniform
    assert np.abs(values).max() < 1 and values.std() > 0


def test_bad_combinations_and_boards_are_refused():
    policy, value = PolicyNet(SIZE, layers=2, filters=4), ValueNet(SIZE, layers=2, filters=4)
    mixed = NetworkEvaluator(policy, ValueNet(7, layers=2, filters=4))  # the players name the files first
    with pytest.raises(UnsupportedGame, match="the networks were trained for 7x7, not 5x5"):
        mixed.evaluate(leaves(random_games(1)))
    with pytest.raises(ValueError, match="from the value network or from values=, not both"):
        NetworkEvaluator(policy, value, values=RolloutEvaluator())
    with pytest.raises(ValueError, match="cache counts positions"):
        NetworkEvaluator(policy, cache=-1)
    with pytest.raises(TypeError, match="needs a value network"):
        NetworkEvaluator(policy).values(leaves(random_games(1)))
    with pytest.raises(UnsupportedGame, match="the networks were trained for 5x5, not 9x9"):
        NetworkEvaluator(policy, value).evaluate(leaves([Game(9)]))
    with pytest.raises(UnsupportedGame, match="the value network was trained for 5x5, not 9x9"):
        NetworkEvaluator(value=value).values(leaves([Game(9)]))
