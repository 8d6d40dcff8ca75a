"""The referee: one game between two players, kept as a ``GameRecord``.

The referee owns the ``Game``. It asks the side to move for a move, tells every player that
observes moves (``MoveObserver``) about each one, and ends the game on two passes, the move
cap, a resignation, or a forfeit: an illegal move (or an answer that is no move at all), a
crash (an engine that died, anything a player raises, ``SystemExit`` included), or a move
slower than the time limit. Results are written as SGF's ``RE`` writes them: ``B+3.5``,
``W+R`` (resignation), ``B+F`` (forfeit), ``W+T`` (time), ``0``. Players are handed copies
of the game, so one that changes what it is handed changes nothing else.

A game ended by two passes is scored as its settling mode says (``search.settle``): counted as it
stands, after a clean-up phase (the default when an engine that passes with dead stones on the
board, a ``CleanupPlayer``, takes part), or without the dead stones the engines name.

A watchdog outside the referee (the league's workers) follows the game through ``on_turn``:
when a call to a player never comes back, because its process died or it was stopped for
time, ``forfeit_record`` writes the record the referee would have written.
"""

from __future__ import annotations

import functools
import operator
import reprlib
import signal
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from go_env.game import BLACK, COLOR_NAMES, EMPTY, WHITE, Game, IllegalMoveError, as_move, result_string
from go_env.rules import Rules
from go_env.sgf import write_sgf
from goarena.agents.protocols import (
    RESIGN,
    Agent,
    CleanupPlayer,
    GameContext,
    MoveObserver,
    StatusReporter,
    UnsupportedGame,
)
from goarena.search.settle import (
    Settled,
    check_settle,
    default_settle,
    settle_by_dead_stones,
)

_LETTERS = {BLACK: "B", WHITE: "W"}
MOVE_CALLS = ("select_move", "cleanup_move")
_LONGEST_REASON = 1000  # characters of a player's error message kept in the record

T = TypeVar("T")


@dataclass(frozen=True)
class GameRecord:
    """How a game went.

    Attributes:
        black: Black's name.
        white: White's name.
        size: board size.
        rules: the rules it was played under.
        handicap: fixed handicap stones.
        moves: every move played, as points (``N*N`` for a pass), the passes that opened a
            clean-up phase included.
        result: SGF's ``RE``: ``B+3.5``, ``W+R``, ``B+F``, ``W+T``, ``0``.
        winner: BLACK, WHITE, or EMPTY for a draw.
        margin: Black's score minus White's (komi included) when the board was scored
            (two passes or the move cap), else ``None``.
        reason: why it ended: ``two passes``, ``two passes after clean-up``, ``two passes,
            dead stones ...`` (how they were settled), ``move cap``, ``resign``,
            ``illegal move: ...``, ``crash: ...``, ``unsupported game: ...`` or ``time: ...``.
        cleanup_from: the number of moves played when the clean-up phase began, or ``None``:
            ``moves[cleanup_from - 2 : cleanup_from]`` are the two passes that opened it, and
            ``Game.replay(moves, resume=True)`` replays the game through it.
        black_seconds: the seconds Black took for each of its moves.
        white_seconds: the same for White.
        sgf: the game as SGF text (``None`` when not recorded).
        traceback: for a game lost to a player's exception (a ``crash: ...`` or an
            ``unsupported game: ...``), its Python traceback, else ``None``.
    """

    black: str
    white: str
    size: int
    rules: Rules
    handicap: int
    moves: tuple[int, ...]
    result: str
    winner: int
    margin: float | None
    reason: str
    black_seconds: tuple[float, ...]
    white_seconds: tuple[float, ...]
    sgf: str | None
    cleanup_from: int | None = None
    traceback: str | None = None


@dataclass(frozen=True)
class Turn:
    """A call to a player about to be made, and the game so far.

    Attributes:
        color: the player called.
        call: what is called: ``make_agent`` (building the player, outside the referee),
            ``reset``, ``select_move``, ``cleanup_move``, ``observe_move`` or
            ``final_status_list``.
        moves: the moves played so far.
        cleanup_from: as in ``GameRecord``.
    """

    color: int
    call: str
    moves: tuple[int, ...] = ()
    cleanup_from: int | None = None

    def describe(self) -> str:
        """The call in words: ``select_move for move 12``."""
        return f"{self.call} for move {len(self.moves) + 1}" if self.call in MOVE_CALLS else self.call


class _Forfeit(Exception):
    """The player of ``color`` lost without a score; ``code`` is RE's letter (R, F, T)."""

    def __init__(self, color: int, code: str, reason: str, trace: str | None = None):
        super().__init__(reason)
        self.color, self.code, self.reason, self.trace = color, code, reason, trace


