"""The ownership network as an evaluator of search leaves: V with each leaf's komi, the
calibrated value, priors uniform or a policy network's; and its estimates of a Game."""

import numpy as np
import pytest
import torch

from go_env import Game, Rules
from goarena.agents.inference import NetworkEvaluator
from goarena.agents.inference.ownership import (
    estimate,
    komi_terms,
    ownership_map,
    position_score,
)
from goarena.agents.nets.ownership import OwnershipNet, WinNet
from goarena.agents.nets.policy import PolicyNet
from goarena.agents.protocols import UnsupportedGame
from goarena.search import PUCT, Leaves
from goarena.search.evaluator import check_evaluation

SIZE = 5


@pytest.fixture(scope="module")
def model():
    torch.manual_seed(0)
    return OwnershipNet(SIZE, blocks=2, filters=8).eval()


def game_after(moves, komi=7.5):
    game = Game(SIZE, Rules(komi=komi))
    for move in moves:
        game.play(move)
    return game


def leaves(games):
    fields = zip(*(game.state for game in games), strict=True)
    states = type(games[0].state)(*(np.stack(field) for field in fields))
    return Leaves(states, np.stack([g.legal_mask() for g in games]), games[0].geometry)


def test_each_leafs_komi_counts_from_its_side_to_moves_view():
    batch = leaves([game_after([], 7.5), game_after([12], 7.5), game_after([12], 5.5), game_after([], 0)])
    np.testing.assert_array_equal(komi_terms(batch.states), [-7.5, 7.5, 5.5, 0.0])


def test_v_is_the_ownership_sum_with_the_komi_and_the_value_its_calibrated_probability(model):
    games = [game_after([], 7.5), game_after([12], 7.5), game_after([12], 0.5)]
    batch = leaves(games)
    found = estimate(model, batch.states, batch.geometry)
    assert found.ownership.shape == (3, SIZE * SIZE) and found.ownership.dtype == np.float32
    np.testing.assert_allclose(found.score, found.ownership.sum(1) + [-7.5, 7.5, 0.5], atol=1e-5)
    assert found.score[1] - found.score[2] == pytest.approx(7.0, abs=1e-5)  # the same board, 7 less komi
    a, b = model.calibration
    np.testing.assert_allclose(found.win_probability, 1 / (1 + np.exp(-(a * found.score + b))), atol=1e-6)
    evaluator = NetworkEvaluator(value=model)
    priors, values = check_evaluation(batch.legal, *evaluator.evaluate(batch))
    np.testing.assert_allclose(values, 2 * found.win_probability - 1, atol=1e-6)
    np.testing.assert_allclose(priors, batch.legal / batch.legal.sum(1, keepdims=True))  # uniform
    assert evaluator.evaluations == 3
    assert position_score(model, games[1]) == pytest.approx(found.score[1], abs=1e-5)
    np.testing.assert_allclose(ownership_map(model, games[1]), found.ownership[1], atol=1e-6)


def test_a_policy_networks_priors(model):
    torch.manual_seed(1)
    policy = PolicyNet(SIZE, layers=2, filters=4).eval()
    batch = leaves([game_after([]), game_after([12, 6])])
    priors, _ = NetworkEvaluator(policy=policy, value=model).evaluate(batch)
    assert (priors[batch.legal == 0] == 0).all()
    assert not np.allclose(priors[0][batch.legal[0] == 1], priors[0][0])  # not uniform


def test_puct_searches_over_it(model):
    game = game_after([12])
    search = PUCT(NetworkEvaluator(value=model), batch=4, seed=0)
    move = search.search(game, simulations=32)
    assert game.legal_mask()[move]


def test_another_board_is_refused(model):
    with pytest.raises(UnsupportedGame, match="ownership network was trained for 5x5, not 7x7"):
        ownership_map(model, Game(7))
    with pytest.raises(UnsupportedGame, match="network was trained for 5x5, not 7x7"):
        NetworkEvaluator(value=model).evaluate(leaves([Game(7)]))


def test_a_win_network_values_each_leaf_by_its_own_output_and_has_no_map():
    torch.manual_seed(0)
    win = WinNet(SIZE, blocks=1, filters=8).eval()
    games = [game_after([], 7.5), game_after([12], 7.5), game_after([12], 0.5)]
    batch = leaves(games)
    found = estimate(win, batch.states, batch.geometry)
    assert found.ownership is None and found.score is None
    planes = torch.tensor(
        np.stack([np.moveaxis(game.observation(), -1, 0) for game in games]), dtype=torch.float32
    )
    with torch.inference_mode():
        w = win(planes).numpy()
    np.testing.assert_allclose(found.win_probability, (1 + w) / 2, atol=1e-6)
    assert found.win_probability[1] == found.win_probability[2]  # the same board: no komi seen
    priors, values = check_evaluation(batch.legal, *NetworkEvaluator(value=win).evaluate(batch))
    np.testing.assert_allclose(values, w, atol=1e-6)
    np.testing.assert_allclose(priors[0][batch.legal[0]], 1 / batch.legal[0].sum())
    for asked in (ownership_map, position_score):
        with pytest.raises(ValueError, match="has no ownership head"):
            asked(win, games[0])
