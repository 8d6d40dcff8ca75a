"""``goarena train ownership``: Bo Peng's ownership value network by its three methods.

The network (``agents.nets.ownership.OwnershipNet``) gives v(s, i) in (-1, 1), the final owner
of point i from the side to move's view, and V(s) = Σ_i v(s, i) (+ the komi term), an area
score. ``--method`` picks one or more of the seed's methods (``end,moves`` combines their
losses, each times its ``--*-weight``); every minibatch of ``--batch-size`` positions, each
under a random one of the 8 symmetries, serves all of them. Adam, its rate decayed along a
half cosine (``--lr-schedule constant`` keeps it).

**end** (Method 1, fit the end-game): v(s, i) -> v(s_e, i), the final owner, for every
position of a played-out game, a squared error per point. The seed asks for "a learning
speed related to the number of moves passed", since v(s, ·) nears v(s_e, ·) as the game nears
its end: position t of a game of T moves weighs ``((t + 1) / T) ** k`` (``--end-power`` k,
1 by default; 0 weighs all alike), the minibatch's loss the weighted mean. Normalising by the
weights keeps the loss's scale (and so the learning rate's meaning) whatever k; the opening's
positions, whose final owner is mostly chance under imperfect play, count least. Positions
without final owners (resigned games, records without marks) are skipped.

**moves** (Method 2, fit moves): for the move i chosen at s (the expert's, or the argmax of
the search's policy target in self-play) and ``--moves-alternatives`` alternatives j, drawn at
random among the empty points and the pass (illegal ones, suicide or a repeated board, are
dropped), the children s+i and s+j are made from the history planes (``children_planes`` of
``go_env.features.history``: the child's planes are its board followed by s's boards). With
``--moves-pool P`` the alternatives are instead the ones the network as it stands values
highest among P random ones (evaluated without gradient): they are the likeliest to break the
seed's inequality. Values are taken from the mover at s's view: V(s+j) there is -Σ v(s+j, ·)
of the child (the komi term is the same for every child and cancels). Where V(s+j) > V(s+i),
the child s+j is trained:

- ``--moves-form soft`` (the seed's): v(s+j, k) toward v(s+j, k) + (V(s+i) - V(s+j)) / N²
  at every point k, clipped to [-1, 1];
- ``--moves-form aggressive``: toward min(v(s+j, k), v(s+i, k)) point by point, both from
  s's mover's view. Only where the inequality is broken, as for the soft form: the seed's
  "for all j" would pull down alternatives already below i, which it calls too aggressive.

Targets carry no gradient; the loss is the squared error per point summed over the broken
pairs and divided by all pairs scored, so it falls to 0 as the inequality comes to hold.
``--moves-raise W`` also trains V(s+i) up toward the highest such V(s+j) (soft form), W its
weight.

**minimax** (Method 3, minimax consistency, bootstrapping): the shallow search is the
network's static value V(s), a 0-ply search; the deeper one a 1-ply search of the same
position: max over children j of -V'(s+j), over the chosen move and ``--minimax-children``
minus one random legal moves, each child valued by the target network V', a copy of the
network refreshed every ``--target-every`` steps (a slowly moving target, as in DQN, so that
the network does not chase its own last step). V(s) is trained toward that value in the soft
form: v(s, k) toward v(s, k) + (V* - V(s)) / N², clipped, no gradient through it. The max is
over a sample of children (the chosen one always among them), so it bounds the full 1-ply
value from below. A child is valued by the network, except the one end-game position the data
knows: at a game's last position, the opponent having just passed, passing ends the game, and
that child is worth the final area score (the seed's exact value of an end-game position,
dead stones off), always among the children. Without it the minimax property alone is met by
V = 0 everywhere; with it, it is bootstrapping from the true end (as temporal differences).

**win** (the baseline of the seed's claim that V is the better value function): the same
trunk with a win head in place of the ownership head (``WinNet``: the
board-wide mean and max of the trunk, a hidden layer, one tanh, as AlphaZero's value head),
w(s) trained by the squared error to z, the game's result for the side to move (+1, -1, 0 a
draw), on every position of the same data: the same split, minibatches, symmetries,
optimizer and schedule as the ownership methods under the same seed, so a league of the
exported files compares the value functions alone. Positions of resigned games count too
(their result is known; Method 1 skips them, having no final owners). Its head differs, so it
combines with none of the seed's methods. Its held-out metrics are the squared error
(``win_mse``) and the share of decided positions (draws aside) where sign(w) is the result
(``win_accuracy``, which picks the best checkpoint), overall and by the same move buckets;
its export is not calibrated, its win probability being (1 + w) / 2 already
(``calibration`` is null in metrics.json). It learns its games' komi with them: unlike V, it
cannot be told another.

Games are split into training and held-out games. At each checkpoint the held-out sample is
scored (``ownership_accuracy``): the sign agreement of v(s, i) with the final owner (points
with an owner, of played-out games) and the score error |Σ v - final score| (komi excluded on
both sides), overall and by move-number bucket (0-10, 10-20, ...), to TensorBoard; the best
checkpoint by sign agreement (by score error for moves and minimax without end: they train V,
not the map, whose signs stay a coin's) is exported as ``ownership.pt`` with its win probability
calibrated (``agents.nets.ownership.calibrate``) on held-out positions against their games'
results, and its metrics on every held-out position go to ``metrics.json``.

A run resumes after ``kill -9`` with the same weights: each step's draws come from the seed
and the step, and the target network is refreshed only at steps that are checkpointed
(``--checkpoint-every`` a multiple of ``--target-every``), where it is the saved network.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from go_env.features.history import children_planes
from go_env.features.symmetry import SYMMETRIES, transform_moves, transform_planes
from goarena.agents.declared import one_of, option, positive
from goarena.agents.nets.checkpoint import save_model
from goarena.agents.nets.ownership import OwnershipNet, WinNet
from goarena.agents.training import loop
from goarena.agents.training.config import LR_SCHEDULES, SupervisedConfig, at_least_zero
from goarena.agents.training.loop import cosine_lr, held_out_split, run_training, set_lr, step_rng
from goarena.agents.training.ownership_data import (
    MOVE_BUCKET,
    OwnershipBatch,
    OwnershipPositions,
    candidate_moves,
    game_ending_scores,
    open_positions,
)

DESCRIPTION = (
    "Train the ownership value network by the seed's methods: end, moves, minimax "
    "(or win, the win-probability baseline; resumable)."
)
WEIGHTS = "ownership.pt"
METHODS = ("end", "moves", "minimax", "win")
WIN = "win"  # the win-probability baseline: its own head, alone
MOVES_FORMS = ("soft", "aggressive")
CALIBRATION_POSITIONS = 20000  # held-out positions the win probability is fitted on, at most


def _methods(name: str, value: str) -> str | None:
    chosen = value.split(",")
    unknown = [each for each in chosen if each not in METHODS]
    if unknown or not value:
        return f"{name} is one or more of {', '.join(METHODS)} (comma-separated), got {value!r}"
    if len(set(chosen)) != len(chosen):
        return f"{name} names a method twice: {value!r}"
    if WIN in chosen and len(chosen) > 1:
        return (
            f"{name} win trains a win head, not the ownership head of end, moves and minimax: "
            f"it combines with none of them, got {value!r}"
        )
    return None


@dataclass(frozen=True, kw_only=True)
class OwnershipConfig(SupervisedConfig):
    """A run of the ownership job (the run's config.json): ``SupervisedConfig``'s fields, the
    network an ``OwnershipNet``, and each method's options (see the module's docs)."""

    data: str = option(help="a shard folder with ownership (goarena data shards) or a zero run (its buffer)")
    method: str = option(
        "end", "end, moves, minimax, or several comma-separated; win: the win-probability baseline",
        check=_methods,
    )  # fmt: skip
    blocks: int = option(4, "residual blocks of the network", check=positive)
    filters: int = option(32, "channels of the network", check=positive)
    lr_schedule: str = option(
        "cosine", "cosine (decayed over the run) or constant", check=one_of(*LR_SCHEDULES)
    )
    end_weight: float = option(1.0, "weight of the end loss", check=at_least_zero)
    end_power: float = option(1.0, "k of the end loss's weight ((t+1)/T)^k", check=at_least_zero)
    moves_weight: float = option(1.0, "weight of the moves loss", check=at_least_zero)
    moves_form: str = option("soft", "soft or aggressive", check=one_of(*MOVES_FORMS))
    moves_alternatives: int = option(4, "alternatives j trained per position", check=positive)
    moves_pool: int = option(
        0, "draw this many and train the alternatives the network values highest; 0: random ones",
        check=at_least_zero,
    )  # fmt: skip
    moves_raise: float = option(0.0, "weight of raising V(s+i) where it is beaten", check=at_least_zero)
    minimax_weight: float = option(1.0, "weight of the minimax loss", check=at_least_zero)
    minimax_children: int = option(
        8, "children of the 1-ply search (the chosen move among them)", check=positive
    )
    target_every: int = option(100, "steps between refreshes of the target network", check=positive)

    def check(self) -> None:
        if self.moves_pool and self.moves_pool < self.moves_alternatives:
            raise ValueError(
                f"moves_pool ({self.moves_pool}) must hold the moves_alternatives ({self.moves_alternatives})"
            )
        if "minimax" in self.methods and self.checkpoint_every % self.target_every:
            raise ValueError(
                f"checkpoint_every ({self.checkpoint_every}) must be a multiple of target_every "
                f"({self.target_every}), so that a resumed run has the target network it had"
            )

    @property
    def methods(self) -> tuple[str, ...]:
        return tuple(self.method.split(","))

    @property
    def network(self) -> type[OwnershipNet] | type[WinNet]:
        """The network the methods train: ``WinNet`` for the baseline, else ``OwnershipNet``."""
        return WinNet if self.methods == (WIN,) else OwnershipNet


def _network_output(model: nn.Module, planes: torch.Tensor) -> torch.Tensor:
    """v(s, ·) float[B, N*N] of an ownership network, or of a network whose output carries
    ``ownership`` (AlphaZero's)."""
    output = model(planes)
    return output.ownership if hasattr(output, "ownership") else output


def _outputs(
    model: nn.Module, data: OwnershipPositions, indices: np.ndarray, batch: int
) -> Iterator[tuple[slice, OwnershipBatch, np.ndarray]]:
    """The network's outputs (float64, numpy) on ``data``'s positions ``indices``, ``batch`` at
    a time, in evaluation mode: (where in ``indices``, the positions, the outputs)."""
    device = next(model.parameters()).device
    was_training = model.training
    model.eval()
    try:
        with torch.inference_mode():
            for start in range(0, len(indices), batch):
                part = slice(start, start + batch)
                positions = data.fetch(indices[part])
                planes = torch.as_tensor(positions.planes, dtype=torch.float32, device=device)
                yield part, positions, _network_output(model, planes).double().cpu().numpy()
    finally:
        model.train(was_training)


def by_move_bucket(
    moves: np.ndarray, where: np.ndarray, scored: Callable[[np.ndarray], dict[str, float]]
) -> dict[str, Any]:
    """``scored`` over the positions ``where``, overall and by move-number bucket."""
    buckets = moves // MOVE_BUCKET
    by_move = {
        f"{bucket * MOVE_BUCKET}-{(bucket + 1) * MOVE_BUCKET}": scored(where & (buckets == bucket))
        for bucket in np.unique(buckets[where])
    }
    return {**scored(where), "by_move": by_move}


def ownership_accuracy(
    model: nn.Module, data: OwnershipPositions, indices: np.ndarray, batch: int = 512
) -> dict[str, Any]:
    """How well ``model``'s v(s, i) foretells the final owners of ``data``'s positions ``indices``.

    Over the positions whose final owners are known: ``sign_agreement``, the share of points
    with an owner whose v(s, i) has its sign (0 counts as wrong); ``score_error``, the mean of
    |Σ_i v(s, i) - final score| (area, komi excluded on both sides); ``positions`` and
    ``points`` scored; and ``by_move``, the same for each move-number bucket (``"0-10"``:
    moves 0 to 9; ``"10-20"``; ...). Any network whose forward gives v(s, ·) (or an output with
    ``.ownership``) over the history planes will do.

    Raises:
        ValueError: none of the positions has final owners, or a win network (``win_accuracy``
            scores it).
    """
    from goarena.agents.nets.ownership import NO_OWNERSHIP

    if "ownership" not in getattr(model, "heads", ("ownership",)):  # any network giving v(s, ·)
        raise ValueError(f"ownership_accuracy: {NO_OWNERSHIP} (win_accuracy scores it)")
    indices = np.asarray(indices, np.int64)
    agree, points, errors = (np.zeros(len(indices)) for _ in range(3))
    owned = np.zeros(len(indices), bool)
    moves = np.zeros(len(indices), np.int64)
    for part, positions, v in _outputs(model, data, indices, batch):
        owner = positions.ownership.astype(np.float64)
        agree[part] = ((np.sign(v) == owner) & (owner != 0)).sum(axis=1)
        points[part] = (owner != 0).sum(axis=1)
        errors[part] = np.abs(v.sum(axis=1) - positions.scores)
        owned[part] = positions.owned
        moves[part] = positions.move_numbers
    if not owned.any():
        raise ValueError(f"none of the {len(indices)} positions has final owners to score against")

    def scored(where: np.ndarray) -> dict[str, float]:
        return {
            "sign_agreement": float(agree[where].sum() / max(points[where].sum(), 1)),
            "score_error": float(errors[where].mean()),
            "positions": int(where.sum()),
            "points": int(points[where].sum()),
        }

    return by_move_bucket(moves, owned, scored)


def win_accuracy(
    model: nn.Module, data: OwnershipPositions, indices: np.ndarray, batch: int = 512
) -> dict[str, Any]:
    """How well a win network's w(s) foretells the results of ``data``'s positions ``indices``.

    ``win_mse``, the mean of (w - z)^2 over the positions, z the result for the side to move;
    ``win_accuracy``, the share of the decided ones (not drawn) where sign(w) is z (0 counts
    as wrong); ``positions`` and ``decided`` counted; and ``by_move``, the same for each
    move-number bucket, as ``ownership_accuracy``'s.

    Raises:
        ValueError: no positions.
    """
    if len(indices) == 0:
        raise ValueError("no positions to score the win network on")
    indices = np.asarray(indices, np.int64)
    errors = np.zeros(len(indices))
    right, decided = (np.zeros(len(indices), bool) for _ in range(2))
    moves = np.zeros(len(indices), np.int64)
    for part, positions, w in _outputs(model, data, indices, batch):
        z = positions.outcomes.astype(np.float64)
        errors[part] = (w - z) ** 2
        right[part] = np.sign(w) == z
        decided[part] = z != 0
        moves[part] = positions.move_numbers

    def scored(where: np.ndarray) -> dict[str, float]:
        return {
            "win_mse": float(errors[where].mean()),
            "win_accuracy": float((right & where).sum() / max((decided & where).sum(), 1)),
            "positions": int(where.sum()),
            "decided": int((decided & where).sum()),
        }

    return by_move_bucket(moves, np.ones(len(indices), bool), scored)


FIGURES = ("sign_agreement", "score_error", "win_mse", "win_accuracy")  # the flat metrics' names


def flat_metrics(accuracy: dict[str, Any]) -> dict[str, float]:
    """``ownership_accuracy``'s (or ``win_accuracy``'s) figures as flat scalars (TensorBoard's):
    ``sign_agreement``, ``score_error`` (or ``win_mse``, ``win_accuracy``), and
    ``sign_agreement/0-10`` and the like for each bucket."""
    names = [name for name in FIGURES if name in accuracy]
    flat = {name: accuracy[name] for name in names}
    for label, figures in accuracy["by_move"].items():
        flat.update({f"{name}/{label}": figures[name] for name in names})
    return flat


def augment(positions: OwnershipBatch, rng: np.random.Generator) -> OwnershipBatch:
    """Each position under a random one of the 8 symmetries (planes, owners and chosen move)."""
    size = positions.planes.shape[-1]
    planes, ownership, chosen = positions.planes.copy(), positions.ownership.copy(), positions.chosen.copy()
    symmetries = rng.integers(SYMMETRIES, size=len(positions))
    for k in np.unique(symmetries[symmetries > 0]):
        rows = symmetries == k
        planes[rows] = transform_planes(positions.planes[rows], k)
        board = positions.ownership[rows].reshape(-1, size, size)
        ownership[rows] = transform_planes(board, k).reshape(-1, size * size)
        chosen[rows] = transform_moves(positions.chosen[rows], k, size)
    return OwnershipBatch(
        planes=planes,
        ownership=ownership,
        owned=positions.owned,
        scores=positions.scores,
        outcomes=positions.outcomes,
        chosen=chosen,
        komi_terms=positions.komi_terms,
        move_numbers=positions.move_numbers,
        game_lengths=positions.game_lengths,
    )


def win_loss(w: torch.Tensor, positions: OwnershipBatch) -> torch.Tensor:
    """The baseline: the mean squared error of w(s) [B] to each position's result z."""
    return ((w - torch.as_tensor(positions.outcomes, dtype=torch.float32, device=w.device)) ** 2).mean()


def end_loss(v: torch.Tensor, positions: OwnershipBatch, power: float) -> torch.Tensor:
    """Method 1: the squared error of v(s, ·) [B, N*N] to the final owners, each position
    weighted ((t + 1) / T) ** power, a weighted mean over the played-out positions."""
    device = v.device
    target = torch.as_tensor(positions.ownership, dtype=torch.float32, device=device)
    progress = (positions.move_numbers + 1) / np.maximum(positions.game_lengths, 1)
    weights = np.minimum(progress, 1.0) ** power * positions.owned
    weight = torch.as_tensor(weights, dtype=torch.float32, device=device)
    per_position = ((v - target) ** 2).mean(dim=1)
    return (per_position * weight).sum() / weight.sum().clamp(min=1e-8)


def soft_targets(v: torch.Tensor, change: torch.Tensor) -> torch.Tensor:
    """The seed's soft form: each point of v [..., P] moved by ``change`` [...] / P, clipped."""
    return (v + change[..., None] / v.shape[-1]).clamp(-1.0, 1.0)


def moves_targets(
    children: torch.Tensor, legal: torch.Tensor, form: str
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Method 2's targets for the alternatives (no gradient).

    Args:
        children: v of the children [B, 1+K, P], each from its own side to move's view (the
            opponent of the mover at s), the chosen move's child first.
        legal: bool [B, 1+K], which children exist.
        form: "soft" or "aggressive".

    Returns:
        (targets [B, K, P] for the alternatives, in the children's view; broken bool [B, K],
        where V(s+j) > V(s+i) from s's mover's view; gap [B, K], V(s+j) - V(s+i) there).
    """
    with torch.no_grad():
        value = -children.sum(dim=-1)  # V from the mover at s's view, komi aside
        chosen, alternatives = children[:, :1], children[:, 1:]
        gap = value[:, 1:] - value[:, :1]
        broken = legal[:, 1:] & legal[:, :1] & (gap > 0)
        if form == "soft":
            # s's view: -v_j + (V_i - V_j)/P; the child's view: v_j + (V_j - V_i)/P
            targets = soft_targets(alternatives, gap)
        else:
            # s's view: min(-v_j, -v_i); the child's view: max(v_j, v_i)
            targets = torch.maximum(alternatives, chosen.expand_as(alternatives))
    return targets, broken, gap


class OwnershipJob:
    """The ownership network on ``data``'s positions by ``config``'s methods, for ``loop.train``."""

    eval_batch = 512

    def __init__(self, data: OwnershipPositions, config: OwnershipConfig, device: torch.device):
        self.data = data
        self.config = config
        self.device = device
        self.methods = config.methods
        self.win = config.methods == (WIN,)
        if "end" in self.methods and not data.owned.any():
            raise ValueError(f"method end needs final owners, and no position in {data.directory} has them")
        split = held_out_split(data, config.held_out, config.batch_size, config.eval_positions, config.seed)
        self.sampler, self.held_out = split.sampler, split.held_out
        self.eval_sample = split.eval_sample
        if not self.win and not data.owned[self.held_out].any():
            raise ValueError(f"no held-out game of {data.directory} has final owners to score against")
        self.model: nn.Module = config.network(
            data.board_size, blocks=config.blocks, filters=config.filters
        ).to(device)
        self.optimizer: torch.optim.Optimizer = torch.optim.Adam(self.model.parameters(), lr=config.lr)
        self.target: nn.Module | None = None

    # -- one training step ------------------------------------------------------------------

    def _tensor(self, array: np.ndarray) -> torch.Tensor:
        return torch.as_tensor(array, dtype=torch.float32, device=self.device)

    def _forward(self, planes: np.ndarray, model: nn.Module | None = None) -> torch.Tensor:
        """v [..., P] of planes int8[..., 17, N, N]."""
        lead = planes.shape[:-3]
        flat = self._tensor(planes.reshape(-1, *planes.shape[-3:]))
        return _network_output(model or self.model, flat).reshape(*lead, -1)

    def _evaluate_children(self, children: np.ndarray, model: nn.Module) -> torch.Tensor:
        """Σ v of children int8[B, M, 17, N, N] under ``model`` in eval mode, no gradient."""
        was_training = model.training
        model.eval()
        with torch.no_grad():
            sums = self._forward(children, model).sum(dim=-1)
        model.train(was_training)
        return sums

    def losses(self, positions: OwnershipBatch, rng: np.random.Generator) -> dict[str, torch.Tensor]:
        """Each chosen method's loss (and its metrics) on the minibatch ``positions``."""
        parts: dict[str, torch.Tensor] = {}
        if self.win:
            parts["win_loss"] = win_loss(self.model(self._tensor(positions.planes)), positions)
            parts["loss"] = parts["win_loss"]
            return parts
        total = torch.zeros((), device=self.device)
        v = self._forward(positions.planes) if {"end", "minimax"} & set(self.methods) else None
        if "end" in self.methods:
            assert v is not None
            parts["end_loss"] = end_loss(v, positions, self.config.end_power)
            total = total + self.config.end_weight * parts["end_loss"]
        if "moves" in self.methods:
            moves_parts = self.moves_loss(positions, rng)
            parts.update(moves_parts)
            total = total + self.config.moves_weight * moves_parts["moves_loss"]
        if "minimax" in self.methods:
            assert v is not None
            parts["minimax_loss"], parts["minimax_gap"] = self.minimax_loss(v, positions, rng)
            total = total + self.config.minimax_weight * parts["minimax_loss"]
        parts["loss"] = total
        return parts

    def moves_loss(self, positions: OwnershipBatch, rng: np.random.Generator) -> dict[str, torch.Tensor]:
        """Method 2 on the minibatch: its loss, the share of broken pairs and their mean gap."""
        config = self.config
        alternatives = candidate_moves(
            positions.planes, positions.chosen, config.moves_pool or config.moves_alternatives, rng
        )
        if config.moves_pool:  # keep the alternatives the network values highest for the mover
            pool, pool_legal = children_planes(positions.planes, alternatives)
            values = -self._evaluate_children(pool, self.model).cpu().numpy()
            values[~pool_legal] = -np.inf
            best = np.argsort(-values, axis=1, kind="stable")[:, : config.moves_alternatives]
            alternatives = np.take_along_axis(alternatives, best, axis=1)
        moves = np.concatenate([positions.chosen[:, None], alternatives], axis=1)
        children, legal_np = children_planes(positions.planes, moves)
        legal = torch.as_tensor(legal_np, device=self.device)
        v = self._forward(children)  # [B, 1+K, P]
        targets, broken, gap = moves_targets(v, legal, config.moves_form)
        pairs = torch.as_tensor(legal_np[:, 1:].sum(), dtype=torch.float32, device=self.device).clamp(min=1)
        errors = ((v[:, 1:] - targets) ** 2).mean(dim=-1)
        loss = (errors * broken).sum() / pairs
        if config.moves_raise:
            beaten = broken.any(dim=1)
            with torch.no_grad():
                highest = torch.where(broken, gap, torch.zeros_like(gap)).max(dim=1).values
                raised = soft_targets(v[:, 0], -highest)  # the child's view: V(s+i) up is Σ v down
            raise_errors = ((v[:, 0] - raised) ** 2).mean(dim=-1)
            loss = loss + config.moves_raise * (raise_errors * beaten).sum() / len(positions)
        broken_count = broken.sum()
        return {
            "moves_loss": loss,
            "moves_broken": broken_count / pairs,
            "moves_gap": torch.where(broken, gap, torch.zeros_like(gap)).sum() / broken_count.clamp(min=1),
        }

    def minimax_loss(
        self, v: torch.Tensor, positions: OwnershipBatch, rng: np.random.Generator
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Method 3: V(s) toward the target network's 1-ply value of s (soft form); also the
        mean |V* - V(s)|."""
        assert self.target is not None
        others = candidate_moves(positions.planes, positions.chosen, self.config.minimax_children - 1, rng)
        moves = np.concatenate([positions.chosen[:, None], others], axis=1)
        children, legal = children_planes(positions.planes, moves)
        values = -self._evaluate_children(children, self.target)  # s's mover's view, komi aside
        ending = game_ending_scores(positions)
        ends = np.isfinite(ending)
        legal = legal & ~(ends[:, None] & (moves == positions.planes.shape[-1] ** 2))
        values = values.masked_fill(~torch.as_tensor(legal, device=self.device), -torch.inf)
        terminal = torch.as_tensor(np.where(ends, ending, -np.inf), dtype=values.dtype, device=self.device)
        deeper = torch.maximum(values.max(dim=1).values, terminal)
        usable = torch.isfinite(deeper)  # a position with no legal child searched is left out
        with torch.no_grad():
            change = torch.where(usable, deeper - v.sum(dim=1), torch.zeros_like(deeper))
            targets = soft_targets(v, change)
        errors = ((v - targets) ** 2).mean(dim=1)
        count = usable.sum().clamp(min=1)
        return (errors * usable).sum() / count, change.abs().sum() / count

    def _refresh_target(self, step: int) -> None:
        if "minimax" not in self.methods:
            return
        if self.target is None or step % self.config.target_every == 0:
            # a resumed run starts at a checkpointed step, a multiple of target_every: the
            # network restored there is the target the run had
            self.target = copy.deepcopy(self.model).eval()
            for parameter in self.target.parameters():
                parameter.requires_grad_(False)

    def train_step(self, step: int) -> dict[str, float]:
        if self.config.lr_schedule == "cosine":
            set_lr(self.optimizer, cosine_lr(self.config.lr, step, self.config.steps))
        self._refresh_target(step)
        rng = step_rng(self.config.seed, step)
        positions = augment(self.data.fetch(self.sampler.batch(step)), rng)
        parts = self.losses(positions, rng)
        self.optimizer.zero_grad(set_to_none=True)
        parts["loss"].backward()
        self.optimizer.step()
        return {name: float(value.detach()) for name, value in parts.items()}

    # -- held-out scores and the export ---------------------------------------------------

    def evaluate(self, indices: np.ndarray | None = None) -> dict[str, float]:
        """Sign agreement and score error on held-out positions (default: the checkpoints'
        sample), overall and by move bucket; the win network's squared error and accuracy."""
        indices = self.eval_sample if indices is None else indices
        return flat_metrics(self.accuracy(indices))

    def accuracy(self, indices: np.ndarray) -> dict[str, Any]:
        """``ownership_accuracy`` of the positions ``indices``, or the win network's ``win_accuracy``."""
        score = win_accuracy if self.win else ownership_accuracy
        return score(self.model, self.data, indices, self.eval_batch)

    def calibrate(self) -> dict[str, float] | None:
        """Fit the network's win probability on held-out positions (at most
        ``CALIBRATION_POSITIONS``, drawn from the seed) against their games' results; None
        for the win network, whose (1 + w) / 2 is its win probability already."""
        from goarena.agents.nets.ownership import calibrate

        if self.win:
            return None
        rng = np.random.default_rng([self.config.seed, 3])
        indices = np.sort(rng.permutation(self.held_out)[:CALIBRATION_POSITIONS])
        positions = self.data.fetch(indices)
        assert isinstance(self.model, OwnershipNet)
        a, b = calibrate(self.model, positions.planes, positions.komi_terms, positions.outcomes)
        return {"a": a, "b": b, "positions": len(indices)}

    def export(self, directory: Path, best: dict[str, Any]) -> dict[str, Any]:
        """``ownership.pt`` (calibrated, but for the win network) and its metrics on every
        held-out position."""
        held_out = self.accuracy(self.held_out)
        calibration = self.calibrate()
        save_model(directory / WEIGHTS, self.model)
        return {
            "methods": list(self.methods),
            "held_out": held_out,
            "held_out_positions": len(self.held_out),
            "calibration": calibration,
            "weights": WEIGHTS,
        }


def train_ownership(config: OwnershipConfig, run_dir: Path | str, **run: Any) -> dict[str, Any]:
    """Train (or resume) the ownership run in ``run_dir``, export ``ownership.pt`` and return
    (and save as metrics.json) the exported network's held-out metrics. ``run``:
    ``loop.run_training``'s keywords (device, threads, progress)."""

    def build(device: torch.device) -> OwnershipJob:
        return OwnershipJob(open_positions(config.data), config, device)

    data = config.data if (Path(config.data) / "manifest.json").is_file() else None
    if config.methods == (WIN,):
        best = "win_accuracy"
    elif "end" in config.methods:
        best = "sign_agreement"
    else:  # moves and minimax alone train V, not the map (its sign agreement stays a coin's)
        best = "-score_error"
    return run_training(config, run_dir, build, best, data=data, **run)


def summary(metrics: dict[str, Any], run: Path) -> list[str]:
    calibration = metrics["calibration"]
    if calibration is None:  # the win network
        method = "method win"
        figures = (("result accuracy", "win_accuracy", ".2%"), ("squared error", "win_mse", ".4f"))
        closing = "win probability: (1 + w) / 2, the win head's own (not calibrated)"
    else:
        method = f"methods {','.join(metrics['methods'])}"
        figures = (("sign agreement", "sign_agreement", ".2%"), ("score error", "score_error", ".2f"))
        closing = f"win probability: sigmoid({calibration['a']:.4f} V + {calibration['b']:.4f})"

    def shown(values: dict[str, Any]) -> str:
        return ", ".join(f"{label} {values[key]:{form}}" for label, key, form in figures)

    held_out = metrics["held_out"]
    points = " points" if calibration is not None else ""
    lines = [
        f"held-out ({metrics['held_out_positions']} positions, best checkpoint at step {metrics['step']}, "
        f"{method}): {shown(held_out)}{points}"
    ]
    for label, values in held_out["by_move"].items():
        lines.append(f"  moves {label:>7}: {shown(values)} ({values['positions']} positions)")
    lines.append(closing)
    return lines


COMMAND = loop.Command("ownership", DESCRIPTION, OwnershipConfig, train_ownership, summary)

main = COMMAND.main  # ``goarena train ownership ...``: train, then print the held-out metrics.
parser = COMMAND.parser
