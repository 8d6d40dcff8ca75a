"""``Game``: a plain-Python facade over the rules kernels, for envs, agents, GTP and SGF."""

from __future__ import annotations

import operator
import reprlib
from collections.abc import Callable, Sequence
from functools import cache
from sys import getrefcount
from typing import Any, NamedTuple

import numba
import numpy as np
from numba import types

from go_env import coords
from go_env import core as K
from go_env.features import history_planes, new_history_planes, other_side_view
from go_env.features.history import play_and_observe
from go_env.rules import Rules

BLACK, WHITE, EMPTY = K.BLACK, K.WHITE, K.EMPTY
COLOR_NAMES = {BLACK: "black", WHITE: "white"}
# What a player answers instead of a move to resign. Moves are 0..N*N-1 and N*N (pass).
RESIGN = -1

MIN_SIZE, MAX_SIZE = 2, 25

_STATUS_BITS, _COUNT_SHIFT = K.PLAYED_STATUS_MASK, K.PLAYED_COUNT_SHIFT
# ``getrefcount`` of the game's legal mask when nothing else holds it: the game's attribute
# and the call's argument.
_UNSHARED = 2


class _EntryPoints(NamedTuple):
    move_status: Callable
    play: Callable
    play_and_update: Callable
    play_and_observe: Callable
    legal_moves_into: Callable
    history_planes: Callable


@cache
def _entry_points() -> _EntryPoints:
    """The kernels' compiled entry points for the single-game state.

    Calling them skips numba's per-call type dispatch, which for the 13-array state costs
    about 2 us: more than playing a move. The state and geometry types are the same for
    every board size, so one set serves all games.
    """
    state_type = numba.typeof(K.new_state(2, *Rules().kernel_rules(2)))
    geometry_type = numba.typeof(K.make_geometry(2))
    mask_type = types.Array(types.int8, 1, "C")
    list_type = types.Array(types.int64, 1, "C")
    planes_type = types.Array(types.int8, 3, "C")

    def compiled(kernel: Any, *arg_types: types.Type) -> Callable:
        return kernel.compile((state_type, geometry_type, *arg_types))

    return _EntryPoints(
        move_status=compiled(K.move_status, types.int64),
        play=compiled(K.play, types.int64),
        play_and_update=compiled(K.play_and_update, types.int64, mask_type, list_type),
        play_and_observe=compiled(play_and_observe, types.int64, mask_type, list_type, planes_type),
        legal_moves_into=compiled(K.legal_moves_into, mask_type, list_type),
        history_planes=compiled(history_planes, planes_type),
    )


def other_color(color: int) -> int:
    """The opponent of ``color`` (BLACK or WHITE)."""
    return WHITE if color == BLACK else BLACK


def as_move(value: object) -> int:
    """``value`` as a move number: an ``int`` or numpy integer (a 0-d integer array too).

    Raises:
        TypeError: a float (even ``40.0``), string, bool, ``None`` or anything else. Whether
            the integer is on the board is for the rules to say, not this.
    """
    if type(value) is int:  # the common case, first: moves are played in search loops
        return value
    return _integer(value, "a move")


def _integer(value: object, what: str) -> int:
    """``value`` as an int if it is an integer (not a bool), else ``TypeError`` about ``what``."""
    if not isinstance(value, (bool, np.bool_)):
        try:
            return operator.index(value)  # type: ignore[arg-type]
        except TypeError:
            pass  # not an integer: said below
    raise TypeError(f"{what} must be an integer, not {type(value).__name__} {reprlib.repr(value)}")


def result_string(margin: float) -> str:
    """Black's margin as SGF's RE writes a counted result: ``B+3.5``, ``W+0.5``, ``0``."""
    return "0" if margin == 0 else f"{'B' if margin > 0 else 'W'}+{abs(margin):g}"


