"""Playing moves: legality, captures, the superko history, the legal-move mask.

Kernels change the arrays in place and return status codes; they never raise.
"""

from __future__ import annotations

import numpy as np

from go_env.core.state import (
    BLACK,
    EMPTY,
    ENDED_BY_PASSES,
    GAME_OVER,
    HISTORY,
    INFO_CAPTURES,
    INFO_KO_POINT,
    INFO_KO_RULE,
    INFO_KOMI,
    INFO_LAST_MOVE,
    INFO_MAX_MOVES,
    INFO_MOST_STONES,
    INFO_MOVE_NUMBER,
    INFO_NUM_EMPTY,
    INFO_OVER,
    INFO_PASSES,
    INFO_SCORING,
    INFO_SUICIDE,
    INFO_TO_PLAY,
    KO,
    KO_POSITIONAL,
    KO_SIMPLE,
    KO_SITUATIONAL,
    LEGAL,
    OCCUPIED,
    OFF_BOARD,
    RUNNING,
    SUICIDE,
    SUPERKO,
    TRUNCATED,
    WALL,
    WHITE,
    inline_kernel,
    kernel,
)

# The word ``play_and_list`` returns: bits 0-2 the move's status, bit 3 set when the game is
# over after it, the legal moves' count above.
PLAYED_STATUS_MASK = 7
PLAYED_OVER = 8
PLAYED_COUNT_SHIFT = 4


@inline_kernel
def position_key(state, geometry, board_key, to_play):
    """Key stored in the seen set: the board, plus the side to move under situational superko."""
    if state.info[INFO_KO_RULE] == KO_SITUATIONAL:
        return board_key ^ geometry.zobrist_turn[to_play]
    return board_key


@inline_kernel
def _seen_slot(seen, key):
    """The slot of ``key`` in the open-addressed set ``seen``, else the empty slot it would take."""
    mask = np.uint64(seen.shape[0] - 1)
    slot = key & mask
    while seen[slot] != 0 and seen[slot] != key:
        slot = (slot + np.uint64(1)) & mask
    return slot


@inline_kernel
def seen_contains(seen, key):
    return seen[_seen_slot(seen, key)] == key


@inline_kernel
def _seen_add(seen, key):
    seen[_seen_slot(seen, key)] = key


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
def _stone_outcome(state, geometry, point, color):
    """What ``color``'s stone on the empty ``point`` would do: (whether it is a suicide, the
    board key after it, with the chains it captures, or itself if a suicide, taken off)."""
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
    new_key = state.key[0] ^ geometry.zobrist[color, point]
    new_key ^= merged_key if suicide else captured_key
    return suicide, new_key


@inline_kernel
def empty_point_status(state, geometry, point, color):
    """Legality of ``color`` playing on the empty ``point``: LEGAL or the reason it is not."""
    suicide, new_key = _stone_outcome(state, geometry, point, color)
    if suicide and state.info[INFO_SUICIDE] == 0:
        return SUICIDE
    if point == state.info[INFO_KO_POINT]:
        return KO
    if state.info[INFO_KO_RULE] == KO_SIMPLE:
        return LEGAL
    if seen_contains(state.seen, position_key(state, geometry, new_key, 3 - color)):
        return SUPERKO
    return LEGAL


@inline_kernel
def _repeats_board(state, geometry, point, color):
    """Whether ``color``'s stone on the empty ``point`` leaves a board seen before in the
    game, whoever was to move on it: what a positional-superko referee forfeits."""
    board_key = _stone_outcome(state, geometry, point, color)[1]
    if state.info[INFO_KO_RULE] == KO_SITUATIONAL:  # the seen keys carry the side to move
        black_to_move = seen_contains(state.seen, board_key ^ geometry.zobrist_turn[BLACK])
        return black_to_move or seen_contains(state.seen, board_key ^ geometry.zobrist_turn[WHITE])
    return seen_contains(state.seen, board_key)


