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
  ``OwnershipHead`` that the ownership value network (``nets.ownership``) carries too;
- score (with ``score_head``, KataGo's score mean): the pooled trunk through a hidden layer to
  one linear output, the expected final margin for the side to move in points (komi counted).

With ``rules_input`` the network reads the game's rules too (``HISTORY_AND_RULES``: the komi
from the side to move's view and the scoring rule as two constant planes after the history
planes), as KataGo's global inputs: a linear map of (komi / 15, territory scoring) adds a bias
to each channel of the first convolution, before its batch norm. Without both options the
network is the one the first files were saved with (their weights load unchanged);
``widen_from`` starts a network with them from such a file's weights, playing as it did.

AlphaZero's own network is ``ZeroNet(19, blocks=20, filters=256)``. The class's default, 6 x 64,
has 478,916 weights; ``goarena train zero`` trains 4 x 32 by default, which learns fastest on
two CPU cores: 85,636 weights (a 0.36 MB file) as the shipped network, 89,925 with the rules
input and the score head (its default now).
"""

from __future__ import annotations

from typing import NamedTuple, cast

import torch
from torch import nn

from go_env.features import NUM_HISTORY_PLANES
from goarena.agents.nets.blocks import VALUE_HIDDEN, HistoryTrunk, ValueHead, mean_and_max
from goarena.agents.nets.features import HISTORY_AND_RULES, KOMI_PLANE, RULES_PLANES, SCORING_PLANE
from goarena.agents.nets.ownership import OwnershipHead

KOMI_SCALE = 15.0  # the komi input is komi / 15 (KataGo's is komi / 20 on 19x19)


class ZeroOutput(NamedTuple):
    """What ``ZeroNet`` gives for a batch of B positions of an N x N board."""

    logits: torch.Tensor  # float[B, N*N + 1], pass last (softmax outside)
    value: torch.Tensor  # float[B] in (-1, 1), for the side to move
    ownership: torch.Tensor  # float[B, N*N] in (-1, 1), for the side to move
    score: torch.Tensor | None = None  # float[B], points for the side to move; None without the head


class ScoreHead(nn.Sequential):
    """``float[B, 2C]`` pooled trunk -> ``float[B]``, the expected final margin for the side to
    move in points: a hidden layer with ReLU and one linear output, times ``scale`` (the board
    size, so the layer's output is of order one on every board)."""

    def __init__(self, filters: int, scale: float, hidden: int = VALUE_HIDDEN):
        super().__init__(nn.Linear(2 * filters, hidden), nn.ReLU(), nn.Linear(hidden, 1))
        self.scale = scale

    @property
    def output(self) -> nn.Linear:
        """The last layer (zeroed by ``widen_from``)."""
        return cast(nn.Linear, self[2])

    def forward(self, pooled: torch.Tensor) -> torch.Tensor:
        return super().forward(pooled).squeeze(1) * self.scale


class ZeroNet(HistoryTrunk):
    """History planes ``[B, 17, N, N]`` (``[B, 19, N, N]`` with the rules planes, ``rules_input``)
    -> ``ZeroOutput`` (logits, value, ownership, and the score with ``score_head``): the heads
    over a ``HistoryTrunk``, whose arguments it takes (by default 6 blocks of 64 filters).

    Args:
        rules_input: read the komi and the scoring rule (see the module documentation).
        score_head: predict the final margin.
    """

    arch = "zero"

    def __init__(
        self,
        board_size: int,
        blocks: int = 6,
        filters: int = 64,
        global_pool: bool = True,
        rules_input: bool = False,
        score_head: bool = False,
    ):
        super().__init__(board_size, blocks, filters, global_pool)
        for name, flag in (("rules_input", rules_input), ("score_head", score_head)):
            if not isinstance(flag, bool):
                raise ValueError(f"{name} is true or false, got {flag!r}")
        if rules_input or score_head:  # files saved before these options record none of them
            self.kwargs.update(rules_input=rules_input, score_head=score_head)
        if rules_input:
            self.features = HISTORY_AND_RULES
            self.planes = HISTORY_AND_RULES.planes
        self.point_logits = nn.Conv2d(filters, 1, 1)
        self.pass_logit = nn.Linear(2 * filters, 1)
        self.value_head = ValueHead(filters)
        self.ownership_head = OwnershipHead(filters)
        self.rules_input = nn.Linear(RULES_PLANES, filters, bias=False) if rules_input else None
        self.score_head = ScoreHead(filters, float(board_size)) if score_head else None
        # ZeroOutput's fields, in order, that this network gives
        self.heads: tuple[str, ...] = ("policy", "value", "ownership") + (("score",) if score_head else ())

    def trunk(self, planes: torch.Tensor) -> torch.Tensor:
        """``planes`` float[B, 17 or 19, N, N] -> the tower's output float[B, filters, N, N]."""
        if self.rules_input is None:
            return super().trunk(planes)
        planes = self.check_planes(planes)
        rules = torch.stack(
            [planes[:, KOMI_PLANE, 0, 0] * (0.5 / KOMI_SCALE), planes[:, SCORING_PLANE, 0, 0]], dim=1
        )
        convolution, norm, relu = self.stem
        opened = convolution(planes[:, :NUM_HISTORY_PLANES]) + self.rules_input(rules)[:, :, None, None]
        return self.tower(relu(norm(opened)))

    def fold_batch_norms(self) -> None:
        """``HistoryTrunk.fold_batch_norms``; the rules input, which adds its bias between the
        stem's convolution and its norm, is scaled by that norm as the convolution is."""
        if self.rules_input is not None:
            norm = cast(nn.BatchNorm2d, self.stem[1])
            scale = norm.weight / torch.sqrt(cast(torch.Tensor, norm.running_var) + norm.eps)
            with torch.no_grad():
                self.rules_input.weight.mul_(scale[:, None])
        super().fold_batch_norms()

    def forward(self, planes: torch.Tensor) -> ZeroOutput:
        """``planes`` float[B, 17 or 19, N, N] -> ``ZeroOutput``."""
        trunk = self.trunk(planes)
        pooled = mean_and_max(trunk)
        logits = torch.cat([self.point_logits(trunk).flatten(1), self.pass_logit(pooled)], dim=1)
        value = self.value_head(pooled)
        ownership = self.ownership_head(trunk)
        score = self.score_head(pooled) if self.score_head is not None else None
        return ZeroOutput(logits, value, ownership, score)


def widen_from(model: ZeroNet, state_dict: dict[str, torch.Tensor]) -> list[str]:
    """Start ``model`` from an older ZeroNet's weights (``state_dict``, of the same trunk and
    heads, without the rules input or the score head): every tensor they share is copied, the
    rules input's weights and the score head's output layer are zeroed, so the network plays
    exactly as the old one (its score is 0 until trained). Returns the names of the tensors the
    old weights lacked.

    Raises:
        ValueError: a tensor of both whose shapes differ (another board, tower or width).
    """
    own = model.state_dict()
    for name, tensor in state_dict.items():
        if name not in own:
            raise ValueError(f"the old weights hold {name!r}, which this network lacks")
        if own[name].shape != tensor.shape:
            raise ValueError(
                f"the old weights' {name!r} is {list(tensor.shape)}, this network's {list(own[name].shape)}"
            )
    missing = [name for name in own if name not in state_dict]
    with torch.no_grad():
        model.load_state_dict(state_dict, strict=False)
        if model.rules_input is not None and "rules_input.weight" in missing:
            model.rules_input.weight.zero_()
        if model.score_head is not None and "score_head.2.weight" in missing:
            output = model.score_head.output
            output.weight.zero_()
            output.bias.zero_()
    return missing
