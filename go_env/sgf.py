"""SGF (FF[4]) game records in and out, parsed and serialised by sgfmill.

A written record looks like::

    (;FF[4]AP[goarena:0.1.0]CA[UTF-8]DT[2026-01-31]GC[goarena rules: {...}]GM[1]KM[7.5]
    PB[alice]PW[bob]RE[B+3.5]RU[goarena]SZ[9];B[ee];W[cc]C[winrate 0.48];B[];W[])

``RU`` holds the rules' name, which other programs understand when it is a common one
(``Chinese``, ``Japanese``, ``Tromp-Taylor``). Since a name cannot say every axis of a
``Rules`` (a preset may have fields overridden), the full rules also go in the game
comment ``GC`` as one line, ``goarena rules: `` followed by ``Rules.to_dict()`` as JSON.
Reading prefers that line, then the ``RU`` name, then the default rules; ``KM`` sets the
komi whichever way the rules were found.

Passes are written ``B[]``/``W[]``; ``tt`` is read as a pass on boards up to 19x19. Every move
played is written, passes included: where moves follow two passes (a clean-up phase, in which
the dead stones are captured before the count, as on KGS), reading resumes the game there
(``Game.resume``) and replays on, as Sabaki and GoGui do.
Only the main line of a record is read: variations are ignored.

A finished game may carry its final owners as the territory marks of its last node, as KGS and
CGoban write them: ``TB`` holds Black's area points that are not Black's living stones (its
territory, dead White stones included), ``TW`` likewise. ``write_sgf(territory=...)`` writes
them, ``SgfRecord.territory`` reads them, and ``owner_from_territory`` and
``territory_marks`` turn them into an owner per point and back.

Records are data: reading one never imports or runs anything it names. Since they may come
from anywhere, a record over ``MAX_SGF_BYTES`` or ``MAX_SGF_NODES`` is refused before it is
parsed, and whatever is wrong with a record is reported as an ``SgfError``.
"""

from __future__ import annotations

import dataclasses
import datetime
import encodings
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import numpy as np
from sgfmill import sgf, sgf_grammar

from go_env import coords
from go_env.game import BLACK, COLOR_NAMES, MAX_SIZE, MIN_SIZE, WHITE, Game, IllegalMoveError
from go_env.rules import MAX_MOVES, RULES_PRESETS, Rules

try:
    _VERSION = version("goarena")
except PackageNotFoundError:
    _VERSION = "dev"

_COLOR_LETTERS = {BLACK: "B", WHITE: "W"}
_SGF_COLORS = {"B": BLACK, "W": WHITE}
# Character sets a record may name: those that read ASCII as ASCII, by Python's codec names.
# Checked before any codec lookup, which would import the module a record names (idna, rot13).
_CHARSETS = frozenset(
    ["ascii", "utf_8", "latin_1", "cp1250", "cp1251", "cp1252", "cp1253", "cp1254", "cp1255"]
    + ["cp1256", "cp1257", "cp1258", "cp932", "cp949", "cp950", "gb2312", "gbk", "gb18030", "big5"]
    + ["big5hkscs", "euc_jp", "euc_kr", "euc_jis_2004", "shift_jis", "shift_jis_2004", "koi8_r"]
    + ["koi8_u", "tis_620"]
    + [f"iso8859_{n}" for n in (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14, 15, 16)]
)
_SIZES = {str(size).encode() for size in range(MIN_SIZE, MAX_SIZE + 1)}
_RULES_PREFIX = "goarena rules: "
_RULES_LINE = re.compile(rf"^{_RULES_PREFIX}(.*)$", re.MULTILINE)
# RU values (lower-cased) that name a preset, as other programs write them.
_RU_NAMES = {**{name: name for name in RULES_PRESETS}, "japanese": "japanese-like"}
_SETUP_PROPERTIES = ("AB", "AW", "AE", "PL")
# Root properties ``write_sgf`` sets itself, so ``extra`` may not repeat them.
_WRITTEN = frozenset({"FF", "GM", "CA", "AP", "SZ", "KM", "RU", "GC", "HA", "AB", "AW", "PL"})
_WRITTEN |= {"PB", "PW", "RE", "DT", "EV"}

# Parsing takes up to some 300 bytes of memory per byte of a record, so records are refused
# above a size (a 100_000-move game takes 600 KB) and above a count of nodes: the longest
# main line the rules allow, and as much again in variations.
MAX_SGF_BYTES = 2**20
MAX_SGF_NODES = 2 * MAX_MOVES
# A property value, skipped when counting nodes: "[...]" with "\]" and "\\" escaped.
_VALUE = re.compile(rb"\[[^\\\]]*(?:\\.[^\\\]]*)*\]", re.DOTALL)


