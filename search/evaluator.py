"""Leaf evaluators, and the in-numba playouts and scoring that searches share.

A search hands its leaves to an evaluator in one batched call::

    priors, values = evaluator.evaluate(leaves)

``leaves`` is a ``Leaves``: the positions as one batched ``GoState`` (every field with a
leading axis ``B``; each carries its komi and scoring rule), their legal-move masks and the
board geometry. The evaluator returns

- ``priors``: float[B, A] (``A = N*N + 1``, pass last), a move distribution for each leaf:
  probabilities (a softmax), not logits. They need not be masked or normalised: the search
  keeps the legal moves and renormalises, so weights >= 0 with some mass on a legal move do;
- ``values``: float[B] in [-1, 1], how good each leaf is for its side to move
  (+1 a sure win, -1 a sure loss).

Searches check what they get (``check_evaluation``) and raise ``EvaluatorError`` on wrong
shapes, non-finite numbers, negative priors (logits), priors with no mass on a legal move,
or values outside [-1, 1].

Leaf states keep their history boards, so an evaluator can build network inputs from them
with ``go_env.features``. Any callable ``f(leaves) -> (priors, values)`` is an evaluator too
(``as_evaluator``). AlphaGo's leaf value ``V = (1 - λ)·v + λ·z`` mixes a value function ``v``
with a rollout outcome ``z``: ``MixedEvaluator(network, mix=λ)``.

Kernels here follow the rules core's discipline: no allocation (work arrays live in a
``Scratch``), no reference counting.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple, Protocol, runtime_checkable

import numpy as np

from go_env import core as K
from go_env.core import Geometry, GoState, inline_kernel, kernel


class Scratch(NamedTuple):
    """Work arrays of one search or evaluator, so that its kernels allocate nothing."""

    state: GoState  # a position that simulations are played in
    moves: np.ndarray  # int32[L]: moves of the current simulation from the root (L = move cap + 1)
    first: np.ndarray  # int8[A]: AMAF: parity of the ply each point was first played at, or -1
    legal: np.ndarray  # int8[A]: a legal-move mask
    marks: np.ndarray  # int8[P]: flood-fill marks for scoring
    stack: np.ndarray  # int64[P]: flood-fill stack for scoring
    owner: (
        np.ndarray
    )  # int8[P]: who owns each point when a game finished in the tree is settled (0: count every stone)


def new_scratch(like: GoState) -> Scratch:
    """Work arrays for positions shaped like the single-game state ``like`` (size, move cap)."""
    num_points = like.board.shape[0] - 1
    return Scratch(
        state=GoState(*(np.zeros_like(field) for field in like)),
        moves=np.zeros(int(like.info[K.INFO_MAX_MOVES]) + 1, np.int32),
        first=np.zeros(num_points + 1, np.int8),
        legal=np.zeros(num_points + 1, np.int8),
        marks=np.zeros(num_points, np.int8),
        stack=np.zeros(num_points, np.int64),
        owner=np.zeros(num_points, np.int8),
    )


@inline_kernel
def score_margin(state, geometry, scratch):
    """``go_env``'s score with the flood fill's arrays taken from ``scratch``."""
    return K.score_margin(state, geometry, scratch.marks, scratch.stack)


@inline_kernel
def outcome(state, geometry, color, scratch):
    """The result of the position as it stands for ``color``: 1 win, -1 loss, 0 draw."""
    margin = score_margin(state, geometry, scratch)
    if margin == 0:
        return 0.0
    return 1.0 if (margin > 0) == (color == K.BLACK) else -1.0


@inline_kernel
def settled_outcome(state, geometry, color, scratch):
    """``outcome`` of a game that finished in the search tree, with the stones standing on
    points that ``scratch.owner`` gives the other side taken off first (as prisoners) where
    the game is settled so. ``state`` is changed: it is a simulation's copy."""
    for p in range(scratch.owner.shape[0]):
        stone = state.board[p]
        if stone != K.EMPTY and scratch.owner[p] == 3 - stone:
            state.board[p] = K.EMPTY
            state.info[K.INFO_CAPTURES + 2 - stone] += 1  # a prisoner of the other side
    return outcome(state, geometry, color, scratch)


@inline_kernel
def playout(state, geometry, rng, moves, start):
    """Play the game out at random (``go_env``'s ``random_move``: no own-eye filling),
    writing the moves to ``moves[start:]``; return the index after the last one."""
    end = start
    while state.info[K.INFO_OVER] == K.RUNNING:
        move = K.random_move(state, geometry, rng)
        K.apply_legal(state, geometry, move, False)
        moves[end] = move
        end += 1
    return end


