"""The state and the tables (``go_env.core.state``): per-size geometry, the size of the position
set, and copies that share nothing."""

from __future__ import annotations

import numpy as np
import pytest

from go_env import core as K
from go_env.core.state import seen_capacity


def same_state(a: K.GoState, b: K.GoState) -> None:
    for name, x, y in zip(K.GoState._fields, a, b, strict=True):
        np.testing.assert_array_equal(x, y, err_msg=name)


def test_the_geometry_is_made_once_per_size_and_read_only():
    geometry = K.make_geometry(3)
    assert K.make_geometry(3) is geometry and K.make_geometry(4) is not geometry
    off_board = 9
    assert sorted(geometry.neighbors[0]) == [1, 3, off_board, off_board]  # a corner: two neighbours
    assert sorted(geometry.neighbors[4]) == [1, 3, 5, 7]  # the centre: four
    assert sorted(geometry.diagonals[4]) == [0, 2, 6, 8]
    for table in (geometry.neighbors, geometry.diagonals, geometry.zobrist, geometry.zobrist_turn):
        assert not table.flags.writeable
    with pytest.raises(ValueError, match="board size must be between 1 and 25"):
        K.make_geometry(26)


def test_the_position_set_is_a_power_of_two_at_most_half_full():
    for max_moves in (0, 7, 100, 722):
        capacity = seen_capacity(max_moves)
        assert capacity >= 16 and capacity & (capacity - 1) == 0
        assert 2 * (max_moves + 2) <= capacity


def test_copies_share_nothing_with_the_state_they_copy():
    geometry = K.make_geometry(5)
    state = K.new_state(5, K.KO_POSITIONAL, 0, 50, 15, K.SCORING_AREA)
    assert K.play(state, geometry, 12) == K.LEGAL
    copy = K.copy_state(state)
    same_state(copy, state)
    assert K.play(copy, geometry, 13) == K.LEGAL
    assert state.board[13] == K.EMPTY and state.info[K.INFO_MOVE_NUMBER] == 1
    into = K.new_state(5, K.KO_POSITIONAL, 0, 50, 15, K.SCORING_AREA)
    K.copy_into(into, copy)  # without allocating
    same_state(into, copy)
