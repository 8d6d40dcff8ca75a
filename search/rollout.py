"""Rollouts with AlphaGo's fast rollout policy, played in numba.

The rollout policy is a linear softmax over the pattern features of ``go_env.features.patterns``
(weights trained in torch and exported as ``rollout.npz``). A pattern playout draws every move
from that softmax over the legal moves that fill no own eye (and are no suicide), passes when
there is none, and stops when the rules end the game (two passes or the move cap); no Python
runs per move. A move changes the features of few points, so the playout keeps each point's
weight from move to move and computes again only those a move may have changed
(``PlayoutScratch``); only the features that depend on the previous move (distance and
response) are looked at afresh for every point.

``PatternRolloutEvaluator`` plugs it into search like ``RolloutEvaluator``: priors are the
policy's softmax over each leaf's legal moves, values the mean outcome of pattern playouts
under the leaf's own komi and scoring rule. ``playout_speed`` times pattern and random
playouts in one run (``goarena bench networks`` prints it).
"""

from __future__ import annotations

import time
from os import PathLike
from typing import NamedTuple

import numpy as np

from go_env import Rules
from go_env import core as K
from go_env.core import GoState, inline_kernel, kernel, make_geometry
from go_env.features.patterns import (
    DISTANCE,
    NUM_DISTANCES,
    PatternPolicy,
    PatternScratch,
    distance_feature,
    load_weights,
    local_features,
    move_logit,
    move_logits,
    new_pattern_scratch,
    previous_move_place,
    response_feature,
    update_liberties,
)
from goarena.search.evaluator import Leaves, random_state, shapes


class PlayoutScratch(NamedTuple):
    """Work arrays of pattern playouts for one board size.

    A move changes the local features of few points, so each point's weight (the exp of the
    logit of its features that do not depend on the previous move) is kept between moves, for
    each colour, and computed again only where a move may have changed it (``dirty``).
    """

    patterns: PatternScratch
    weights: np.ndarray  # float64[3, P]: by colour (row 0 unused); 0: an own eye or no liberty
    dirty: np.ndarray  # int8[3, P+1]: 1 where ``weights`` is stale (column P: the wall's, unused)
    candidates: np.ndarray  # int64[P]: the moves of one draw
    candidate_weights: np.ndarray  # float64[P]: their weights
    captured: np.ndarray  # int64[P]: the stones a move captures
    walked: np.ndarray  # int64[P]: stamps of the chains walked, at their heads
    stamp: np.ndarray  # int64[1]: the last stamp used
    distance_factors: np.ndarray  # float64[NUM_DISTANCES]: exp of the distance features' weights
    distance_buckets: np.ndarray  # int8[P, P]: [last, p]: the distance feature of p after last, less DISTANCE
    places: np.ndarray  # int8[P, P]: [last, p]: ``previous_move_place``


def new_playout_scratch(size: int) -> PlayoutScratch:
    """Work arrays for playouts on ``size`` x ``size`` boards, every weight stale."""
    num_points = size * size
    distance_buckets = np.empty((num_points, num_points), np.int8)
    places = np.empty((num_points, num_points), np.int8)
    _offset_tables(make_geometry(size), distance_buckets, places)
    return PlayoutScratch(
        patterns=new_pattern_scratch(size),
        weights=np.zeros((3, num_points), np.float64),
        dirty=np.ones((3, num_points + 1), np.int8),
        candidates=np.zeros(num_points, np.int64),
        candidate_weights=np.zeros(num_points, np.float64),
        captured=np.zeros(num_points, np.int64),
        walked=np.zeros(num_points, np.int64),
        stamp=np.zeros(1, np.int64),
        distance_factors=np.zeros(NUM_DISTANCES, np.float64),
        distance_buckets=distance_buckets,
        places=places,
    )


@kernel
def _offset_tables(geometry, distance_buckets, places):
    """Fill the tables that spare the playouts two divisions per point and move."""
    num_points = geometry.size * geometry.size
    for last in range(num_points):
        for p in range(num_points):
            distance_buckets[last, p] = distance_feature(geometry, p, last) - DISTANCE
            places[last, p] = previous_move_place(geometry, p, last)


