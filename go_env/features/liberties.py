"""Exact liberty counts, and what a move would do to them, once per position.

The core keeps pseudo-liberties (an empty point counted once per adjacent stone of the
chain), enough to tell atari but not how many liberties a chain has. These kernels count
distinct liberties by stamping the points already counted in ``mark`` (int64[P+1] scratch that
the caller allocates once; the kernels allocate nothing). ``chain_liberties`` is the one chain
walk: the AlphaGo planes count exactly, the rollout patterns up to 3 (``patterns``).
"""

from __future__ import annotations

from go_env.core import EMPTY, INFO_TO_PLAY, inline_kernel, kernel


@inline_kernel
def chain_liberties(state, geometry, mark, stamp, cap, libs, first_libs):
    """Count every chain's distinct liberties, up to ``cap``, into ``libs`` at its head, and
    its first ``first_libs.shape[1]`` liberties into ``first_libs[head]``.

    ``mark`` holds stamps; the chains take the stamps after ``stamp``, and the last one is
    returned (a caller that keeps ``mark`` between positions need not clear it). A chain's walk
    stops once ``cap`` liberties are counted.
    """
    num_points = geometry.size * geometry.size
    board, link = state.board, state.chain_next
    kept = first_libs.shape[1]
    for head in range(num_points):
        if board[head] == EMPTY or state.chain_head[head] != head:
            continue
        stamp += 1
        count = 0
        x = head
        while count < cap:
            for k in range(4):
                n = geometry.neighbors[x, k]
                if board[n] == EMPTY and mark[n] != stamp:
                    mark[n] = stamp
                    if count < kept:
                        first_libs[head, count] = n
                    count += 1
            x = link[x]
            if x == head:
                break
        libs[head] = min(count, cap)
    return stamp


@kernel
def point_liberties(state, geometry, mark, out):
    """Write into ``out`` (int[P]) the exact liberty count of the chain on every point, 0 where
    the point is empty."""
    num_points = geometry.size * geometry.size
    board, head = state.board, state.chain_head
    mark[:] = 0
    no_first = out.reshape((num_points, 1))[:, :0]  # no liberty kept: a view, nothing allocated
    chain_liberties(state, geometry, mark, 0, num_points, out, no_first)
    for p in range(num_points):
        if board[p] == EMPTY:
            out[p] = 0
        elif head[p] != p:
            out[p] = out[head[p]]


@kernel
def move_liberties(state, geometry, liberties, mark, libs_out, captures_out, size_out):
    """What a stone of the side to move would do on every empty point, whether legal or not.

    Args:
        liberties: int[P], exact chain liberties from ``point_liberties``.
        mark: int64[P+1] scratch.
        libs_out: int[P]: exact liberties of the chain holding the new stone once its captures
            are off the board (the captured points next to it count).
        captures_out: int[P]: enemy stones it would capture.
        size_out: int[P]: stones of the chain holding the new stone.
        All three get 0 on occupied points.
    """
    num_points = geometry.size * geometry.size
    board, head, link = state.board, state.chain_head, state.chain_next
    color = state.info[INFO_TO_PLAY]
    enemy = 3 - color
    mark[:] = 0
    stamp = 0
    for p in range(num_points):
        libs_out[p] = captures_out[p] = size_out[p] = 0
        if board[p] != EMPTY:
            continue
        # One stamp per point marks both the liberties counted (empty points, p itself so that
        # it is never one) and the heads of the chains met (stones), which cannot collide.
        stamp += 1
        mark[p] = stamp
        libs = 0
        size = 1
        for k in range(4):
            n = geometry.neighbors[p, k]
            if board[n] == EMPTY and mark[n] != stamp:
                mark[n] = stamp
                libs += 1
            elif board[n] == color and mark[head[n]] != stamp:
                h = head[n]
                mark[h] = stamp
                size += state.chain_size[h]
                x = h
                while True:
                    for j in range(4):
                        m = geometry.neighbors[x, j]
                        if board[m] == EMPTY and mark[m] != stamp:
                            mark[m] = stamp
                            libs += 1
                    x = link[x]
                    if x == h:
                        break
        captured = 0
        for k in range(4):
            n = geometry.neighbors[p, k]
            if board[n] != enemy or liberties[n] != 1 or mark[head[n]] == stamp:
                continue
            h = head[n]
            mark[h] = stamp
            captured += state.chain_size[h]
            x = h
            while True:  # a captured stone becomes a liberty if it touches the new chain
                for j in range(4):
                    m = geometry.neighbors[x, j]
                    if m == p or (board[m] == color and mark[head[m]] == stamp):
                        libs += 1
                        break
                x = link[x]
                if x == h:
                    break
        libs_out[p] = libs
        captures_out[p] = captured
        size_out[p] = size
