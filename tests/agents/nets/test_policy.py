import pytest
import torch

from goarena.agents.nets.policy import PolicyNet


@pytest.mark.parametrize("size", [5, 9, 13, 19])
def test_logits_cover_every_point_and_pass(size):
    net = PolicyNet(size, layers=3, filters=4)
    logits = net(torch.zeros(2, 48, size, size))
    assert logits.shape == (2, size * size + 1)


def test_the_seeds_19x19_network_builds():
    net = PolicyNet(19, layers=13, filters=192)
    convolutions = [m for m in net.modules() if isinstance(m, torch.nn.Conv2d)]
    assert len(convolutions) == 13
    assert [m.kernel_size for m in convolutions[:2]] == [(5, 5), (3, 3)]
    assert convolutions[-1].kernel_size == (1, 1) and convolutions[-1].out_channels == 1
    assert all(m.out_channels == 192 for m in convolutions[:-1])


def test_the_default_9x9_network_is_small():
    weights = sum(p.numel() for p in PolicyNet(9).parameters())
    assert 100_000 < weights < 500_000  # under 2 MB as float32


def test_point_bias_and_pass_logit_reach_the_output():
    net = PolicyNet(5, layers=2, filters=4)
    with torch.no_grad():
        net.point_bias[7] = 5.0
        net.pass_head.bias.fill_(-3.0)
        for module in (net.hidden[0], net.point_head, net.pass_head):
            module.weight.zero_()
    logits = net(torch.rand(1, 48, 5, 5))[0]
    assert logits[7] == 5.0 and logits[25] == -3.0 and logits[:7].abs().sum() == 0


@pytest.mark.parametrize(
    "kwargs",
    [{"layers": 1}, {"filters": 0}, {"planes": 0}, {"layers": 2.5}, {"board_size": 1}],
)
def test_bad_arguments_are_refused(kwargs):
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        PolicyNet(**{"board_size": 5, **kwargs})


def test_planes_of_another_board_are_refused():
    with pytest.raises(ValueError, match=r"shape \[B, 48, 5, 5\]"):
        PolicyNet(5, layers=2, filters=4)(torch.zeros(1, 48, 9, 9))
