"""A ladder reader: does a chain in atari escape when the chaser keeps ataring it?

The reading plays on a plain copy of the board (``LadderWork.board``), with flood fills for
liberties and an undo log, and restores it after each question. It is a depth-first search:

- the escaper, its chain in atari, tries every move that captures a chaser chain in atari
  next to it (breaking the ladder) and extending at its last liberty; a move that leaves the
  chain 3 or more liberties escapes, 2 gives the chaser the move, 1 or fewer is captured;
- the chaser, the chain on 2 liberties, tries ataris at both; an atari that leaves the chain 2
  or more liberties (it captured something) fails.

Stones already on the board in the path (breakers) count through the flood fills: an escaper
stone joins the chain and adds its liberties, a chaser stone takes one. Simple ko is kept (a lone
stone that took a lone stone is not retaken at once); superko is not read. Suicide is never
played.

Each question plays at most ``MAX_LADDER_NODES`` moves and reads at most ``2 * N * N`` plies
deep (the move asked about is the first); a reading that hits either bound is undecided, and
undecided counts as neither a ladder capture nor an escape. A ladder runs about ``2 * N`` plies,
so neither bound cuts a real one short.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from go_env.core import EMPTY, INFO_TO_PLAY, LEGAL, inline_kernel, kernel, move_status

MAX_LADDER_NODES = 1000
MAX_OPTIONS = 8  # moves tried per node: the extension and up to 7 captures

ESCAPED, CAPTURED, UNDECIDED = 0, 1, 2
NO_KO, ILLEGAL = -1, -2  # what ``_play`` returns besides a ko point

_STAMP, _UNDO_LENGTH, _NODES = 0, 1, 2  # work.counters
_LIBERTIES, _OPPONENTS, _LIFT = 0, 1, 2  # what ``_walk_chain`` does with a chain
_COUNT, _NEXT, _KO, _UNDO, _UNDECIDED = 0, 1, 2, 3, 4  # work.frames: options, next to try, ko,
# undo length before the move being read, whether an option was undecided


class LadderWork(NamedTuple):
    """Scratch arrays for ladder reading on one board size (allocated once, reused)."""

    board: np.ndarray  # int8[P+1]: the board being read, a copy of the state's
    mark: np.ndarray  # int64[P+1]: flood-fill visit stamps
    fill: np.ndarray  # int64[P]: flood-fill stack
    adjacent: np.ndarray  # int64[4P]: enemy stones next to a chain
    undo_point: np.ndarray  # int64[U]: points changed by the moves read, oldest first
    undo_color: np.ndarray  # int8[U]: what those points held before
    options: np.ndarray  # int64[2N*N, MAX_OPTIONS]: row d, the moves tried after d plies
    frames: np.ndarray  # int64[2N*N, 5]: row d, the search's frame after d plies (_COUNT, ...)
    rescued: np.ndarray  # int64[MAX_OPTIONS]: chains in atari an escape move may save
    counters: np.ndarray  # int64[3]: flood-fill stamp, undo length, moves played


@njit(cache=True)
def new_ladder_work(size):
    """Scratch for reading ladders on a ``size`` x ``size`` board."""
    num_points = size * size
    undo = 2 * (MAX_LADDER_NODES + 1) + num_points + 1  # every move, and each stone lifted once
    return LadderWork(
        np.zeros(num_points + 1, np.int8),
        np.zeros(num_points + 1, np.int64),
        np.zeros(num_points, np.int64),
        np.zeros(4 * num_points, np.int64),
        np.zeros(undo, np.int64),
        np.zeros(undo, np.int8),
        np.zeros((2 * num_points, MAX_OPTIONS), np.int64),  # row 0 unused: the move asked about is ply 1
        np.zeros((2 * num_points, 5), np.int64),
        np.zeros(MAX_OPTIONS, np.int64),
        np.zeros(3, np.int64),
    )


@kernel
def load_board(work, state):
    """Copy the state's board into ``work`` before asking ladder questions about it."""
    for p in range(state.board.shape[0]):
        work.board[p] = state.board[p]


@kernel
def _liberties(work, geometry, point):
    """(count, first, second): the exact liberties of the chain at ``point`` and two of them."""
    return _walk_chain(work, geometry, point, _LIBERTIES)


@kernel
def _adjacent_opponents(work, geometry, point):
    """Put the opponent's stones next to the chain at ``point`` in ``work.adjacent``; return how
    many (a stone may be listed more than once)."""
    return _walk_chain(work, geometry, point, _OPPONENTS)[0]


