"""A policy network as PUCT's prior: one forward pass per evaluator call, its softmax over
each leaf's legal moves, and the player that uses it from a spec string."""

import subprocess
import sys

import numpy as np
import pytest
import torch

from go_env import Game
from go_env.features.alphago import alphago_planes, new_alphago_planes
from go_env.features.patterns import pattern_tables, save_weights
from goarena.agents.inference import PolicyNetEvaluator, load_policy_net
from goarena.agents.nets.checkpoint import save_model
from goarena.agents.nets.policy import PolicyNet
from goarena.agents.nets.predict import masked_softmax, policy_logits
from goarena.agents.protocols import GameContext, UnsupportedGame
from goarena.agents.specs import AgentSpecError, check_spec, make_agent
from goarena.search import PUCT, RolloutEvaluator
from goarena.search.invariants import check_tree
from tests.boards import position

SIZE = 5


@pytest.fixture(scope="module")
def policy_weights(tmp_path_factory):
    torch.manual_seed(1)
    path = tmp_path_factory.mktemp("nets") / "policy.pt"
    save_model(path, PolicyNet(SIZE, layers=3, filters=8))
    return path


@pytest.fixture(scope="module")
def rollout_weights(tmp_path_factory):
    path = tmp_path_factory.mktemp("nets") / "rollout.npz"
    weights = np.random.default_rng(2).normal(0, 0.5, pattern_tables().num_features)
    save_weights(path, weights, SIZE)
    return path


class Checked:
    """Wraps a ``PolicyNetEvaluator``: each leaf's priors against the network on that leaf's
    own planes, checked during the call (search reuses the leaves' buffers)."""

    def __init__(self, inner):
        self.inner, self.calls = inner, 0

    def evaluate(self, leaves):
        priors, values = self.inner.evaluate(leaves)
        self.calls += 1
        for b in range(len(leaves)):
            planes = new_alphago_planes(SIZE)
            alphago_planes(leaves.state(b), leaves.geometry, planes)
            logits = policy_logits(self.inner.model, planes[None])
            expected = masked_softmax(logits, leaves.legal[b : b + 1])[0]
            # The softmax's weights: the search normalises them, once.
            np.testing.assert_allclose(priors[b] / priors[b].sum(), expected, atol=1e-6)
            assert priors[b][leaves.legal[b] == 0].sum() == 0
        return priors, values


def test_priors_are_the_networks_softmax_over_each_leafs_legal_moves(policy_weights):
    model, _ = load_policy_net(policy_weights)
    evaluator = Checked(PolicyNetEvaluator(model))
    game = position(
        """
        . X O . .
        . X O . .
        . X O . .
        . . . . .
        . . . . .
        """
    )
    PUCT(evaluator, batch=4, seed=0).search(game, simulations=24)
    assert evaluator.calls > 1


def test_values_come_from_the_value_source_or_are_zero(policy_weights):
    model, _ = load_policy_net(policy_weights)
    game = Game(SIZE)
    searcher = PUCT(PolicyNetEvaluator(model), seed=0)
    searcher.search(game, simulations=16)
    assert np.all(searcher.values()[searcher.visit_counts() > 0] == 0)
    rollouts = PUCT(PolicyNetEvaluator(model, RolloutEvaluator(4, seed=1)), seed=0)
    rollouts.search(game, simulations=16)
    check_tree(rollouts)
    assert np.any(rollouts.values()[rollouts.visit_counts() > 0] != 0)


def test_another_board_size_is_refused(policy_weights):
    model, _ = load_policy_net(policy_weights)
    with pytest.raises(ValueError, match="trained for 5x5, not 7x7"):
        PUCT(PolicyNetEvaluator(model), seed=0).search(Game(7), simulations=4)


def test_puct_with_a_prior_and_pattern_rollouts_from_a_spec(policy_weights, rollout_weights):
    networks = f"prior={str(policy_weights)!r},rollout_weights={str(rollout_weights)!r}"
    spec = f"puct:simulations=32,evaluator=pattern,{networks}"
    check_spec(spec, GameContext(SIZE, Game(SIZE).rules))
    with pytest.raises(AgentSpecError, match="trained for 5x5, not 9x9"):
        check_spec(spec, GameContext(9, Game(9).rules))
    with pytest.raises(AgentSpecError, match="needs rollout_weights"):
        check_spec("puct:evaluator=pattern")
    with pytest.raises(AgentSpecError, match="c_puct|unexpected|takes"):
        check_spec(f"puct:prior={str(policy_weights)!r},no_such_option=1")
    player = make_agent(spec, seed=3)
    digest = player.weights_digest()
    assert digest is not None and len(digest.split("+")) == 2
    game = Game(SIZE)
    for _ in range(6):
        move = player.select_move(game)
        assert game.is_legal(move)
        game.play(move)


