"""An SB3 model served through the one evaluator: its features from its observation space, its
policy and critic in one forward pass, the numbers of a direct call."""

import gymnasium
import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO

from go_env import Game
from go_env.gym_env import ENV_ID
from goarena.agents.inference import NetworkEvaluator
from goarena.agents.inference.sb3 import SB3Network, model_outputs, observation_for_model
from goarena.agents.nets.features import Features
from goarena.agents.nets.sb3_extractor import GoResNetExtractor
from goarena.agents.protocols import UnsupportedGame
from goarena.search import Leaves
from goarena.search.evaluator import check_evaluation

SIZE = 5


@pytest.fixture(scope="module", params=[(True, "float32"), (False, "int8")])
def model(request):
    channels_first, dtype = request.param
    torch.manual_seed(0)
    env = gymnasium.make(
        ENV_ID, board_size=SIZE, learner="alternate", channels_first=channels_first, observation_dtype=dtype
    )
    kwargs = dict(
        features_extractor_class=GoResNetExtractor, features_extractor_kwargs=dict(blocks=1, filters=8)
    )
    return MaskablePPO("MlpPolicy", env, policy_kwargs=kwargs, n_steps=16, seed=0)


def games() -> list[Game]:
    found = []
    for moves in ([], [12], [12, 6, 7]):
        game = Game(SIZE)
        for move in moves:
            game.play(move)
        found.append(game)
    return found


def leaves(found: list[Game]) -> Leaves:
    states = type(found[0].state)(*(np.stack(field) for field in zip(*(g.state for g in found), strict=True)))
    return Leaves(states, np.stack([g.legal_mask() for g in found]), found[0].geometry)


def test_the_model_declares_its_spaces_features_and_gives_the_direct_calls_numbers(model):
    network = SB3Network(model)
    space = model.observation_space
    channels_first = space.shape[0] == 17
    assert network.features == Features("history", 17, "goarena", channels_first, space.dtype.name)
    assert network.heads == ("policy", "value") and network.board_size == SIZE
    found = games()
    outputs = NetworkEvaluator(network, network, cache=0).outputs(leaves(found))
    observations = np.stack([observation_for_model(model, game) for game in found])
    probabilities, values = model_outputs(model, observations, leaves(found).legal)
    priors = outputs.priors / outputs.priors.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(priors, probabilities, atol=1e-6)
    np.testing.assert_allclose(outputs.values, values, atol=1e-6)
    assert outputs.ownership is None and outputs.score is None


def test_the_evaluator_keeps_the_contract(model):
    network = SB3Network(model)
    found = games()[1:2]  # 12 played
    priors, values = NetworkEvaluator(network, network, cache=0).evaluate(leaves(found))
    priors, values = check_evaluation(leaves(found).legal, priors, values)
    assert priors[0, 12] == 0 and priors.sum() > 0 and -1 <= values[0] <= 1


def test_another_board_is_refused(model):
    network = SB3Network(model)
    with pytest.raises(UnsupportedGame, match="trained for 5x5, not 7x7"):
        NetworkEvaluator(network, network).evaluate(leaves([Game(7)]))
