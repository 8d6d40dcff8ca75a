"""The 8 symmetries of the square board (the dihedral group), for augmenting and averaging.

Symmetry ``k`` (0..7) mirrors the board left-right when ``k >= 4``, then turns it ``k % 4``
quarter turns anticlockwise (numpy's ``rot90``); ``k = 0`` is the identity. As point maps,
``symmetry_maps(size)[k, p]`` is where point ``p`` goes (``P``, pass, stays put), so planes,
moves and policies transform alike: the one-hot plane of move ``p`` transformed by ``k`` is
the one-hot plane of move ``symmetry_maps(size)[k, p]``.
"""

from __future__ import annotations

from functools import cache

import numpy as np

SYMMETRIES = 8


def _check_symmetry(k: int) -> None:
    if not 0 <= k < SYMMETRIES:
        raise ValueError(f"symmetry must be in 0..{SYMMETRIES - 1}, got {k}")


def _turn(board: np.ndarray, k: int) -> np.ndarray:
    """Symmetry ``k`` of the last two axes (a view)."""
    if k >= 4:
        board = np.flip(board, -1)
    return np.rot90(board, k % 4, axes=(-2, -1))


@cache
def symmetry_maps(size: int) -> np.ndarray:
    """int64[8, P+1]: ``maps[k, p]`` is the point that ``p`` moves to under symmetry ``k``
    (read-only; row 0 is the identity and ``maps[k, P] == P``)."""
    if size < 1:
        raise ValueError(f"board size must be positive, got {size}")
    num_points = size * size
    points = np.arange(num_points).reshape(size, size)
    maps = np.empty((SYMMETRIES, num_points + 1), np.int64)
    for k in range(SYMMETRIES):
        # _turn(points)[q] is the point that lands on q: invert that gather into a scatter.
        maps[k, _turn(points, k).reshape(-1)] = np.arange(num_points)
        maps[k, num_points] = num_points
    maps.setflags(write=False)
    return maps


def inverse(k: int) -> int:
    """The symmetry that undoes ``k``: turns go back, mirror images are their own inverse."""
    _check_symmetry(k)
    return k if k >= 4 else -k % 4


def transform_planes(planes: np.ndarray, k: int) -> np.ndarray:
    """Symmetry ``k`` of board planes ``[..., N, N]`` (``[C, N, N]``, ``[B, C, N, N]``, ...),
    as a new contiguous array."""
    _check_symmetry(k)
    if planes.ndim < 2 or planes.shape[-1] != planes.shape[-2]:
        raise ValueError(f"planes must end in two equal board axes [..., N, N], got shape {planes.shape}")
    return np.ascontiguousarray(_turn(planes, k))


def transform_moves(moves: np.ndarray | int, k: int, size: int) -> np.ndarray:
    """Symmetry ``k`` of move indices (``0..P``, pass ``P`` unchanged), of any shape."""
    _check_symmetry(k)
    moves = np.asarray(moves)
    if not np.issubdtype(moves.dtype, np.integer):
        raise TypeError(f"moves must be integers, got dtype {moves.dtype}")
    num_points = size * size
    if moves.size and (moves.min() < 0 or moves.max() > num_points):
        raise ValueError(f"moves must be in 0..{num_points} on a {size}x{size} board")
    return symmetry_maps(size)[k][moves]


def transform_policy(policy: np.ndarray, k: int, size: int) -> np.ndarray:
    """Symmetry ``k`` of move-indexed values ``[..., P+1]`` (priors, visit counts): the value of
    move ``p`` goes to its image; pass keeps its value."""
    _check_symmetry(k)
    num_points = size * size
    if policy.shape[-1:] != (num_points + 1,):
        raise ValueError(f"policy must end in {num_points + 1} moves, got shape {policy.shape}")
    out = np.empty_like(policy)
    out[..., symmetry_maps(size)[k]] = policy
    return out
