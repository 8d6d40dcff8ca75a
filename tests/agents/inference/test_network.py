"""One network evaluator per position: a leaf batch's planes made once for both networks (or one
dual-head network), priors only where the search wants them, outputs remembered by position."""

from __future__ import annotations

import sys

import numpy as np
import pytest
import torch

from go_env import BLACK, Game, Rules
from go_env.features import alphago as features
from go_env.features.alphago import game_planes
from go_env.features.patterns import pattern_tables, save_weights
from goarena.agents.inference import LeafOutputs, NetworkEvaluator
from goarena.agents.inference.function import FunctionNetwork
from goarena.agents.nets.checkpoint import save_model
from goarena.agents.nets.features import Features
from goarena.agents.nets.ownership import OwnershipNet, WinNet
from goarena.agents.nets.policy import PolicyNet
from goarena.agents.nets.predict import masked_softmax
from goarena.agents.nets.value import ValueNet
from goarena.agents.nets.zero import ZeroNet
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


# -- every network through the one evaluator ------------------------------------------------


class CountingOwnership(OwnershipNet):
    """An ownership network that counts the positions it runs on."""

    positions = 0

    def forward(self, planes):
        self.positions += len(planes)
        return super().forward(planes)


def history(games: list[Game]) -> torch.Tensor:
    """float32[B, 17, N, N]: the games' history planes, channels first (as the networks read them)."""
    return torch.as_tensor(np.stack([np.moveaxis(g.observation(), -1, 0) for g in games])).float()


def komi_terms_of(games: list[Game]) -> np.ndarray:
    return np.array([g.rules.komi * (-1 if g.to_play == BLACK else 1) for g in games])


def test_the_zero_network_gives_priors_values_ownership_and_score_in_one_pass():
    torch.manual_seed(3)
    zero = ZeroNet(SIZE, blocks=1, filters=8).eval()
    games = random_games(5)
    evaluator = NetworkEvaluator(policy=zero, value=zero)
    found = evaluator.outputs(leaves(games, expanding=[True, False, True, True, True]))
    with torch.inference_mode():
        expected = zero(history(games))
    legal = np.stack([g.legal_mask() for g in games])
    assert isinstance(found, LeafOutputs) and evaluator.networks == (zero,)
    np.testing.assert_allclose(
        normalised(found.priors), masked_softmax(expected.logits.numpy(), legal), atol=1e-6
    )
    np.testing.assert_allclose(found.values, expected.value.numpy(), atol=1e-6)
    np.testing.assert_allclose(found.ownership, expected.ownership.numpy(), atol=1e-6)
    np.testing.assert_allclose(
        found.score, expected.ownership.sum(1).numpy() + komi_terms_of(games), atol=1e-5
    )
    assert found.priors.dtype == np.float32 and found.values.dtype == np.float64
    assert evaluator.evaluations == 5 and evaluator.board_size == SIZE
    uncached = NetworkEvaluator(policy=zero, value=zero, cache=0)  # self-play's: every leaf run
    for _ in range(2):
        priors, values = uncached.evaluate(leaves(games))
        np.testing.assert_allclose(priors, evaluator.outputs(leaves(games)).priors, atol=1e-6)
        np.testing.assert_allclose(values, found.values, atol=1e-6)
    assert uncached.evaluations == 10


def test_an_ownership_network_values_each_leaf_by_its_calibrated_v_with_the_leafs_komi():
    torch.manual_seed(4)
    model = CountingOwnership(SIZE, blocks=1, filters=8).eval()
    model.calibration_a.fill_(0.3)
    model.calibration_b.fill_(0.1)
    games = random_games(3)
    evaluator = NetworkEvaluator(value=model)
    found = evaluator.outputs(leaves(games))
    with torch.inference_mode():
        ownership = model(history(games))
    terms = komi_terms_of(games)
    p = 1 / (1 + np.exp(-(0.3 * (ownership.sum(1).numpy() + terms) + 0.1)))
    np.testing.assert_allclose(found.values, 2 * p - 1, atol=1e-6)
    np.testing.assert_allclose(found.ownership, ownership.numpy(), atol=1e-6)
    np.testing.assert_allclose(found.score, ownership.sum(1).numpy() + terms, atol=1e-5)
    np.testing.assert_allclose(found.priors, normalised(leaves(games).legal))  # no policy: uniform
    np.testing.assert_array_equal(evaluator.values(leaves(games)), found.values)


def test_the_cache_keeps_an_ownership_networks_map_and_adds_each_leafs_komi_after():
    torch.manual_seed(5)
    model = CountingOwnership(SIZE, blocks=1, filters=8).eval()
    evaluator = NetworkEvaluator(value=model)
    same = [Game(SIZE, Rules(komi=komi)) for komi in (0.5, 7.5)]  # one board, two komi
    for game in same:
        game.play(12)
    first = evaluator.outputs(leaves(same[:1]))
    second = evaluator.outputs(leaves(same[1:]))
    assert model.positions == 1  # the planes are the same: the map is remembered
    np.testing.assert_array_equal(first.ownership, second.ownership)
    assert second.score[0] - first.score[0] == pytest.approx(7.0)  # White to move: 7 more komi
    assert second.values[0] > first.values[0]
    fresh = NetworkEvaluator(value=CountingOwnership(SIZE, blocks=1, filters=8).eval())
    fresh.value.load_state_dict(model.state_dict())
    np.testing.assert_allclose(fresh.outputs(leaves(same[1:])).values, second.values, atol=1e-7)


def test_a_win_network_values_a_leaf_by_its_own_output_and_has_no_map():
    torch.manual_seed(6)
    win = WinNet(SIZE, blocks=1, filters=8).eval()
    games = random_games(3)
    found = NetworkEvaluator(value=win).outputs(leaves(games))
    with torch.inference_mode():
        w = win(history(games)).numpy()
    np.testing.assert_allclose(found.values, w, atol=1e-6)
    assert found.ownership is None and found.score is None


