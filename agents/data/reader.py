"""An SGF record as an expert game: its moves, which of them are training targets, its winner.

Records are untrusted: ``read_expert_game`` raises ``SkippedGame`` with one of ``SKIP_REASONS``
for anything that cannot be used, and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from go_env.game import BLACK, EMPTY, WHITE, IllegalMoveError
from go_env.rules import Rules
from go_env.sgf import SgfError, load_sgf, read_sgf

# The comment on each random opening move of a generated game: not an expert move.
RANDOM_OPENING = "random opening move (not an expert move)"

SKIP_REASONS = ("unreadable", "board size", "handicap or setup", "illegal move", "no result")

# RE values of a drawn game, lower-cased.
_DRAWS = ("0", "draw", "jigo")


class SkippedGame(ValueError):
    """A record that gives no training positions; ``reason`` is one of ``SKIP_REASONS``."""

    def __init__(self, reason: str, detail: str):
        self.reason = reason
        super().__init__(f"{reason}: {detail}")


@dataclass(frozen=True)
class ExpertGame:
    """A game read for training.

    Attributes:
        size: board size.
        rules: the rules it was played under (komi included).
        moves: every move from the empty board, ``N*N`` for a pass.
        first_target: the index of the first expert move; the moves before it are random
            opening moves (0 for a record without them).
        winner: BLACK, WHITE, or EMPTY for a draw.
    """

    size: int
    rules: Rules
    moves: tuple[int, ...]
    first_target: int
    winner: int

    @property
    def num_targets(self) -> int:
        return len(self.moves) - self.first_target


def read_expert_game(source: bytes | str | Path, size: int) -> ExpertGame:
    """Read a record (its bytes, or the path of its file) as an expert game on a ``size`` board.

    Raises:
        SkippedGame: why the record gives no positions: unreadable (not SGF, too large, a
            malformed property, a file that cannot be read), board size (not ``size``),
            handicap or setup (``HA`` or setup stones), illegal move (under the record's own
            rules), no result (``RE`` missing or neither a win nor a draw).
    """
    try:
        record = load_sgf(source) if isinstance(source, Path) else read_sgf(source)
    except SgfError as error:
        # A replay that hits an illegal move raises SgfError while handling IllegalMoveError.
        reason = "illegal move" if isinstance(error.__context__, IllegalMoveError) else "unreadable"
        raise SkippedGame(reason, str(error)) from None
    except OSError as error:
        raise SkippedGame("unreadable", str(error)) from None
    game = record.game
    if game.size != size:
        raise SkippedGame("board size", f"a {game.size}x{game.size} game, not {size}x{size}")
    if record.handicap:
        raise SkippedGame("handicap or setup", f"a handicap of {record.handicap} stones")
    if game.setup_black or game.setup_white or game.first_to_play != BLACK:
        raise SkippedGame("handicap or setup", "setup stones (AB, AW) or White to play first")
    winner = _winner(record.result)
    first_target = 0
    while first_target < len(record.moves) and record.comments.get(first_target) == RANDOM_OPENING:
        first_target += 1
    return ExpertGame(size, record.rules, record.moves, first_target, winner)


def _winner(result: str | None) -> int:
    """The winner that an ``RE`` value names (``B+3.5``, ``W+R``, ``0``)."""
    text = (result or "").strip()
    if text.lower() in _DRAWS:
        return EMPTY
    if text[:2].upper() == "B+":
        return BLACK
    if text[:2].upper() == "W+":
        return WHITE
    raise SkippedGame("no result", f"RE[{text}]" if result is not None else "no RE")
