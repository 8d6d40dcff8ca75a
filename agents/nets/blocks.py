"""Building blocks the convolutional trunks share: the residual block with KataGo's optional
global pooling, the board-wide mean and max it pools with, the value head over them, and
``HistoryTrunk``, the residual network over the history planes that ``ZeroNet``, ``OwnershipNet``
and ``WinNet`` each close with their heads.

``ZeroNet`` (AlphaZero's network) and ``OwnershipNet`` (Bo Peng's ownership value network)
build their towers of these blocks; their state-dict keys are the blocks' own
(``conv1``, ``norm1``, ``conv2``, ``norm2``, ``pool``). ``ValueHead`` is ZeroNet's value head
and the win head of ``WinNet``, the win-probability baseline the ownership value V is measured
against.
"""

from __future__ import annotations

from typing import cast

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.fusion import fuse_conv_bn_eval

from go_env.features import NUM_HISTORY_PLANES
from goarena.agents.nets.features import HISTORY
from goarena.agents.nets.network import Network
from goarena.agents.nets.policy import check_dimensions

VALUE_HIDDEN = 64


def mean_and_max(x: torch.Tensor) -> torch.Tensor:
    """float[B, 2C]: the mean and the max of each channel of ``x`` float[B, C, N, N] over the board."""
    if x.dtype == torch.bfloat16 and x.device.type == "cpu":
        # Reduced in float32: on the CPU a bfloat16 amax over the board takes about 15 times
        # as long as the float32 cast and amax together (torch 2.13; a tenth of a forward pass).
        return mean_and_max(x.float()).to(x.dtype)
    return torch.cat([x.mean(dim=(2, 3)), x.amax(dim=(2, 3))], dim=1)


class ResidualBlock(nn.Module):
    """Two 3x3 convolutions with batch norm, the input added back; with ``global_pool``, the
    first convolution's output gets a per-channel bias from its board-wide mean and max."""

    def __init__(self, filters: int, global_pool: bool):
        super().__init__()
        self.conv1 = nn.Conv2d(filters, filters, 3, padding=1, bias=False)
        self.norm1: nn.Module = nn.BatchNorm2d(filters)  # nn.Identity once folded
        self.conv2 = nn.Conv2d(filters, filters, 3, padding=1, bias=False)
        self.norm2: nn.Module = nn.BatchNorm2d(filters)
        self.pool = nn.Linear(2 * filters, filters) if global_pool else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.relu(self.norm1(self.conv1(x)))
        if self.pool is not None:
            y = y + self.pool(mean_and_max(y))[:, :, None, None]
        return F.relu(x + self.norm2(self.conv2(y)))


class ValueHead(nn.Sequential):
    """``float[B, 2C]``, a trunk's board-wide mean and max (``mean_and_max``) -> ``float[B]`` in
    (-1, 1), the expected outcome for the side to move: a hidden layer of ``hidden`` units with
    ReLU, then one tanh output. A ``Sequential`` itself, so its state-dict keys (``0.weight``,
    ``2.bias``, ...) are those of the bare layers ZeroNet's value head was before it was shared."""

    def __init__(self, filters: int, hidden: int = VALUE_HIDDEN):
        super().__init__(nn.Linear(2 * filters, hidden), nn.ReLU(), nn.Linear(hidden, 1), nn.Tanh())

    def forward(self, pooled: torch.Tensor) -> torch.Tensor:
        return super().forward(pooled).squeeze(1)


def folded(convolution: nn.Module, norm: nn.Module) -> nn.Conv2d:
    """The convolution followed by the batch norm (in eval mode) as one convolution."""
    return fuse_conv_bn_eval(cast(nn.Conv2d, convolution), cast(nn.BatchNorm2d, norm))


POOL_EVERY = 3  # a block with global pooling every this many


def residual_trunk(
    planes: int, board_size: int, blocks: int, filters: int, global_pool: bool
) -> tuple[nn.Sequential, nn.Sequential]:
    """The stem (a 3x3 convolution, batch norm, ReLU) and the tower of ``blocks`` residual
    blocks, every third with global pooling: the trunk ``ZeroNet`` and ``OwnershipNet`` share,
    their ``stem`` and ``tower`` (so that their weights keep those names).

    Raises:
        ValueError: a dimension below its least value, or ``global_pool`` not a bool.
    """
    check_dimensions(2, board_size=(board_size, 2), blocks=(blocks, 1), filters=(filters, 1))
    if not isinstance(global_pool, bool):
        raise ValueError(f"global_pool is true or false, got {global_pool!r}")
    stem = nn.Sequential(
        nn.Conv2d(planes, filters, 3, padding=1, bias=False), nn.BatchNorm2d(filters), nn.ReLU()
    )
    tower = nn.Sequential(
        *(ResidualBlock(filters, global_pool and i % POOL_EVERY == POOL_EVERY - 1) for i in range(blocks))
    )
    return stem, tower


class HistoryTrunk(Network):
    """The residual trunk over the 17 history planes (``go_env.features.history_planes``,
    channels first) that a network closes with its heads: ``trunk`` gives its ``float[B, C, N, N]``.

    Args:
        board_size: N, the board it plays (the weights fit any; checked on input).
        blocks: residual blocks.
        filters: channels of the tower.
        global_pool: global pooling in every third block.
    """

    features = HISTORY

    def __init__(self, board_size: int, blocks: int, filters: int, global_pool: bool):
        super().__init__(
            NUM_HISTORY_PLANES, board_size=board_size, blocks=blocks, filters=filters, global_pool=global_pool
        )
        self.stem, self.tower = residual_trunk(NUM_HISTORY_PLANES, board_size, blocks, filters, global_pool)

    def trunk(self, planes: torch.Tensor) -> torch.Tensor:
        """``planes`` float[B, 17, N, N] -> the tower's output float[B, filters, N, N]."""
        return self.tower(self.stem(self.check_planes(planes)))

    def fold_batch_norms(self) -> None:
        """Fold each batch norm into the convolution before it (the same function in eval
        mode, one operation fewer each: about 5% of a forward pass at play). For inference
        only: the network can no longer be trained or saved as its architecture."""
        self.eval()
        self.stem[0], self.stem[1] = folded(self.stem[0], self.stem[1]), nn.Identity()
        for block in self.tower:
            assert isinstance(block, ResidualBlock)
            block.conv1, block.norm1 = folded(block.conv1, block.norm1), nn.Identity()
            block.conv2, block.norm2 = folded(block.conv2, block.norm2), nn.Identity()
