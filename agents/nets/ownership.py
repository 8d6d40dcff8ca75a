"""The ownership value network (Bo Peng, "Training a value function in the game of
Go"): v(s, i), the final owner of each point, and V(s) = Σ_i v(s, i), an area score.

``OwnershipHead`` is the per-point tanh head any trunk can carry: a 1x1 convolution to one
channel and a tanh, ``float[B, N*N]`` in (-1, 1), from the side to move's view (+1 its own at
the end, -1 the opponent's, 0 neither, as in seki). ``ZeroNet`` carries the same module as its
auxiliary ownership head; ``OwnershipNet`` is a residual trunk with this head alone.

The score and the win probability, for positions whose komi and side to move are known::

    ownership = model(planes)                            # float[B, N*N], v(s, i)
    scores = model.score(ownership, komi_terms)          # V = Σ v + the komi term
    p = model.win_probability(scores)                    # sigmoid(a·V + b)

The komi term is the komi from the side to move's view (``komi_term``): White to move adds
the komi, Black to move takes it away, so V > 0 means the side to move wins the count. The
map from V to a win probability is a logistic, ``p = sigmoid(a·V + b)``: ``a`` and ``b`` are
buffers (in the state dict, saved with the weights), fitted on held-out games by
``calibrate``. Before that they are a guess: ``a = 1/N``, ``b = 0`` (on 9x9 a lead of ten
points is a 75% win).

V counts area (stones and surrounded points); under territory scoring the count differs by
the stones' and prisoners' balance, which V does not see.

**The win-probability baseline.** ``WinNet`` is the same trunk with ZeroNet's value head
(``blocks.ValueHead``: the board-wide mean and max of the trunk, a hidden layer, one tanh) in
place of the ownership head: w in (-1, 1), the expected outcome for the side to move, trained
on the game's result (``goarena train ownership --method win``). It is what the claim that V
is the better value function is measured against at equal size (the default 4 x 32: 85,505
weights against the ownership network's 81,313). It has no ownership map and no V: its
forward gives w, ``float[B]``, its win probability is ``p = (1 + w) / 2`` directly, with no
calibration (``calibration`` is None), and it knows no komi but its games'.

Both are "value of a position" networks (``PositionNet``): each declares its ``heads``
(``("ownership",)``, ``("value",)``) and its ``features`` (the history planes), and
``probability(output, komi_terms)`` gives p from its own output. Files saved before
``WinNet`` had its class (arch "ownership" with ``head="win"``) load as ``WinNet``
(``nets.checkpoint``).
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from goarena.agents.nets.blocks import HistoryTrunk, ValueHead, mean_and_max

NEWTON_STEPS = 50  # calibration converges in under ten on real data
RIDGE = 1e-6  # per position: keeps the fit finite where wins and losses are separable by V
NO_OWNERSHIP = "a win-probability network (WinNet): this network has no ownership head"


class OwnershipHead(nn.Conv2d):
    """``float[B, C, N, N]`` trunk -> ``float[B, N*N]`` ownership in (-1, 1): a 1x1 convolution
    to one channel, then tanh. A ``Conv2d`` itself, so its state-dict keys are a convolution's
    (``weight``, ``bias``): networks that had a bare 1x1 convolution there load unchanged."""

    def __init__(self, filters: int):
        super().__init__(filters, 1, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(super().forward(x).flatten(1))


class OwnershipNet(HistoryTrunk):
    """``[B, 17, N, N]`` history planes -> ownership ``float[B, N*N]`` in (-1, 1), for the
    side to move.

    A 3x3 convolution over ``go_env.features.history_planes`` (channels first) opens a tower of
    ``blocks`` residual blocks of ``filters`` channels (every third with global pooling, as in
    ``ZeroNet``), closed by an ``OwnershipHead``. The weights fit any board (all convolutions
    and pooling); ``board_size`` is the one trained, recorded in the file and checked on input.
    Its arguments are ``HistoryTrunk``'s.
    """

    arch = "ownership"
    heads = ("ownership",)
    calibration_a: torch.Tensor  # p = sigmoid(a·V + b), buffers saved with the weights
    calibration_b: torch.Tensor

    def __init__(self, board_size: int, blocks: int = 4, filters: int = 32, global_pool: bool = True):
        super().__init__(board_size, blocks, filters, global_pool)
        self.ownership_head = OwnershipHead(filters)
        self.register_buffer("calibration_a", torch.tensor(1.0 / board_size))
        self.register_buffer("calibration_b", torch.tensor(0.0))

    def forward(self, planes: torch.Tensor) -> torch.Tensor:
        """``planes`` float[B, 17, N, N] -> v(s, i) float[B, N*N] in (-1, 1)."""
        return self.ownership_head(self.trunk(planes))

    @staticmethod
    def score(ownership: torch.Tensor, komi_terms: torch.Tensor) -> torch.Tensor:
        """V float32[B] = Σ_i v(s, i) + the komi term (``komi_term``), for the side to move."""
        return ownership.float().sum(dim=1) + komi_terms.float()

    def win_probability(self, scores: torch.Tensor) -> torch.Tensor:
        """float32[B]: the calibrated probability that the side to move wins, sigmoid(a·V + b)."""
        return torch.sigmoid(self.calibration_a.float() * scores.float() + self.calibration_b.float())

    def probability(self, output: torch.Tensor, komi_terms: torch.Tensor) -> torch.Tensor:
        """float32[B]: the probability that the side to move wins, from the network's output
        (``forward``'s): sigmoid(a·V + b) of V = Σ v + the komi term."""
        return self.win_probability(self.score(output, komi_terms))

    @property
    def calibration(self) -> tuple[float, float]:
        """(a, b) of the map p = sigmoid(a·V + b)."""
        return float(self.calibration_a), float(self.calibration_b)


class WinNet(HistoryTrunk):
    """The win-probability baseline: ``[B, 17, N, N]`` history planes -> w ``float[B]`` in
    (-1, 1), the expected outcome for the side to move (see the module documentation).

    ``OwnershipNet``'s trunk with ``blocks.ValueHead`` in place of the ownership head; its
    arguments are ``HistoryTrunk``'s.
    """

    arch = "win"
    heads = ("value",)
    calibration = None  # p = (1 + w) / 2: nothing to calibrate

    def __init__(self, board_size: int, blocks: int = 4, filters: int = 32, global_pool: bool = True):
        super().__init__(board_size, blocks, filters, global_pool)
        self.win_head = ValueHead(filters)

    def forward(self, planes: torch.Tensor) -> torch.Tensor:
        """``planes`` float[B, 17, N, N] -> w float[B] in (-1, 1)."""
        return self.win_head(mean_and_max(self.trunk(planes)))

    def probability(self, output: torch.Tensor, komi_terms: torch.Tensor) -> torch.Tensor:
        """float32[B]: (1 + w) / 2, the probability that the side to move wins; the komi terms
        are unused (the network knows its games' komi only)."""
        return (1.0 + output.float()) / 2.0


PositionNet = OwnershipNet | WinNet  # a "value of a position" network: ``probability(output, komi_terms)``


def komi_term(komi: float | np.ndarray, black_to_play: bool | np.ndarray) -> np.ndarray:
    """The komi from the side to move's view, float64 (an array of the inputs' broadcast
    shape): −komi for Black to move, +komi for White."""
    komi = np.asarray(komi, np.float64)
    return np.where(np.asarray(black_to_play, bool), -komi, komi)


def fit_logistic(scores: np.ndarray, outcomes: np.ndarray) -> tuple[float, float]:
    """(a, b) maximising the likelihood of ``outcomes`` under p = sigmoid(a·score + b): a
    logistic regression by Newton's method (with step halving; a tiny ridge keeps it finite
    where V separates the wins from the losses).

    Args:
        scores: V of each position, float[n].
        outcomes: each position's result for its side to move: +1 a win, -1 a loss, 0 a
            draw (counted as half a win), float[n].

    Raises:
        ValueError: shapes that differ, numbers that are not finite, outcomes outside
            [-1, 1], or no wins or no losses (nothing to fit a slope to).
    """
    x = np.asarray(scores, np.float64)
    outcome = np.asarray(outcomes, np.float64)
    if x.ndim != 1 or x.shape != outcome.shape:
        raise ValueError(
            f"scores and outcomes must be float[n] alike, got shapes {x.shape} and {outcome.shape}"
        )
    if not (np.isfinite(x).all() and np.isfinite(outcome).all()):
        raise ValueError("scores and outcomes must be finite numbers")
    if (np.abs(outcome) > 1).any():
        raise ValueError("outcomes are +1 (a win), -1 (a loss) or 0 (a draw), for the side to move")
    if not ((outcome > 0).any() and (outcome < 0).any()):
        raise ValueError(f"calibration needs both wins and losses among its {len(outcome)} positions")
    y = (outcome + 1.0) / 2.0
    design = np.stack([x, np.ones_like(x)], axis=1)
    ridge = RIDGE * len(x)

    def loss(theta: np.ndarray) -> float:
        z = design @ theta
        return float(np.sum(np.logaddexp(0.0, z) - y * z) + 0.5 * ridge * theta @ theta)

    theta = np.zeros(2)
    current = loss(theta)
    for _ in range(NEWTON_STEPS):
        p = 0.5 * (1.0 + np.tanh(0.5 * (design @ theta)))  # the sigmoid, without overflow
        gradient = design.T @ (p - y) + ridge * theta
        hessian = (design * (p * (1.0 - p))[:, None]).T @ design + ridge * np.eye(2)
        step = np.linalg.solve(hessian, gradient)
        size = 1.0
        while size > 1e-8 and loss(theta - size * step) > current:
            size /= 2.0
        theta = theta - size * step
        previous, current = current, loss(theta)
        if previous - current <= 1e-12 * max(1.0, abs(current)):
            break
    return float(theta[0]), float(theta[1])


def calibrate(
    model: OwnershipNet,
    planes: np.ndarray | torch.Tensor,
    komi_terms: np.ndarray | torch.Tensor,
    outcomes: np.ndarray | torch.Tensor,
    batch: int = 1024,
) -> tuple[float, float]:
    """Fit the map from V to a win probability on held-out positions and store it in the
    model's ``calibration_a`` and ``calibration_b`` (saved with its weights).

    Args:
        model: the network; run in eval mode, on its own device.
        planes: the positions' history planes, [n, 17, N, N].
        komi_terms: each position's komi from its side to move's view (``komi_term``), float[n].
        outcomes: each position's game result for its side to move (+1 win, -1 loss, 0 draw).
        batch: positions per forward pass.

    Returns:
        (a, b), now the model's.

    Raises:
        ValueError: as ``fit_logistic``, planes and komi terms of other counts, or a win
            network (its p is its own output's, with nothing to calibrate).
    """
    if not isinstance(model, OwnershipNet):
        raise ValueError(f"calibrate: {NO_OWNERSHIP}; its win probability (1 + w) / 2 needs no calibration")
    count = len(planes)
    komi = np.asarray(komi_terms, np.float64)
    if komi.shape != (count,):
        raise ValueError(f"{count} positions need komi_terms float[{count}], got shape {komi.shape}")
    weight = next(model.parameters())
    was_training = model.training
    model.eval()
    totals = []
    with torch.inference_mode():
        for start in range(0, count, batch):
            chunk = torch.as_tensor(planes[start : start + batch], dtype=weight.dtype, device=weight.device)
            totals.append(model(chunk).float().sum(dim=1).cpu().numpy())
    model.train(was_training)
    scores = np.concatenate(totals).astype(np.float64) + komi if count else komi
    a, b = fit_logistic(scores, np.asarray(outcomes, np.float64))
    model.calibration_a.fill_(a)
    model.calibration_b.fill_(b)
    return a, b
