"""Random playouts (``go_env.core.playout``): one-point eyes they never fill, the bookkeeping
they keep, and the in-numba loops against move-by-move play."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from go_env import coords
from go_env import core as K
from go_env.game import BLACK, WHITE
from go_env.invariants import check_state
from tests.boards import position
from tests.go_env.core.test_rules import KO_CODES, POSITIONAL
from tests.go_env.core.test_state import same_state

EYES = {
    # In the middle, one White stone on a diagonal still leaves C3 a true eye...
    "middle, one diagonal": ("C3", True, ". . . . .\n. O X . .\n. X . X .\n. . X . .\n. . . . ."),
    # ...two make it false: White can cut there.
    "middle, two diagonals": ("C3", False, ". . . . .\n. O X . .\n. X . X .\n. . X O .\n. . . . ."),
    # On the edge a single diagonal is enough.
    "edge, no diagonal": ("C1", True, ". . . . .\n. . . . .\n. . . . .\n. . X . .\n. X . X ."),
    "edge, one diagonal": ("C1", False, ". . . . .\n. . . . .\n. . . . .\n. O X . .\n. X . X ."),
    "corner, one diagonal": ("A1", False, ". . . . .\n. . . . .\n. . . . .\nX O . . .\n. X . . ."),
    "not surrounded": ("C3", False, ". . . . .\n. . X . .\n. X . . .\n. . X . .\n. . . . ."),
}


@pytest.mark.parametrize("name", EYES)
def test_one_point_eyes(name: str) -> None:
    vertex, expected, diagram = EYES[name]
    game = position(diagram, POSITIONAL)
    point = coords.from_gtp(vertex, 5)
    assert K.is_eye(game.state, game.geometry, point, BLACK) == expected
    assert not K.is_eye(game.state, game.geometry, point, WHITE)


@settings(max_examples=30, deadline=None)
@given(
    size=st.integers(2, 9),
    ko=st.sampled_from(sorted(KO_CODES)),
    suicide=st.booleans(),
    seed=st.integers(1, 2**62),
)
def test_random_playout_keeps_the_bookkeeping(size: int, ko: str, suicide: bool, seed: int) -> None:
    """random_move reorders the empty list as it searches; the state must stay whole."""
    geometry = K.make_geometry(size)
    state = K.new_state(size, KO_CODES[ko], suicide, 4 * size * size, 15, K.SCORING_AREA)
    generator = np.array([seed], np.uint64)
    while state.info[K.INFO_OVER] == K.RUNNING:
        move = K.random_move(state, geometry, generator)
        if move != size * size:  # it never fills its own eye
            assert not K.is_eye(state, geometry, move, state.info[K.INFO_TO_PLAY])
        assert K.play(state, geometry, move) == K.LEGAL
        check_state(state, geometry)
    # The in-numba loop plays the same game from the same generator state.
    replay = K.new_state(size, KO_CODES[ko], suicide, 4 * size * size, 15, K.SCORING_AREA)
    played = K.random_playout(replay, geometry, np.array([seed], np.uint64))
    assert played == state.info[K.INFO_MOVE_NUMBER]
    np.testing.assert_array_equal(replay.board, state.board)
    check_state(replay, geometry, history=False)


@settings(max_examples=20, deadline=None)
@given(
    size=st.integers(2, 9),
    ko=st.sampled_from(sorted(KO_CODES)),
    opening=st.integers(0, 20),
    seed=st.integers(1, 2**62),
)
def test_random_playouts_match_playouts_one_by_one(size: int, ko: str, opening: int, seed: int) -> None:
    geometry = K.make_geometry(size)
    root = K.new_state(size, KO_CODES[ko], 0, 3 * size * size, 0, K.SCORING_AREA)  # komi 0
    generator = np.array([seed], np.uint64)
    for _ in range(opening):  # start from some position, not only the empty board
        if root.info[K.INFO_OVER] == K.RUNNING:
            K.play(root, geometry, K.random_move(root, geometry, generator))
    before = K.copy_state(root)
    scratch = K.copy_state(root)
    start = generator.copy()
    moves, black_wins, draws = K.random_playouts(root, geometry, scratch, 8, generator)
    same_state(root, before)  # the root is left alone

    expected = [0, 0, 0]
    for _ in range(8):
        game = K.copy_state(before)
        expected[0] += K.random_playout(game, geometry, start)
        margin = K.score(game, geometry)
        expected[1] += margin > 0
        expected[2] += margin == 0
    assert [moves, black_wins, draws] == expected
    np.testing.assert_array_equal(generator, start)


@pytest.mark.parametrize("size", [13, 19, 25])
def test_big_board_playout_keeps_the_bookkeeping(size: int) -> None:
    geometry = K.make_geometry(size)
    state = K.new_state(size, K.KO_POSITIONAL, 0, 4 * size * size, 15, K.SCORING_AREA)
    K.random_playout(state, geometry, np.array([size], np.uint64))
    assert state.info[K.INFO_OVER] == K.ENDED_BY_PASSES
    check_state(state, geometry, history=False)


def test_clearing_own_eyes_drops_exactly_the_points_is_eye_names():
    game = position(
        """
        . X . X .
        X X X X X
        . . . . .
        O O O O O
        . O . O .
        """
    )
    for color in (BLACK, WHITE):
        moves = np.ones(26, np.int8)
        K.clear_own_eyes(game.state, game.geometry, moves, color)
        empty = np.flatnonzero(game.board.ravel() == 0)
        eyes = [p for p in empty if K.is_eye(game.state, game.geometry, p, color)]
        assert eyes and np.flatnonzero(moves == 0).tolist() == eyes
        assert moves[25] == 1  # pass is no point
