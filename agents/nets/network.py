"""What every board network of goarena records and checks, once: ``Network``.

A network keeps its constructor's keyword arguments (``kwargs``, JSON-safe: ``nets.checkpoint``
saves them beside the weights and rebuilds the network from the file alone), the board size it
plays and the number of planes it reads; ``check_planes`` refuses an input of any other shape
with a message naming both shapes. ``PolicyNet``, ``ValueNet``, ``ZeroNet``, ``OwnershipNet``
and ``WinNet`` are networks; they hold no weights of this class, so their state dicts are their
own layers' alone.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn


class Network(nn.Module):
    """A network over ``[B, planes, N, N]`` feature planes.

    Args:
        planes: the planes it reads (channels first).
        kwargs: its constructor's keyword arguments, ``board_size`` (N) among them.
    """

    arch = ""  # the name its checkpoints carry (``nets.checkpoint.ARCHITECTURES``)

    def __init__(self, planes: int, /, **kwargs: Any):
        super().__init__()
        self.kwargs: dict[str, Any] = kwargs
        self.board_size: int = kwargs["board_size"]
        self.planes = planes

    def check_planes(self, planes: torch.Tensor) -> torch.Tensor:
        """``planes`` itself when it is ``float[B, planes, N, N]``.

        Raises:
            ValueError: planes of another shape.
        """
        expected = (self.planes, self.board_size, self.board_size)
        if planes.dim() != 4 or tuple(planes.shape[1:]) != expected:
            raise ValueError(
                f"expected planes of shape [B, {', '.join(map(str, expected))}], got {list(planes.shape)}"
            )
        return planes
