"""The rules of Go as numba kernels over a small struct of arrays.

Points are flat indices ``0 .. P-1`` (``P = N*N``), row-major with row 0 the top row;
``P`` is the pass move. Inside the kernels ``board[P]`` holds a permanent ``WALL``
stone, and every off-board neighbour in the geometry tables points at it, so
neighbour loops need no bounds checks.

What every move needs is kept incrementally: chains as circular linked lists with a
head, stone count, pseudo-liberty count (liberties counted once per adjacent stone,
which is zero exactly when the chain has no liberty) and Zobrist key; the list of
empty points; the board's Zobrist key; and an open-addressing hash set of every
position seen, for superko.

Kernels change the arrays in place and return status codes; they never raise.
"""

from __future__ import annotations

from functools import cache
from typing import NamedTuple

import numpy as np
from numba import njit, prange

# Kernels that allocate nothing are compiled without numba's reference counting: with it,
# each call that passes the 13-array state pays dozens of atomic reference-count updates
# (measured: 80 ns per inlined call, several times the work of the call itself).
# ``_nrt`` is numba's switch for its runtime; its stubs leave it out.
kernel = njit(cache=True, _nrt=False)  # type: ignore[call-overload]
# Small helpers are inlined into their callers before compilation; left to LLVM, a call
# that passes the state by value costs more than the helper's work.
inline_kernel = njit(cache=True, _nrt=False, inline="always")  # type: ignore[call-overload]

# Point contents.
EMPTY, BLACK, WHITE, WALL = 0, 1, 2, 3

# Move status codes (``LEGAL`` is 0 so a status reads as "is there a problem").
LEGAL, OCCUPIED, SUICIDE, KO, SUPERKO, GAME_OVER, OFF_BOARD = range(7)
STATUS_NAMES = ("legal", "occupied", "suicide", "ko", "superko", "game over", "off board")

# Ko rules.
KO_SIMPLE, KO_POSITIONAL, KO_SITUATIONAL = 0, 1, 2

# Why a game is over (``INFO_OVER``).
RUNNING, ENDED_BY_PASSES, TRUNCATED = 0, 1, 2

# Boards kept for history observation planes.
HISTORY = 8

# Slots of the ``info`` array.
INFO_TO_PLAY = 0  # BLACK or WHITE
INFO_KO_POINT = 1  # point of a simple-ko recapture that is forbidden now, or -1
INFO_PASSES = 2  # consecutive passes just played
INFO_MOVE_NUMBER = 3  # moves played (passes included; setup stones excluded)
INFO_NUM_EMPTY = 4  # length of the live part of ``empties``
INFO_CAPTURES = 5  # +0: stones captured by Black, +1: stones captured by White
INFO_KO_RULE = 7  # KO_SIMPLE / KO_POSITIONAL / KO_SITUATIONAL
INFO_SUICIDE = 8  # 1 if suicide is allowed
INFO_MAX_MOVES = 9  # the game is truncated when INFO_MOVE_NUMBER reaches this
INFO_OVER = 10  # RUNNING / ENDED_BY_PASSES / TRUNCATED
INFO_LAST_MOVE = 11  # last move played, or -1
NUM_INFO = 12


class Geometry(NamedTuple):
    """Per-board-size tables shared by every game of that size (read-only)."""

    size: int
    neighbors: np.ndarray  # int64[P, 4]: orthogonal neighbours; P where off board
    diagonals: np.ndarray  # int64[P, 4]: diagonal neighbours; P where off board
    zobrist: np.ndarray  # uint64[3, P]: keys by colour (row EMPTY unused)
    zobrist_turn: np.ndarray  # uint64[3]: [empty-board key, Black to move, White to move]


