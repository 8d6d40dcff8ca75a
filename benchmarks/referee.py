"""The referee: one game between two players, kept as a ``GameRecord``.

The referee owns the ``Game``. It asks the side to move for a move, tells every player that
observes moves (``MoveObserver``) about each one, and ends the game on two passes, the move
cap, a resignation, or a forfeit: an illegal move, a crash (an engine that died, any
exception from a player), or a move slower than the time limit. Results are written as SGF's
``RE`` writes them: ``B+3.5``, ``W+R`` (resignation), ``B+F`` (forfeit), ``W+T`` (time), ``0``.

Engines such as GNU Go pass with dead stones still on the board, and an area count of that
board can name the wrong winner. When such a player (a ``CleanupPlayer``) takes part, the two
passes open a clean-up phase, as on KGS: the passes are taken back and play goes on, the
engines asking for moves with ``kgs-genmove_cleanup`` (which captures every dead stone), until
two more passes; then the board is counted. Our own players play their games out anyway.
Settling by ``settle="status"`` instead asks the players that can (``StatusReporter``) for
``final_status_list dead``: when both name the same dead stones they are removed and the
board counted; otherwise a declared arbiter (an engine such as GNU Go) names them.
"""

from __future__ import annotations

import operator
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from agents.base import RESIGN, Agent, CleanupPlayer, MoveObserver, StatusReporter
from go_env import coords
from go_env.game import BLACK, COLOR_NAMES, EMPTY, WHITE, Game, IllegalMoveError, result_string
from go_env.rules import Rules
from go_env.sgf import write_sgf

_LETTERS = {BLACK: "B", WHITE: "W"}
SETTLE_MODES = ("count", "cleanup", "status")

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
        moves: the moves played, as points (``N*N`` for a pass).
        result: SGF's ``RE``: ``B+3.5``, ``W+R``, ``B+F``, ``W+T``, ``0``.
        winner: BLACK, WHITE, or EMPTY for a draw.
        margin: Black's score minus White's (komi included) when the board was scored
            (two passes or the move cap), else ``None``.
        reason: why it ended: ``two passes``, ``two passes after clean-up``, ``two passes,
            dead stones ...`` (how they were settled), ``move cap``, ``resign``,
            ``illegal move: ...``, ``crash: ...`` or ``time: ...``.
        cleanup_from: the number of moves played when both first passed and the clean-up
            phase began (those two passes are not in ``moves``), or ``None``.
        black_seconds: the seconds Black took for each of its moves.
        white_seconds: the same for White.
        sgf: the game as SGF text (``None`` when not recorded).
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