@kernel
def rollout_values(states, geometry, scratch, rng, rollouts, out):
    """``out[b]`` gets the mean outcome of ``rollouts`` random playouts from leaf ``b``,
    for its side to move. ``states`` is batched (leading axis B); it is left unchanged."""
    for b in range(out.shape[0]):
        leaf = K.batch_item(states, b)
        color = leaf.info[K.INFO_TO_PLAY]
        total = 0.0
        for _ in range(rollouts):
            K.copy_into(scratch.state, leaf)
            playout(scratch.state, geometry, rng, scratch.moves, 0)
            total += outcome(scratch.state, geometry, color, scratch)
        out[b] = total / rollouts


@dataclass(frozen=True)
class Leaves:
    """A batch of ``B`` leaf positions for an evaluator.

    ``expanding`` marks the leaves whose priors the search will use (None: all); an evaluator
    may give any valid priors for the others (``uniform_priors``) and save their work.
    """

    states: GoState  # every field with a leading axis [B]; history boards, komi and scoring are kept
    legal: np.ndarray  # int8[B, A]: legal-move masks, pass last
    geometry: Geometry
    expanding: np.ndarray | None = None  # int8 or bool[B]

    def wants_priors(self) -> np.ndarray:
        """bool[B]: the leaves whose priors are wanted."""
        if self.expanding is None:
            return np.ones(len(self), bool)
        return self.expanding.astype(bool)

    def subset(self, rows: np.ndarray) -> Leaves:
        """The leaves ``rows`` (indices or a mask) as a batch of their own (copies), all wanting priors."""
        return Leaves(GoState(*(field[rows] for field in self.states)), self.legal[rows], self.geometry)

    def __len__(self) -> int:
        return int(self.legal.shape[0])

    def state(self, b: int) -> GoState:
        """Leaf ``b`` as a single-game state (views into the batch)."""
        return K.state_item(self.states, b)


@runtime_checkable
class Evaluator(Protocol):
    def evaluate(self, leaves: Leaves) -> tuple[np.ndarray, np.ndarray]:
        """(priors float[B, A], values float[B] in [-1, 1] for each leaf's side to move)."""
        ...


class LeafValues(Protocol):
    """A source of leaf values alone, such as playouts (``RolloutEvaluator``)."""

    def values(self, leaves: Leaves) -> np.ndarray:
        """float[B] in [-1, 1]: each leaf's value for its side to move."""
        ...


class UniformEvaluator:
    """Uniform priors over the legal moves; values from ``values`` (a ``LeafValues``, such as a
    value network), or 0 without one: search guided by visits alone."""

    values: LeafValues | None = None  # a class default too, for subclasses that skip __init__

    def __init__(self, values: LeafValues | None = None):
        self.values = values

    def evaluate(self, leaves: Leaves) -> tuple[np.ndarray, np.ndarray]:
        if self.values is None:
            return uniform_priors(leaves.legal), np.zeros(len(leaves), np.float32)
        return uniform_priors(leaves.legal), self.values.values(leaves)


class RolloutEvaluator:
    """Uniform priors; the value is the mean outcome of random playouts, played in numba.

    Args:
        rollouts: playouts per leaf.
        seed: seed of the playouts' random generator.
    """

    def __init__(self, rollouts: int = 1, seed: int | None = None):
        if rollouts < 1:
            raise ValueError(f"rollouts must be at least 1, got {rollouts}")
        self.rollouts = rollouts
        self._rng = random_state(seed)
        self._scratch: Scratch | None = None

    def evaluate(self, leaves: Leaves) -> tuple[np.ndarray, np.ndarray]:
        return uniform_priors(leaves.legal), self.values(leaves)

    def values(self, leaves: Leaves) -> np.ndarray:
        """float[B]: mean playout outcome of each leaf, for its side to move."""
        scratch = self._scratch
        if scratch is None or shapes(scratch.state) != shapes(leaves.states, batched=True):
            scratch = self._scratch = new_scratch(leaves.state(0))
        out = np.empty(len(leaves), np.float64)
        rollout_values(leaves.states, leaves.geometry, scratch, self._rng, self.rollouts, out)
        return out


class MixedEvaluator:
    """AlphaGo's leaf evaluation: priors from ``network``, value ``(1 - mix)·v + mix·z``.

    Args:
        network: gives the priors and the value ``v``.
        rollout: gives the playout outcome ``z`` (default: one random playout).
        mix: λ. 0 uses the network's value alone (no playouts are played), 1 the playouts'.
    """

    def __init__(self, network: Evaluator, rollout: LeafValues | None = None, mix: float = 0.5):
        if not 0.0 <= mix <= 1.0:
            raise ValueError(f"mix must be in [0, 1], got {mix}")
        self.network = network
        self.rollout: LeafValues = rollout if rollout is not None else RolloutEvaluator()
        self.mix = mix

    def evaluate(self, leaves: Leaves) -> tuple[np.ndarray, np.ndarray]:
        priors, values = self.network.evaluate(leaves)
        if self.mix == 0.0:
            return priors, values
        z = self.rollout.values(leaves)
        return priors, (1.0 - self.mix) * np.asarray(values, np.float64) + self.mix * z