class GoState(NamedTuple):
    """The state of one game. A batch of games has the same fields with a leading axis ``B``."""

    board: np.ndarray  # int8[P+1]: EMPTY/BLACK/WHITE; board[P] == WALL
    chain_head: np.ndarray  # int16[P]: head point of the chain a stone belongs to
    chain_next: np.ndarray  # int16[P]: next stone of the chain (circular list)
    chain_size: np.ndarray  # int16[P]: stones in the chain, valid at the head
    chain_libs: np.ndarray  # int16[P]: pseudo-liberties of the chain, valid at the head
    chain_key: np.ndarray  # uint64[P]: xor of the chain's Zobrist keys, valid at the head
    empties: np.ndarray  # int16[P]: empty points in empties[:info[INFO_NUM_EMPTY]]
    empty_index: np.ndarray  # int16[P]: position of an empty point in ``empties``
    placed_at: np.ndarray  # int32[P]: move number that placed the stone (-1 empty, 0 setup)
    recent: np.ndarray  # int8[HISTORY, P]: board after move k is recent[k % HISTORY]
    seen: np.ndarray  # uint64[H]: hash set of position keys (0 = free slot), H a power of 2
    key: np.ndarray  # uint64[1]: Zobrist key of the board
    info: np.ndarray  # int64[NUM_INFO]: scalars, see INFO_*


@cache
def make_geometry(size: int) -> Geometry:
    """Neighbour tables and Zobrist keys for a ``size`` x ``size`` board (cached per size)."""
    if not 1 <= size <= 25:
        raise ValueError(f"board size must be between 1 and 25, got {size}")
    num_points = size * size
    neighbors = np.full((num_points, 4), num_points, dtype=np.int64)
    diagonals = np.full((num_points, 4), num_points, dtype=np.int64)
    for p in range(num_points):
        row, col = divmod(p, size)
        for k, (dr, dc) in enumerate(((-1, 0), (0, -1), (0, 1), (1, 0))):
            r, c = row + dr, col + dc
            if 0 <= r < size and 0 <= c < size:
                neighbors[p, k] = r * size + c
        for k, (dr, dc) in enumerate(((-1, -1), (-1, 1), (1, -1), (1, 1))):
            r, c = row + dr, col + dc
            if 0 <= r < size and 0 <= c < size:
                diagonals[p, k] = r * size + c
    # Keys depend only on the size, so hashes are reproducible across runs and processes.
    rng = np.random.default_rng(0x60A12E4A + size)
    zobrist = rng.integers(1, 2**63, size=(3, num_points), dtype=np.int64).astype(np.uint64)
    zobrist_turn = rng.integers(1, 2**63, size=3, dtype=np.int64).astype(np.uint64)
    for table in (neighbors, diagonals, zobrist, zobrist_turn):
        table.setflags(write=False)
    return Geometry(size, neighbors, diagonals, zobrist, zobrist_turn)


def seen_capacity(max_moves: int) -> int:
    """Size of the position hash set: a power of two, at most half full at ``max_moves``."""
    capacity = 16
    while capacity < 2 * (max_moves + 2):
        capacity *= 2
    return capacity


def new_state(size: int, ko_rule: int, allow_suicide: int, max_moves: int, batch: int = 0) -> GoState:
    """Allocate an empty-board state (or ``batch`` of them when ``batch > 0``)."""
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
    rules = np.array([ko_rule, int(allow_suicide), max_moves], np.int64)
    if batch:
        batch_reset(state, geometry, rules)
    else:
        reset(state, geometry, rules)
    return state


def copy_state(state: GoState) -> GoState:
    """An independent copy of a state (or batch)."""
    return GoState(*(field.copy() for field in state))


def state_item(batch: GoState, b: int) -> GoState:
    """Game ``b`` of a batch, as numpy views for Python callers.

    Arrays returned by compiled code are owned by numba's runtime, which the kernels compiled
    without it must never be handed; numpy views of numpy arrays are always safe.
    """
    return GoState(*(field[b] for field in batch))


# ---------------------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------------------


@inline_kernel
def _position_key(state, geometry, board_key, to_play):
    """Key stored in the seen set: the board, plus the side to move under situational superko."""
    if state.info[INFO_KO_RULE] == KO_SITUATIONAL:
        return board_key ^ geometry.zobrist_turn[to_play]
    return board_key


@inline_kernel
def _seen_contains(seen, key):
    mask = np.uint64(seen.shape[0] - 1)
    slot = key & mask
    while seen[slot] != 0:
        if seen[slot] == key:
            return True
        slot = (slot + np.uint64(1)) & mask
    return False


