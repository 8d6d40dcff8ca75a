"""Rollouts with AlphaGo's fast rollout policy, played in numba.

The rollout policy is a linear softmax over the pattern features of ``go_env.features.patterns``
(weights trained in torch and exported as ``rollout.npz``). A pattern playout draws every move
from that softmax over the legal moves that fill no own eye, passes when there is none, and
stops when the rules end the game (two passes or the move cap); no Python runs per move.

``PatternRolloutEvaluator`` plugs it into search like ``RolloutEvaluator``: priors are the
policy's softmax over each leaf's legal moves, values the mean outcome of pattern playouts
under the leaf's own komi and scoring rule. ``print_playout_speed`` compares pattern and random
playouts in one run.
"""

from __future__ import annotations

import time
from os import PathLike
from typing import NamedTuple

import numpy as np

from go_env import Rules
from go_env import core as K
from go_env.core import GoState, inline_kernel, kernel
from go_env.features.patterns import (
    PatternPolicy,
    PatternScratch,
    chain_liberties,
    load_weights,
    move_features,
    move_logit,
    move_logits,
    new_pattern_scratch,
    pattern_tables,
)
from goarena.search.evaluator import Leaves, random_state, shapes


class RolloutScratch(NamedTuple):
    """Work arrays of pattern rollouts for one board size and move cap."""

    state: GoState  # the position a rollout is played in
    patterns: PatternScratch
    logits: np.ndarray  # float64[A]: one leaf's move logits, for its priors
    marks: np.ndarray  # int8[P]: flood-fill marks for scoring
    stack: np.ndarray  # int64[P]: flood-fill stack for scoring


def new_rollout_scratch(like: GoState) -> RolloutScratch:
    """Work arrays for positions shaped like the single-game state ``like``."""
    num_points = like.board.shape[0] - 1
    size = int(round(num_points**0.5))
    return RolloutScratch(
        state=GoState(*(np.zeros_like(field) for field in like)),
        patterns=new_pattern_scratch(size),
        logits=np.zeros(num_points + 1, np.float64),
        marks=np.zeros(num_points, np.int8),
        stack=np.zeros(num_points, np.int64),
    )