@kernel
def repeats_position(state, geometry, move):
    """Whether the side to move's ``move`` (a point, or pass: never) recreates a whole-board
    position seen before in the game, whatever the game's ko rule: under simple ko such a
    move may be legal, and a referee that enforces positional superko forfeits it."""
    if move < 0 or move >= geometry.size * geometry.size or state.board[move] != EMPTY:
        return False
    return _repeats_board(state, geometry, move, state.info[INFO_TO_PLAY])


@kernel
def repeating_mask(state, geometry, out):
    """Write 1 into ``out`` (int8[P+1]) for every legal move that recreates a whole-board
    position seen before (``repeats_position``), else 0; pass never does."""
    out[:] = 0
    if state.info[INFO_OVER] != RUNNING or state.info[INFO_KO_RULE] == KO_POSITIONAL:
        return  # positional superko: the rules forbid every such move already
    color = state.info[INFO_TO_PLAY]
    for i in range(state.info[INFO_NUM_EMPTY]):
        p = state.empties[i]
        legal = empty_point_status(state, geometry, p, color) == LEGAL
        if legal and _repeats_board(state, geometry, p, color):
            out[p] = 1


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
    stones = geometry.size * geometry.size - state.info[INFO_NUM_EMPTY]
    state.info[INFO_MOST_STONES] = max(state.info[INFO_MOST_STONES], stones)
    if keep_history:
        recent = state.recent[state.info[INFO_MOVE_NUMBER] % HISTORY]
        for p in range(recent.shape[0]):
            recent[p] = state.board[p]
    _seen_add(state.seen, position_key(state, geometry, state.key[0], state.info[INFO_TO_PLAY]))


@inline_kernel
def apply_legal(state, geometry, move, keep_history=True):
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


@kernel
def reset(state, geometry, rules):
    """Empty the board. ``rules`` is int64[5]: ko rule, suicide allowed, max moves, komi in
    half points, scoring rule (as ``Rules.kernel_rules`` gives them)."""
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
    state.info[INFO_KOMI] = rules[3]
    state.info[INFO_SCORING] = rules[4]
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
    state.seen[:] = 0  # the superko history starts here
    state.info[INFO_MOST_STONES] = 0
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
    return empty_point_status(state, geometry, move, state.info[INFO_TO_PLAY])


@kernel
def play(state, geometry, move):
    """Play ``move`` for the side to move if it is legal; return its status either way."""
    status = move_status(state, geometry, move)
    if status == LEGAL:
        apply_legal(state, geometry, move)
    return status


@kernel
def resume(state):
    """Reopen a game that two passes ended (``ENDED_BY_PASSES``), as a clean-up phase does: the
    passes stay played and play goes on until two more passes, or the move cap (at once when
    it is reached). Any other state is left as it is."""
    if state.info[INFO_OVER] == ENDED_BY_PASSES:
        state.info[INFO_PASSES] = 0
        capped = state.info[INFO_MOVE_NUMBER] >= state.info[INFO_MAX_MOVES]
        state.info[INFO_OVER] = TRUNCATED if capped else RUNNING