class IllegalMoveError(ValueError):
    """A move the rules forbid. ``reason`` is one of occupied, suicide, ko, superko,
    game over, off board."""

    def __init__(self, move: int, reason: str, size: int, color: int):
        self.move = move
        self.reason = reason
        self.color = color
        where = coords.to_gtp(move, size) if 0 <= move <= size * size else str(move)
        super().__init__(f"illegal move {where} (point {move}) by {COLOR_NAMES[color]}: {reason}")


class Game:
    """One game of Go: the kernel state plus the record of how it got there.

    Args:
        size: board size, 2 to 25.
        rules: the ruleset (default ``Rules()``: area scoring, positional superko,
            no suicide, komi 7.5).
        handicap: fixed handicap stones for Black, placed as GTP's ``fixed_handicap``;
            White moves first when there are any.
    """

    def __init__(self, size: int = 19, rules: Rules | None = None, handicap: int = 0):
        size, handicap = _integer(size, "the board size"), _integer(handicap, "the handicap")
        if not MIN_SIZE <= size <= MAX_SIZE:
            raise ValueError(f"board size must be between {MIN_SIZE} and {MAX_SIZE}, got {size}")
        self.size = size
        self.rules = rules if rules is not None else Rules()
        self.geometry = K.make_geometry(size)
        self._kernels = _entry_points()
        self._play_and_update = self._kernels.play_and_update  # one look-up less a move
        self.state = K.new_state(size, *self.rules.kernel_rules(size))
        self.moves: list[int] = []
        self.setup_black: list[int] = []
        self.setup_white: list[int] = []
        self.handicap = handicap
        self._new_buffers()
        if handicap:
            self.setup(coords.fixed_handicap_points(size, handicap), [], to_play=WHITE)

    # -- construction ------------------------------------------------------------------

    def setup(self, black: Sequence[int], white: Sequence[int], to_play: int = BLACK) -> None:
        """Place setup stones (SGF AB/AW, free handicap) on an empty board before any move."""
        if self.moves or self.setup_black or self.setup_white:
            raise ValueError("setup stones go on an empty board before the first move")
        if to_play not in (BLACK, WHITE):
            raise ValueError(f"to_play must be BLACK or WHITE, got {to_play!r}")
        black = [_integer(point, "a setup point") for point in black]
        white = [_integer(point, "a setup point") for point in white]
        if any(not 0 <= point < self.num_points for point in black + white):
            raise ValueError(f"setup point off a {self.size}x{self.size} board")
        points = np.array(black + white, np.int64)
        colors = np.array([BLACK] * len(black) + [WHITE] * len(white), np.int64)
        status = K.setup_stones(self.state, self.geometry, points, colors, to_play)
        if status != K.LEGAL:
            self.state = K.new_state(self.size, *self.rules.kernel_rules(self.size))
            raise ValueError(f"invalid setup: a stone is {K.STATUS_NAMES[status]}")
        self.setup_black, self.setup_white = black, white
        self._stale()

    def _new_buffers(self) -> None:
        """The arrays each move's kernel call rewrites (``play``), to be filled when first read."""
        self._num_points = self.size * self.size
        self._mask = np.empty(self._num_points + 1, np.int8)  # legal_mask()
        self._legal = np.empty(self._num_points + 1, np.int64)  # legal_moves() in [:_num_legal]
        self._planes: np.ndarray | None = None  # live_observation(), once asked for
        self._stale()

    def _stale(self) -> None:
        """Mark what the last kernel call wrote as out of date: the state changed otherwise."""
        self._num_legal = -1
        self._score: float | None = None

    def _refresh(self) -> None:
        """Rewrite the legal mask and list (and the live planes) for the state as it stands."""
        if getrefcount(self._mask) > _UNSHARED:
            self._mask = np.empty(self._num_points + 1, np.int8)
        self._num_legal = self._kernels.legal_moves_into(self.state, self.geometry, self._mask, self._legal)
        if self._planes is not None:
            self._kernels.history_planes(self.state, self.geometry, self._planes)

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        del state["_kernels"], state["_play_and_update"]  # compiled entry points: found again
        del state["geometry"]  # the shared read-only tables, which kernels are compiled for
        for buffer in ("_mask", "_legal", "_planes", "_num_legal", "_score"):
            state.pop(buffer, None)  # rewritten from the state when first read
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        kernels = _entry_points()
        self.__dict__.update(state, _kernels=kernels, _play_and_update=kernels.play_and_update)
        self.geometry = K.make_geometry(state["size"])
        self._new_buffers()

    def copy(self) -> Game:
        other = Game.__new__(Game)
        other.__dict__.update(self.__dict__)
        other.state = K.copy_state(self.state)
        other.moves = list(self.moves)
        other.setup_black, other.setup_white = list(self.setup_black), list(self.setup_white)
        other._new_buffers()
        return other

    def replay(self, moves: Sequence[int], *, resume: bool = False) -> None:
        """Play a sequence of moves, raising ``IllegalMoveError`` at the first illegal one.

        With ``resume``, a game that two passes end is resumed (``resume()``) when more moves
        follow, as in the record of a game with a clean-up phase; without, those moves are
        illegal (``game over``).
        """
        for move in moves:
            if resume and self.is_terminated:
                self.resume()
            self._play_plain(as_move(move))  # the mask and planes are made when next read

    def resume(self) -> None:
        """Reopen a game that two passes ended, as a clean-up phase does (KGS's, after which
        the dead stones are off the board): the passes stay in ``moves``, and play goes on
        until two more passes or the move cap.

        Raises:
            ValueError: the game was not ended by two passes.
        """
        if not self.is_terminated:
            raise ValueError("only a game that two passes ended can be resumed")
        K.resume(self.state)
        self._stale()

    def undo(self) -> int:
        """Take back the last move (by replaying the rest, resumed where it was); returns the
        move taken back."""
        if not self.moves:
            raise ValueError("no move to undo")
        moves = self.moves[:-1]
        last = self.moves[-1]
        black, white, to_play = self.setup_black, self.setup_white, self.first_to_play
        self.state = K.new_state(self.size, *self.rules.kernel_rules(self.size))
        self.moves, self.setup_black, self.setup_white = [], [], []
        self._stale()  # replaying no move (undo of the first one) would leave it stale
        if black or white:
            self.setup(black, white, to_play)
        self.replay(moves, resume=True)  # the moves were played: any after two passes, resumed
        if self.is_terminated:  # ``last`` was played after the passes that ended it
            self.resume()
        return last

    # -- playing -----------------------------------------------------------------------

    def move_status(self, move: int) -> str | None:
        """``None`` if ``move`` is legal now, else why not (occupied, suicide, ko, ...).

        Raises:
            TypeError: ``move`` is not an integer (see ``as_move``).
        """
        status = self._status(as_move(move))
        return None if status == K.LEGAL else K.STATUS_NAMES[status]

    def is_legal(self, move: int) -> bool:
        """Whether ``move`` is legal now; ``TypeError`` if it is not an integer."""
        return self._status(as_move(move)) == K.LEGAL

    def play(self, move: int) -> np.ndarray:
        """Play ``move`` (``0..N*N-1``, or ``N*N`` to pass) for the side to move.

        One compiled call plays the move and writes what is read next: the legal mask and
        list (``legal_mask``, ``legal_moves``) and, once asked for, the live planes
        (``live_observation``) of the position it leaves.

        Returns:
            The legal moves now (int64[K], as ``legal_moves``; empty once the game is over),
            as a view of the game's own list, which its next move rewrites: a loop that
            plays one of them needs no other call (copy it, or call ``legal_moves``, to keep
            it).

        Raises:
            TypeError: ``move`` is not an integer (see ``as_move``); the game is unchanged.
            IllegalMoveError: naming the move and the reason; the game is unchanged.
        """
        if type(move) is not int:
            move = as_move(move)
        if getrefcount(self._mask) > _UNSHARED:  # a caller holds the mask: it keeps it as it is
            self._mask = self._mask.copy()
        try:
            if self._planes is None:
                played = self._play_and_update(self.state, self.geometry, move, self._mask, self._legal)
            else:
                if self._num_legal < 0:  # the planes the move moves on must be the position's
                    self._refresh()
                played = self._kernels.play_and_observe(
                    self.state, self.geometry, move, self._mask, self._legal, self._planes
                )
        except OverflowError:  # beyond the kernels' int64: off the board
            played = K.GAME_OVER if self.is_over else K.OFF_BOARD
        if played & _STATUS_BITS:  # the game is unchanged, so the side to move is the offender
            raise IllegalMoveError(move, K.STATUS_NAMES[played & _STATUS_BITS], self.size, self.to_play)
        self.moves.append(move)
        self._num_legal = count = played >> _COUNT_SHIFT
        self._score = None
        return self._legal[:count]

    def _play_plain(self, move: int) -> None:
        """Play the integer ``move`` with the kernel that writes nothing else, leaving what
        the game reads (mask, list, planes, score) to be rewritten when next read."""
        if 0 <= move <= self._num_points:
            status = self._kernels.play(self.state, self.geometry, move)
        else:
            status = K.GAME_OVER if self.is_over else K.OFF_BOARD
        if status != K.LEGAL:  # the game is unchanged, so the side to move is the offender
            raise IllegalMoveError(move, K.STATUS_NAMES[status], self.size, self.to_play)
        self.moves.append(move)
        self._stale()

    def _status(self, move: int) -> int:
        """The kernels' status code for an integer move. Moves off the board never reach
        them: they take an int64, which a Python int may not fit."""
        if 0 <= move <= self.num_points:
            return self._kernels.move_status(self.state, self.geometry, move)
        return K.GAME_OVER if self.is_over else K.OFF_BOARD

    def legal_mask(self) -> np.ndarray:
        """int8[N*N+1]: 1 for each legal move, pass included (all 0 once the game is over).

        The array is shared until the next move; do not write into it. A move leaves an array
        still held anywhere as it is (the kernel writes a new one), and reuses it otherwise.
        """
        if self._num_legal < 0:
            self._refresh()
        return self._mask

    def legal_moves(self) -> np.ndarray:
        """int64[K]: the legal moves in ascending order, pass (``N*N``) last; a new array."""
        if self._num_legal < 0:
            self._refresh()
        return self._legal[: self._num_legal].copy()

    def repeats_position(self, move: int) -> bool:
        """Whether ``move`` recreates a whole-board position of the game so far, whatever the
        ko rule (``core.repeats_position``): a positional-superko referee forfeits it."""
        return bool(K.repeats_position(self.state, self.geometry, as_move(move)))

    def repeating_moves(self) -> np.ndarray:
        """The legal moves that recreate a whole-board position of the game so far (none
        under positional superko, which forbids them)."""
        mask = np.empty(self.num_points + 1, np.int8)
        K.repeating_mask(self.state, self.geometry, mask)
        return np.flatnonzero(mask)

    def observe(self) -> tuple[np.ndarray, np.ndarray]:
        """(history planes int8[N, N, 17], legal mask int8[N*N+1]) as new arrays, for envs."""
        if self._num_legal < 0:
            self._refresh()
        planes = self._planes.copy() if self._planes is not None else self.observation()
        return planes, self._mask.copy()

    def live_observation(self) -> np.ndarray:
        """History planes from the side to move's view, int8[N, N, 17] (as ``observation``),
        rewritten in place by every later move in the same compiled call that plays it.

        For envs that read the planes after each move: asking once makes every ``play``
        write them. The array is the game's own: copy it to keep a position's planes.
        """
        if self._planes is None:
            self._planes = new_history_planes(self.size)
            if self._num_legal >= 0:  # else the next refresh writes them, with the mask
                self._kernels.history_planes(self.state, self.geometry, self._planes)
        if self._num_legal < 0:
            self._refresh()
        return self._planes

    def observation(self, out: np.ndarray | None = None) -> np.ndarray:
        """History planes from the side to move's view, int8[N, N, 17] (see ``features``)."""
        if out is None:
            out = new_history_planes(self.size)
        self._kernels.history_planes(self.state, self.geometry, out)
        return out

    def observation_for(self, color: int) -> np.ndarray:
        """History planes from ``color``'s view (plane 0: ``color``'s stones now), as a new
        int8[N, N, 17] array; the last plane is 1 where ``color`` is Black."""
        planes = self.observation()
        return planes if color == self.to_play else other_side_view(planes)

    # -- reading the state -------------------------------------------------------------

    @property
    def num_points(self) -> int:
        return self.size * self.size

    @property
    def pass_move(self) -> int:
        return self.size * self.size

    @property
    def board(self) -> np.ndarray:
        """int8[N, N] view: 0 empty, 1 Black, 2 White; row 0 is the top row."""
        return self.state.board[: self.num_points].reshape(self.size, self.size)

    @property
    def to_play(self) -> int:
        return int(self.state.info[K.INFO_TO_PLAY])

    @property
    def first_to_play(self) -> int:
        return self.to_play if len(self.moves) % 2 == 0 else 3 - self.to_play

    @property
    def move_number(self) -> int:
        return int(self.state.info[K.INFO_MOVE_NUMBER])

    @property
    def last_move(self) -> int | None:
        last = int(self.state.info[K.INFO_LAST_MOVE])
        return None if last < 0 else last

    @property
    def ko_point(self) -> int | None:
        ko = int(self.state.info[K.INFO_KO_POINT])
        return None if ko < 0 else ko

    def captures(self, color: int) -> int:
        """Stones captured by ``color``."""
        return int(self.state.info[K.INFO_CAPTURES + color - 1])

    @property
    def key(self) -> int:
        """Zobrist key of the board."""
        return int(self.state.key[0])

    @property
    def is_over(self) -> bool:
        return bool(self.state.info[K.INFO_OVER] != K.RUNNING)

    @property
    def is_terminated(self) -> bool:
        """Ended by two consecutive passes."""
        return bool(self.state.info[K.INFO_OVER] == K.ENDED_BY_PASSES)

    @property
    def is_truncated(self) -> bool:
        """Stopped by the move cap."""
        return bool(self.state.info[K.INFO_OVER] == K.TRUNCATED)

    def score(self) -> float:
        """Black's points minus White's minus komi, under the game's scoring rule."""
        if self._score is None:  # counted once a position: envs read it for both players
            self._score = float(K.score(self.state, self.geometry))
        return self._score

    def winner(self) -> int:
        """BLACK, WHITE, or EMPTY for a draw, by the score of the board as it stands."""
        margin = self.score()
        return BLACK if margin > 0 else WHITE if margin < 0 else EMPTY

    def outcome(self, color: int) -> float:
        """+1.0 if ``color`` wins the game as it stands, -1.0 if it loses, 0.0 for a draw."""
        winner = self.winner()
        return 0.0 if winner == EMPTY else 1.0 if winner == color else -1.0

    def result(self) -> str:
        """The result as SGF's RE writes it: ``B+3.5``, ``W+0.5``, ``0`` for a draw."""
        return result_string(self.score())

    def area_owner(self) -> np.ndarray:
        """int8[N, N]: the colour each point counts for under area scoring (0 for neither)."""
        out = np.empty(self.num_points, np.int8)
        K.area_owner(self.state, self.geometry, out)
        return out.reshape(self.size, self.size)

    def __str__(self) -> str:
        rows = []
        last = self.last_move
        for r in range(self.size):
            cells = []
            for c in range(self.size):
                cells.append(".XO"[self.board[r, c]])
            marker = ""
            if last is not None and last != self.pass_move and last // self.size == r:
                marker = f"   last: {coords.to_gtp(last, self.size)}"
            rows.append(f"{self.size - r:2d} " + " ".join(cells) + marker)
        rows.append("   " + " ".join(coords.GTP_COLUMNS[: self.size]))
        return "\n".join(rows)

    def __repr__(self) -> str:
        return (
            f"Game(size={self.size}, rules={self.rules.name!r}, move={self.move_number}, "
            f"to_play={COLOR_NAMES[self.to_play]})"
        )
