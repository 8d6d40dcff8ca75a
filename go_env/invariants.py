"""Invariants of the rules' state, recomputed from the stones: a checker for tests and users.

The kernels keep chains, liberties, keys and the empty list incrementally (see
``go_env.core``); ``check_state`` rebuilds them from the board in plain Python and raises
``InvariantError`` naming the first one that disagrees. It is slow (a flood fill per chain)
and meant for tests, debugging and states that come from elsewhere.

Example::

    game.play(move)
    check_state(game.state, game.geometry, rules=game.rules)
"""

from __future__ import annotations

import numpy as np

from go_env import core as K
from go_env.rules import MAX_KOMI, Rules

# The slots of ``info`` that hold the rules, named, in the order of ``Rules.kernel_rules``.
_RULES_SLOTS = (
    ("ko_rule", K.INFO_KO_RULE),
    ("suicide", K.INFO_SUICIDE),
    ("max_moves", K.INFO_MAX_MOVES),
    ("komi", K.INFO_KOMI),
    ("scoring", K.INFO_SCORING),
)


class InvariantError(AssertionError):
    """The state contradicts itself: a bug in whatever built it, never a rule of Go."""


def _require(condition: bool | np.bool_, invariant: str, detail: str) -> None:
    if not condition:
        raise InvariantError(f"{invariant}: {detail}")


def check_state(
    state: K.GoState, geometry: K.Geometry, history: bool = True, rules: Rules | None = None
) -> None:
    """Check a state (or each game of a batch) against its own stones.

    Args:
        state: a ``GoState``; a batch is checked game by game.
        geometry: the tables of the state's board size.
        history: also check the history board of the latest move (playouts skip it).
        rules: the rules the state was made under (a ``Game``'s ``rules``), if known: the
            slots of ``info`` that hold them (ko rule, suicide, move cap, komi, scoring) must
            agree with them.

    Raises:
        InvariantError: the first invariant broken, by name (``chain_libs``, ``key``, ...).
    """
    if state.board.ndim == 2:
        for b in range(state.board.shape[0]):
            try:
                check_state(K.state_item(state, b), geometry, history, rules)
            except InvariantError as error:
                raise InvariantError(f"game {b} of the batch: {error}") from None
        return
    num_points = geometry.size * geometry.size
    _require(
        state.board.shape == (num_points + 1,),
        "board",
        f"shape {state.board.shape} on {geometry.size}x{geometry.size}",
    )
    board = state.board[:num_points].astype(np.int64)
    _require(state.board[num_points] == K.WALL, "board", "the wall after the last point is gone")
    odd = np.flatnonzero((board != K.EMPTY) & (board != K.BLACK) & (board != K.WHITE))
    _require(odd.size == 0, "board", f"points {odd.tolist()} hold neither a stone nor nothing")
    _check_chains(state, geometry, board)
    _check_key(state, geometry, board)
    _check_empties(state, board)
    _check_info(state, geometry, board)
    if rules is not None:
        _check_rules(state, geometry, rules)
    if history:
        recent = state.recent[int(state.info[K.INFO_MOVE_NUMBER]) % K.HISTORY]
        _require(np.array_equal(recent, board), "recent", "the latest history board is not the board")


def _chains(board: np.ndarray, geometry: K.Geometry) -> list[list[int]]:
    """The board's chains by flood fill, each a sorted list of points."""
    num_points = geometry.size * geometry.size
    seen = np.zeros(num_points, bool)
    found = []
    for start in np.flatnonzero(board[:num_points] != K.EMPTY):
        if seen[start]:
            continue
        chain, todo = [int(start)], [int(start)]
        seen[start] = True
        while todo:
            for n in geometry.neighbors[todo.pop()]:
                if n < num_points and not seen[n] and board[n] == board[start]:
                    seen[n] = True
                    chain.append(int(n))
                    todo.append(int(n))
        found.append(sorted(chain))
    return found


def _check_chains(state: K.GoState, geometry: K.Geometry, board: np.ndarray) -> None:
    """Each chain has one head among its stones, which keeps its size, pseudo-liberties
    (an empty point counted once per adjacent stone) and key; ``chain_next`` rings it."""
    num_points = board.shape[0]
    for chain in _chains(board, geometry):
        where = f"the chain at {chain}"
        heads = {int(state.chain_head[p]) for p in chain}
        _require(len(heads) == 1 and heads <= set(chain), "chain_head", f"{where} has heads {sorted(heads)}")
        head = heads.pop()
        _require(state.chain_size[head] == len(chain), "chain_size", f"{where}: {state.chain_size[head]}")
        pseudo = sum(
            int(n < num_points and board[n] == K.EMPTY) for p in chain for n in geometry.neighbors[p]
        )
        _require(pseudo > 0, "chain_libs", f"{where} has no liberty")
        _require(
            state.chain_libs[head] == pseudo, "chain_libs", f"{where}: {state.chain_libs[head]}, not {pseudo}"
        )
        key = np.bitwise_xor.reduce(geometry.zobrist[board[head], chain])
        _require(state.chain_key[head] == key, "chain_key", f"{where}: not the xor of its stones' keys")
        ring, p = [head], int(state.chain_next[head])
        while p != head and len(ring) <= len(chain):
            ring.append(p)
            p = int(state.chain_next[p])
        _require(sorted(ring) == chain, "chain_next", f"{where}: the ring from {head} goes through {ring}")


