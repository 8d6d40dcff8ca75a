"""Batches of games: the state with a leading batch axis, one game per ``prange`` step.

Each batch kernel runs in parallel only where its batch is large enough to pay for waking
numba's threads (``go_env.core.parallel``; ``goarena bench threads`` measures the thresholds).

Also allocating states (``new_state`` lives here because it resets a batch with
``batch_reset``) and drawing a move from weights (``sample_and_play``).
"""

from __future__ import annotations

import numpy as np
from numba import prange

from go_env.core.parallel import batch_kernel
from go_env.core.playout import next_uniform, random_playout
from go_env.core.rules import apply_legal, empty_point_status, legal_mask, play, reset
from go_env.core.scoring import score
from go_env.core.state import (
    EMPTY,
    HISTORY,
    INFO_OVER,
    INFO_TO_PLAY,
    LEGAL,
    NUM_INFO,
    RUNNING,
    GoState,
    inline_kernel,
    kernel,
    make_geometry,
    seen_capacity,
)

# The least games x board points at which a batch kernel runs in parallel: about a millisecond
# of serial work (``goarena bench threads`` measures them). On 9x9 a mask or a score takes a
# microsecond or less, a random playout about 12; a move (and a reset) a fraction of a
# microsecond whatever the board, so its threshold holds on 19x19 too.
MIN_WORK_MASKS = 1 << 17
MIN_WORK_MOVES = 1 << 18
MIN_WORK_PLAYOUTS = 1 << 12


def new_state(
    size: int,
    ko_rule: int,
    allow_suicide: int,
    max_moves: int,
    komi_half_points: int,
    scoring: int,
    batch: int = 0,
) -> GoState:
    """Allocate an empty-board state (or ``batch`` of them when ``batch > 0``) under the
    rules as ``Rules.kernel_rules`` gives them (komi in half points: 15 for 7.5)."""
    num_points = size * size
    lead = (batch,) if batch else ()
    state = GoState(
        board=np.zeros(lead + (num_points + 1,), np.int8),
        chain_head=np.zeros(lead + (num_points,), np.int16),
        chain_next=np.zeros(lead + (num_points,), np.int16),
        chain_size=np.zeros(lead + (num_points,), np.int16),
        chain_libs=np.zeros(lead + (num_points,), np.int16),
        chain_key=np.zeros(lead + (num_points,), np.uint64),
        empties=np.zeros(lead + (num_points,), np.int16),
        empty_index=np.zeros(lead + (num_points,), np.int16),
        placed_at=np.zeros(lead + (num_points,), np.int32),
        recent=np.zeros(lead + (HISTORY, num_points), np.int8),
        seen=np.zeros(lead + (seen_capacity(max_moves),), np.uint64),
        key=np.zeros(lead + (1,), np.uint64),
        info=np.zeros(lead + (NUM_INFO,), np.int64),
    )
    geometry = make_geometry(size)
    rules = np.array([ko_rule, int(allow_suicide), max_moves, komi_half_points, scoring], np.int64)
    if batch:
        batch_reset(state, geometry, rules)
    else:
        reset(state, geometry, rules)
    return state


def state_item(batch: GoState, b: int) -> GoState:
    """Game ``b`` of a batch, as numpy views for Python callers.

    Arrays returned by compiled code are owned by numba's runtime, which the kernels compiled
    without it must never be handed; numpy views of numpy arrays are always safe.
    """
    return GoState(*(field[b] for field in batch))


@inline_kernel
def batch_item(batch, b):
    """Game ``b`` of a batch, as views into the batch arrays, for compiled code only
    (Python callers take ``state_item``)."""
    return GoState(
        batch.board[b], batch.chain_head[b], batch.chain_next[b], batch.chain_size[b],
        batch.chain_libs[b], batch.chain_key[b], batch.empties[b], batch.empty_index[b],
        batch.placed_at[b], batch.recent[b], batch.seen[b], batch.key[b], batch.info[b],
    )  # fmt: skip


@batch_kernel(MIN_WORK_MOVES)
def batch_reset(batch, geometry, rules):
    """Empty every board (``rules`` as ``reset`` takes them)."""
    for b in prange(batch.board.shape[0]):
        reset(batch_item(batch, b), geometry, rules)


