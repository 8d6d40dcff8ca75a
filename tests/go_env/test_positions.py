"""Named positions, drawn as boards, with what the rules must say about them.

Diagrams list the rows from the top (row N) down to row 1, columns A, B, C, ... (no I)
left to right: ``X`` Black, ``O`` White, ``.`` empty. Moves are GTP vertices.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from go_env import coords
from go_env import core as K
from go_env.game import BLACK, EMPTY, WHITE, Game, IllegalMoveError
from go_env.rules import Rules
from tests.boards import position

SIMPLE = Rules(komi=0, ko="simple")
POSITIONAL = Rules(komi=0, ko="positional")
SITUATIONAL = Rules(komi=0, ko="situational")
ALL_KO_RULES = [SIMPLE, POSITIONAL, SITUATIONAL]


def play(game: Game, *moves: str) -> None:
    for move in moves:
        game.play(coords.from_gtp(move, game.size))


def at(game: Game, vertex: str) -> int:
    return int(game.board.ravel()[coords.from_gtp(vertex, game.size)])


def reason(game: Game, vertex: str) -> str | None:
    """Why the side to move may not play ``vertex`` (None if it may)."""
    return game.move_status(coords.from_gtp(vertex, game.size))


def refused(game: Game, vertex: str) -> str:
    """Play an illegal move: the reason given, after checking the game did not change."""
    key, number = game.key, game.move_number
    with pytest.raises(IllegalMoveError) as error:
        play(game, vertex)
    assert (game.key, game.move_number) == (key, number)
    return error.value.reason


def zobrist_of(game: Game) -> int:
    """The board's Zobrist key recomputed from the stones."""
    geometry = game.geometry
    key = int(geometry.zobrist_turn[0])
    for p, color in enumerate(game.board.ravel()):
        if color != EMPTY:
            key ^= int(geometry.zobrist[color, p])
    return key


def test_load_board_reads_rows_from_the_top() -> None:
    game = position(
        """
        X . .
        . . .
        . . O
        """,
        POSITIONAL,
    )
    assert at(game, "A3") == BLACK and at(game, "C1") == WHITE
    assert int((game.board != EMPTY).sum()) == 2


# ---------------------------------------------------------------------------------------
# Captures
# ---------------------------------------------------------------------------------------

SNAPBACK = """
    . . . . .
    . . . . .
    . . . X X
    . . X O O
    . . X . .
"""


@pytest.mark.parametrize("rules", ALL_KO_RULES, ids=lambda r: r.ko)
def test_snapback(rules: Rules) -> None:
    game = position(SNAPBACK, rules)
    play(game, "E1")  # throw-in: Black's stone is in atari at once
    play(game, "D1")  # White takes it...
    assert at(game, "E1") == EMPTY and game.captures(WHITE) == 1
    # ...but the capturing stone joined a chain left with one liberty, E1. Retaking
    # there takes three stones, so it is no ko.
    assert game.ko_point is None
    assert reason(game, "E1") is None
    play(game, "E1")
    assert game.captures(BLACK) == 3
    assert [at(game, v) for v in ("D1", "D2", "E2")] == [EMPTY, EMPTY, EMPTY]
    assert at(game, "E1") == BLACK


SUICIDE = """
    . . . . .
    . . . . .
    O O O . .
    X X O . .
    . O . . .
"""


@pytest.mark.parametrize("rules", ALL_KO_RULES, ids=lambda r: r.ko)
def test_multi_stone_suicide_is_forbidden(rules: Rules) -> None:
    game = position(SUICIDE, rules)
    assert reason(game, "A1") == "suicide"
    assert refused(game, "A1") == "suicide"
    assert not game.legal_mask()[coords.from_gtp("A1", 5)]


@pytest.mark.parametrize("ko", ["simple", "positional", "situational"])
def test_multi_stone_suicide_where_allowed(ko: str) -> None:
    game = position(SUICIDE, Rules(komi=0, ko=ko, suicide=True))  # type: ignore[arg-type]
    play(game, "A1")
    # The three Black stones leave the board and count as White's captures.
    assert [at(game, v) for v in ("A1", "A2", "B2")] == [EMPTY, EMPTY, EMPTY]
    assert (game.captures(WHITE), game.captures(BLACK)) == (3, 0)
    assert at(game, "B1") == WHITE and game.to_play == WHITE
    assert game.key == zobrist_of(game)


SINGLE_SUICIDE = """
    . . . . .
    . . . . .
    . . . . .
    O . . . .
    . O . . .
"""


