"""Coordinate systems, converted here and nowhere else.

=========  ==========================  =================================================
system     example (19x19)             convention
=========  ==========================  =================================================
point      ``72`` (row 3, column 15)   flat row-major index, row 0 at the top; ``N*N`` = pass
(row, col) ``(3, 15)``                 row 0 at the top, column 0 at the left
GTP        ``"Q16"``                   column letter A..Z skipping I, row 1 at the bottom
SGF        ``"pd"``                    column then row letters, ``a`` = left / top; ``""`` = pass
=========  ==========================  =================================================
"""

from __future__ import annotations

GTP_COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
SGF_LETTERS = "abcdefghijklmnopqrstuvwxy"


def pass_move(size: int) -> int:
    return size * size


def to_gtp(point: int, size: int) -> str:
    """A point (or the pass move) as a GTP vertex."""
    if point == size * size:
        return "pass"
    if not 0 <= point < size * size:
        raise ValueError(f"point {point} is off a {size}x{size} board")
    row, col = divmod(point, size)
    return f"{GTP_COLUMNS[col]}{size - row}"


def from_gtp(vertex: str, size: int) -> int:
    """A GTP vertex (``"D4"``, ``"pass"``, any case) as a point; ``ValueError`` if malformed."""
    text = vertex.strip().upper()
    if text == "PASS":
        return size * size
    if len(text) < 2 or text[0] not in GTP_COLUMNS or not text[1:].isdigit():
        raise ValueError(f"malformed vertex {vertex!r}")
    col = GTP_COLUMNS.index(text[0])
    row = size - int(text[1:])
    if not (0 <= col < size and 0 <= row < size):
        raise ValueError(f"vertex {vertex!r} is off a {size}x{size} board")
    return row * size + col


def to_sgf(point: int, size: int) -> str:
    """A point as an SGF point (``""`` for pass)."""
    if point == size * size:
        return ""
    row, col = divmod(point, size)
    return SGF_LETTERS[col] + SGF_LETTERS[row]


def from_rowcol(row: int, col: int, size: int) -> int:
    if not (0 <= row < size and 0 <= col < size):
        raise ValueError(f"({row}, {col}) is off a {size}x{size} board")
    return row * size + col


def to_rowcol(point: int, size: int) -> tuple[int, int]:
    row, col = divmod(point, size)
    return row, col


def fixed_handicap_points(size: int, stones: int) -> list[int]:
    """Handicap stone points as GTP's ``fixed_handicap`` places them (GTP v2 section 4.1.1)."""
    if size < 7:
        raise ValueError(f"fixed handicap is not defined on a {size}x{size} board")
    most = 9 if size % 2 == 1 and size >= 9 else 4
    if not 2 <= stones <= most:
        raise ValueError(f"fixed handicap on {size}x{size} takes 2 to {most} stones, got {stones}")
    edge = 2 if size <= 12 else 3  # 0-based distance from the edge: 3rd line, or 4th from 13x13
    low, high, mid = edge, size - 1 - edge, size // 2

    def at(row: int, col: int) -> int:
        return row * size + col

    # Named for 19x19 GTP vertices: D4 Q16 D16 Q4, D10 Q10, K4 K16, K10.
    d4, q16, d16, q4 = at(high, low), at(low, high), at(low, low), at(high, high)
    d10, q10, k4, k16, k10 = at(mid, low), at(mid, high), at(high, mid), at(low, mid), at(mid, mid)
    layouts = {
        2: [d4, q16],
        3: [d4, q16, d16],
        4: [d4, q16, d16, q4],
        5: [d4, q16, d16, q4, k10],
        6: [d4, q16, d16, q4, d10, q10],
        7: [d4, q16, d16, q4, d10, q10, k10],
        8: [d4, q16, d16, q4, d10, q10, k4, k16],
        9: [d4, q16, d16, q4, d10, q10, k4, k16, k10],
    }
    return layouts[stones]
