"""Pattern-policy playouts and their evaluator."""

from __future__ import annotations

import numpy as np
import pytest

from go_env import BLACK, WHITE, Game, coords
from go_env import core as K
from go_env.features import patterns as pt
from go_env.features.patterns import update_liberties
from go_env.invariants import check_state
from goarena.search import PUCT
from goarena.search.evaluator import random_state
from goarena.search.rollout import (
    PatternRolloutEvaluator,
    forget_weights,
    local_weight,
    new_playout_scratch,
    pattern_move,
    pattern_playout,
    play_move,
    playout_speed,
)
from tests.boards import CAPTURE, HALF_POINT_KOMI, position


def policy_with(weights: dict[int, float] | None = None) -> pt.PatternPolicy:
    """A policy with zero weights but the given features' (index -> weight)."""
    tables = pt.pattern_tables()
    vector = np.zeros(tables.num_features, np.float32)
    for feature, weight in (weights or {}).items():
        vector[feature] = weight
    return pt.PatternPolicy(tables, vector)


TAKES_TWO = {pt.CAPTURE + 1: 50.0}  # a strong liking for capturing two stones


def noisy_policy(seed: int) -> pt.PatternPolicy:
    tables = pt.pattern_tables()
    weights = np.random.default_rng(seed).normal(0, 1, tables.num_features).astype(np.float32)
    return pt.PatternPolicy(tables, weights)


def test_a_playout_plays_a_legal_game_to_the_end() -> None:
    game = Game(9)
    state = K.copy_state(game.state)
    moves = np.full(int(state.info[K.INFO_MAX_MOVES]) + 1, -1, np.int32)
    scratch = new_playout_scratch(9)
    played = pattern_playout(state, game.geometry, noisy_policy(0), scratch, random_state(1), moves, 0)
    assert state.info[K.INFO_OVER] != K.RUNNING
    assert played == state.info[K.INFO_MOVE_NUMBER] > 20
    replay = Game(9)
    for move in moves[:played]:
        replay.play(int(move))  # the recorded moves are the game played, each legal
    assert np.array_equal(replay.state.board, state.board)
    check_state(state, game.geometry, history=False)


@pytest.mark.parametrize("seed", [0, 1])
def test_moves_are_legal_and_the_kept_weights_stay_exact(seed: int) -> None:
    game = Game(9)
    state, geometry = K.copy_state(game.state), game.geometry
    policy, scratch, rng = noisy_policy(seed), new_playout_scratch(9), random_state(seed + 1)
    forget_weights(scratch)
    while not game.is_over:
        move = int(pattern_move(state, geometry, policy, scratch, rng))
        legal_points = game.legal_moves()[:-1]
        if move != game.pass_move:
            assert not K.is_eye(state, geometry, move, game.to_play)
        else:  # pass only when every legal move fills an own eye
            assert all(K.is_eye(state, geometry, p, game.to_play) for p in legal_points)
        game.play(move)  # raises if illegal
        play_move(state, geometry, scratch, move)
        assert (state.board == game.state.board).all()
        # Every weight not marked stale is what computing it afresh gives.
        update_liberties(state, geometry, scratch.patterns)
        for color in (BLACK, WHITE):
            for point in np.flatnonzero(state.board[:-1] == K.EMPTY):
                if not scratch.dirty[color, point]:
                    fresh = local_weight(state, geometry, policy, scratch, point, color)
                    assert scratch.weights[color, point] == fresh, (coords.to_gtp(point, 9), color)
    check_state(state, geometry, history=False)


def test_the_weights_steer_the_moves() -> None:
    game = position(CAPTURE)
    policy, scratch, rng = policy_with(TAKES_TWO), new_playout_scratch(5), random_state(0)
    moves = {int(pattern_move(game.state, game.geometry, policy, scratch, rng)) for _ in range(20)}
    assert moves == {coords.from_gtp("C2", 5)}


def test_evaluator_priors_and_values() -> None:
    game = position(CAPTURE, HALF_POINT_KOMI)
    evaluator = PatternRolloutEvaluator(policy_with(TAKES_TWO), rollouts=8, seed=0)
    puct = PUCT(evaluator, seed=0)
    assert coords.to_gtp(puct.search(game, simulations=200), 5) == "C2"
    priors = puct.priors()
    assert priors.argmax() == coords.from_gtp("C2", 5)
    assert priors.sum() == pytest.approx(1.0, abs=1e-5)
    assert (priors[game.legal_mask() == 0] == 0).all()
    assert (np.abs(puct.values()) <= 1).all()


def test_values_are_reproducible_from_the_seed() -> None:
    game = position(CAPTURE, HALF_POINT_KOMI)
    first = PUCT(PatternRolloutEvaluator(noisy_policy(4), seed=7), seed=0)
    second = PUCT(PatternRolloutEvaluator(noisy_policy(4), seed=7), seed=0)
    first.search(game, simulations=50)
    second.search(game, simulations=50)
    assert (first.values() == second.values()).all()


def test_bad_options_are_refused(tmp_path) -> None:
    with pytest.raises(ValueError, match="rollouts"):
        PatternRolloutEvaluator(policy_with(), rollouts=0)
    (tmp_path / "junk.npz").write_bytes(b"not a weights file")
    with pytest.raises(ValueError, match="not a rollout weights file"):
        PatternRolloutEvaluator(tmp_path / "junk.npz")


def test_playout_speed_counts_moves() -> None:
    pattern, uniform = playout_speed(policy_with(), size=5, games=5)
    assert pattern > 0 and uniform > 0