def test_single_stone_suicide_repeats_the_board() -> None:
    """A lone stone's suicide leaves the board as it was: allowed under simple ko and
    situational superko (White is now to move), but positional superko forbids it, as in
    Tromp-Taylor rules."""
    for ko, expected in (("simple", None), ("situational", None), ("positional", "superko")):
        game = position(SINGLE_SUICIDE, Rules(komi=0, ko=ko, suicide=True))  # type: ignore[arg-type]
        assert reason(game, "A1") == expected, ko
    game = position(SINGLE_SUICIDE, Rules.preset("tromp-taylor"))
    assert refused(game, "A1") == "superko"
    game = position(SINGLE_SUICIDE, Rules(komi=0, ko="simple", suicide=True))
    before = game.key
    play(game, "A1")
    assert game.key == before and game.captures(WHITE) == 1 and game.to_play == WHITE


# ---------------------------------------------------------------------------------------
# Ko and superko
# ---------------------------------------------------------------------------------------

KO = """
    . . . . .
    . . . . .
    . X O . .
    X O . O .
    . X O . .
"""


@pytest.mark.parametrize("rules", ALL_KO_RULES, ids=lambda r: r.ko)
def test_simple_ko(rules: Rules) -> None:
    game = position(KO, rules)
    play(game, "C2")  # Black takes the ko
    assert game.captures(BLACK) == 1 and game.ko_point == coords.from_gtp("B2", 5)
    assert refused(game, "B2") == "ko"  # White may not take straight back
    play(game, "E5", "E4")  # a ko threat, answered
    assert reason(game, "B2") is None
    play(game, "B2")  # now White retakes
    assert game.captures(WHITE) == 1 and at(game, "C2") == EMPTY
    assert refused(game, "C2") == "ko"  # and the roles swap


def test_filling_the_ko_is_not_a_ko_capture() -> None:
    game = position(KO, SIMPLE)
    play(game, "C2", "E5")
    play(game, "B2")  # Black fills the point its capture emptied: no capture, no ko
    assert game.ko_point is None and game.captures(BLACK) == 1


# Three kos on one board: Black can take at C8 and C4, White at G8.
TRIPLE_KO = """
    . X O . . . X O .
    X O . O . X . X O
    . X O . . . X O .
    . . . . . . . . .
    . X O . . . . . .
    X O . O . . . . .
    . X O . . . . . .
    . . . . . . . . .
    . . . . . . . . .
"""
# Each takes a ko in turn; after six captures the board and the side to move repeat.
TRIPLE_KO_CYCLE = ["C8", "G8", "C4", "B8", "H8"]
TRIPLE_KO_REPEAT = "B4"


@pytest.mark.parametrize(
    ("rules", "expected"), [(SIMPLE, None), (POSITIONAL, "superko"), (SITUATIONAL, "superko")]
)
def test_triple_ko_cycle(rules: Rules, expected: str | None) -> None:
    game = position(TRIPLE_KO, rules)
    start = game.key
    play(game, *TRIPLE_KO_CYCLE)
    assert game.captures(BLACK) == 3 and game.captures(WHITE) == 2
    # Simple ko sees only the last capture, at H8: B4 is fine by it.
    assert game.ko_point == coords.from_gtp("G8", 9)
    assert reason(game, TRIPLE_KO_REPEAT) == expected
    if expected is None:
        play(game, TRIPLE_KO_REPEAT)
        assert game.key == start and game.to_play == BLACK
        play(game, *TRIPLE_KO_CYCLE)  # and round again: simple ko allows the cycle forever
        assert game.captures(BLACK) == 6
    else:
        assert refused(game, TRIPLE_KO_REPEAT) == "superko"


# The same two kos without the third: a pass changes who is to move when the board repeats.
DOUBLE_KO = """
    . X O . . . X O .
    X O . O . X . X O
    . X O . . . X O .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
"""


@pytest.mark.parametrize(
    ("rules", "expected"), [(SIMPLE, None), (POSITIONAL, "superko"), (SITUATIONAL, None)]
)
def test_positional_and_situational_superko_differ(rules: Rules, expected: str | None) -> None:
    """Black takes C8, White G8, Black passes, White retakes B8: Black's retake at H8
    brings back the starting board, but with White to move instead of Black."""
    game = position(DOUBLE_KO, rules)
    start = game.key
    play(game, "C8", "G8", "pass", "B8")
    assert reason(game, "H8") == expected
    if expected is None:
        play(game, "H8")
        assert game.key == start and game.to_play == WHITE


# ---------------------------------------------------------------------------------------
# One-point eyes, which random playouts never fill
# ---------------------------------------------------------------------------------------

