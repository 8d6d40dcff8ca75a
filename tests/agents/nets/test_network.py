"""``Network``: each board network records its arguments, board size and planes the same way,
and refuses planes of another shape with one message."""

import pytest
import torch

from goarena.agents.nets.network import Network
from goarena.agents.nets.ownership import OwnershipNet, WinNet
from goarena.agents.nets.policy import PolicyNet
from goarena.agents.nets.value import ValueNet
from goarena.agents.nets.zero import ZeroNet

NETWORKS = [
    (PolicyNet, {"board_size": 5, "planes": 48, "layers": 2, "filters": 4}, 48),
    (ValueNet, {"board_size": 5, "planes": 49, "layers": 2, "filters": 4, "hidden": 8}, 49),
    (ZeroNet, {"board_size": 5, "blocks": 1, "filters": 4, "global_pool": True}, 17),
    (
        ZeroNet,
        {
            "board_size": 5,
            "blocks": 1,
            "filters": 4,
            "global_pool": True,
            "rules_input": True,
            "score_head": True,
        },
        19,
    ),  # fmt: skip
    (OwnershipNet, {"board_size": 5, "blocks": 1, "filters": 4, "global_pool": False}, 17),
    (WinNet, {"board_size": 5, "blocks": 1, "filters": 4, "global_pool": True}, 17),
]


@pytest.mark.parametrize(("network", "kwargs", "planes"), NETWORKS)
def test_a_network_records_its_arguments_and_refuses_other_planes(network, kwargs, planes):
    model = network(**kwargs)
    assert isinstance(model, Network)
    assert (model.kwargs, model.board_size, model.planes) == (kwargs, 5, planes)
    assert network(**model.kwargs).state_dict().keys() == model.state_dict().keys()
    wrong = rf"expected planes of shape \[B, {planes}, 5, 5\], got \[1, 3, 5, 5\]"
    with pytest.raises(ValueError, match=wrong):
        model(torch.zeros(1, 3, 5, 5))


def test_the_history_networks_keep_their_weights_names():
    """Files saved before the trunk was shared load unchanged: the trunk is ``stem`` and ``tower``."""
    keys = ZeroNet(5, blocks=1, filters=4).state_dict().keys()
    assert {key.split(".")[0] for key in keys} == {
        "stem", "tower", "point_logits", "pass_logit", "value_head", "ownership_head"
    }  # fmt: skip