class SgfError(ValueError):
    """An SGF record that cannot be read as a game of Go under the chosen rules."""


@dataclass(frozen=True)
class SgfRecord:
    """A game record read from SGF.

    Attributes:
        game: the game replayed to the end of the main line (setup stones placed).
        rules: the rules it was replayed under (also ``game.rules``).
        moves: the main-line moves as points, ``N*N`` for a pass.
        handicap: the ``HA`` property (0 if absent); the stones themselves are ``AB``.
        black: Black's name (``PB``), ``""`` if absent.
        white: White's name (``PW``), ``""`` if absent.
        result: ``RE`` as written (``"B+R"``, ``"W+3.5"``, ``"0"``, ...), ``None`` if absent.
        date: ``DT`` as written, ``None`` if absent.
        event: ``EV``, ``""`` if absent.
        comments: the ``C`` comment of each move node, keyed by move index (0-based).
        territory: the territory marks of the main line's last node, ``(TB points, TW points)``
            (sorted), or ``None`` when it has neither property.
    """

    game: Game
    rules: Rules
    moves: tuple[int, ...]
    handicap: int = 0
    black: str = ""
    white: str = ""
    result: str | None = None
    date: str | None = None
    event: str = ""
    comments: dict[int, str] = field(default_factory=dict)
    territory: tuple[tuple[int, ...], tuple[int, ...]] | None = None

    @property
    def komi(self) -> float:
        return self.rules.komi

    @property
    def final_owner(self) -> np.ndarray | None:
        """int8[N*N]: each point's final owner (BLACK, WHITE, 0 for neither) by the territory
        marks and the final position, or ``None`` for a record without marks."""
        if self.territory is None:
            return None
        return owner_from_territory(self.game.board.reshape(-1), *self.territory)