@inline_kernel
def _walk_chain(work, geometry, point, task):
    """Flood-fill the chain at ``point`` for ``task`` (a constant of each caller, its branches
    folded away once inlined): ``_LIBERTIES`` counts the chain's liberties, (count, first,
    second); ``_OPPONENTS`` puts the opponent's stones next to it in ``work.adjacent``, (count,
    -1, -1); ``_LIFT`` lifts it off the board through the undo log (``_set``)."""
    board, mark, fill = work.board, work.mark, work.fill
    work.counters[_STAMP] += 1
    stamp = work.counters[_STAMP]
    color = board[point]
    count = 0
    first = second = -1
    mark[point] = stamp
    fill[0] = point
    top = 1
    while top:
        top -= 1
        x = fill[top]
        if task == _LIFT:
            _set(work, x, EMPTY)
        for k in range(4):
            n = geometry.neighbors[x, k]
            if mark[n] == stamp:
                continue
            if board[n] == color:
                mark[n] = stamp
                fill[top] = n
                top += 1
            elif task == _OPPONENTS:
                if board[n] == 3 - color:  # never marked: listed once per stone of the chain it touches
                    work.adjacent[count] = n
                    count += 1
            elif task == _LIBERTIES and board[n] == EMPTY:
                mark[n] = stamp
                count += 1
                if first < 0:
                    first = n
                elif second < 0:
                    second = n
    return count, first, second


@kernel
def _set(work, point, color):
    length = work.counters[_UNDO_LENGTH]
    work.undo_point[length] = point
    work.undo_color[length] = work.board[point]
    work.counters[_UNDO_LENGTH] = length + 1
    work.board[point] = color


@kernel
def _undo_to(work, length):
    """Take back every change after the first ``length`` of the undo log."""
    while work.counters[_UNDO_LENGTH] > length:
        work.counters[_UNDO_LENGTH] -= 1
        i = work.counters[_UNDO_LENGTH]
        work.board[work.undo_point[i]] = work.undo_color[i]


@kernel
def _remove_chain(work, geometry, point):
    """Lift the chain at ``point`` off the board (through the undo log)."""
    _walk_chain(work, geometry, point, _LIFT)


@kernel
def _play(work, geometry, point, color, ko):
    """Play ``color`` on the empty ``point`` with captures. Returns the ko point it leaves
    (``NO_KO`` if none), or ``ILLEGAL`` (nothing changed) for a suicide or a retake of ``ko``."""
    if point == ko:
        return ILLEGAL
    length = work.counters[_UNDO_LENGTH]
    _set(work, point, color)
    captured = 0
    last_captured = NO_KO
    for k in range(4):
        n = geometry.neighbors[point, k]
        if work.board[n] == 3 - color and _liberties(work, geometry, n)[0] == 0:
            before = work.counters[_UNDO_LENGTH]
            _remove_chain(work, geometry, n)
            captured += work.counters[_UNDO_LENGTH] - before
            last_captured = n
    libs = _liberties(work, geometry, point)[0]
    if libs == 0:
        _undo_to(work, length)
        return ILLEGAL
    if captured == 1 and libs == 1 and not _has_own_neighbour(work, geometry, point):
        return last_captured  # a lone stone took a lone stone: retaking at once is ko
    return NO_KO


@kernel
def _has_own_neighbour(work, geometry, point):
    k = 0
    while k < 4 and work.board[geometry.neighbors[point, k]] != work.board[point]:
        k += 1
    return k < 4


@kernel
def _open_frame(work, geometry, target, escaper_to_move, ko, depth):
    """List the moves to try after ``depth`` plies: the chaser's two ataris, or the escaper's
    captures of chaser chains in atari next to it and its extension."""
    options, frame = work.options[depth], work.frames[depth]
    _, first, second = _liberties(work, geometry, target)
    count = 0
    if escaper_to_move:
        found = _adjacent_opponents(work, geometry, target)
        for i in range(found):
            chaser_libs, last, _ = _liberties(work, geometry, work.adjacent[i])
            if chaser_libs == 1 and count < MAX_OPTIONS - 1 and not _listed(options, count, last):
                options[count] = last
                count += 1
        if not _listed(options, count, first):
            options[count] = first
            count += 1
    else:
        options[0] = first
        options[1] = second
        count = 2
    frame[_COUNT] = count
    frame[_NEXT] = 0
    frame[_KO] = ko
    frame[_UNDECIDED] = 0


