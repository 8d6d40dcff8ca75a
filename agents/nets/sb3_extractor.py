"""A residual CNN features extractor for Stable-Baselines3 policies on Go's history planes.

``GoResNetExtractor`` is a residual CNN features extractor for SB3 policies on
``goarena/Go-v0``'s history planes (boards 5x5 to 19x19, channels-last ``[N, N, 17]`` or
channels-first ``[17, N, N]``, int8 or float32)::

    import gymnasium
    import go_env  # registers goarena/Go-v0
    from sb3_contrib import MaskablePPO
    from goarena.agents.nets.sb3_extractor import GoResNetExtractor

    env = gymnasium.make("goarena/Go-v0", board_size=5)
    policy_kwargs = dict(
        features_extractor_class=GoResNetExtractor,
        features_extractor_kwargs=dict(blocks=4, filters=32),
        net_arch=[],  # the extractor's features feed the policy and value heads directly
    )
    MaskablePPO("MlpPolicy", env, policy_kwargs=policy_kwargs).learn(50_000)

SB3 scales only uint8 "image" observations (by 1/255); the env's int8 and float32 planes are
0/1 and go in as they are. Add ``normalize_images=False`` to ``policy_kwargs`` if you feed
the planes as uint8.
"""

from __future__ import annotations

import torch
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from go_env.features import NUM_HISTORY_PLANES


def channels_first_of(space: spaces.Space, channels_first: bool | None = None) -> bool:
    """Whether ``space`` holds the history planes channels-first ``[17, N, N]`` (True) or
    channels-last ``[N, N, 17]`` (False).

    Args:
        space: an observation space.
        channels_first: the layout, for a 17x17 board where the shape cannot tell; None: from
            the shape.

    Raises:
        ValueError: the space is no Box of Go planes, or the layout is ambiguous or contradicted.
    """
    shape = getattr(space, "shape", None)
    if not isinstance(space, spaces.Box) or shape is None or len(shape) != 3:
        raise ValueError(f"expected a Box of Go planes [N, N, 17] or [17, N, N], got {space}")
    first = shape[0] == NUM_HISTORY_PLANES and shape[1] == shape[2]
    last = shape[2] == NUM_HISTORY_PLANES and shape[0] == shape[1]
    if channels_first is None:
        if first and last:
            raise ValueError(
                f"the shape {shape} is channels-first and channels-last alike (a 17x17 board): "
                "pass channels_first=True or False"
            )
        if not (first or last):
            raise ValueError(f"expected Go planes [N, N, 17] or [17, N, N], got shape {shape}")
        return first
    if not (first if channels_first else last):
        layout = "[17, N, N]" if channels_first else "[N, N, 17]"
        raise ValueError(f"channels_first={channels_first} expects the shape {layout}, got {shape}")
    return channels_first


def board_size_of(space: spaces.Space, channels_first: bool | None = None) -> int:
    """The board size N of an observation space of Go planes."""
    return int(space.shape[1] if channels_first_of(space, channels_first) else space.shape[0])  # type: ignore[index]


class _ResidualBlock(nn.Module):
    """Two 3x3 convolutions and a skip connection. No batch norm (PPO switches between train
    and eval modes on small batches); the residual branch is scaled by a learned factor that
    starts at 0, so each block starts as the identity whatever initialisation SB3 applies."""

    def __init__(self, filters: int):
        super().__init__()
        self.convs = nn.Sequential(
            nn.Conv2d(filters, filters, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(filters, filters, 3, padding=1),
        )
        self.scale = nn.Parameter(torch.zeros(1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + self.scale * self.convs(x))


class GoResNetExtractor(BaseFeaturesExtractor):
    """A residual CNN over the history planes, for SB3 policies (see the module docs).

    A 3x3 convolution to ``filters`` channels, ``blocks`` residual blocks, then a compact
    head: a 1x1 convolution to ``head_channels`` channels, flattened, and a linear layer to
    ``features_dim`` features (about 370k weights in the head on 19x19 by default).

    Args:
        observation_space: a Box of Go planes, ``[N, N, 17]`` or ``[17, N, N]``, any dtype.
        blocks: residual blocks.
        filters: channels of the convolutions.
        head_channels: channels of the 1x1 convolution before the linear layer.
        features_dim: the features handed to the policy and value heads.
        channels_first: the layout, needed on 17x17 only (None: from the shape).
    """

    def __init__(
        self,
        observation_space: spaces.Space,
        blocks: int = 4,
        filters: int = 32,
        head_channels: int = 4,
        features_dim: int = 256,
        channels_first: bool | None = None,
    ):
        for name, value in (
            ("filters", filters),
            ("head_channels", head_channels),
            ("features_dim", features_dim),
        ):
            if value < 1:
                raise ValueError(f"{name} must be positive, got {value}")
        if blocks < 0:
            raise ValueError(f"blocks must be >= 0, got {blocks}")
        self.channels_first = channels_first_of(observation_space, channels_first)
        size = board_size_of(observation_space, self.channels_first)
        super().__init__(observation_space, features_dim)
        self.stem = nn.Sequential(nn.Conv2d(NUM_HISTORY_PLANES, filters, 3, padding=1), nn.ReLU())
        self.blocks = nn.Sequential(*(_ResidualBlock(filters) for _ in range(blocks)))
        self.head = nn.Sequential(
            nn.Conv2d(filters, head_channels, 1),
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(head_channels * size * size, features_dim),
            nn.ReLU(),
        )

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        """``[B, 17, N, N]`` or ``[B, N, N, 17]`` planes, any dtype -> float ``[B, features_dim]``."""
        x = observations.float()
        if not self.channels_first:
            x = x.permute(0, 3, 1, 2)
        return self.head(self.blocks(self.stem(x)))