@inline_kernel
def _seen_add(seen, key):
    mask = np.uint64(seen.shape[0] - 1)
    slot = key & mask
    while seen[slot] != 0:
        if seen[slot] == key:
            return
        slot = (slot + np.uint64(1)) & mask
    seen[slot] = key


@inline_kernel
def _add_empty(state, point):
    n = state.info[INFO_NUM_EMPTY]
    state.empties[n] = point
    state.empty_index[point] = n
    state.info[INFO_NUM_EMPTY] = n + 1


@inline_kernel
def _remove_empty(state, point):
    last = state.info[INFO_NUM_EMPTY] - 1
    i = state.empty_index[point]
    moved = state.empties[last]
    state.empties[i] = moved
    state.empty_index[moved] = i
    state.info[INFO_NUM_EMPTY] = last


@inline_kernel
def _merge_chains(state, a, b):
    """Merge the chain headed by ``b`` into the one headed by ``a`` (smaller into larger)."""
    if state.chain_size[a] < state.chain_size[b]:
        a, b = b, a
    x = b
    while True:
        state.chain_head[x] = a
        x = state.chain_next[x]
        if x == b:
            break
    next_a = state.chain_next[a]
    state.chain_next[a] = state.chain_next[b]
    state.chain_next[b] = next_a
    state.chain_size[a] += state.chain_size[b]
    state.chain_libs[a] += state.chain_libs[b]
    state.chain_key[a] ^= state.chain_key[b]


@inline_kernel
def _remove_chain(state, geometry, head):
    """Lift a chain off the board, giving liberties back to the enemy chains around it."""
    color = state.board[head]
    enemy = 3 - color
    x = head
    while True:
        state.board[x] = EMPTY
        state.placed_at[x] = -1
        _add_empty(state, x)
        for k in range(4):
            n = geometry.neighbors[x, k]
            if state.board[n] == enemy:
                state.chain_libs[state.chain_head[n]] += 1
        x = state.chain_next[x]
        if x == head:
            break
    state.key[0] ^= state.chain_key[head]


@inline_kernel
def _adjacent_count(state, geometry, point, head):
    """How many neighbours of ``point`` are stones of the chain ``head``."""
    count = 0
    for k in range(4):
        n = geometry.neighbors[point, k]
        c = state.board[n]
        if c != EMPTY and c != WALL and state.chain_head[n] == head:
            count += 1
    return count


@inline_kernel
def _empty_point_status(state, geometry, point, color):
    """Legality of ``color`` playing on the empty ``point``: LEGAL or the reason it is not."""
    has_liberty = False
    captures = False
    captured_key = np.uint64(0)
    merged_key = geometry.zobrist[color, point]  # key of the chain the new stone would join
    # Heads of the neighbour chains already counted (a chain may touch the point twice).
    head0 = head1 = head2 = -1
    for k in range(4):
        n = geometry.neighbors[point, k]
        c = state.board[n]
        if c == EMPTY:
            has_liberty = True
            continue
        if c == WALL:
            continue
        head = state.chain_head[n]
        if head == head0 or head == head1 or head == head2:
            continue
        if k == 0:
            head0 = head
        elif k == 1:
            head1 = head
        else:
            head2 = head
        in_atari_here = state.chain_libs[head] == _adjacent_count(state, geometry, point, head)
        if c == color:
            merged_key ^= state.chain_key[head]
            if not in_atari_here:
                has_liberty = True
        elif in_atari_here:
            captures = True
            captured_key ^= state.chain_key[head]
    suicide = not (has_liberty or captures)
    if suicide and state.info[INFO_SUICIDE] == 0:
        return SUICIDE
    if point == state.info[INFO_KO_POINT]:
        return KO
    if state.info[INFO_KO_RULE] == KO_SIMPLE:
        return LEGAL
    new_key = state.key[0] ^ geometry.zobrist[color, point]
    new_key ^= merged_key if suicide else captured_key
    if _seen_contains(state.seen, _position_key(state, geometry, new_key, 3 - color)):
        return SUPERKO
    return LEGAL