class RolloutScratch(NamedTuple):
    """Work arrays of the pattern rollout evaluator for one board size and move cap."""

    state: GoState  # the position a rollout is played in
    playout: PlayoutScratch
    moves: np.ndarray  # int32[L]: a playout's moves (L = move cap + 1)
    logits: np.ndarray  # float64[A]: one leaf's move logits, for its priors
    marks: np.ndarray  # int8[P]: flood-fill marks for scoring
    stack: np.ndarray  # int64[P]: flood-fill stack for scoring


def new_rollout_scratch(like: GoState) -> RolloutScratch:
    """Work arrays for positions shaped like the single-game state ``like``."""
    num_points = like.board.shape[0] - 1
    return RolloutScratch(
        state=GoState(*(np.zeros_like(field) for field in like)),
        playout=new_playout_scratch(int(round(num_points**0.5))),
        moves=np.zeros(int(like.info[K.INFO_MAX_MOVES]) + 1, np.int32),
        logits=np.zeros(num_points + 1, np.float64),
        marks=np.zeros(num_points, np.int8),
        stack=np.zeros(num_points, np.int64),
    )


@inline_kernel
def local_weight(state, geometry, policy, scratch, point, color):
    """exp of the logit of ``color``'s local features on the empty ``point`` (see
    ``local_features``); 0 for an own eye or a move left without liberty (no suicide in
    playouts). ``update_liberties`` must be current in ``scratch.patterns``."""
    if K.is_eye(state, geometry, point, color):
        return 0.0
    active = scratch.patterns.active
    count, libs = local_features(state, geometry, policy.tables, scratch.patterns, point, color, active)
    if libs == 0:
        return 0.0
    return np.exp(move_logit(policy, active, count))


@inline_kernel
def forget_weights(scratch):
    """Mark every kept weight stale: before playing on from a position of another game."""
    scratch.dirty[:] = 1


@inline_kernel
def pattern_move(state, geometry, policy, scratch, rng):
    """A move drawn from ``policy``'s softmax over the legal moves that fill no own eye and
    leave a liberty; pass when there is none.

    ``scratch`` is a ``PlayoutScratch`` whose kept weights are those of ``state``: the state
    has changed only through ``play_move`` since ``forget_weights``.
    """
    num_points = geometry.size * geometry.size
    color = state.info[K.INFO_TO_PLAY]
    last = state.info[K.INFO_LAST_MOVE]
    after_move = 0 <= last < num_points
    update_liberties(state, geometry, scratch.patterns)
    if after_move:
        for b in range(NUM_DISTANCES):
            scratch.distance_factors[b] = np.exp(policy.weights[DISTANCE + b])
    weights = scratch.weights[color]
    dirty = scratch.dirty[color]
    count = 0
    total = 0.0
    for i in range(state.info[K.INFO_NUM_EMPTY]):
        p = state.empties[i]
        if dirty[p]:
            weights[p] = local_weight(state, geometry, policy, scratch, p, color)
            dirty[p] = 0
        weight = weights[p]
        if weight == 0.0:
            continue
        if after_move:
            weight *= scratch.distance_factors[scratch.distance_buckets[last, p]]
            place = scratch.places[last, p]
            if place >= 0:
                response = response_feature(state, geometry, policy.tables, scratch.patterns, p, color, place)
                weight *= np.exp(policy.weights[response])
        scratch.candidates[count] = p
        scratch.candidate_weights[count] = weight
        total += weight
        count += 1
    # Draw; a move the superko or ko rule forbids is struck off and the draw made again.
    left = count
    while left > 0:
        threshold = K.next_uniform(rng) * total
        pick = -1
        for j in range(count):
            if scratch.candidate_weights[j] > 0.0:
                pick = j
                threshold -= scratch.candidate_weights[j]
                if threshold < 0.0:
                    break
        move = scratch.candidates[pick]
        if K.empty_point_status(state, geometry, move, color) == K.LEGAL:
            return move
        total -= scratch.candidate_weights[pick]
        scratch.candidate_weights[pick] = 0.0
        left -= 1
    return num_points


