"""Small 5x5 networks saved once, for the tests of the players and evaluators that read them."""

import pytest
import torch

from goarena.agents.nets.checkpoint import save_model
from goarena.agents.nets.policy import PolicyNet
from goarena.agents.nets.value import ValueNet

SIZE = 5


@pytest.fixture(scope="session")
def value_weights(tmp_path_factory):
    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("nets") / "value.pt"
    save_model(path, ValueNet(SIZE, layers=3, filters=8, hidden=16))
    return path


@pytest.fixture(scope="session")
def policy_weights(tmp_path_factory):
    path = tmp_path_factory.mktemp("nets") / "policy.pt"
    save_model(path, PolicyNet(SIZE, layers=2, filters=4))
    return path