@inline_kernel
def _place_stone(state, geometry, point, color):
    """Put a stone down, merge, capture; return stones captured (suicide not included)."""
    enemy = 3 - color
    state.board[point] = color
    _remove_empty(state, point)
    stone_key = geometry.zobrist[color, point]
    state.key[0] ^= stone_key
    state.placed_at[point] = state.info[INFO_MOVE_NUMBER] + 1
    state.chain_head[point] = point
    state.chain_next[point] = point
    state.chain_size[point] = 1
    state.chain_libs[point] = 0
    state.chain_key[point] = stone_key
    for k in range(4):
        n = geometry.neighbors[point, k]
        c = state.board[n]
        if c == EMPTY:
            state.chain_libs[point] += 1
        elif c != WALL:
            state.chain_libs[state.chain_head[n]] -= 1
    for k in range(4):
        n = geometry.neighbors[point, k]
        if state.board[n] == color and state.chain_head[n] != state.chain_head[point]:
            _merge_chains(state, state.chain_head[point], state.chain_head[n])
    captured = 0
    last_captured = -1
    for k in range(4):
        n = geometry.neighbors[point, k]
        if state.board[n] == enemy and state.chain_libs[state.chain_head[n]] == 0:
            head = state.chain_head[n]
            captured += state.chain_size[head]
            last_captured = n
            _remove_chain(state, geometry, head)
    state.info[INFO_CAPTURES + color - 1] += captured
    head = state.chain_head[point]
    state.info[INFO_KO_POINT] = -1
    if state.chain_libs[head] == 0:  # suicide, only reached where it is allowed
        state.info[INFO_CAPTURES + enemy - 1] += state.chain_size[head]
        _remove_chain(state, geometry, head)
    elif captured == 1 and state.chain_size[head] == 1 and state.chain_libs[head] == 1:
        state.info[INFO_KO_POINT] = last_captured
    return captured


@inline_kernel
def _record_position(state, geometry, keep_history):
    if keep_history:
        recent = state.recent[state.info[INFO_MOVE_NUMBER] % HISTORY]
        for p in range(recent.shape[0]):
            recent[p] = state.board[p]
    _seen_add(state.seen, _position_key(state, geometry, state.key[0], state.info[INFO_TO_PLAY]))


@inline_kernel
def _apply(state, geometry, move, keep_history=True):
    """Play a move already known to be legal; ``keep_history=False`` skips the boards kept
    for history planes (``recent``), which scratch playouts never read."""
    if move == geometry.size * geometry.size:
        state.info[INFO_PASSES] += 1
        state.info[INFO_KO_POINT] = -1
    else:
        state.info[INFO_PASSES] = 0
        _place_stone(state, geometry, move, state.info[INFO_TO_PLAY])
    state.info[INFO_MOVE_NUMBER] += 1
    state.info[INFO_LAST_MOVE] = move
    state.info[INFO_TO_PLAY] = 3 - state.info[INFO_TO_PLAY]
    _record_position(state, geometry, keep_history)
    if state.info[INFO_PASSES] >= 2:
        state.info[INFO_OVER] = ENDED_BY_PASSES
    elif state.info[INFO_MOVE_NUMBER] >= state.info[INFO_MAX_MOVES]:
        state.info[INFO_OVER] = TRUNCATED


# ---------------------------------------------------------------------------------------
# Public kernels
# ---------------------------------------------------------------------------------------


@kernel
def reset(state, geometry, rules):
    """Empty the board. ``rules`` is int64[3]: ko rule, suicide allowed, max moves."""
    num_points = geometry.size * geometry.size
    state.board[:] = EMPTY
    state.board[num_points] = WALL
    state.placed_at[:] = -1
    state.recent[:] = 0
    state.seen[:] = 0
    state.info[:] = 0
    state.info[INFO_NUM_EMPTY] = 0
    for p in range(num_points):
        _add_empty(state, p)
    state.key[0] = geometry.zobrist_turn[0]
    state.info[INFO_TO_PLAY] = BLACK
    state.info[INFO_KO_POINT] = -1
    state.info[INFO_LAST_MOVE] = -1
    state.info[INFO_KO_RULE] = rules[0]
    state.info[INFO_SUICIDE] = rules[1]
    state.info[INFO_MAX_MOVES] = rules[2]
    _record_position(state, geometry, True)