def test_a_policy_networks_priors_beside_an_ownership_networks_values_one_build_of_each_kind(planes_calls):
    torch.manual_seed(7)
    policy = Counting(PolicyNet(SIZE, layers=2, filters=4))
    model = CountingOwnership(SIZE, blocks=1, filters=8).eval()
    games = random_games(4)
    evaluator = NetworkEvaluator(policy=policy, value=model)
    found = evaluator.outputs(leaves(games, expanding=[True, False, False, True]))
    assert planes_calls == [2]  # AlphaGo's planes for the two leaves whose priors are wanted
    assert (policy.positions, model.positions) == (2, 4)
    planes = torch.as_tensor(np.stack([game_planes(g) for g in games])).float()
    with torch.no_grad():
        logits = policy.model(planes).numpy()
    legal = leaves(games).legal
    np.testing.assert_allclose(
        normalised(found.priors)[[0, 3]], masked_softmax(logits, legal)[[0, 3]], atol=1e-6
    )
    np.testing.assert_allclose(found.values, NetworkEvaluator(value=model).values(leaves(games)), atol=1e-7)
    assert found.ownership is not None


def test_a_function_with_both_heads_is_served_as_a_network():
    torch.manual_seed(8)
    zero = ZeroNet(SIZE, blocks=1, filters=8).eval()

    def fn(planes, mask):  # channels last, pgx's order: back to the network's own
        order = np.argsort(_PGX_ORDER)
        own = planes[..., order].permute(0, 3, 1, 2).clone()
        own[:, -1] = 1 - own[:, -1]
        output = zero(own)
        return output.logits, output.value

    network = FunctionNetwork(fn, layout="pgx", channels_first=False)
    assert network.features == Features("history", 17, "pgx", False, "float32")
    games = random_games(4)
    found = NetworkEvaluator(network, network, cache=0).outputs(leaves(games))
    expected = NetworkEvaluator(zero, zero).outputs(leaves(games))
    np.testing.assert_allclose(normalised(found.priors), normalised(expected.priors), atol=1e-6)
    np.testing.assert_allclose(found.values, expected.values, atol=1e-6)
    logits_only = FunctionNetwork(lambda planes, mask: torch.zeros(mask.shape), name="mine")
    with pytest.raises(ValueError, match="mine: searching .* needs fn to return"):
        NetworkEvaluator(logits_only, logits_only).evaluate(leaves(games))


_PGX_ORDER = [0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15, 16]  # pgx's plane k: ours


def test_a_network_without_the_head_its_role_needs_is_refused():
    with pytest.raises(ValueError, match="PolicyNet has no value or ownership head"):
        NetworkEvaluator(value=PolicyNet(SIZE, layers=2, filters=4))
    with pytest.raises(ValueError, match="OwnershipNet has no policy head"):
        NetworkEvaluator(policy=OwnershipNet(SIZE, blocks=1, filters=4))


def every_head_network(seed: int = 6) -> ZeroNet:
    torch.manual_seed(seed)
    model = ZeroNet(SIZE, blocks=1, filters=8, rules_input=True, score_head=True).eval()
    torch.nn.init.normal_(model.rules_input.weight)
    return model


def rules_planes_of(games: list[Game]) -> torch.Tensor:
    """float32[B, 19, N, N]: the history planes and the rules planes of the games."""
    planes = torch.zeros(len(games), 19, SIZE, SIZE)
    planes[:, :17] = history(games)
    planes[:, 17] = torch.tensor(2 * komi_terms_of(games), dtype=torch.float32)[:, None, None]
    return planes


def test_a_network_with_a_score_head_gives_its_score_and_reads_each_leafs_komi():
    model = every_head_network()
    games = random_games(4)
    evaluator = NetworkEvaluator(policy=model, value=model)
    found = evaluator.outputs(leaves(games))
    with torch.inference_mode():
        expected = model(rules_planes_of(games))
    np.testing.assert_allclose(found.values, expected.value.numpy(), atol=1e-6)
    np.testing.assert_allclose(found.score, expected.score.numpy(), atol=1e-5)  # the head's, not Σ v
    np.testing.assert_allclose(found.ownership, expected.ownership.numpy(), atol=1e-6)
    # The same position under another komi is another input: not served from the cache.
    other = [Game(SIZE, Rules(komi=game.rules.komi + 10)) for game in games[:1]]
    for move in games[0].moves:
        other[0].play(move)
    moved = evaluator.outputs(leaves(other))
    with torch.inference_mode():
        np.testing.assert_allclose(moved.values, model(rules_planes_of(other)).value.numpy(), atol=1e-6)
    assert moved.values[0] != found.values[0]


def test_katagos_utility_adds_a_bounded_score_term_to_the_win_value():
    model = every_head_network()
    games = random_games(4)
    plain = NetworkEvaluator(policy=model, value=model).outputs(leaves(games))
    utility = NetworkEvaluator(policy=model, value=model, score_utility=0.1).outputs(leaves(games))
    score_value = 2 / np.pi * np.arctan(plain.score / (2 * SIZE))
    np.testing.assert_allclose(utility.values, (plain.values + 0.1 * score_value) / 1.1, atol=1e-9)
    np.testing.assert_allclose(utility.score, plain.score)
    assert (np.abs(utility.values) <= 1).all()
    with pytest.raises(ValueError, match="score or an ownership head"):
        NetworkEvaluator(policy=PolicyNet(SIZE, layers=2, filters=4), score_utility=0.1)
    with pytest.raises(ValueError, match="at least 0"):
        NetworkEvaluator(value=model, score_utility=-1)
