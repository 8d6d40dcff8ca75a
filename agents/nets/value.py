"""AlphaGo's value network: how good a position is for the side to move.

The policy network's convolution stack (a 5x5 convolution, then ``layers - 2`` 3x3 ones, all
``filters`` wide, ReLU, 'same' padding) over 49 planes (the policy's 48 and the player's
colour), then a 1x1 convolution to one channel, a fully connected layer of ``hidden`` ReLU
units and one tanh output: the expected outcome for the side to move, in (-1, 1). The paper's
19x19 network is ``ValueNet(19, layers=13, filters=192)`` (its 12th and 13th convolutions are
our 3x3 stack's last and the 1x1); the 9x9 default (6 x 64) has about 240k weights.
"""

from __future__ import annotations

import torch
from torch import nn

from goarena.agents.nets.features import alphago_features
from goarena.agents.nets.network import Network
from goarena.agents.nets.policy import check_dimensions, convolution_stack

VALUE_PLANES = 49
HIDDEN_UNITS = 256


class ValueNet(Network):
    """Values of N x N positions: ``[B, planes, N, N] -> [B]`` in (-1, 1), for the side to move.

    Args:
        board_size: N; the fully connected layer fits only this size.
        planes: input feature planes (49: AlphaGo's 48 and the player's colour).
        layers: convolutions in all, the 5x5 and the final 1x1 included (at least 2).
        filters: channels of every hidden convolution.
        hidden: units of the fully connected layer.
    """

    arch = "value"
    heads = ("value",)

    def __init__(
        self,
        board_size: int,
        planes: int = VALUE_PLANES,
        layers: int = 6,
        filters: int = 64,
        hidden: int = HIDDEN_UNITS,
    ):
        check_dimensions(
            layers, board_size=(board_size, 2), planes=(planes, 1), filters=(filters, 1), hidden=(hidden, 1)
        )
        super().__init__(
            planes, board_size=board_size, planes=planes, layers=layers, filters=filters, hidden=hidden
        )
        self.features = alphago_features(planes)
        convolutions = convolution_stack(planes, layers, filters)
        convolutions.append(nn.Conv2d(filters, 1, 1))  # linear: one ReLU channel could die
        self.convolutions = nn.Sequential(*convolutions)
        self.head = nn.Sequential(
            nn.Flatten(),
            nn.Linear(board_size * board_size, hidden),
            nn.ReLU(),
            nn.Linear(hidden, 1),
            nn.Tanh(),
        )

    def forward(self, planes: torch.Tensor) -> torch.Tensor:
        """``planes`` float[B, planes, N, N] -> values float[B] in (-1, 1)."""
        return self.head(self.convolutions(self.check_planes(planes))).squeeze(1)