class _Forfeit(Exception):
    """The player of ``color`` lost without a score; ``code`` is RE's letter (R, F, T)."""

    def __init__(self, color: int, code: str, reason: str):
        super().__init__(reason)
        self.color, self.code, self.reason = color, code, reason


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
) -> GameRecord:
    """Play one game and return its record.

    Args:
        black: the player of Black.
        white: the player of White (may be ``black`` itself, for self-play).
        size: board size.
        rules: the rules; the players are reset with them first.
        handicap: fixed handicap stones for Black (White then moves first).
        max_seconds_per_move: a move that took longer loses the game on time. The move is
            timed after it comes back: a slow player is not interrupted (a ``GTPAgent``'s
            own ``timeout`` does that).
        record_sgf: whether to write the game as SGF into the record.
        settle: how a game ended by two passes is scored (see the module documentation):
            ``"count"`` the board as it stands, ``"cleanup"`` after a clean-up phase,
            ``"status"`` without the dead stones the engines name. ``None``: ``"cleanup"``
            when either player is a ``CleanupPlayer``, else ``"count"``.
        arbiter: with ``settle="status"``, names the dead stones when the players cannot
            agree (without one, a disputed board is counted as it stands).
        names: Black's and White's names for the record (default: the players' own).

    Returns:
        The record. Players' failures are results, not exceptions.
    """
    game = Game(size, rules, handicap)
    black_name, white_name = names or (black.name, white.name)
    players = {BLACK: black, WHITE: white}
    seconds: dict[int, list[float]] = {BLACK: [], WHITE: []}
    seats = [(BLACK, black)] if white is black else list(players.items())  # self-play: told once
    observers = [(color, player) for color, player in seats if isinstance(player, MoveObserver)]
    if settle is None:
        settle = "cleanup" if any(isinstance(p, CleanupPlayer) for p in (black, white)) else "count"
    if settle not in SETTLE_MODES:
        raise ValueError(f"unknown settle mode {settle!r}; known: {', '.join(SETTLE_MODES)}")
    if settle == "status" and rules.scoring != "area":
        raise ValueError("settling by the engines' dead stones needs area scoring")
    cleanup_from = None
    settled = None  # (margin, how) when dead stones were removed before the count

    def play_until_over(clean_up: bool) -> None:
        while not game.is_over:
            color = game.to_play
            player = players[color]
            choose = (
                player.cleanup_move if clean_up and isinstance(player, CleanupPlayer) else player.select_move
            )
            start = time.perf_counter()
            move = _call(color, choose, game)
            elapsed = time.perf_counter() - start
            seconds[color].append(elapsed)
            if max_seconds_per_move is not None and elapsed > max_seconds_per_move:
                limit = f"{elapsed:.2f} s for move {game.move_number + 1}, over {max_seconds_per_move:g} s"
                raise _Forfeit(color, "T", f"time: {limit}")
            if move == RESIGN:
                raise _Forfeit(color, "R", "resign")
            _play(game, move)
            for observer_color, observer in observers:
                _call(observer_color, observer.observe_move, game, move)

    try:
        for color, player in players.items():
            _call(color, player.reset, rules)
        play_until_over(clean_up=False)
        if settle == "cleanup" and game.is_terminated:
            game.undo()
            game.undo()
            cleanup_from = len(game.moves)
            play_until_over(clean_up=True)
        elif settle == "status" and game.is_terminated:
            settled = _settle_by_status(game, players, arbiter)
    except _Forfeit as forfeit:
        winner = 3 - forfeit.color
        result, margin, reason = f"{_LETTERS[winner]}+{forfeit.code}", None, forfeit.reason
    else:
        margin = game.score() if settled is None else settled[0]
        winner = BLACK if margin > 0 else WHITE if margin < 0 else EMPTY
        if not game.is_terminated:
            reason = "move cap"
        elif settled is not None:
            reason = f"two passes, {settled[1]}"
        else:
            reason = "two passes" if cleanup_from is None else "two passes after clean-up"
        result = result_string(margin)
    sgf = None
    if record_sgf:
        why = {"C": reason} if result[2:] in ("F", "T") else None  # the faulty move is not in the record
        notes = None
        if cleanup_from is not None and cleanup_from < len(game.moves):
            notes = {cleanup_from: "Both passed before this move; the clean-up phase captures dead stones."}
        elif settled is not None and game.moves:
            notes = {len(game.moves) - 1: f"Settled: {settled[1]}."}
        sgf = write_sgf(
            game, black=black_name, white=white_name, result=result, comments=notes, extra=why
        ).decode()
    return GameRecord(
        black=black_name,
        white=white_name,
        size=size,
        rules=rules,
        handicap=handicap,
        moves=tuple(game.moves),
        result=result,
        winner=winner,
        margin=margin,
        reason=reason,
        black_seconds=tuple(seconds[BLACK]),
        white_seconds=tuple(seconds[WHITE]),
        sgf=sgf,
        cleanup_from=cleanup_from,
    )


def _settle_by_status(
    game: Game, players: dict[int, Agent], arbiter: StatusReporter | None
) -> tuple[float, str]:
    """Black's margin without the dead stones, and how they were settled."""
    reporters = [(color, p) for color, p in players.items() if isinstance(p, StatusReporter)]
    answers = [sorted(_call(color, p.final_status_list, game, "dead")) for color, p in reporters]
    if len(answers) == 2 and answers[0] == answers[1]:
        dead, how = answers[0], "dead stones agreed by both"
    elif arbiter is not None:
        try:
            dead, how = sorted(arbiter.final_status_list(game, "dead")), "dead stones named by the arbiter"
        except Exception as error:
            return game.score(), f"the arbiter failed ({type(error).__name__}: {error}); counted as it stands"
    else:
        return game.score(), "dead stones not agreed and no arbiter; counted as it stands"
    names = " ".join(coords.to_gtp(p, game.size) for p in dead) or "none"
    return _score_without(game, dead), f"{how} ({names})"


def _score_without(game: Game, dead: list[int]) -> float:
    """The area score of ``game``'s board with the ``dead`` stones taken off."""
    board = game.board.ravel()
    removed = set(dead)
    black = [int(p) for p in np.flatnonzero(board == BLACK) if p not in removed]
    white = [int(p) for p in np.flatnonzero(board == WHITE) if p not in removed]
    counted = Game(game.size, game.rules)
    counted.setup(black, white, game.to_play)
    return counted.score()


def _call(color: int, method: Callable[..., T], *args: Any) -> T:
    """``method(*args)`` for the player of ``color``; any exception forfeits its game."""
    try:
        return method(*args)
    except Exception as error:
        raise _Forfeit(color, "F", f"crash: {type(error).__name__}: {error}") from error


def _play(game: Game, move: int) -> None:
    """Play the side to move's ``move``; an illegal one (or no move at all) forfeits."""
    color = game.to_play
    try:
        game.play(operator.index(move))  # a player may return anything
    except TypeError:
        raise _Forfeit(color, "F", f"illegal move: {COLOR_NAMES[color]} chose {move!r}, not a move") from None
    except IllegalMoveError as error:
        raise _Forfeit(color, "F", f"illegal move: {error}") from None