@inline_kernel
def _uniform(rng):
    """A float in [0, 1) from the core's generator (53 random bits)."""
    return np.float64(K.next_random(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@inline_kernel
def pattern_move(state, geometry, policy, scratch, rng):
    """A move drawn from ``policy``'s softmax over the legal moves that fill no own eye;
    pass when there is none. ``scratch`` is a ``PatternScratch``."""
    color = state.info[K.INFO_TO_PLAY]
    chain_liberties(state, geometry, scratch)
    count = 0
    best = -np.inf
    for i in range(state.info[K.INFO_NUM_EMPTY]):
        p = state.empties[i]
        if K.is_eye(state, geometry, p, color) or K.empty_point_status(state, geometry, p, color) != K.LEGAL:
            continue
        active = move_features(state, geometry, policy.tables, scratch, p, scratch.active)
        logit = move_logit(policy, scratch.active, active)
        scratch.moves[count] = p
        scratch.logits[count] = logit
        best = max(best, logit)
        count += 1
    if count == 0:
        return geometry.size * geometry.size
    total = 0.0
    for j in range(count):
        scratch.logits[j] = np.exp(scratch.logits[j] - best)
        total += scratch.logits[j]
    threshold = _uniform(rng) * total
    for j in range(count - 1):
        threshold -= scratch.logits[j]
        if threshold < 0.0:
            return scratch.moves[j]
    return scratch.moves[count - 1]


@kernel
def pattern_playout(state, geometry, policy, scratch, rng):
    """Play ``pattern_move`` until the game is over; return the moves played.

    Args:
        state: the game, played on in place; its history boards (``recent``) go stale.
        policy: a ``PatternPolicy`` (tables and weights).
        scratch: a ``PatternScratch`` of the board's size.
        rng: uint64[1], the core's xorshift generator state (nonzero).
    """
    played = 0
    while state.info[K.INFO_OVER] == K.RUNNING:
        K.apply_legal(state, geometry, pattern_move(state, geometry, policy, scratch, rng), False)
        played += 1
    return played


@kernel
def pattern_rollout_values(states, geometry, policy, scratch, rng, rollouts, out):
    """``out[b]`` gets the mean outcome (1 win, -1 loss, 0 draw) of ``rollouts`` pattern
    playouts from leaf ``b``, for its side to move. ``states`` is batched and left unchanged."""
    for b in range(out.shape[0]):
        leaf = K.batch_item(states, b)
        black = leaf.info[K.INFO_TO_PLAY] == K.BLACK
        total = 0.0
        for _ in range(rollouts):
            K.copy_into(scratch.state, leaf)
            pattern_playout(scratch.state, geometry, policy, scratch.patterns, rng)
            margin = K.score_margin(scratch.state, geometry, scratch.marks, scratch.stack)
            if margin != 0:
                total += 1.0 if (margin > 0) == black else -1.0
        out[b] = total / rollouts


@kernel
def pattern_priors(states, geometry, policy, scratch, out):
    """``out[b]`` (float32[B, A]) gets the policy's softmax over the legal moves of leaf ``b``."""
    for b in range(out.shape[0]):
        move_logits(K.batch_item(states, b), geometry, policy, scratch.patterns, scratch.logits)
        best = -np.inf
        for a in range(scratch.logits.shape[0]):
            best = max(best, scratch.logits[a])
        total = 0.0
        for a in range(scratch.logits.shape[0]):
            weight = np.exp(scratch.logits[a] - best)  # 0 for illegal moves (-inf)
            scratch.logits[a] = weight
            total += weight
        for a in range(scratch.logits.shape[0]):
            out[b, a] = scratch.logits[a] / total


class PatternRolloutEvaluator:
    """Priors from the rollout policy, values from pattern playouts, both in numba.

    Args:
        weights: a ``rollout.npz`` path, or a ``PatternPolicy``.
        rollouts: playouts per leaf.
        seed: seed of the playouts' random generator.
    """

    def __init__(
        self, weights: str | PathLike[str] | PatternPolicy, rollouts: int = 1, seed: int | None = None
    ):
        if rollouts < 1:
            raise ValueError(f"rollouts must be at least 1, got {rollouts}")
        self.policy = weights if isinstance(weights, PatternPolicy) else load_weights(weights)[0]
        self.rollouts = rollouts
        self._rng = random_state(seed)
        self._scratch: RolloutScratch | None = None

    def evaluate(self, leaves: Leaves) -> tuple[np.ndarray, np.ndarray]:
        scratch = self._scratch_for(leaves)
        priors = np.empty(leaves.legal.shape, np.float32)
        pattern_priors(leaves.states, leaves.geometry, self.policy, scratch, priors)
        return priors, self.values(leaves)

    def values(self, leaves: Leaves) -> np.ndarray:
        """float[B]: mean playout outcome of each leaf, for its side to move."""
        out = np.empty(len(leaves), np.float64)
        scratch = self._scratch_for(leaves)
        pattern_rollout_values(
            leaves.states, leaves.geometry, self.policy, scratch, self._rng, self.rollouts, out
        )
        return out

    def _scratch_for(self, leaves: Leaves) -> RolloutScratch:
        scratch = self._scratch
        if scratch is None or shapes(scratch.state) != shapes(leaves.states, batched=True):
            scratch = self._scratch = new_rollout_scratch(leaves.state(0))
        return scratch


@kernel
def _pattern_games(root, geometry, policy, scratch, rng, count):
    moves = 0
    for _ in range(count):
        K.copy_into(scratch.state, root)
        moves += pattern_playout(scratch.state, geometry, policy, scratch.patterns, rng)
    return moves


@kernel
def _random_games(root, geometry, scratch, rng, count):
    moves = 0
    for _ in range(count):
        K.copy_into(scratch.state, root)
        moves += K.random_playout(scratch.state, geometry, rng)
    return moves


def playout_speed(
    policy: PatternPolicy, size: int = 9, games: int = 200, seed: int = 0
) -> tuple[float, float]:
    """(pattern playout moves per second, random playout moves per second), each from
    ``games`` games on an empty ``size`` x ``size`` board (area scoring, move cap 2·N·N)."""
    root = K.new_state(size, *Rules().kernel_rules(size))
    geometry = K.make_geometry(size)
    scratch = new_rollout_scratch(root)
    rng = random_state(seed)
    speeds = []
    for play in (
        lambda n: _pattern_games(root, geometry, policy, scratch, rng, n),
        lambda n: _random_games(root, geometry, scratch, rng, n),
    ):
        play(1)  # compile (or load) first
        start = time.perf_counter()
        moves = play(games)
        speeds.append(moves / (time.perf_counter() - start))
    return speeds[0], speeds[1]


def print_playout_speed(weights: str | PathLike[str] | None = None, size: int = 9, games: int = 200) -> None:
    """Print pattern and random playout speeds (``weights``: a ``rollout.npz``, else zeros:
    the cost per move does not depend on the weights)."""
    if weights is None:
        policy = PatternPolicy(pattern_tables(), np.zeros(pattern_tables().num_features, np.float32))
    else:
        policy = load_weights(weights)[0]
    pattern, uniform = playout_speed(policy, size, games)
    print(f"{size}x{size}, {games} games each from the empty board:")
    print(f"  pattern playouts {pattern:12,.0f} moves/s  ({1e6 / pattern:.2f} us/move)")
    print(f"  random playouts  {uniform:12,.0f} moves/s  ({1e6 / uniform:.3f} us/move)")
    print(f"  pattern playouts are {uniform / pattern:.1f}x slower")