@kernel
def _read(work, geometry, target, escaper_to_move, ko, start):
    """ESCAPED, CAPTURED or UNDECIDED for the chain at ``target`` (in atari when the escaper is to
    move, on 2 liberties when the chaser is) after ``start`` plies; the board is restored.

    A depth-first search written as a loop over ``work.frames`` (numba's cache mishandles
    recursive functions): a side wins as soon as one of its moves wins; otherwise the frame is
    undecided if a move was, else lost.
    """
    max_depth = work.options.shape[0]
    if start >= max_depth:
        return UNDECIDED
    base = work.counters[_UNDO_LENGTH]
    depth = start
    _open_frame(work, geometry, target, escaper_to_move, ko, depth)
    while True:
        escaper_moves = escaper_to_move == ((depth - start) % 2 == 0)
        wins = ESCAPED if escaper_moves else CAPTURED
        frame = work.frames[depth]
        outcome = -1  # of this frame, once decided
        descended = False
        while frame[_NEXT] < frame[_COUNT]:
            if work.counters[_NODES] >= MAX_LADDER_NODES:
                _undo_to(work, base)
                return UNDECIDED
            move = work.options[depth, frame[_NEXT]]
            frame[_NEXT] += 1
            frame[_UNDO] = work.counters[_UNDO_LENGTH]
            mover = work.board[target] if escaper_moves else 3 - work.board[target]
            next_ko = _play(work, geometry, move, mover, frame[_KO])
            if next_ko == ILLEGAL:
                continue
            work.counters[_NODES] += 1
            libs = _liberties(work, geometry, target)[0]
            if escaper_moves and libs != 2:
                result = ESCAPED if libs >= 3 else CAPTURED
            elif not escaper_moves and libs >= 2:
                result = ESCAPED
            elif depth + 1 >= max_depth:
                result = UNDECIDED
            else:  # read on; the outcome comes back to this frame below
                depth += 1
                _open_frame(work, geometry, target, not escaper_moves, next_ko, depth)
                descended = True
                break
            _undo_to(work, frame[_UNDO])
            if result == wins:
                outcome = wins
                break
            if result == UNDECIDED:
                frame[_UNDECIDED] = 1
        if descended:
            continue
        if outcome < 0:
            outcome = UNDECIDED if frame[_UNDECIDED] else (CAPTURED if escaper_moves else ESCAPED)
        # Hand the outcome up to the first frame it does not decide, or out of the reading.
        while True:
            if depth == start:
                return outcome
            depth -= 1
            parent = work.frames[depth]
            _undo_to(work, parent[_UNDO])
            parent_wins = ESCAPED if escaper_to_move == ((depth - start) % 2 == 0) else CAPTURED
            if outcome != parent_wins:
                if outcome == UNDECIDED:
                    parent[_UNDECIDED] = 1
                break


@kernel
def _listed(options, count, move):
    """True if ``move`` is among ``options[:count]``."""
    i = 0
    while i < count and options[i] != move:
        i += 1
    return i < count


@kernel
def _start_reading(work, geometry, target, escaper_to_move, ko):
    """Read with a fresh budget of ``MAX_LADDER_NODES`` moves."""
    work.counters[_NODES] = 0
    return _read(work, geometry, target, escaper_to_move, ko, 1)


@kernel
def ladder_capture_with(state, geometry, point, work):
    """``ladder_capture`` with scratch ``work`` already holding the state's board (``load_board``)."""
    if move_status(state, geometry, point) != LEGAL or point == geometry.size * geometry.size:
        return False
    color = state.info[INFO_TO_PLAY]
    length = work.counters[_UNDO_LENGTH]
    ko = _play(work, geometry, point, color, NO_KO)
    if ko == ILLEGAL:
        return False  # a suicide, where the rules allow it
    captured = False
    for k in range(4):
        n = geometry.neighbors[point, k]
        # An enemy chain next to the stone on one liberty had two before: this move is an atari.
        if (
            work.board[n] == 3 - color
            and _liberties(work, geometry, n)[0] == 1
            and _start_reading(work, geometry, n, True, ko) == CAPTURED
        ):
            captured = True
            break
    _undo_to(work, length)
    return captured


@kernel
def ladder_escape_with(state, geometry, point, work):
    """``ladder_escape`` with scratch ``work`` already holding the state's board (``load_board``)."""
    if move_status(state, geometry, point) != LEGAL or point == geometry.size * geometry.size:
        return False
    color = state.info[INFO_TO_PLAY]
    board = work.board
    # The chains in atari this move may save: its own chain (it joins any neighbour in atari)
    # and those next to an enemy chain it captures.
    rescued = work.rescued
    count = 0
    for k in range(4):
        n = geometry.neighbors[point, k]
        if board[n] == color and _liberties(work, geometry, n)[0] == 1:
            rescued[0] = point
            count = 1
            break
    for k in range(4):
        n = geometry.neighbors[point, k]
        if board[n] == 3 - color and _liberties(work, geometry, n)[0] == 1:
            found = _adjacent_opponents(work, geometry, n)
            for i in range(found):
                s = work.adjacent[i]
                if count < rescued.shape[0] and _liberties(work, geometry, s)[0] == 1:
                    rescued[count] = s
                    count += 1
    if count == 0:
        return False
    length = work.counters[_UNDO_LENGTH]
    ko = _play(work, geometry, point, color, NO_KO)
    if ko == ILLEGAL:
        return False
    escaped = False
    for i in range(count):
        libs = _liberties(work, geometry, rescued[i])[0]
        if libs >= 3 or (libs == 2 and _start_reading(work, geometry, rescued[i], False, ko) == ESCAPED):
            escaped = True
            break
    _undo_to(work, length)
    return escaped


@njit(cache=True)
def ladder_capture(state, geometry, point):
    """True if the side to move, playing the legal ``point``, ataris an enemy chain that then
    cannot escape the ladder (read as in the module docstring)."""
    work = new_ladder_work(geometry.size)
    load_board(work, state)
    return ladder_capture_with(state, geometry, point, work)


@njit(cache=True)
def ladder_escape(state, geometry, point):
    """True if the side to move, playing the legal ``point``, takes one of its chains in atari
    (next to the point, or next to a chain the move captures) out of the ladder: it gets 3 or
    more liberties, or 2 that the chaser cannot ladder."""
    work = new_ladder_work(geometry.size)
    load_board(work, state)
    return ladder_escape_with(state, geometry, point, work)