@kernel
def setup_stones(state, geometry, points, colors, to_play):
    """Place setup stones (handicap, SGF AB/AW) before any move, then set the side to move.

    Returns LEGAL, or OCCUPIED / SUICIDE if a stone lands on another or has no liberty.
    The position reached becomes the first one in the superko history.
    """
    for i in range(points.shape[0]):
        p = points[i]
        if state.board[p] != EMPTY:
            return OCCUPIED
        captured = _place_stone(state, geometry, p, colors[i])
        if captured or state.board[p] == EMPTY:
            return SUICIDE
        state.placed_at[p] = 0
    state.info[INFO_TO_PLAY] = to_play
    state.info[INFO_KO_POINT] = -1
    state.seen[:] = 0
    _record_position(state, geometry, True)
    return LEGAL


@kernel
def move_status(state, geometry, move):
    """LEGAL if the side to move may play ``move`` (``P`` = pass), else the reason why not."""
    num_points = geometry.size * geometry.size
    if state.info[INFO_OVER] != RUNNING:
        return GAME_OVER
    if move == num_points:
        return LEGAL
    if move < 0 or move > num_points:
        return OFF_BOARD
    if state.board[move] != EMPTY:
        return OCCUPIED
    return _empty_point_status(state, geometry, move, state.info[INFO_TO_PLAY])


@kernel
def play(state, geometry, move):
    """Play ``move`` for the side to move if it is legal; return its status either way."""
    status = move_status(state, geometry, move)
    if status == LEGAL:
        _apply(state, geometry, move)
    return status


@kernel
def legal_mask(state, geometry, out):
    """Write 1 for every legal move (pass included) into ``out`` (int8[P+1]), else 0."""
    num_points = geometry.size * geometry.size
    out[:] = 0
    if state.info[INFO_OVER] != RUNNING:
        return
    color = state.info[INFO_TO_PLAY]
    for i in range(state.info[INFO_NUM_EMPTY]):
        p = state.empties[i]
        if _empty_point_status(state, geometry, p, color) == LEGAL:
            out[p] = 1
    out[num_points] = 1


@inline_kernel
def is_eye(state, geometry, point, color):
    """True if the empty ``point`` is a (not false) one-point eye of ``color``."""
    for k in range(4):
        c = state.board[geometry.neighbors[point, k]]
        if c != color and c != WALL:
            return False
    enemy_diagonals = 0
    at_edge = False
    for k in range(4):
        c = state.board[geometry.diagonals[point, k]]
        if c == WALL:
            at_edge = True
        elif c == 3 - color:
            enemy_diagonals += 1
    return enemy_diagonals == 0 if at_edge else enemy_diagonals <= 1


