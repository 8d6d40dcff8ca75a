"""An SGF record as an expert game: its moves, which of them are training targets, its winner.

Records are untrusted: ``read_expert_game`` raises ``SkippedGame`` with one of ``SKIP_REASONS``
for anything that cannot be used, and nothing else. A file may hold a collection of games
(``(;...)(;...)``): ``read_expert_games`` reads every one of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from sgfmill import sgf_grammar

from go_env.game import BLACK, EMPTY, WHITE, IllegalMoveError
from go_env.rules import Rules
from go_env.sgf import MAX_SGF_BYTES, SgfError, load_sgf, read_sgf

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
        owner: the final owner of each point (BLACK, WHITE, EMPTY for neither), row by row,
            from the record's territory marks (``TB``/``TW``); ``None`` for a record without.
    """

    size: int
    rules: Rules
    moves: tuple[int, ...]
    first_target: int
    winner: int
    owner: tuple[int, ...] | None = None

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
    owner = record.final_owner
    marks = None if owner is None else tuple(int(color) for color in owner)
    return ExpertGame(size, record.rules, record.moves, first_target, winner, marks)


def read_expert_games(path: Path, size: int) -> list[tuple[str, ExpertGame | SkippedGame]]:
    """Every game of the file at ``path`` (one game, or a collection of several), each as
    ``(tag, game)`` or ``(tag, SkippedGame)``: the tag is ``""`` for a file of one game and
    ``"#K"`` for the K-th game (from 1) of a collection, to follow the file's name. A file that
    cannot be read, or is larger than a record may be, is one skipped entry; so is the rest of
    a collection from a game that cannot be parsed (tagged with the first game lost)."""
    try:
        with open(path, "rb") as file:
            data = file.read(MAX_SGF_BYTES + 1)
    except OSError as error:
        return [("", SkippedGame("unreadable", str(error)))]
    try:
        records = split_collection(data)
    except _BrokenCollection as broken:
        # sgfmill refuses the whole collection for one bad game: read what the first gives.
        return [
            ("#1", _read_or_skip(data, size)),
            (f"#{broken.game}", SkippedGame("unreadable", str(broken))),
        ]
    if len(records) == 1:
        return [("", _read_or_skip(records[0], size))]
    return [(f"#{number}", _read_or_skip(record, size)) for number, record in enumerate(records, 1)]


class _BrokenCollection(ValueError):
    def __init__(self, game: int, message: str):
        self.game = game
        super().__init__(f"the collection's games from game {game} on: {message}")


def split_collection(data: bytes) -> list[bytes]:
    """The games of an SGF collection, each as the record of one game; ``[data]`` as it is for
    a record of one game, or for data that is no SGF (``read_sgf`` says what is wrong)."""
    if len(data) > MAX_SGF_BYTES:
        return [data]  # refused unparsed by read_sgf
    try:
        trees = sgf_grammar.parse_sgf_collection(data)
    except ValueError as error:
        broken = re.match(r"error parsing game (\d+): (.*)", str(error))  # counted from 0
        if broken is None or broken[1] == "0":
            return [data]
        raise _BrokenCollection(int(broken[1]) + 1, broken[2]) from None
    if len(trees) <= 1:
        return [data]
    return [sgf_grammar.serialise_game_tree(tree) for tree in trees]


def _read_or_skip(record: bytes, size: int) -> ExpertGame | SkippedGame:
    try:
        return read_expert_game(record, size)
    except SkippedGame as skip:
        return skip


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
