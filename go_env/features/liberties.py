"""Exact liberty counts, and what a move would do to them, once per position.

The core keeps pseudo-liberties (an empty point counted once per adjacent stone of the
chain), enough to tell atari but not how many liberties a chain has. These kernels count
distinct liberties by stamping the points already counted in ``mark`` (int64[P+1] scratch that
the caller allocates once; the kernels allocate nothing).
"""

from __future__ import annotations

from go_env.core import EMPTY, INFO_TO_PLAY, kernel


@kernel
def chain_liberties(state, geometry, mark, out):
    """Write into ``out`` (int[P]) the exact liberty count of the chain on every point, 0 where
    the point is empty."""
    num_points = geometry.size * geometry.size
    board, head, link = state.board, state.chain_head, state.chain_next
    mark[:] = 0
    stamp = 0
    for p in range(num_points):
        if board[p] == EMPTY or head[p] != p:
            continue
        stamp += 1
        count = 0
        x = p
        while True:
            for k in range(4):
                n = geometry.neighbors[x, k]
                if board[n] == EMPTY and mark[n] != stamp:
                    mark[n] = stamp
                    count += 1
            x = link[x]
            if x == p:
                break
        out[p] = count
    for p in range(num_points):
        if board[p] == EMPTY:
            out[p] = 0
        elif head[p] != p:
            out[p] = out[head[p]]


@kernel
def move_liberties(state, geometry, liberties, mark, libs_out, captures_out, size_out):
    """What a stone of the side to move would do on every empty point, whether legal or not.

    Args:
        liberties: int[P], exact chain liberties from ``chain_liberties``.
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