@inline_kernel
def _write_legal(state, geometry, mask, legal):
    """Write 1 into ``mask`` (int8[P+1]) for each legal move, else 0, and the legal moves in
    ascending order (pass last) into ``legal[:count]`` (int64[P+1]); return ``count``.

    The same answers as ``empty_point_status``, found faster where most points are, in one
    pass over the board. A stone beside an empty point is no suicide, so where no position
    of the game had more stones than this one (a move adds one, so none can repeat) only the
    ko point forbids it: four reads. Else one with a liberty (an empty neighbour, or an own
    chain beside it with a liberty elsewhere) and no enemy chain beside it that it might
    capture captures nothing, so only the ko point and the superko set can forbid it. That
    neighbour test is written without branches (indices unsigned: no negative-index
    wraparound to test), and the list is written beside the mask without any.
    """
    num_points = geometry.size * geometry.size
    if state.info[INFO_OVER] != RUNNING:
        for p in range(num_points + 1):
            mask[p] = 0
        return 0
    color = state.info[INFO_TO_PLAY]
    enemy = 3 - color
    ko_point = state.info[INFO_KO_POINT]
    stones = num_points - state.info[INFO_NUM_EMPTY]
    superko = state.info[INFO_KO_RULE] != KO_SIMPLE and state.info[INFO_MOST_STONES] > stones
    # The superko key of the position after a stone on ``p`` that captures nothing:
    # ``base_key ^ zobrist[color, p]`` (``position_key`` with the opponent to move).
    base_key = position_key(state, geometry, state.key[0], enemy)
    board, heads, libs = state.board, state.chain_head, state.chain_libs
    neighbors, zobrist, seen = geometry.neighbors, geometry.zobrist, state.seen
    last_point = np.uint64(num_points - 1)  # ``heads`` has no entry for the wall point
    count = 0
    for p in range(num_points):
        is_legal = False
        if board[p] == EMPTY:
            beside_empty = (
                (board[neighbors[p, 0]] == EMPTY)
                | (board[neighbors[p, 1]] == EMPTY)
                | (board[neighbors[p, 2]] == EMPTY)
                | (board[neighbors[p, 3]] == EMPTY)
            )
            if beside_empty and not superko:
                is_legal = True
            else:
                enemies = 0
                fewest_enemy_libs = 5
                owns = 0
                most_own_libs = 0
                for k in range(4):
                    n = np.uint64(neighbors[p, k])
                    c = board[n]
                    is_enemy = c == enemy
                    is_own = c == color
                    enemies += is_enemy
                    owns += is_own
                    # Read for any neighbour, and kept on the board whatever an empty point holds.
                    chain_libs = libs[min(np.uint64(heads[min(n, last_point)]), last_point)]
                    fewest_enemy_libs = min(fewest_enemy_libs, chain_libs if is_enemy else 5)
                    most_own_libs = max(most_own_libs, chain_libs if is_own else 0)
                # An enemy chain ``p`` captures has all its pseudo-liberties at ``p``: at most
                # as many as the enemy stones beside ``p``. An own chain with more
                # pseudo-liberties than the own stones beside ``p`` has one elsewhere, which
                # the stone on ``p`` joins.
                if (beside_empty or most_own_libs > owns) and fewest_enemy_libs > enemies:
                    is_legal = not superko or not seen_contains(seen, base_key ^ zobrist[color, p])
                else:
                    is_legal = empty_point_status(state, geometry, p, color) == LEGAL
        is_legal &= p != ko_point
        mask[p] = is_legal
        legal[count] = p  # kept only where legal: the next point writes the same slot
        count += is_legal
    mask[num_points] = 1
    legal[count] = num_points
    return count + 1


@kernel
def legal_moves_into(state, geometry, mask, legal):
    """``legal_mask`` into ``mask`` and, in the same pass, the legal moves in ascending order
    into ``legal[:count]`` (int64[P+1]); return ``count`` (0 once the game is over)."""
    return _write_legal(state, geometry, mask, legal)


@inline_kernel
def play_and_list(state, geometry, move, mask, legal):
    """Play ``move`` if it is legal and, in the same call, rewrite ``mask`` and ``legal`` for
    the position it leaves (``legal_moves_into``): one crossing from Python per move.

    Returns:
        ``status | PLAYED_OVER * over | count << PLAYED_COUNT_SHIFT``: the move's status
        (``LEGAL`` = 0 where it was played; nothing is written where it was not), whether
        the game is over now, and how many legal moves ``legal`` holds.
    """
    status = move_status(state, geometry, move)
    if status != LEGAL:
        return status
    apply_legal(state, geometry, move)
    count = _write_legal(state, geometry, mask, legal)
    over = PLAYED_OVER if state.info[INFO_OVER] != RUNNING else 0
    return over | (count << PLAYED_COUNT_SHIFT)


@kernel
def play_and_update(state, geometry, move, mask, legal):
    """``play_and_list`` as an entry point of its own (see there)."""
    return play_and_list(state, geometry, move, mask, legal)


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
        if empty_point_status(state, geometry, p, color) == LEGAL:
            out[p] = 1
    out[num_points] = 1