def territory_marks(board: np.ndarray, owner: np.ndarray) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The ``TB`` and ``TW`` points of a final position ``board`` (int8[N*N]) whose points have
    the final owners ``owner`` (int8[N*N]: BLACK, WHITE, 0): each colour's points that are not
    its own stones."""
    board, owner = np.asarray(board).reshape(-1), np.asarray(owner).reshape(-1)
    return tuple(
        tuple(int(p) for p in np.flatnonzero((owner == color) & (board != color))) for color in (BLACK, WHITE)
    )  # type: ignore[return-value]


def owner_from_territory(board: np.ndarray, black: Sequence[int], white: Sequence[int]) -> np.ndarray:
    """int8[N*N]: the final owner of each point of ``board`` (int8[N*N]) with the territory
    marks ``black`` (TB) and ``white`` (TW): a marked point is its mark's; an unmarked stone is
    its colour's (it lives); an unmarked empty point is neither's."""
    owner = np.array(board, np.int8).reshape(-1)
    owner[list(black)] = BLACK
    owner[list(white)] = WHITE
    return owner


# -- writing -----------------------------------------------------------------------------


def write_sgf(
    game: Game,
    *,
    black: str = "",
    white: str = "",
    result: str | None = None,
    date: str | None = None,
    event: str = "",
    comments: dict[int, str] | None = None,
    extra: dict[str, str] | None = None,
    territory: tuple[Sequence[int], Sequence[int]] | None = None,
) -> bytes:
    """Serialise a game as an SGF record (UTF-8).

    Args:
        game: the game; its setup stones, handicap, rules and moves are written.
        black: Black's name (``PB``); omitted if empty.
        white: White's name (``PW``); omitted if empty.
        result: ``RE``, e.g. ``"B+R"`` for a resignation. ``None`` writes ``game.result()``
            if the game is over and no ``RE`` otherwise; ``""`` writes no ``RE``.
        date: ``DT``; ``None`` writes today's date, ``""`` writes no ``DT``.
        event: ``EV``; omitted if empty.
        comments: comments (engine analysis, say) keyed by move index, 0-based: the
            comment for ``game.moves[i]`` goes in that move's node.
        extra: further root properties as text, e.g. ``{"BR": "3d", "TM": "600"}``.
        territory: the final owners as territory marks ``(TB points, TW points)``, written in
            the last node (both properties, even an empty one: the record is marked).

    Returns:
        The record as bytes.

    Raises:
        ValueError: a comment for a move the game does not have, an ``extra``
            property that is ill-formed or one this function writes itself, or a territory
            point off the board or marked for both colours.
    """
    size = game.size
    record = sgf.Sgf_game(size, encoding="UTF-8")
    root = record.get_root()
    root.set("AP", ("goarena", _VERSION))
    root.set("KM", game.rules.komi)
    root.set("RU", game.rules.name)
    root.set("GC", _RULES_PREFIX + json.dumps(game.rules.to_dict()))
    if game.handicap:
        root.set("HA", game.handicap)
    for prop, points in (("AB", game.setup_black), ("AW", game.setup_white)):
        if points:
            root.set_raw_list(prop, [_sgf_point(p, size) for p in points])
    if game.setup_black or game.setup_white or game.first_to_play == WHITE:
        root.set("PL", _COLOR_LETTERS[game.first_to_play].lower())
    if result is None and game.is_over:
        result = game.result()
    if date is None:
        date = datetime.date.today().isoformat()
    for prop, text in (("PB", black), ("PW", white), ("RE", result), ("DT", date), ("EV", event)):
        if text:
            root.set(prop, text)
    for prop, text in (extra or {}).items():
        if prop in _WRITTEN:
            raise ValueError(f"extra property {prop} is one write_sgf sets itself")
        root.set_raw(prop, sgf_grammar.escape_text(text.encode("utf-8")))

    comments = comments or {}
    if any(not 0 <= i < len(game.moves) for i in comments):
        raise ValueError(f"comments keyed {sorted(comments)} but the game has {len(game.moves)} moves")
    color = game.first_to_play
    for i, move in enumerate(game.moves):
        node = record.extend_main_sequence()
        node.set_raw(_COLOR_LETTERS[color], _sgf_point(move, size))
        if i in comments:
            node.set("C", comments[i])
        color = 3 - color
    if territory is not None:
        node = record.get_last_node()
        black_area, white_area = ({int(p) for p in points} for points in territory)
        if black_area & white_area or any(not 0 <= p < size * size for p in black_area | white_area):
            where = f"on the {size}x{size} board, each marked once"
            raise ValueError(f"territory points must be {where}: {territory}")
        for prop, area in (("TB", black_area), ("TW", white_area)):
            node.set_raw_list(prop, [_sgf_point(p, size) for p in sorted(area)] or [b""])
    return record.serialise()


def save_sgf(path: str | Path, game: Game, **kwargs: Any) -> None:
    """Write ``write_sgf(game, **kwargs)`` to ``path``."""
    Path(path).write_bytes(write_sgf(game, **kwargs))


def _sgf_point(point: int, size: int) -> bytes:
    return coords.to_sgf(point, size).encode("ascii")


# -- reading -----------------------------------------------------------------------------


def read_sgf(data: bytes | str, *, rules: Rules | None = None, max_bytes: int = MAX_SGF_BYTES) -> SgfRecord:
    """Read an SGF record and replay its main line.

    Args:
        data: the record; bytes are decoded as its ``CA`` says (ISO-8859-1 if absent,
            per the SGF spec), text is taken as it is.
        rules: the rules to replay under; if ``None``, taken from the record (see the
            module docstring). The record's ``KM``, when present, sets the komi either way.
        max_bytes: the largest record read; larger ones are refused unparsed.

    Returns:
        The record, with its game replayed to the end of the main line.

    Raises:
        SgfError: the data is not an SGF game of Go, or is too large, or a property is
            malformed, or a move is illegal under the rules; the message says which and
            where. Nothing else: a record is untrusted input.
    """
    if isinstance(data, str):
        try:
            data, encoding = data.encode("utf-8"), "UTF-8"
        except UnicodeEncodeError as e:
            raise SgfError(f"text that cannot be written as UTF-8: {e}") from None
    else:
        encoding = None
    if len(data) > max_bytes:
        raise SgfError(f"the record is larger than {max_bytes} bytes")
    if _VALUE.sub(b"", data).count(b";") > MAX_SGF_NODES:
        raise SgfError(f"the record has more than {MAX_SGF_NODES} nodes")
    try:
        return _read(data, encoding, rules)
    except SgfError:
        raise
    except (ValueError, LookupError, ArithmeticError) as e:
        # sgfmill's own checks raise these on malformed values it reads lazily.
        raise SgfError(f"malformed SGF record: {e}") from None


def _read(data: bytes, encoding: str | None, rules: Rules | None) -> SgfRecord:
    try:
        tree = sgf_grammar.parse_sgf_game(data)
    except ValueError as e:
        raise SgfError(f"not an SGF record: {e}") from None
    root_raw = tree.sequence[0]
    game_type = root_raw.get("GM", [b"1"])[0].strip()
    if game_type != b"1":
        raise SgfError(f"GM[{_shorten(game_type.decode('latin-1'))}] is not a game of Go (GM[1])")
    size_raw = root_raw.get("SZ", [b"19"])[0].strip()
    if size_raw.lstrip(b"0") not in _SIZES:
        raise SgfError(
            f"unsupported board size SZ[{_shorten(size_raw.decode('latin-1'))}]: "
            f"expected a square size {MIN_SIZE} to {MAX_SIZE}"
        )
    ca = root_raw.get("CA", [b"ISO-8859-1"])[0].decode("latin-1")
    if encoding is None and _codec_name(ca) not in _CHARSETS:
        raise SgfError(f"unsupported character set CA[{_shorten(ca)}]")
    record = sgf.Sgf_game.from_coarse_game_tree(tree, override_encoding=encoding)
    return _replay(record, rules)


def _codec_name(charset: str) -> str:
    """Python's codec name for an SGF ``CA`` value (``UTF-8`` -> ``utf_8``), without a lookup."""
    name = encodings.normalize_encoding(charset.strip()).lower()
    return encodings.aliases.aliases.get(name, name)