def test_uct_with_pattern_playouts_from_a_spec(rollout_weights):
    spec = f"uct:simulations=64,rollout_weights={str(rollout_weights)!r}"
    check_spec(spec, GameContext(SIZE, Game(SIZE).rules))
    with pytest.raises(AgentSpecError, match="trained for 5x5, not 9x9"):
        check_spec(spec, GameContext(9, Game(9).rules))
    player = make_agent(spec, seed=3)
    assert player.searcher.rollout_policy is not None
    assert player.weights_digest() is not None and make_agent("uct").weights_digest() is None
    game = Game(SIZE)
    player.reset(GameContext(SIZE, game.rules, seed=3))
    for _ in range(6):
        move = player.select_move(game)
        assert game.is_legal(move)
        game.play(move)


def test_a_search_player_refuses_a_board_its_networks_were_not_trained_for(policy_weights):
    player = make_agent(f"puct:simulations=8,prior={str(policy_weights)!r}")
    player.reset(GameContext(SIZE, Game(SIZE).rules))
    with pytest.raises(UnsupportedGame, match="trained for 5x5, not 7x7"):
        player.reset(GameContext(7, Game(7).rules))


def test_torchs_thread_count_outlives_numbas_thread_pool():
    # numba's pool, started after torch.set_num_threads, resets torch's count to the cores'.
    script = (
        "import torch, numba\n"
        "from goarena.agents.nets.predict import set_torch_threads\n"
        "set_torch_threads(1)\n"
        "numba.get_num_threads()\n"
        "print(torch.get_num_threads())\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "1"


class CheckedSkipping(Checked):
    """``Checked`` for the leaves whose priors are wanted; uniform priors for the others."""

    def evaluate(self, leaves):
        wanted = leaves.wants_priors()
        self.skipped = getattr(self, "skipped", 0) + int((~wanted).sum())
        priors, values = super().evaluate(leaves.subset(wanted)) if wanted.any() else (None, None)
        all_priors, all_values = self.inner.evaluate(leaves)
        if priors is not None:
            np.testing.assert_allclose(all_priors[wanted], priors, atol=1e-6)
        legal = leaves.legal[~wanted].astype(np.float64)
        np.testing.assert_allclose(all_priors[~wanted], legal / legal.sum(axis=1, keepdims=True), atol=1e-6)
        return all_priors, all_values


def test_the_network_runs_only_on_the_leaves_being_expanded(policy_weights):
    model, _ = load_policy_net(policy_weights)
    evaluator = CheckedSkipping(PolicyNetEvaluator(model, RolloutEvaluator(seed=1)))
    searcher = PUCT(evaluator, batch=4, expansion_threshold=1, seed=0)
    searcher.search(Game(SIZE), simulations=200)
    check_tree(searcher)
    assert evaluator.calls > 1 and evaluator.skipped > 50


def test_bfloat16_weights_give_the_float32_logits_to_bfloat16_precision(policy_weights):
    full, _ = load_policy_net(policy_weights)
    half, _ = load_policy_net(policy_weights, precision="bfloat16")
    assert next(half.parameters()).dtype == torch.bfloat16
    planes = new_alphago_planes(SIZE)
    game = position(
        """
        . . . . .
        . X . . .
        . . O . .
        . . . . .
        . . . . .
        """
    )
    alphago_planes(game.state, game.geometry, planes)
    expected = policy_logits(full, planes[None])
    np.testing.assert_allclose(
        policy_logits(half, planes[None]), expected, atol=0.02 * np.abs(expected).max() + 0.02
    )
    with pytest.raises(ValueError, match="unknown precision 'half': auto, float32, bfloat16"):
        load_policy_net(policy_weights, precision="half")
    with pytest.raises(AgentSpecError, match="unknown precision"):
        check_spec(f"puct:prior={str(policy_weights)!r},precision=half")
    player = make_agent(
        f"puct:simulations=32,prior={str(policy_weights)!r},precision=bfloat16,expansion_threshold=1"
    )
    game = Game(SIZE)
    for _ in range(4):
        move = player.select_move(game)
        assert game.is_legal(move)
        game.play(move)
