"""The batch kernels (``go_env.core.batch``) against single games played move by move."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from go_env import core as K
from go_env.invariants import check_state
from tests.go_env.core.test_rules import KO_CODES
from tests.go_env.core.test_state import same_state


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    size=st.integers(2, 7),
    ko=st.sampled_from(sorted(KO_CODES)),
    suicide=st.booleans(),
    batch=st.integers(1, 5),
    steps=st.integers(0, 60),
    seed=st.integers(0, 2**32 - 1),
)
def test_batched_kernels_match_single_games(
    size: int, ko: str, suicide: bool, batch: int, steps: int, seed: int
) -> None:
    geometry = K.make_geometry(size)
    num_points = size * size
    max_moves = 3 * num_points
    # Komi 7.5 (15 half points); territory scoring with simple ko, area with superko.
    rules = (KO_CODES[ko], suicide, max_moves, 15, K.SCORING_TERRITORY if ko == "simple" else K.SCORING_AREA)
    states = K.new_state(size, *rules, batch=batch)
    singles = [K.new_state(size, *rules) for _ in range(batch)]
    rng = np.random.default_rng(seed)
    masks = np.empty((batch, num_points + 1), np.int8)
    mask = np.empty(num_points + 1, np.int8)
    statuses = np.empty(batch, np.int64)

    for _ in range(steps):
        K.batch_legal_mask(states, geometry, masks)
        moves = np.empty(batch, np.int64)
        for b, single in enumerate(singles):
            K.legal_mask(single, geometry, mask)
            np.testing.assert_array_equal(masks[b], mask)
            legal = np.flatnonzero(mask)
            # Mostly legal moves; now and then any point, to compare refusals too.
            if rng.random() < 0.2 or len(legal) == 0:
                moves[b] = rng.integers(-1, num_points + 2)
            else:
                moves[b] = rng.choice(legal)
        K.batch_play(states, geometry, moves, statuses)
        for b, single in enumerate(singles):
            assert statuses[b] == K.play(single, geometry, moves[b])
            same_state(K.state_item(states, b), single)

    # Play every game out at random from there, each seeded as the batch seeds it.
    seeds = rng.integers(1, 2**63, size=batch).astype(np.uint64)
    played = np.empty(batch, np.int64)
    K.batch_random_playout(states, geometry, seeds, played)
    scores = np.empty(batch, np.float64)
    K.batch_score(states, geometry, scores)
    for b, single in enumerate(singles):
        generator = np.array([seeds[b] | np.uint64(1)], np.uint64)
        assert played[b] == K.random_playout(single, geometry, generator)
        same_state(K.state_item(states, b), single)
        assert single.info[K.INFO_OVER] != K.RUNNING
        check_state(single, geometry, history=False)
        assert scores[b] == K.score(single, geometry)