def load_sgf(path: str | Path, *, rules: Rules | None = None, max_bytes: int = MAX_SGF_BYTES) -> SgfRecord:
    """``read_sgf`` of the file at ``path``, reading no more of it than ``max_bytes`` allows."""
    with open(path, "rb") as file:
        data = file.read(max_bytes + 1)
    return read_sgf(data, rules=rules, max_bytes=max_bytes)


def _replay(record: sgf.Sgf_game, rules: Rules | None) -> SgfRecord:
    size = record.get_size()
    root = record.get_root()
    nodes = record.get_main_sequence()
    rules = _rules(root, rules)
    try:
        handicap = int(root.get("HA")) if root.has_property("HA") else 0
    except ValueError:
        raise SgfError(f"handicap HA[{_raw(root, 'HA')}] is not a number") from None
    if not 0 <= handicap <= size * size:
        raise SgfError(f"handicap HA[{_raw(root, 'HA')}] is not a number of stones on a {size}x{size} board")

    black, white, to_play, first = _setup(nodes, size, handicap)
    game = Game(size, rules)
    if black or white or to_play != BLACK:
        try:
            game.setup(sorted(black), sorted(white), to_play)
        except ValueError as e:
            raise SgfError(f"bad setup stones: {e}") from None
    game.handicap = handicap

    comments = {}
    for node in nodes[first:]:
        number = len(game.moves) + 1
        if node is not nodes[first] and any(node.has_property(p) for p in _SETUP_PROPERTIES):
            found = ", ".join(p for p in _SETUP_PROPERTIES if node.has_property(p))
            raise SgfError(
                f"setup properties ({found}) after move {number - 1}: only a starting position can be set up"
            )
        color = _move_color(node, number)
        if color is None:
            continue
        move = f"move {number} {_COLOR_LETTERS[color]}[{_raw(node, _COLOR_LETTERS[color])}]"
        if color != game.to_play:
            raise SgfError(f"{move} is by {COLOR_NAMES[color]} but {COLOR_NAMES[game.to_play]} is to play")
        try:
            point = _point(node.get_move()[1], size)
        except ValueError:
            raise SgfError(f"{move}: bad coordinate on a {size}x{size} board") from None
        if game.is_terminated:  # moves after two passes: a clean-up phase
            game.resume()
        try:
            game.play(point)
        except IllegalMoveError as e:
            raise SgfError(f"{move} is illegal under {rules.name!r} rules: {e}") from None
        comment = _text(node, "C")
        if comment is not None:
            comments[number - 1] = comment

    return SgfRecord(
        game=game,
        rules=rules,
        moves=tuple(game.moves),
        handicap=handicap,
        black=_text(root, "PB") or "",
        white=_text(root, "PW") or "",
        result=_text(root, "RE"),
        date=_text(root, "DT"),
        event=_text(root, "EV") or "",
        comments=comments,
        territory=_territory(nodes[-1], size),
    )


def _territory(node: sgf.Tree_node, size: int) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """The ``TB`` and ``TW`` points of ``node``, sorted; ``None`` if it has neither."""
    if not (node.has_property("TB") or node.has_property("TW")):
        return None
    black, white = _points(node, "TB", size), _points(node, "TW", size)
    if black & white:
        both = ", ".join(coords.to_sgf(p, size) for p in sorted(black & white))
        raise SgfError(f"points marked as both Black's and White's territory (TB and TW): {_shorten(both)}")
    return tuple(sorted(black)), tuple(sorted(white))