@inline_kernel
def _mark_around(scratch, geometry, point):
    """The point and its 8 neighbours: their 3x3 patterns changed."""
    for color in range(1, 3):
        scratch.dirty[color, point] = 1
        for k in range(4):
            scratch.dirty[color, geometry.neighbors[point, k]] = 1
            scratch.dirty[color, geometry.diagonals[point, k]] = 1


@inline_kernel
def _mark_chain(state, geometry, scratch, point, stamp):
    """The empty points next to the chain on ``point`` (once per stamp): its liberties changed."""
    head = state.chain_head[point]
    if scratch.walked[head] == stamp:
        return
    scratch.walked[head] = stamp
    x = head
    while True:
        for k in range(4):
            n = geometry.neighbors[x, k]
            if state.board[n] == K.EMPTY:
                scratch.dirty[1, n] = 1
                scratch.dirty[2, n] = 1
        x = state.chain_next[x]
        if x == head:
            break


@inline_kernel
def _mark_chains_next_to(state, geometry, scratch, point, stamp):
    for k in range(4):
        n = geometry.neighbors[point, k]
        c = state.board[n]
        if c != K.EMPTY and c != K.WALL:
            _mark_chain(state, geometry, scratch, n, stamp)


@inline_kernel
def play_move(state, geometry, scratch, move):
    """Play the legal ``move`` just drawn by ``pattern_move`` (whose liberty counts it reads)
    and mark the kept weights it may change: around the stone and the stones it captures, and
    next to every chain whose liberties changed."""
    if move == geometry.size * geometry.size:
        K.apply_legal(state, geometry, move, False)
        return
    enemy = 3 - state.info[K.INFO_TO_PLAY]
    stamp = scratch.stamp[0] + 1
    captured = 0
    for k in range(4):
        n = geometry.neighbors[move, k]
        if state.board[n] != enemy:
            continue
        head = state.chain_head[n]
        if scratch.patterns.libs[head] != 1 or scratch.walked[head] == stamp:
            continue
        scratch.walked[head] = stamp
        x = head
        while True:
            scratch.captured[captured] = x
            captured += 1
            x = state.chain_next[x]
            if x == head:
                break
    K.apply_legal(state, geometry, move, False)
    stamp += 1
    scratch.stamp[0] = stamp
    _mark_around(scratch, geometry, move)
    _mark_chain(state, geometry, scratch, move, stamp)
    _mark_chains_next_to(state, geometry, scratch, move, stamp)
    for i in range(captured):
        _mark_around(scratch, geometry, scratch.captured[i])
        _mark_chains_next_to(state, geometry, scratch, scratch.captured[i], stamp)


@kernel
def pattern_playout(state, geometry, policy, scratch, rng, moves, start):
    """Play ``pattern_move`` until the game is over, writing the moves to ``moves[start:]``
    (as ``search.evaluator.playout`` does); return the index after the last one.

    Args:
        state: the game, played on in place; its history boards (``recent``) go stale.
        policy: a ``PatternPolicy`` (tables and weights).
        scratch: a ``PlayoutScratch`` of the board's size.
        rng: uint64[1], the core's xorshift generator state (nonzero).
        moves: int32[L], room for the moves (L = the move cap + 1 suffices).
    """
    forget_weights(scratch)
    end = start
    while state.info[K.INFO_OVER] == K.RUNNING:
        move = pattern_move(state, geometry, policy, scratch, rng)
        play_move(state, geometry, scratch, move)
        moves[end] = move
        end += 1
    return end


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
            pattern_playout(scratch.state, geometry, policy, scratch.playout, rng, scratch.moves, 0)
            margin = K.score_margin(scratch.state, geometry, scratch.marks, scratch.stack)
            if margin != 0:
                total += 1.0 if (margin > 0) == black else -1.0
        out[b] = total / rollouts


@kernel
def pattern_priors(states, geometry, policy, scratch, out):
    """``out[b]`` (float32[B, A]) gets the policy's softmax over the legal moves of leaf ``b``."""
    for b in range(out.shape[0]):
        move_logits(K.batch_item(states, b), geometry, policy, scratch.playout.patterns, scratch.logits)
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
        moves += pattern_playout(scratch.state, geometry, policy, scratch.playout, rng, scratch.moves, 0)
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
