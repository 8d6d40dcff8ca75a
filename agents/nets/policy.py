"""AlphaGo's SL policy network, with a pass move.

A 5x5 convolution, ``layers - 2`` 3x3 convolutions (all ``filters`` wide, ReLU, 'same'
padding), then a 1x1 convolution to one channel plus a bias per point: one logit per point.
Go as we play it also needs pass, which no point stands for: its logit is a linear function
of the last hidden layer averaged over the board. The AlphaGo paper's network for 19x19 is
``PolicyNet(19, layers=13, filters=192)``; the 9x9 default (6 x 64, about 225k weights,
0.9 MB) trains on a small CPU in half an hour.
"""

from __future__ import annotations

import torch
from torch import nn

from goarena.agents.nets.features import alphago_features
from goarena.agents.nets.network import Network

ALPHAGO_PLANES = 48


def check_dimensions(layers: object, **dimensions: tuple[object, int]) -> None:
    """Refuse a dimension (name=(value, least)) that is not an integer of at least ``least``,
    and ``layers`` below 2 (it counts the 5x5 and the 1x1 convolutions)."""
    for name, (value, least) in dimensions.items():
        if not isinstance(value, int) or isinstance(value, bool) or value < least:
            raise ValueError(f"{name} must be an integer >= {least}, got {value!r}")
    if not isinstance(layers, int) or isinstance(layers, bool) or layers < 2:
        raise ValueError(f"layers counts the 5x5 and the 1x1 convolutions: at least 2, got {layers!r}")


def convolution_stack(planes: int, layers: int, filters: int) -> list[nn.Module]:
    """AlphaGo's convolutions before the 1x1: a 5x5 one, then ``layers - 2`` 3x3 ones, each
    followed by a ReLU."""
    stack: list[nn.Module] = [nn.Conv2d(planes, filters, 5, padding=2), nn.ReLU()]
    for _ in range(layers - 2):
        stack += [nn.Conv2d(filters, filters, 3, padding=1), nn.ReLU()]
    return stack


class PolicyNet(Network):
    """Logits over the moves of an N x N board: ``[B, planes, N, N] -> [B, N*N + 1]`` (pass last).

    Args:
        board_size: N; the convolutions fit any N, the per-point bias only this one.
        planes: input feature planes (48: AlphaGo's features).
        layers: convolutions in all, the 5x5 and the final 1x1 included (at least 2).
        filters: channels of every hidden layer.
    """

    arch = "policy"
    heads = ("policy",)

    def __init__(self, board_size: int, planes: int = ALPHAGO_PLANES, layers: int = 6, filters: int = 64):
        check_dimensions(layers, board_size=(board_size, 2), planes=(planes, 1), filters=(filters, 1))
        super().__init__(planes, board_size=board_size, planes=planes, layers=layers, filters=filters)
        self.features = alphago_features(planes)
        self.hidden = nn.Sequential(*convolution_stack(planes, layers, filters))
        self.point_head = nn.Conv2d(filters, 1, 1, bias=False)
        self.point_bias = nn.Parameter(torch.zeros(board_size * board_size))
        self.pass_head = nn.Linear(filters, 1)

    def forward(self, planes: torch.Tensor) -> torch.Tensor:
        """``planes`` float[B, planes, N, N] -> logits float[B, N*N + 1] (softmax outside)."""
        features = self.hidden(self.check_planes(planes))
        points = self.point_head(features).flatten(1) + self.point_bias
        passing = self.pass_head(features.mean(dim=(2, 3)))
        return torch.cat([points, passing], dim=1)