def _setup(nodes: list[sgf.Tree_node], size: int, handicap: int) -> tuple[set[int], set[int], int, int]:
    """Setup stones, who moves first, and the index of the first move node.

    Setup properties may sit in any node up to the first move (usually the root).
    """
    black: set[int] = set()
    white: set[int] = set()
    to_play = None
    first = len(nodes)
    values = 0
    for i, node in enumerate(nodes):
        # A value may be a rectangle of up to N*N points: bound the work of expanding them.
        values += sum(len(node.get_raw_property_map().get(prop, ())) for prop in ("AB", "AW", "AE"))
        if values > 3 * size * size:
            raise SgfError(f"more setup values (AB, AW, AE) than 3 for each point of a {size}x{size} board")
        added_black, added_white, emptied = (_points(node, prop, size) for prop in ("AB", "AW", "AE"))
        black = (black - emptied) | added_black
        white = (white - emptied) | added_white
        if node.has_property("PL"):
            to_play = _SGF_COLORS.get(_raw(node, "PL").upper())
            if to_play is None:
                raise SgfError(f"PL[{_raw(node, 'PL')}] is not a colour (B or W)")
        if _move_color(node, 1) is not None:
            first = i
            break
    if to_play is None:
        first_color = _move_color(nodes[first], 1) if first < len(nodes) else None
        to_play = first_color or (WHITE if handicap else BLACK)
    return black, white, to_play, first


def _rules(root: sgf.Tree_node, rules: Rules | None) -> Rules:
    """The given rules, else the ``GC`` rules line, else the ``RU`` name; komi from ``KM``."""
    if rules is None:
        line = _RULES_LINE.search(_text(root, "GC") or "")
        if line:
            try:
                fields = json.loads(line.group(1))
                if not isinstance(fields, dict):
                    raise TypeError("expected a JSON object")
                rules = Rules(**fields)
            except (ValueError, TypeError, RecursionError) as e:  # RecursionError: deep nesting
                raise SgfError(f"malformed rules in GC: {_shorten(line.group(0))}: {e}") from None
        else:
            name = _RU_NAMES.get((_text(root, "RU") or "").strip().lower())
            rules = RULES_PRESETS[name] if name else Rules()
    if root.has_property("KM"):
        try:
            komi = root.get("KM")
        except ValueError:
            raise SgfError(f"komi KM[{_raw(root, 'KM')}] is not a number") from None
        try:
            rules = dataclasses.replace(rules, komi=komi)
        except ValueError as e:
            raise SgfError(f"komi KM[{_raw(root, 'KM')}] is not supported: {e}") from None
    return rules


def _move_color(node: sgf.Tree_node, number: int) -> int | None:
    """The colour of the node's move, or ``None``; rejects a node holding two moves."""
    props = node.get_raw_property_map()
    moves = [(color, value) for color, letter in _COLOR_LETTERS.items() for value in props.get(letter, ())]
    if len(moves) > 1:
        found = "".join(f"{_COLOR_LETTERS[c]}[{v.decode('latin-1')}]" for c, v in moves)
        raise SgfError(f"two moves in one node at move {number}: {_shorten(found)}")
    return moves[0][0] if moves else None


def _points(node: sgf.Tree_node, prop: str, size: int) -> set[int]:
    """The points of a setup property (empty if absent); SGF point lists may be compressed."""
    if not node.has_property(prop):
        return set()
    try:
        return {_point(rowcol, size) for rowcol in node.get(prop)}
    except ValueError:
        values = "".join(f"[{v.decode('latin-1')}]" for v in node.get_raw_list(prop))
        raise SgfError(f"bad coordinate in {prop}{_shorten(values)} on a {size}x{size} board") from None


def _point(rowcol: tuple[int, int] | None, size: int) -> int:
    """An sgfmill (row, col), row 0 at the bottom, or ``None`` for a pass, as a point."""
    if rowcol is None:
        return coords.pass_move(size)
    row, col = rowcol
    return coords.from_rowcol(size - 1 - row, col, size)


def _raw(node: sgf.Tree_node, prop: str) -> str:
    """A property's raw value, for error messages."""
    return _shorten(node.get_raw(prop).decode("latin-1"))


def _shorten(text: str, limit: int = 80) -> str:
    """``text`` cut to ``limit`` characters, for error messages about untrusted records."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _text(node: sgf.Tree_node, prop: str) -> str | None:
    """A text property's value, ``None`` if absent."""
    if not node.has_property(prop):
        return None
    try:
        return node.get(prop)
    except ValueError as e:  # more than one value, or bytes not in the record's character set
        raise SgfError(f"{prop}[{_raw(node, prop)}] cannot be read as text: {e}") from None