EYES = {
    # In the middle, one White stone on a diagonal still leaves C3 a true eye...
    "middle, one diagonal": ("C3", True, ". . . . .\n. O X . .\n. X . X .\n. . X . .\n. . . . ."),
    # ...two make it false: White can cut there.
    "middle, two diagonals": ("C3", False, ". . . . .\n. O X . .\n. X . X .\n. . X O .\n. . . . ."),
    # On the edge a single diagonal is enough.
    "edge, no diagonal": ("C1", True, ". . . . .\n. . . . .\n. . . . .\n. . X . .\n. X . X ."),
    "edge, one diagonal": ("C1", False, ". . . . .\n. . . . .\n. . . . .\n. O X . .\n. X . X ."),
    "corner, one diagonal": ("A1", False, ". . . . .\n. . . . .\n. . . . .\nX O . . .\n. X . . ."),
    "not surrounded": ("C3", False, ". . . . .\n. . X . .\n. X . . .\n. . X . .\n. . . . ."),
}


@pytest.mark.parametrize("name", EYES)
def test_one_point_eyes(name: str) -> None:
    vertex, expected, diagram = EYES[name]
    game = position(diagram, POSITIONAL)
    point = coords.from_gtp(vertex, 5)
    assert K.is_eye(game.state, game.geometry, point, BLACK) == expected
    assert not K.is_eye(game.state, game.geometry, point, WHITE)


# ---------------------------------------------------------------------------------------
# Scoring
# ---------------------------------------------------------------------------------------

# Each side has one eye (A5, E5); C5 and C1 are liberties both chains share.
SEKI = """
    . X . O .
    X X X O O
    X X X O O
    X X X O O
    X X . O O
"""


def test_seki_area_score() -> None:
    game = position(SEKI, Rules(komi=0.5))
    # Black: 12 stones and the eye A5; White: 9 stones and the eye E5. C5 and C1 touch
    # both colours, so they count for neither.
    assert game.score() == 13 - 10 - 0.5
    owner = game.area_owner()
    assert [owner.ravel()[coords.from_gtp(v, 5)] for v in ("A5", "E5", "C5", "C1")] == [
        BLACK,
        WHITE,
        EMPTY,
        EMPTY,
    ]
    assert game.result() == "B+2.5"


def test_seki_is_mutual() -> None:
    """Neither side can kill: whoever fills both shared liberties is captured."""
    game = position(SEKI, Rules(komi=0.5))
    play(game, "C5", "pass", "C1")  # Black fills both...
    play(game, "A5")  # ...and White captures through Black's last liberty
    assert game.captures(WHITE) == 14
    game = position(SEKI, Rules(komi=0.5), to_play=WHITE)
    play(game, "C5", "pass", "C1", "E5")
    assert game.captures(BLACK) == 11


# Black captures the White stone at B4 with A4.
TERRITORY = """
    . X X O .
    . O X O .
    . X X O .
    . . X O .
    . . X O .
"""


def test_territory_scoring_counts_territory_and_captures() -> None:
    game = position(TERRITORY, Rules(komi=0, scoring="territory"))
    play(game, "A4")
    # Black: territory A5, B4, and A3 A2 A1 B2 B1 (7) plus one prisoner; White: the E
    # column (5). Stones do not count.
    assert game.score() == 8 - 5
    assert game.result() == "B+3"


def test_area_scoring_of_the_same_position() -> None:
    game = position(TERRITORY, Rules(komi=0, scoring="area"))
    play(game, "A4")
    # Black: 8 stones + 7 points; White: 5 stones + 5 points. Prisoners do not count.
    assert game.score() == 15 - 10


def test_integer_komi_can_draw() -> None:
    game = position(TERRITORY, Rules(komi=5, scoring="area"))
    play(game, "A4")
    assert game.score() == 0
    assert game.result() == "0"
    assert game.winner() == EMPTY
    game = position(TERRITORY, Rules(komi=3, scoring="territory"))
    play(game, "A4")
    assert game.result() == "0"


def test_white_wins_on_komi() -> None:
    game = position(TERRITORY, Rules(komi=6.5, scoring="territory"))
    play(game, "A4")
    assert game.result() == "W+3.5" and game.winner() == WHITE


def test_the_state_carries_its_komi_and_scoring_and_counts_under_other_settings() -> None:
    game = position(TERRITORY, Rules(komi=-2.5, scoring="territory"))
    play(game, "A4")
    info = game.state.info
    assert info[K.INFO_KOMI] == -5 and info[K.INFO_SCORING] == K.SCORING_TERRITORY  # half points
    assert game.score() == 8 - 5 + 2.5
    marks, stack = np.empty(game.num_points, np.int8), np.empty(game.num_points, np.int64)
    assert K.count_points(game.state, game.geometry, True, marks, stack) == 8 - 5
    assert K.count_points(game.state, game.geometry, False, marks, stack) == 15 - 10  # as area


# ---------------------------------------------------------------------------------------
# The end of the game
# ---------------------------------------------------------------------------------------