def play_game(
    black: Agent,
    white: Agent,
    size: int,
    rules: Rules,
    *,
    handicap: int = 0,
    max_seconds_per_move: float | None = None,
    record_sgf: bool = True,
    settle: str | None = None,
    arbiter: StatusReporter | None = None,
    names: tuple[str, str] | None = None,
    on_turn: Callable[[Turn | None], None] | None = None,
    seeds: tuple[int | None, int | None] = (None, None),
    device: str = "cpu",
    run_dirs: tuple[Path | None, Path | None] = (None, None),
    opening: Sequence[int] = (),
) -> GameRecord:
    """Play one game and return its record.

    Args:
        black: the player of Black.
        white: the player of White (may be ``black`` itself, for self-play).
        size: board size.
        rules: the rules; the players are reset first, each with a ``GameContext`` (a player
            that raises ``UnsupportedGame`` there loses by forfeit, ``unsupported game: ...``).
        handicap: fixed handicap stones for Black (White then moves first).
        max_seconds_per_move: a move that took longer loses the game on time (so does a
            move that failed after that long: an engine stopped by its own ``timeout``).
            The move is timed after it comes back: stopping a player that never answers is
            the caller's watchdog's work (see ``on_turn``).
        record_sgf: whether to write the game as SGF into the record.
        settle: how a game ended by two passes is scored (see the module documentation):
            ``"count"`` the board as it stands, ``"cleanup"`` after a clean-up phase,
            ``"status"`` without the dead stones the engines name. ``None``: ``"cleanup"``
            when either player is a ``CleanupPlayer``, else ``"count"``.
        arbiter: with ``settle="status"``, names the dead stones when the players cannot
            agree (without one, a disputed board is counted as it stands).
        names: Black's and White's names for the record (default: the players' own).
        on_turn: told of every call to a player before it is made (a ``Turn``), and
            ``None`` once no player is being called (before the arbiter, and at the end).
        seeds: Black's and White's seeds, handed to them in their contexts.
        device: where the players' networks run, handed to them in their contexts.
        run_dirs: Black's and White's directories to write to (``GameContext.run_dir``).
        opening: moves played for the players before they are asked (a league's random
            opening), told to the players that observe moves; the record's SGF says so.

    Returns:
        The record. Players' failures are results, not exceptions.
    """
    check_settle(settle, rules)
    match = _Match(Game(size, rules, handicap), {BLACK: black, WHITE: white}, max_seconds_per_move, on_turn)
    mode = settle or default_settle(bool(match.cleaners))
    contexts = {
        color: GameContext(
            size, rules, seeds[color - 1], color, device, run_dirs[color - 1],
            dead_stones_removed=mode != "count",
        )
        for color in (BLACK, WHITE)
    }  # fmt: skip
    settled = None
    try:
        match.reset_players(contexts)
        match.play_opening(opening)
        match.play_until_over(clean_up=False)
        settled = _settle(match, mode, arbiter)
    except _Forfeit as forfeit:
        ending: _Forfeit | None = forfeit
    else:
        ending = None
    match.tell(None)
    names = names or (black.name, white.name)
    return _record(
        match.game, names, ending, match.seconds, match.cleanup_from, settled, record_sgf, len(opening)
    )


