"""AlphaGo's search as a player: the SL policy's priors, leaf values that blend the value
network with pattern rollouts by λ, the seeds' selection rule, from spec strings."""

import numpy as np
import pytest
import torch

from go_env import Game
from go_env.features.patterns import pattern_tables, save_weights
from goarena.agents.inference import NetworkEvaluator
from goarena.agents.nets.checkpoint import save_model
from goarena.agents.nets.policy import PolicyNet
from goarena.agents.nets.value import ValueNet
from goarena.agents.players.alphago import AlphaGoAgent
from goarena.agents.protocols import GameContext
from goarena.agents.specs import AgentSpecError, check_spec, make_agent
from goarena.search import MixedEvaluator
from goarena.search.invariants import check_tree
from goarena.search.rollout import PatternRolloutEvaluator

SIZE = 5


@pytest.fixture(scope="module")
def nets(tmp_path_factory):
    root = tmp_path_factory.mktemp("nets")
    torch.manual_seed(0)
    save_model(root / "policy.pt", PolicyNet(SIZE, layers=3, filters=8))
    save_model(root / "value.pt", ValueNet(SIZE, layers=3, filters=8, hidden=16))
    weights = np.random.default_rng(1).normal(0, 0.5, pattern_tables().num_features)
    save_weights(root / "rollout.npz", weights, SIZE)
    return root


def spec(nets, **options):
    files = {"prior": nets / "policy.pt", "value": nets / "value.pt", "rollout_weights": nets / "rollout.npz"}
    merged = {**{key: repr(str(path)) for key, path in files.items()}, "simulations": 24, **options}
    return "alphago:" + ",".join(f"{key}={value}" for key, value in merged.items() if value is not None)


@pytest.mark.slow
def test_the_default_blends_value_net_and_rollouts_half_and_half(nets):
    player = make_agent(spec(nets), seed=1)
    assert isinstance(player, AlphaGoAgent) and player.name == "alphago"
    evaluator = player.searcher.evaluator
    assert isinstance(evaluator, MixedEvaluator) and evaluator.mix == 0.5
    assert isinstance(evaluator.network, NetworkEvaluator)  # one evaluator serves both networks
    assert isinstance(evaluator.network.policy, PolicyNet) and isinstance(evaluator.network.value, ValueNet)
    assert isinstance(evaluator.rollout, PatternRolloutEvaluator)
    assert player.searcher.c_puct == 5  # the AlphaGo paper's c, with Q in [-1, 1] and u = c·P/(1 + N)
    assert len(str(player.weights_digest()).split("+")) == 3
    game = Game(SIZE)
    player.reset(GameContext(SIZE, game.rules, seed=1))
    for _ in range(6):
        move = player.select_move(game)
        assert game.is_legal(move)
        game.play(move)
        player.observe_move(game, move)
    check_tree(player.searcher)


def test_lambda_at_its_ends_uses_one_value_source_alone(nets):
    alone = make_agent(spec(nets, mixing=0)).searcher.evaluator
    assert isinstance(alone, NetworkEvaluator) and alone.policy is not None
    assert isinstance(alone.value, ValueNet) and alone.values_from is None
    rollouts = make_agent(spec(nets, mixing=1)).searcher.evaluator
    assert isinstance(rollouts, NetworkEvaluator) and rollouts.policy is not None and rollouts.value is None
    assert isinstance(rollouts.values_from, PatternRolloutEvaluator)
    rollouts_only = make_agent(spec(nets, mixing=1, value=None)).searcher.evaluator
    assert isinstance(rollouts_only.values_from, PatternRolloutEvaluator)


def test_the_shipped_networks_are_the_defaults():
    check_spec("alphago", GameContext(9, Game(9).rules))
    evaluator = make_agent("alphago:simulations=8").searcher.evaluator
    assert isinstance(evaluator, MixedEvaluator) and isinstance(evaluator.network, NetworkEvaluator)
    assert isinstance(evaluator.network.policy, PolicyNet) and isinstance(evaluator.network.value, ValueNet)
    assert evaluator.network.value.board_size == 9


def test_no_prior_searches_from_uniform_priors(nets):
    evaluator = make_agent(spec(nets, prior="uniform")).searcher.evaluator
    assert isinstance(evaluator, MixedEvaluator) and isinstance(evaluator.network, NetworkEvaluator)
    assert evaluator.network.policy is None and isinstance(
        evaluator.network.value, ValueNet
    )  # uniform priors


def test_specs_are_checked_without_building_the_player(nets):
    check_spec(spec(nets), GameContext(SIZE, Game(SIZE).rules))
    with pytest.raises(AgentSpecError, match="trained for 5x5, not 9x9"):
        check_spec(spec(nets), GameContext(9, Game(9).rules))
    with pytest.raises(AgentSpecError, match="takes no evaluator"):
        check_spec(spec(nets, evaluator="rollout"))
    with pytest.raises(AgentSpecError, match="mixing"):
        check_spec(spec(nets, mixing=1.5))


def test_puct_takes_a_value_network_only_beside_a_prior(nets):
    with pytest.raises(AgentSpecError, match="needs prior"):
        check_spec(f"puct:value={str(nets / 'value.pt')!r}")
    player = make_agent(f"puct:simulations=8,prior=uniform,value={str(nets / 'value.pt')!r}")
    evaluator = player.searcher.evaluator
    assert isinstance(evaluator, NetworkEvaluator) and evaluator.policy is None  # uniform priors
    assert isinstance(evaluator.value, ValueNet)


def test_a_dual_network_serves_as_prior_and_value_in_one_forward_pass():
    from goarena.agents.nets.zero import ZeroNet
    from goarena.agents.weights import ZERO_9X9

    check_spec(f"alphago:net={ZERO_9X9}", GameContext(9, Game(9).rules))
    player = make_agent(f"alphago:net={ZERO_9X9},simulations=16", seed=1)
    evaluator = player.searcher.evaluator
    assert isinstance(evaluator, MixedEvaluator) and evaluator.mix == 0.5  # AlphaGo's blend kept
    assert isinstance(evaluator.network.policy, ZeroNet) and evaluator.network.dual
    assert len(str(player.weights_digest()).split("+")) == 2  # the dual network and the rollout policy
    alone = make_agent(f"alphago:net={ZERO_9X9},mixing=0,simulations=16").searcher.evaluator
    assert isinstance(alone, NetworkEvaluator) and alone.dual
    game = Game(9)
    player.reset(GameContext(9, game.rules, seed=1))
    assert game.is_legal(player.select_move(game))
    with pytest.raises(AgentSpecError, match="zero"):
        check_spec(f"alphago:net={ZERO_9X9.with_name('sl-policy-9x9.pt')}", GameContext(9, Game(9).rules))