def test_two_passes_end_the_game() -> None:
    game = Game(9, Rules())
    play(game, "pass", "E5", "pass")
    assert not game.is_over  # the passes were not consecutive
    play(game, "pass")
    assert game.is_over and game.is_terminated and not game.is_truncated
    assert not game.legal_mask().any()
    assert refused(game, "D4") == "game over"
    assert refused(game, "pass") == "game over"


def test_move_cap_truncates() -> None:
    game = Game(9, Rules(max_moves=4))
    play(game, "E5", "pass", "D4")
    assert not game.is_over
    play(game, "C3")
    assert game.is_over and game.is_truncated and not game.is_terminated
    assert not game.legal_mask().any()
    assert refused(game, "F6") == "game over"


def test_default_move_cap_is_twice_the_points() -> None:
    rng = random.Random(0)
    game = Game(5, Rules())
    while not game.is_over:  # random stones, eyes filled and all: captures, rarely a pass
        legal = [int(p) for p in game.legal_moves() if p != game.pass_move]
        game.play(rng.choice(legal) if legal else game.pass_move)
    assert game.is_truncated and game.move_number == 2 * 5 * 5


# ---------------------------------------------------------------------------------------
# Handicap, undo, errors
# ---------------------------------------------------------------------------------------


def test_handicap_stones_and_white_to_move() -> None:
    game = Game(19, Rules(), handicap=9)
    black = {coords.to_gtp(int(p), 19) for p in np.flatnonzero(game.board.ravel() == BLACK)}
    assert black == {"D4", "Q16", "D16", "Q4", "D10", "Q10", "K4", "K16", "K10"}
    assert game.to_play == WHITE and game.first_to_play == WHITE and game.move_number == 0
    play(game, "C3")
    assert game.to_play == BLACK
    game = Game(9, Rules(), handicap=2)
    assert game.to_play == WHITE and int((game.board == BLACK).sum()) == 2


def snapshot(game: Game) -> dict[str, object]:
    """Everything a move may change, copied."""
    copied: dict[str, object] = {
        name: np.array(field) for name, field in zip(K.GoState._fields, game.state, strict=True)
    }
    copied.update(
        key=game.key,
        mask=game.legal_mask().copy(),
        captures=(game.captures(BLACK), game.captures(WHITE)),
        to_play=game.to_play,
        moves=list(game.moves),
    )
    return copied


def assert_same(before: dict[str, object], after: dict[str, object]) -> None:
    for name, value in before.items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(after[name], value, err_msg=name)
        else:
            assert after[name] == value, name


@pytest.mark.parametrize(
    "rules", [*ALL_KO_RULES, Rules(komi=0, suicide=True)], ids=lambda r: f"{r.ko}-{r.suicide}"
)
def test_undo_restores_the_exact_state(rules: Rules) -> None:
    game = position(KO, rules)
    # A ko capture and retake, a pass, an eye filled, and three stones captured.
    for move in ("C2", "E5", "E4", "B2", "pass", "D1", "A1", "C2", "B4", "A3"):
        before = snapshot(game)
        play(game, move)
        after = snapshot(game)
        game.undo()
        assert_same(before, snapshot(game))
        play(game, move)  # and redoing it gives the same state again
        assert_same(after, snapshot(game))
    assert (game.captures(BLACK), game.captures(WHITE)) == (1, 4)


def test_undo_of_the_first_move() -> None:
    for game in (Game(9), Game(9, handicap=3)):
        before = snapshot(game)
        game.play(0)
        game.legal_mask()  # cached: a stale copy must not outlive the undo
        assert game.undo() == 0
        assert_same(before, snapshot(game))
    with pytest.raises(ValueError, match="no move to undo"):
        Game(9).undo()


def test_illegal_move_errors_name_the_move_and_the_reason() -> None:
    game = position(KO, SIMPLE)
    play(game, "C2")
    cases = {"C3": "occupied", "B2": "ko"}
    for vertex, why in cases.items():
        with pytest.raises(IllegalMoveError) as error:
            play(game, vertex)
        assert error.value.reason == why and error.value.color == WHITE
        assert error.value.move == coords.from_gtp(vertex, 5)
        assert vertex in str(error.value) and why in str(error.value) and "white" in str(error.value)
    game = position(SUICIDE, SIMPLE)
    with pytest.raises(IllegalMoveError, match=r"A1 .*black: suicide"):
        play(game, "A1")
    for move in (-1, 26, 1000):
        with pytest.raises(IllegalMoveError, match=rf"illegal move {move} .*off board") as error:
            game.play(move)
        assert error.value.reason == "off board"


def test_illegal_move_error_is_a_value_error() -> None:
    assert issubclass(IllegalMoveError, ValueError)