class _Match:
    """One game in play: asks the side to move, times it, tells the observers, and reports
    every call to a player through ``on_turn`` before making it."""

    def __init__(
        self,
        game: Game,
        players: dict[int, Agent],
        max_seconds_per_move: float | None,
        on_turn: Callable[[Turn | None], None] | None,
    ):
        self.game = game
        self.players = players
        self.max_seconds_per_move = max_seconds_per_move
        self.on_turn = on_turn
        self.seconds: dict[int, list[float]] = {BLACK: [], WHITE: []}
        self.observers: list[tuple[int, MoveObserver]] = []
        self.cleaners = {color for color, player in players.items() if isinstance(player, CleanupPlayer)}
        self.cleanup_from: int | None = None

    def tell(self, turn: Turn | None) -> None:
        if self.on_turn is not None:
            self.on_turn(turn)

    def turn(self, color: int, call: str) -> None:
        self.tell(Turn(color, call, tuple(self.game.moves), self.cleanup_from))

    def reset_players(self, contexts: dict[int, GameContext]) -> None:
        """Reset each player with its context; a player on both sides (self-play) observes once."""
        self_play = self.players[BLACK] is self.players[WHITE]
        for color, player in self.players.items():
            self.turn(color, "reset")
            with _Blame(color):
                player.reset(contexts[color])
                if isinstance(player, MoveObserver) and not (self_play and color == WHITE):
                    self.observers.append((color, player))

    def play_opening(self, moves: Sequence[int]) -> None:
        """The opening's moves, for whichever side is to move, each told to the observers."""
        for move in moves:
            color = self.game.to_play
            try:
                _play(self.game, color, int(move))
            except _Forfeit as error:  # the schedule's fault, not the player's
                raise ValueError(f"opening move {move} is illegal: {error.reason}") from None
            self.observe(move)

    def observe(self, move: int) -> None:
        """Tell the players that observe moves of ``move``, just played."""
        for observer_color, observer in self.observers:
            view = self.game.copy()
            self.turn(observer_color, "observe_move")
            with _Blame(observer_color):
                observer.observe_move(view, move)

    def play_until_over(self, clean_up: bool) -> None:
        """Moves until the game ends; in a clean-up phase, ``CleanupPlayer``s play theirs."""
        game = self.game
        while not game.is_over:
            color = game.to_play
            call = "cleanup_move" if clean_up and color in self.cleaners else "select_move"
            view = game.copy()
            self.turn(color, call)
            start = time.perf_counter()
            failure = None
            try:
                with _Blame(color):
                    answer = getattr(self.players[color], call)(view)
            except _Forfeit as error:
                failure = error
            elapsed = time.perf_counter() - start
            self.seconds[color].append(elapsed)
            limit = self.max_seconds_per_move
            if limit is not None and elapsed > limit:
                over = f"{elapsed:.2f} s for move {game.move_number + 1}, over {limit:g} s"
                raise _Forfeit(color, "T", f"time: {over}" + (f" ({failure.reason})" if failure else ""))
            if failure is not None:
                raise failure
            move = _move(color, answer)
            if move == RESIGN:
                raise _Forfeit(color, "R", "resign")
            _play(game, color, move)
            self.observe(move)

    def dead_stones_named(self) -> list[list[int]]:
        """The dead stones as named by each player that can name them."""
        answers = []
        for color, player in self.players.items():
            self.turn(color, "final_status_list")
            with _Blame(color):
                if isinstance(player, StatusReporter):
                    answers.append(_dead_stones(player, self.game))
        self.tell(None)  # the arbiter is the league's, not a player
        return answers


def _settle(match: _Match, mode: str, arbiter: StatusReporter | None) -> Settled | None:
    """Settle a game that ended by two passes as ``mode`` says: a clean-up phase played on
    (None returned: the board is then counted as it stands), or the dead stones named and
    taken off (the ``Settled`` count); ``"count"`` and other endings leave it as it is."""
    game = match.game
    if not game.is_terminated:
        return None
    if mode == "cleanup":
        game.resume()
        match.cleanup_from = len(game.moves)
        match.play_until_over(clean_up=True)
    elif mode == "status":
        ask_arbiter = None if arbiter is None else functools.partial(_dead_stones, arbiter, game)
        return settle_by_dead_stones(game, match.dead_stones_named(), ask_arbiter)
    return None


def forfeit_record(
    turn: Turn,
    code: str,
    reason: str,
    *,
    size: int,
    rules: Rules,
    names: tuple[str, str],
    handicap: int = 0,
    seconds: float | None = None,
) -> GameRecord:
    """The record of a game lost by the player of ``turn`` whose call never came back (its
    process died, or it was stopped for time), as ``play_game`` would have written it.

    Args:
        turn: the last call ``play_game`` reported through ``on_turn``.
        code: RE's letter: ``F`` (forfeit) or ``T`` (time).
        reason: as in ``GameRecord``.
        size, rules, names, handicap: as given to ``play_game``.
        seconds: how long the call ran; counted as the player's when it was a move.
    """
    game = Game(size, rules, handicap)
    game.replay(turn.moves, resume=True)
    spent: dict[int, list[float]] = {BLACK: [], WHITE: []}
    if seconds is not None and turn.call in MOVE_CALLS:
        spent[turn.color].append(seconds)
    ending = _Forfeit(turn.color, code, reason)
    return _record(game, names, ending, spent, turn.cleanup_from, None, record_sgf=True)