def _check_key(state: K.GoState, geometry: K.Geometry, board: np.ndarray) -> None:
    stones = np.flatnonzero(board != K.EMPTY)
    key = np.bitwise_xor.reduce(geometry.zobrist[board[stones], stones], initial=geometry.zobrist_turn[0])
    _require(state.key[0] == key, "key", "not the Zobrist key of the stones on the board")
    to_play = int(state.info[K.INFO_TO_PLAY])
    position = key ^ geometry.zobrist_turn[to_play] if state.info[K.INFO_KO_RULE] == K.KO_SITUATIONAL else key
    _require(_seen_contains(state.seen, position), "seen", "the position is missing from the superko history")


def _seen_contains(seen: np.ndarray, key: np.uint64) -> bool:
    """Open addressing with linear probing, as the kernels do."""
    mask = seen.shape[0] - 1
    _require(seen.shape[0] & mask == 0, "seen", f"{seen.shape[0]} slots, not a power of 2")
    slot = int(key) & mask
    for _ in range(seen.shape[0]):
        if seen[slot] == 0:
            return False
        if seen[slot] == key:
            return True
        slot = (slot + 1) & mask
    return False


def _check_empties(state: K.GoState, board: np.ndarray) -> None:
    """``empties[:count]`` lists the empty points, each at its ``empty_index``."""
    count = int(state.info[K.INFO_NUM_EMPTY])
    live = state.empties[:count].astype(np.int64)
    empty = np.flatnonzero(board == K.EMPTY)
    _require(np.array_equal(np.sort(live), empty), "empties", f"{count} listed, {empty.size} points empty")
    _require(
        np.array_equal(state.empty_index[live], np.arange(count)),
        "empty_index",
        "points away from their slot",
    )
    placed = state.placed_at
    _require(np.all(placed[empty] == -1), "placed_at", "an empty point has a move number")
    stones = board != K.EMPTY
    move_number = int(state.info[K.INFO_MOVE_NUMBER])
    _require(
        np.all((placed[stones] >= 0) & (placed[stones] <= move_number)), "placed_at", "a stone out of time"
    )


def _check_info(state: K.GoState, geometry: K.Geometry, board: np.ndarray) -> None:
    """The scalars of ``info`` are in range and agree with each other."""
    info = state.info
    num_points = board.shape[0]
    _require(info.shape == (K.NUM_INFO,), "info", f"shape {info.shape}")
    _require(info[K.INFO_TO_PLAY] in (K.BLACK, K.WHITE), "to_play", f"{info[K.INFO_TO_PLAY]}")
    ko = int(info[K.INFO_KO_POINT])
    _require(
        ko == -1 or (0 <= ko < num_points and board[ko] == K.EMPTY), "ko_point", f"{ko} is not an empty point"
    )
    captures = info[K.INFO_CAPTURES : K.INFO_CAPTURES + 2]
    _require(np.all(captures >= 0), "captures", f"{captures.tolist()}")
    _require(
        info[K.INFO_KO_RULE] in (K.KO_SIMPLE, K.KO_POSITIONAL, K.KO_SITUATIONAL),
        "ko_rule",
        f"{info[K.INFO_KO_RULE]}",
    )
    _require(info[K.INFO_SUICIDE] in (0, 1), "suicide", f"{info[K.INFO_SUICIDE]}")
    komi = int(info[K.INFO_KOMI])
    _require(abs(komi) <= 2 * MAX_KOMI, "komi", f"{komi} half points")
    scoring = int(info[K.INFO_SCORING])
    _require(scoring in (K.SCORING_AREA, K.SCORING_TERRITORY), "scoring", f"{scoring}")
    moves, passes, cap = int(info[K.INFO_MOVE_NUMBER]), int(info[K.INFO_PASSES]), int(info[K.INFO_MAX_MOVES])
    _require(0 <= passes <= moves, "passes", f"{passes} in a row after {moves} moves")
    last = int(info[K.INFO_LAST_MOVE])
    _require(
        last == -1 if moves == 0 else 0 <= last <= num_points, "last_move", f"{last} after {moves} moves"
    )
    _require(passes == 0 or last == num_points, "passes", f"{passes} in a row, the last move {last}")
    most = int(info[K.INFO_MOST_STONES])
    stones = int(np.count_nonzero(board != K.EMPTY))
    _require(stones <= most <= num_points, "most_stones", f"{most}, with {stones} stones on the board")
    over = int(info[K.INFO_OVER])
    expected = K.ENDED_BY_PASSES if passes >= 2 else K.TRUNCATED if moves >= cap else K.RUNNING
    _require(over == expected, "over", f"{over}, with {passes} passes and {moves} of {cap} moves played")


def _check_rules(state: K.GoState, geometry: K.Geometry, rules: Rules) -> None:
    """The rules' slots of ``info`` hold ``rules`` as the kernels take them."""
    for (name, slot), expected in zip(_RULES_SLOTS, rules.kernel_rules(geometry.size), strict=True):
        found = int(state.info[slot])
        _require(found == expected, name, f"{found}, but the rules give {expected}")
