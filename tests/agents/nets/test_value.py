import pytest
import torch

from goarena.agents.nets.checkpoint import describe, load_model, save_model
from goarena.agents.nets.value import VALUE_PLANES, ValueNet


@pytest.mark.parametrize("size", [5, 9, 19])
def test_one_value_per_position(size):
    net = ValueNet(size, layers=3, filters=4, hidden=8)
    assert net(torch.rand(3, VALUE_PLANES, size, size)).shape == (3,)


def test_values_stay_within_minus_one_and_one_however_large_the_weights():
    torch.manual_seed(0)
    net = ValueNet(5, layers=2, filters=4, hidden=8)
    with torch.no_grad():
        for parameter in net.parameters():
            parameter.mul_(100.0)
    values = net(torch.rand(64, VALUE_PLANES, 5, 5) * 10)
    assert values.abs().max() <= 1.0
    assert values.min() < 0 < values.max()  # both signs reached: a tanh, not a sigmoid


def test_the_seeds_19x19_network_builds():
    net = ValueNet(19, layers=13, filters=192)
    convolutions = [m for m in net.modules() if isinstance(m, torch.nn.Conv2d)]
    assert len(convolutions) == 13 and convolutions[0].in_channels == 49
    assert [m.kernel_size for m in convolutions[:2]] == [(5, 5), (3, 3)]
    assert convolutions[-1].kernel_size == (1, 1) and convolutions[-1].out_channels == 1
    linear = [m for m in net.modules() if isinstance(m, torch.nn.Linear)]
    assert [(m.in_features, m.out_features) for m in linear] == [(361, 256), (256, 1)]


def test_the_default_9x9_network_is_small():
    weights = sum(p.numel() for p in ValueNet(9).parameters())
    assert 100_000 < weights < 500_000


def test_a_checkpoint_brings_back_the_same_network(tmp_path):
    torch.manual_seed(3)
    net = ValueNet(5, layers=3, filters=4, hidden=8).eval()
    save_model(tmp_path / "value.pt", net)
    assert describe(tmp_path / "value.pt") == ("value", net.kwargs)
    loaded = load_model(tmp_path / "value.pt")
    assert isinstance(loaded, ValueNet) and loaded.kwargs == net.kwargs
    planes = torch.rand(4, VALUE_PLANES, 5, 5)
    assert torch.equal(loaded(planes), net(planes))


@pytest.mark.parametrize(
    "kwargs",
    [{"layers": 1}, {"filters": 0}, {"planes": 0}, {"hidden": 0}, {"layers": 2.5}, {"board_size": 1}],
)
def test_bad_arguments_are_refused(kwargs):
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        ValueNet(**{"board_size": 5, **kwargs})


def test_planes_of_another_board_or_count_are_refused():
    net = ValueNet(5, layers=2, filters=4, hidden=8)
    with pytest.raises(ValueError, match=r"shape \[B, 49, 5, 5\]"):
        net(torch.zeros(1, 49, 9, 9))
    with pytest.raises(ValueError, match=r"shape \[B, 49, 5, 5\]"):
        net(torch.zeros(1, 48, 5, 5))
