"""The 8 board symmetries: a group of point maps that planes, moves and policies follow alike."""

from __future__ import annotations

import numpy as np
import pytest

from go_env.features.symmetry import (
    SYMMETRIES,
    inverse,
    symmetry_maps,
    transform_moves,
    transform_planes,
    transform_policy,
)


def one_hot(move: int, size: int) -> np.ndarray:
    plane = np.zeros(size * size, np.int8)
    plane[move] = 1
    return plane.reshape(size, size)


@pytest.mark.parametrize("size", [1, 2, 5, 9])
def test_maps_are_eight_distinct_permutations_fixing_pass(size):
    maps = symmetry_maps(size)
    num_points = size * size
    assert maps.shape == (SYMMETRIES, num_points + 1)
    assert np.array_equal(maps[0], np.arange(num_points + 1))
    assert (maps[:, num_points] == num_points).all()
    for row in maps:
        assert np.array_equal(np.sort(row), np.arange(num_points + 1))
    if size > 1:
        assert len({row.tobytes() for row in maps}) == SYMMETRIES


@pytest.mark.parametrize("size", [4, 5])
def test_maps_form_a_group(size):
    maps = symmetry_maps(size)
    rows = {row.tobytes(): k for k, row in enumerate(maps)}
    for a in range(SYMMETRIES):
        assert np.array_equal(maps[inverse(a)][maps[a]], maps[0])
        assert inverse(inverse(a)) == a
        for b in range(SYMMETRIES):
            assert maps[b][maps[a]].tobytes() in rows  # closed under composition


def test_known_images_on_3x3():
    # 0 1 2 / 3 4 5 / 6 7 8: a quarter turn anticlockwise takes the top-right corner to the
    # top-left; the mirror takes it to the top-left too, and the centre never moves.
    maps = symmetry_maps(3)
    assert maps[1, 2] == 0
    assert maps[1, 0] == 6
    assert maps[4, 2] == 0
    assert maps[2, 0] == 8
    assert (maps[:, 4] == 4).all()


@pytest.mark.parametrize("k", range(SYMMETRIES))
def test_planes_and_moves_transform_alike(k):
    size = 5
    for move in (0, 3, 7, 12, 24):
        moved = transform_planes(one_hot(move, size)[None], k)[0]
        assert np.array_equal(moved, one_hot(int(transform_moves(move, k, size)), size))


@pytest.mark.parametrize("k", range(SYMMETRIES))
def test_inverse_undoes_planes_moves_and_policies(k):
    size = 5
    rng = np.random.default_rng(k)
    planes = rng.integers(0, 2, size=(3, 4, size, size), dtype=np.uint8)
    back = transform_planes(transform_planes(planes, k), inverse(k))
    assert np.array_equal(back, planes)
    moves = rng.integers(0, size * size + 1, size=(2, 6))
    assert np.array_equal(transform_moves(transform_moves(moves, k, size), inverse(k), size), moves)
    policy = rng.random((2, size * size + 1))
    assert np.array_equal(transform_policy(transform_policy(policy, k, size), inverse(k), size), policy)


@pytest.mark.parametrize("k", range(SYMMETRIES))
def test_policy_follows_the_board(k):
    size = 4
    policy = np.arange(size * size + 1, dtype=np.float64)
    moved = transform_policy(policy, k, size)
    board_part = transform_planes(policy[:-1].reshape(size, size), k).reshape(-1)
    assert np.array_equal(moved[:-1], board_part)
    assert moved[-1] == policy[-1]


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="symmetry"):
        inverse(8)
    with pytest.raises(ValueError, match="board axes"):
        transform_planes(np.zeros((3, 4, 5)), 1)
    with pytest.raises(ValueError, match="moves must be in"):
        transform_moves(np.array([26]), 1, 5)
    with pytest.raises(TypeError, match="integers"):
        transform_moves(np.array([1.0]), 1, 5)
    with pytest.raises(ValueError, match="26 moves"):
        transform_policy(np.zeros(25), 1, 5)