def _record(
    game: Game,
    names: tuple[str, str],
    ending: _Forfeit | None,
    seconds: dict[int, list[float]],
    cleanup_from: int | None,
    settled: Settled | None,
    record_sgf: bool,
    opening: int = 0,
) -> GameRecord:
    """The record of ``game``, ended by a forfeit (``ending``) or else scored."""
    if ending is not None:
        winner = 3 - ending.color
        result, margin, reason = f"{_LETTERS[winner]}+{ending.code}", None, ending.reason
    else:
        margin = game.score() if settled is None else settled.margin
        winner = BLACK if margin > 0 else WHITE if margin < 0 else EMPTY
        if not game.is_terminated:
            reason = "move cap"
        elif settled is not None:
            reason = f"two passes, {settled.how}"
        else:
            reason = "two passes" if cleanup_from is None else "two passes after clean-up"
        result = result_string(margin)
    sgf = None
    if record_sgf:
        why = {"C": reason} if result[2:] in ("F", "T") else None  # the faulty move is not in the record
        notes = {}
        if opening:
            notes[opening - 1] = f"The first {opening} moves are the league's random opening."
        if cleanup_from is not None and cleanup_from < len(game.moves):
            notes[cleanup_from] = "Both passed before this move; the clean-up phase captures dead stones."
        elif settled is not None and game.moves:
            notes[len(game.moves) - 1] = f"Settled: {settled.how}."
        sgf = write_sgf(
            game, black=names[0], white=names[1], result=result, comments=notes or None, extra=why
        ).decode()
    return GameRecord(
        black=names[0],
        white=names[1],
        size=game.size,
        rules=game.rules,
        handicap=game.handicap,
        moves=tuple(game.moves),
        result=result,
        winner=winner,
        margin=margin,
        reason=reason,
        black_seconds=tuple(seconds[BLACK]),
        white_seconds=tuple(seconds[WHITE]),
        sgf=sgf,
        cleanup_from=cleanup_from,
        traceback=ending.trace if ending is not None else None,
    )


def _dead_stones(reporter: StatusReporter, game: Game) -> list[int]:
    """The dead stones ``reporter`` names on ``game``'s board (``final_status_list dead``)."""
    return _points(reporter.final_status_list(game.copy(), "dead"), game)


def _points(answer: object, game: Game) -> list[int]:
    """``answer`` as a sorted list of points on ``game``'s board, else ValueError."""
    try:
        points = sorted(operator.index(p) for p in answer)  # type: ignore[attr-defined]
    except Exception:
        points = None
    if points is None or not all(0 <= p < game.num_points for p in points):
        raise ValueError(f"{_show(answer)}, not a list of points")
    return points


class _Blame:
    """Whatever the code under ``with _Blame(color)`` raises (a player's call) forfeits the
    game of the player of ``color`` (see ``crash_reason``)."""

    def __init__(self, color: int):
        self.color = color

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: object) -> None:
        if error is None or isinstance(error, _Forfeit):
            return
        reason = crash_reason(error)
        if reason is not None:
            raise _Forfeit(self.color, "F", reason, format_traceback(error)) from error


def crash_reason(error: BaseException) -> str | None:
    """Why a player that raised ``error`` loses its game: ``crash: Type: message`` (or
    ``unsupported game: message`` for an ``UnsupportedGame``). Anything
    a player raises loses (``SystemExit`` too) but ``GeneratorExit``, and a
    ``KeyboardInterrupt`` where Ctrl-C raises one (a league's workers ignore Ctrl-C, so
    there one can only come from a player): None, to be raised on."""
    if isinstance(error, GeneratorExit):
        return None
    if isinstance(error, KeyboardInterrupt) and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        return None
    text = "unsupported game" if isinstance(error, UnsupportedGame) else f"crash: {type(error).__name__}"
    try:
        message = str(error)
    except Exception:  # an error that cannot say what it is
        message = ""
    text += f": {message}" if message else ""
    return text if len(text) <= _LONGEST_REASON else text[: _LONGEST_REASON - 3] + "..."


def format_traceback(error: BaseException) -> str:
    """``error``'s traceback as Python prints it, for a crashed game's file."""
    try:
        return "".join(traceback.format_exception(type(error), error, error.__traceback__))
    except Exception:  # an error that cannot say what it is
        return f"{type(error).__name__} (its traceback could not be formatted)\n"


def _move(color: int, answer: object) -> int:
    """A player's answer as an integer (a point, pass or RESIGN); anything else forfeits."""
    try:
        return as_move(answer)
    except Exception:  # a TypeError, or whatever an odd answer's __index__ raises
        raise _not_a_move(color, answer) from None


def _play(game: Game, color: int, move: int) -> None:
    """Play ``color``'s ``move``; an illegal one (off the board too) forfeits."""
    try:
        game.play(move)
    except IllegalMoveError as error:
        raise _Forfeit(color, "F", f"illegal move: {error}") from None


def _not_a_move(color: int, answer: object) -> _Forfeit:
    return _Forfeit(color, "F", f"illegal move: {COLOR_NAMES[color]} chose {_show(answer)}, not a move")


def _show(value: object) -> str:
    """A short ``repr`` of anything a player answered."""
    try:
        return reprlib.repr(value)
    except Exception:
        return f"a {type(value).__name__}"