@batch_kernel(MIN_WORK_MOVES)
def batch_reset_where(batch, geometry, rules, where):
    """Empty the boards of the games ``b`` where ``where[b]`` (bool[B]); the others are untouched."""
    for b in prange(batch.board.shape[0]):
        if where[b]:
            reset(batch_item(batch, b), geometry, rules)


@batch_kernel(MIN_WORK_MOVES)
def batch_play(batch, geometry, moves, status_out):
    """Play ``moves[b]`` in game ``b`` where legal; the status of each goes to ``status_out[b]``."""
    for b in prange(batch.board.shape[0]):
        status_out[b] = play(batch_item(batch, b), geometry, moves[b])


@batch_kernel(MIN_WORK_MASKS)
def batch_legal_mask(batch, geometry, out):
    """``out[b]`` (int8[B, P+1]) gets the legal-move mask of game ``b``."""
    for b in prange(batch.board.shape[0]):
        legal_mask(batch_item(batch, b), geometry, out[b])


@batch_kernel(MIN_WORK_PLAYOUTS)
def batch_random_playout(batch, geometry, seeds, moves_out):
    """Play every game of the batch out at random, game ``b`` seeded by ``seeds[b]`` (nonzero)."""
    for b in prange(batch.board.shape[0]):
        rng = np.empty(1, np.uint64)
        rng[0] = np.uint64(seeds[b]) | np.uint64(1)
        moves_out[b] = random_playout(batch_item(batch, b), geometry, rng)


@batch_kernel(MIN_WORK_MASKS)
def batch_score(batch, geometry, out):
    """``out[b]`` gets the score of game ``b`` (see ``score``)."""
    for b in prange(batch.board.shape[0]):
        out[b] = score(batch_item(batch, b), geometry)


@inline_kernel
def _candidate(state, weights, a, num_points):
    """The weight of move ``a`` if it may be legal at a glance (pass, or an empty point), else 0."""
    weight = weights[a]
    if not weight > 0.0 or (a < num_points and state.board[a] != EMPTY):
        return 0.0
    return weight


@kernel
def sample_and_play(state, geometry, weights, rng):
    """Draw a legal move with probability in proportion to ``weights`` (float[P+1], not
    necessarily normalised or masked) and play it; return it, or -1 where the game is over or
    no legal move has weight (nothing is played).

    A move is drawn among the empty points and pass and kept if legal, else drawn again
    (rejection sampling: a few checks of legality rather than one per point); after a few
    rejections, one pass over the legal moves draws it, each legal move of weight ``w``
    replacing the choice so far with probability ``w / (weight seen so far)``.
    """
    if state.info[INFO_OVER] != RUNNING:
        return -1
    num_points = geometry.size * geometry.size
    color = state.info[INFO_TO_PLAY]
    total = 0.0
    for a in range(num_points + 1):
        total += _candidate(state, weights, a, num_points)
    for _ in range(4 if total > 0.0 else 0):
        target = next_uniform(rng) * total
        chosen = num_points
        for a in range(num_points + 1):
            weight = _candidate(state, weights, a, num_points)
            if weight > 0.0:
                chosen = a
                target -= weight
                if target < 0.0:
                    break
        if chosen == num_points or empty_point_status(state, geometry, chosen, color) == LEGAL:
            apply_legal(state, geometry, chosen)
            return chosen
    total = 0.0
    chosen = -1
    for a in range(num_points + 1):
        weight = _candidate(state, weights, a, num_points)
        if weight > 0.0 and (a == num_points or empty_point_status(state, geometry, a, color) == LEGAL):
            total += weight
            if next_uniform(rng) * total < weight:
                chosen = a
    if chosen >= 0:
        apply_legal(state, geometry, chosen)
    return chosen


@batch_kernel(MIN_WORK_MOVES)
def batch_sample_and_play(batch, geometry, probabilities, rngs, moves_out):
    """``sample_and_play`` in every game ``b`` with weights ``probabilities[b]`` (float[B, P+1])
    and generator ``rngs[b]`` (uint64[B], nonzero); the moves (or -1) go to ``moves_out``."""
    for b in prange(batch.board.shape[0]):
        moves_out[b] = sample_and_play(batch_item(batch, b), geometry, probabilities[b], rngs[b : b + 1])