@inline_kernel
def next_random(rng):
    """xorshift64* step on ``rng`` (uint64[1]); returns 64 random bits."""
    x = rng[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    rng[0] = x
    return x * np.uint64(0x2545F4914F6CDD1D)


@inline_kernel
def random_move(state, geometry, rng):
    """A uniformly random legal move that fills no own eye; pass when there is none."""
    color = state.info[INFO_TO_PLAY]
    n = state.info[INFO_NUM_EMPTY]
    while n > 0:
        i = np.int64((next_random(rng) >> np.uint64(33)) % np.uint64(n))
        p = state.empties[i]
        if not is_eye(state, geometry, p, color) and _empty_point_status(state, geometry, p, color) == LEGAL:
            return p
        # Move the rejected point past the live window; the list stays a permutation.
        n -= 1
        last = state.empties[n]
        state.empties[i] = last
        state.empty_index[last] = i
        state.empties[n] = p
        state.empty_index[p] = n
    return geometry.size * geometry.size


@kernel
def random_playout(state, geometry, rng):
    """Play random moves (see ``random_move``) until the game is over; return moves played.

    The playout skips the boards kept for history planes: ``state.recent`` is stale after it.
    """
    played = 0
    while state.info[INFO_OVER] == RUNNING:
        _apply(state, geometry, random_move(state, geometry, rng), False)
        played += 1
    return played


@inline_kernel
def _copy_array(dst, src):
    flat_dst = dst.reshape(-1)
    flat_src = src.reshape(-1)
    for i in range(flat_src.shape[0]):
        flat_dst[i] = flat_src[i]


@kernel
def copy_into(dst, src):
    """Copy every field of ``src`` into ``dst`` (same board size and rules) without allocating."""
    _copy_array(dst.board, src.board)
    _copy_array(dst.chain_head, src.chain_head)
    _copy_array(dst.chain_next, src.chain_next)
    _copy_array(dst.chain_size, src.chain_size)
    _copy_array(dst.chain_libs, src.chain_libs)
    _copy_array(dst.chain_key, src.chain_key)
    _copy_array(dst.empties, src.empties)
    _copy_array(dst.empty_index, src.empty_index)
    _copy_array(dst.placed_at, src.placed_at)
    _copy_array(dst.recent, src.recent)
    _copy_array(dst.seen, src.seen)
    _copy_array(dst.key, src.key)
    _copy_array(dst.info, src.info)


@njit(cache=True)
def random_playouts(root, geometry, scratch, count, rng, komi, territory):
    """Play ``count`` random games on from ``root`` (left unchanged), in ``scratch``.

    Returns:
        (moves played in all, games Black won, games drawn).
    """
    moves = 0
    black_wins = 0
    draws = 0
    for _ in range(count):
        copy_into(scratch, root)
        moves += random_playout(scratch, geometry, rng)
        margin = score(scratch, geometry, komi, territory)
        if margin > 0:
            black_wins += 1
        elif margin == 0:
            draws += 1
    return moves, black_wins, draws


@njit(cache=True)
def area_owner(state, geometry, out):
    """Write each point's area owner into ``out`` (int8[P]): the stone's colour, or for an
    empty point the one colour its empty region touches (EMPTY when it touches both or none)."""
    num_points = geometry.size * geometry.size
    out[:] = state.board[:num_points]
    visited = np.zeros(num_points, np.bool_)
    stack = np.empty(num_points, np.int64)
    region = np.empty(num_points, np.int64)
    for start in range(num_points):
        if state.board[start] != EMPTY or visited[start]:
            continue
        visited[start] = True
        stack[0] = start
        top = 1
        size = 0
        touches = 0  # bit 1: Black, bit 2: White
        while top > 0:
            top -= 1
            p = stack[top]
            region[size] = p
            size += 1
            for k in range(4):
                n = geometry.neighbors[p, k]
                c = state.board[n]
                if c == EMPTY:
                    if not visited[n]:
                        visited[n] = True
                        stack[top] = n
                        top += 1
                elif c != WALL:
                    touches |= c
        owner = touches if touches == BLACK or touches == WHITE else EMPTY
        for i in range(size):
            out[region[i]] = owner


@kernel
def score_margin(state, geometry, komi, territory, marks, stack):
    """``score`` with the flood fill's work arrays passed in (int8[P], int64[P]): allocates
    nothing, so kernels compiled without reference counting can call it."""
    num_points = geometry.size * geometry.size
    marks[:] = 0
    black = 0
    white = 0
    for start in range(num_points):
        color = state.board[start]
        if color != EMPTY:
            if not territory:
                if color == BLACK:
                    black += 1
                else:
                    white += 1
            continue
        if marks[start]:
            continue
        marks[start] = 1
        stack[0] = start
        top = 1
        region = 0
        touches = 0  # bit 1: Black, bit 2: White
        while top > 0:
            top -= 1
            p = stack[top]
            region += 1
            for k in range(4):
                n = geometry.neighbors[p, k]
                c = state.board[n]
                if c == EMPTY:
                    if not marks[n]:
                        marks[n] = 1
                        stack[top] = n
                        top += 1
                elif c != WALL:
                    touches |= c
        if touches == BLACK:
            black += region
        elif touches == WHITE:
            white += region
    if territory:
        black += state.info[INFO_CAPTURES]
        white += state.info[INFO_CAPTURES + 1]
    return black - white - komi


@njit(cache=True)
def score(state, geometry, komi, territory):
    """Black's points minus White's points minus komi.

    Area scoring (Tromp-Taylor): stones plus empty regions reaching only one colour.
    Territory scoring: those empty regions plus stones captured; every stone on the
    board counts as alive, so dead stones must be captured before the count.
    """
    num_points = geometry.size * geometry.size
    marks = np.empty(num_points, np.int8)
    stack = np.empty(num_points, np.int64)
    return score_margin(state, geometry, komi, territory, marks, stack)


# ---------------------------------------------------------------------------------------
# Batched kernels: the same state with a leading batch axis, one game per prange step.
# ---------------------------------------------------------------------------------------


@inline_kernel
def batch_item(batch, b):
    """Game ``b`` of a batch, as views into the batch arrays, for compiled code only
    (Python callers take ``state_item``)."""
    return GoState(
        batch.board[b], batch.chain_head[b], batch.chain_next[b], batch.chain_size[b],
        batch.chain_libs[b], batch.chain_key[b], batch.empties[b], batch.empty_index[b],
        batch.placed_at[b], batch.recent[b], batch.seen[b], batch.key[b], batch.info[b],
    )  # fmt: skip


@njit(cache=True, parallel=True)
def batch_reset(batch, geometry, rules):
    for b in prange(batch.board.shape[0]):
        reset(batch_item(batch, b), geometry, rules)


@njit(cache=True, parallel=True)
def batch_play(batch, geometry, moves, status_out):
    """Play ``moves[b]`` in game ``b`` where legal; the status of each goes to ``status_out[b]``."""
    for b in prange(batch.board.shape[0]):
        status_out[b] = play(batch_item(batch, b), geometry, moves[b])


@njit(cache=True, parallel=True)
def batch_legal_mask(batch, geometry, out):
    """``out[b]`` (int8[B, P+1]) gets the legal-move mask of game ``b``."""
    for b in prange(batch.board.shape[0]):
        legal_mask(batch_item(batch, b), geometry, out[b])


@njit(cache=True, parallel=True)
def batch_random_playout(batch, geometry, seeds, moves_out):
    """Play every game of the batch out at random, game ``b`` seeded by ``seeds[b]`` (nonzero)."""
    for b in prange(batch.board.shape[0]):
        rng = np.empty(1, np.uint64)
        rng[0] = np.uint64(seeds[b]) | np.uint64(1)
        moves_out[b] = random_playout(batch_item(batch, b), geometry, rng)


@njit(cache=True, parallel=True)
def batch_score(batch, geometry, komi, territory, out):
    for b in prange(batch.board.shape[0]):
        out[b] = score(batch_item(batch, b), geometry, komi, territory)


@inline_kernel
def _uniform(rng):
    """A float drawn uniformly from [0, 1) with ``next_random``."""
    return np.float64(next_random(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


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
        target = _uniform(rng) * total
        chosen = num_points
        for a in range(num_points + 1):
            weight = _candidate(state, weights, a, num_points)
            if weight > 0.0:
                chosen = a
                target -= weight
                if target < 0.0:
                    break
        if chosen == num_points or _empty_point_status(state, geometry, chosen, color) == LEGAL:
            _apply(state, geometry, chosen)
            return chosen
    total = 0.0
    chosen = -1
    for a in range(num_points + 1):
        weight = _candidate(state, weights, a, num_points)
        if weight > 0.0 and (a == num_points or _empty_point_status(state, geometry, a, color) == LEGAL):
            total += weight
            if _uniform(rng) * total < weight:
                chosen = a
    if chosen >= 0:
        _apply(state, geometry, chosen)
    return chosen


@njit(cache=True, parallel=True)
def batch_sample_and_play(batch, geometry, probabilities, rngs, moves_out):
    """``sample_and_play`` in every game ``b`` with weights ``probabilities[b]`` (float[B, P+1])
    and generator ``rngs[b]`` (uint64[B], nonzero); the moves (or -1) go to ``moves_out``."""
    for b in prange(batch.board.shape[0]):
        moves_out[b] = sample_and_play(batch_item(batch, b), geometry, probabilities[b], rngs[b : b + 1])