class _CallableEvaluator:
    def __init__(self, function: Callable[[Leaves], tuple[np.ndarray, np.ndarray]]):
        self.function = function

    def evaluate(self, leaves: Leaves) -> tuple[np.ndarray, np.ndarray]:
        return self.function(leaves)


def as_evaluator(obj: Evaluator | Callable[[Leaves], tuple[np.ndarray, np.ndarray]]) -> Evaluator:
    """``obj`` itself if it has ``evaluate``, else the callable ``obj(leaves)`` as an evaluator."""
    if isinstance(obj, Evaluator):
        return obj
    if callable(obj):
        return _CallableEvaluator(obj)
    raise TypeError(f"not an evaluator: {obj!r} (expected evaluate(leaves) or a callable)")


class EvaluatorError(ValueError):
    """An evaluator broke its contract: its output is not priors and values as ``Evaluator`` says."""


VALUE_TOLERANCE = 1e-4  # values may overshoot [-1, 1] by rounding; they are clipped


def check_evaluation(legal: np.ndarray, priors: object, values: object) -> tuple[np.ndarray, np.ndarray]:
    """An evaluator's output for leaves with legal-move masks ``legal`` (int8[B, A]), checked.

    Returns:
        (priors float32[B, A], values float64[B]), contiguous, for the search's kernels.

    Raises:
        EvaluatorError: naming the first offending leaf and what is wrong with it.
    """
    count, num_actions = legal.shape
    priors = np.ascontiguousarray(priors, np.float32)
    values = np.ascontiguousarray(values, np.float64)
    if priors.shape != (count, num_actions) or values.shape != (count,):
        raise EvaluatorError(
            f"for {count} leaves the evaluator must return priors of shape {(count, num_actions)} "
            f"and values of shape {(count,)}, got {priors.shape} and {values.shape}"
        )
    if not np.isfinite(priors).all():
        leaf = int(np.flatnonzero(~np.isfinite(priors).all(axis=1))[0])
        raise EvaluatorError(f"priors of leaf {leaf} are not all finite (NaN or inf)")
    if (priors < 0).any():
        leaf = int(np.flatnonzero((priors < 0).any(axis=1))[0])
        raise EvaluatorError(
            f"priors of leaf {leaf} have negative entries (down to {priors[leaf].min():.3g}): "
            "pass probabilities (softmax), not logits"
        )
    legal_mass = np.where(legal != 0, priors, 0.0).sum(axis=1)
    if (legal_mass <= 0).any():
        leaf = int(np.flatnonzero(legal_mass <= 0)[0])
        raise EvaluatorError(
            f"priors of leaf {leaf} put no mass on its {int(legal[leaf].sum())} legal moves "
            f"(total {priors[leaf].sum():.3g}, all on illegal moves)"
        )
    if not np.isfinite(values).all():
        leaf = int(np.flatnonzero(~np.isfinite(values))[0])
        raise EvaluatorError(f"value of leaf {leaf} is {values[leaf]}, not a finite number")
    if (np.abs(values) > 1.0 + VALUE_TOLERANCE).any():
        leaf = int(np.flatnonzero(np.abs(values) > 1.0 + VALUE_TOLERANCE)[0])
        raise EvaluatorError(
            f"value of leaf {leaf} is {values[leaf]:.4g}, outside [-1, 1]: pass the expected outcome "
            "for the side to move (e.g. tanh of the value head), not a raw score"
        )
    return priors, values


def uniform_priors(legal: np.ndarray) -> np.ndarray:
    """float32[B, A]: uniform over each row's legal moves (``legal``: int8[B, A])."""
    priors = legal.astype(np.float32)
    priors /= np.maximum(priors.sum(axis=1, keepdims=True), 1.0)
    return priors


def shapes(state: GoState, batched: bool = False) -> tuple[tuple[int, ...], ...]:
    """The shapes of a state's fields (without the leading batch axis when ``batched``)."""
    return tuple(field.shape[int(batched) :] for field in state)


def random_state(seed: int | None) -> np.ndarray:
    """A nonzero uint64[1] state for the kernels' xorshift generator."""
    bits = np.random.SeedSequence(seed).generate_state(1, np.uint64)
    return bits | np.uint64(1)
