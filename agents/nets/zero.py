"""AlphaZero's network f(s) = (p, v): a residual tower over the history planes, with two heads
and KataGo's cheaper-learning extras.

The input is ``go_env.features.history_planes`` channels-first (17 planes: the side to move's
and the opponent's stones over the last 8 positions, and who is to move). A 3x3 convolution
opens a tower of ``blocks`` residual blocks (two 3x3 convolutions of ``filters`` channels
with batch norm, the input added back). With ``global_pool``, every third block also adds a
bias to each channel from the mean and the max of the board (KataGo's global pooling: a
block sees the whole board, which ko fights and the pass need).

Heads, every one fully convolutional or pooled, so the weights have no board size:

- policy: a 1x1 convolution to one logit per point; the pass logit from the pooled trunk;
- value: the pooled trunk through a hidden layer to one tanh output, the expected outcome
  for the side to move (``blocks.ValueHead``, the win head of the ownership study's baseline too);
- ownership (auxiliary, KataGo): a 1x1 convolution and a tanh per point, the final owner of
  each point from the side to move's view (+1 its own, -1 the opponent's): the
  ``OwnershipHead`` that the ownership value network (``nets.ownership``) carries too.

AlphaZero's own network is ``ZeroNet(19, blocks=20, filters=256)``. The class's default, 6 x 64,
has 478,916 weights; ``goarena train zero`` trains 4 x 32 by default (85,636 weights, a
0.36 MB file), which learns fastest on two CPU cores.
"""

from __future__ import annotations

from typing import NamedTuple

import torch
from torch import nn

from goarena.agents.nets.blocks import HistoryTrunk, ValueHead, mean_and_max
from goarena.agents.nets.ownership import OwnershipHead


class ZeroOutput(NamedTuple):
    """What ``ZeroNet`` gives for a batch of B positions of an N x N board."""

    logits: torch.Tensor  # float[B, N*N + 1], pass last (softmax outside)
    value: torch.Tensor  # float[B] in (-1, 1), for the side to move
    ownership: torch.Tensor  # float[B, N*N] in (-1, 1), for the side to move


class ZeroNet(HistoryTrunk):
    """``[B, 17, N, N]`` history planes -> ``ZeroOutput`` (logits, value, ownership): the heads
    over a ``HistoryTrunk``, whose arguments it takes (by default 6 blocks of 64 filters)."""

    arch = "zero"
    heads = ("policy", "value", "ownership")  # ZeroOutput's fields, in order

    def __init__(self, board_size: int, blocks: int = 6, filters: int = 64, global_pool: bool = True):
        super().__init__(board_size, blocks, filters, global_pool)
        self.point_logits = nn.Conv2d(filters, 1, 1)
        self.pass_logit = nn.Linear(2 * filters, 1)
        self.value_head = ValueHead(filters)
        self.ownership_head = OwnershipHead(filters)

    def forward(self, planes: torch.Tensor) -> ZeroOutput:
        """``planes`` float[B, 17, N, N] -> ``ZeroOutput``."""
        trunk = self.trunk(planes)
        pooled = mean_and_max(trunk)
        logits = torch.cat([self.point_logits(trunk).flatten(1), self.pass_logit(pooled)], dim=1)
        value = self.value_head(pooled)
        ownership = self.ownership_head(trunk)
        return ZeroOutput(logits, value, ownership)
