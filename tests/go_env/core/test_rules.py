"""The rules kernels (``go_env.core.rules``): named positions, drawn as boards, with what the
rules must say about them; and random move sequences on small boards, checked against a slow
reference written here from the rules and against the kernels' own invariants
(``go_env.invariants``).

Diagrams list the rows from the top (row N) down to row 1, columns A, B, C, ... (no I)
left to right: ``X`` Black, ``O`` White, ``.`` empty. Moves are GTP vertices.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from go_env import coords
from go_env import core as K
from go_env.game import BLACK, EMPTY, WHITE, Game, IllegalMoveError
from go_env.invariants import check_state
from go_env.rules import Rules
from tests.boards import TRIPLE_KO, TRIPLE_KO_CYCLE, TRIPLE_KO_REPEAT, position

SIMPLE = Rules(komi=0, ko="simple")
POSITIONAL = Rules(komi=0, ko="positional")
SITUATIONAL = Rules(komi=0, ko="situational")
ALL_KO_RULES = [SIMPLE, POSITIONAL, SITUATIONAL]
KO_CODES = {"simple": K.KO_SIMPLE, "positional": K.KO_POSITIONAL, "situational": K.KO_SITUATIONAL}


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


@pytest.mark.parametrize("rules", ALL_KO_RULES, ids=lambda r: r.ko)
def test_a_move_that_repeats_a_whole_board_is_named_whatever_the_ko_rule(rules: Rules) -> None:
    """The triple-ko cycle's B4 brings back the starting board: simple ko allows it, and
    ``repeats_position`` names it all the same (a positional-superko referee forfeits it);
    under superko the rules forbid it already, so no legal move repeats."""
    game = position(TRIPLE_KO, rules)
    play(game, *TRIPLE_KO_CYCLE)
    repeat = coords.from_gtp(TRIPLE_KO_REPEAT, 9)
    assert game.repeats_position(repeat)
    assert not game.repeats_position(game.pass_move)
    assert not game.repeats_position(coords.from_gtp("E5", 9))  # a new board
    assert not game.repeats_position(coords.from_gtp("C9", 9))  # occupied: no move at all
    expected = [repeat] if rules.ko == "simple" else []
    assert list(game.repeating_moves()) == expected


def test_a_situational_repeat_with_the_other_side_to_move_is_named() -> None:
    """Under situational superko H8 is legal (the start's board, but White to move): it still
    repeats the whole board, which positional superko forbids."""
    game = position(DOUBLE_KO, SITUATIONAL)
    play(game, "C8", "G8", "pass", "B8")
    h8 = coords.from_gtp("H8", 9)
    assert game.is_legal(h8) and game.repeats_position(h8)
    assert list(game.repeating_moves()) == [h8]
    positional = position(DOUBLE_KO, POSITIONAL)
    play(positional, "C8", "G8", "pass", "B8")
    assert positional.repeats_position(h8) and not positional.is_legal(h8)


def test_a_single_stone_suicide_repeats_the_board() -> None:
    game = position(SINGLE_SUICIDE, Rules(komi=0, ko="simple", suicide=True))
    a1 = coords.from_gtp("A1", game.size)
    assert game.repeats_position(a1) and a1 in game.repeating_moves()


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


# ---------------------------------------------------------------------------------------
# The reference: a plain list of points, chains found by flood fill, every position kept.
# ---------------------------------------------------------------------------------------


def neighbors(point: int, size: int) -> list[int]:
    row, col = divmod(point, size)
    out = []
    if row > 0:
        out.append(point - size)
    if row < size - 1:
        out.append(point + size)
    if col > 0:
        out.append(point - 1)
    if col < size - 1:
        out.append(point + 1)
    return out


def chain_at(board: list[int], point: int, size: int) -> tuple[set[int], set[int]]:
    """The chain through ``point`` and its liberties."""
    color = board[point]
    chain, liberties, todo = {point}, set(), [point]
    while todo:
        p = todo.pop()
        for n in neighbors(p, size):
            if board[n] == EMPTY:
                liberties.add(n)
            elif board[n] == color and n not in chain:
                chain.add(n)
                todo.append(n)
    return chain, liberties


@dataclass
class Reference:
    """Go as the rules state it, slowly: a move is tried on a copy of the board, and
    superko looks the result up among all earlier positions."""

    size: int
    ko: str
    suicide: bool
    max_moves: int
    board: list[int] = field(init=False)
    to_play: int = BLACK
    ko_point: int | None = None  # where a single stone was just taken by a single stone
    passes: int = 0
    moves_played: int = 0
    captures: dict[int, int] = field(default_factory=lambda: {BLACK: 0, WHITE: 0})
    placed_at: list[int] = field(init=False)
    history: set[object] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.board = [EMPTY] * (self.size * self.size)
        self.placed_at = [-1] * (self.size * self.size)
        self.history.add(self.position(self.board, self.to_play))

    def position(self, board: list[int], to_play: int) -> object:
        """What superko compares: the board, and under situational superko who is to move."""
        return (tuple(board), to_play) if self.ko == "situational" else tuple(board)

    @property
    def over(self) -> bool:
        return self.passes >= 2 or self.moves_played >= self.max_moves

    def try_move(self, point: int) -> tuple[str | None, list[int], int, int]:
        """(reason it is illegal or None, board after, stones captured, stones suicided)."""
        board = list(self.board)
        if self.over:
            return "game over", board, 0, 0
        if not 0 <= point < len(board):
            return "off board", board, 0, 0
        if board[point] != EMPTY:
            return "occupied", board, 0, 0
        color, enemy = self.to_play, 3 - self.to_play
        board[point] = color
        captured = 0
        for n in neighbors(point, self.size):
            if board[n] == enemy:
                chain, liberties = chain_at(board, n, self.size)
                if not liberties:
                    captured += len(chain)
                    for p in chain:
                        board[p] = EMPTY
        chain, liberties = chain_at(board, point, self.size)
        suicided = 0
        if not liberties:
            if not self.suicide:
                return "suicide", self.board, 0, 0
            suicided = len(chain)
            for p in chain:
                board[p] = EMPTY
        if point == self.ko_point:
            return "ko", self.board, 0, 0
        if self.ko != "simple" and self.position(board, enemy) in self.history:
            return "superko", self.board, 0, 0
        return None, board, captured, suicided

    def legal_mask(self) -> list[int]:
        if self.over:
            return [0] * (len(self.board) + 1)
        return [int(self.try_move(p)[0] is None) for p in range(len(self.board))] + [1]

    def play(self, move: int) -> None:
        """Play a move known to be legal (``size * size`` passes)."""
        color = self.to_play
        if move == len(self.board):
            self.passes += 1
            self.ko_point = None
        else:
            reason, board, captured, suicided = self.try_move(move)
            assert reason is None
            taken = [p for p in range(len(board)) if self.board[p] != EMPTY and board[p] == EMPTY]
            self.passes = 0
            self.ko_point = None
            self.board = board
            self.captures[color] += captured
            self.captures[3 - color] += suicided
            for p in taken:
                self.placed_at[p] = -1
            if not suicided:
                self.placed_at[move] = self.moves_played + 1
                chain, liberties = chain_at(board, move, self.size)
                if captured == 1 and len(chain) == 1 and len(liberties) == 1:
                    self.ko_point = next(iter(liberties))  # the point just emptied
        self.to_play = 3 - color
        self.moves_played += 1
        self.history.add(self.position(self.board, self.to_play))


def check_against_reference(game: Game, ref: Reference) -> None:
    state = game.state
    assert game.board.ravel().tolist() == ref.board
    assert (game.captures(BLACK), game.captures(WHITE)) == (ref.captures[BLACK], ref.captures[WHITE])
    assert game.to_play == ref.to_play and game.move_number == ref.moves_played
    assert game.ko_point == ref.ko_point
    assert game.is_over == ref.over
    assert state.placed_at.tolist() == ref.placed_at
    # Every stone put down is on the board or was captured (suicides count for the opponent).
    stones_played = sum(move != game.pass_move for move in game.moves)
    on_board = int((game.board != EMPTY).sum())
    assert stones_played == on_board + game.captures(BLACK) + game.captures(WHITE)


# ---------------------------------------------------------------------------------------
# Random games against the reference
# ---------------------------------------------------------------------------------------

games = st.fixed_dictionaries(
    {
        "size": st.integers(2, 7),
        "ko": st.sampled_from(sorted(KO_CODES)),
        "suicide": st.booleans(),
        "max_moves": st.one_of(st.none(), st.integers(1, 200)),
    }
)
# Each number picks the next move: mostly a legal stone, sometimes any point (legal or
# not, even off the board), sometimes a pass.
picks = st.integers(0, 2**20)
MAX_PICKS = 150


def pick_move(pick: int, game: Game) -> int:
    kind, index = pick % 20, pick // 20
    if kind == 0:
        return game.pass_move
    if kind <= 3:
        return index % (game.num_points + 3) - 1  # any point, even off the board
    stones = [int(p) for p in game.legal_moves() if p != game.pass_move]
    return stones[index % len(stones)] if stones else game.pass_move


def run_against_reference(
    size: int, ko: str, suicide: bool, max_moves: int | None, next_pick: Callable[[], int]
) -> Counter[str | None]:
    """Play picks in both until the game ends (or ``MAX_PICKS``); returns how often the
    reference gave each reason for a point."""
    rules = Rules(komi=0.5, ko=ko, suicide=suicide, max_moves=max_moves)  # type: ignore[arg-type]
    game = Game(size, rules)
    ref = Reference(size, ko, suicide, rules.move_cap(size))
    check_state(game.state, game.geometry, rules=rules)
    reasons: Counter[str | None] = Counter()
    for _ in range(MAX_PICKS):
        if ref.over and game.is_over:
            break
        pick = next_pick()
        if not ref.over:
            reasons.update(ref.try_move(p)[0] for p in range(game.num_points))
        assert game.legal_mask().tolist() == ref.legal_mask()
        move = pick_move(pick, game)
        why = "game over" if ref.over else (None if move == game.pass_move else ref.try_move(move)[0])
        assert game.move_status(move) == why
        if why is not None:
            key = game.key
            with pytest.raises(IllegalMoveError) as error:
                game.play(move)
            assert error.value.reason == why and game.key == key
            continue
        game.play(move)
        ref.play(move)
        check_state(game.state, game.geometry, rules=rules)
        check_against_reference(game, ref)
    return reasons


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games, st.data())
def test_random_play_matches_reference(game: dict[str, Any], data: st.DataObject) -> None:
    run_against_reference(**game, next_pick=lambda: data.draw(picks))


@pytest.mark.slow
@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games, st.data())
def test_much_random_play_matches_reference(game: dict[str, Any], data: st.DataObject) -> None:
    run_against_reference(**game, next_pick=lambda: data.draw(picks))


def test_random_play_reaches_every_refusal() -> None:
    """Seeded games on tiny boards, so the comparison above is known to meet ko,
    superko and suicide, not only ordinary moves."""
    rng = np.random.default_rng(7)
    for ko in ("positional", "situational"):
        seen: Counter[str | None] = Counter()
        for _ in range(40):
            size, suicide = int(rng.integers(2, 5)), bool(rng.integers(2))
            seen += run_against_reference(size, ko, suicide, 200, lambda: int(rng.integers(2**20)))
        assert seen["ko"] and seen["superko"] and seen["suicide"] and seen["occupied"], seen


# -- the legal pass a move's kernel call makes (``play_and_update``, ``legal_moves_into``) ----------


@pytest.mark.parametrize(
    "rules",
    [Rules(), Rules(ko="situational"), SIMPLE, Rules(suicide=True), Rules(ko="situational", suicide=True)],
    ids=["positional", "situational", "simple", "suicide", "situational-suicide"],
)
@pytest.mark.parametrize("size", [4, 5, 7])
def test_the_list_a_move_writes_is_the_legal_mask_read_off(rules: Rules, size: int) -> None:
    """Random games, captures, kos and superko repeats among them: after every move, the mask
    and ascending list ``play_and_update`` writes are ``legal_mask``'s, found its own way."""
    rng = random.Random(size)
    geometry = K.make_geometry(size)
    mask, legal, expected = (np.empty(size * size + 1, dtype) for dtype in (np.int8, np.int64, np.int8))
    for _ in range(8):
        state = K.new_state(size, *rules.kernel_rules(size))
        count = K.legal_moves_into(state, geometry, mask, legal)
        while count:
            played = K.play_and_update(state, geometry, legal[rng.randrange(count)], mask, legal)
            assert played & K.PLAYED_STATUS_MASK == K.LEGAL
            count = played >> K.PLAYED_COUNT_SHIFT
            assert bool(played & K.PLAYED_OVER) == (state.info[K.INFO_OVER] != K.RUNNING)
            K.legal_mask(state, geometry, expected)
            np.testing.assert_array_equal(mask, expected)
            np.testing.assert_array_equal(legal[:count], np.flatnonzero(expected))


def test_an_illegal_move_writes_nothing_and_answers_its_status() -> None:
    game = position(TRIPLE_KO, Rules(komi=0))
    mask, legal = np.full(82, 7, np.int8), np.full(82, 7, np.int64)
    occupied = coords.from_gtp("B9", 9)
    assert K.play_and_update(game.state, game.geometry, occupied, mask, legal) == K.OCCUPIED
    assert (mask == 7).all() and (legal == 7).all()


def test_the_superko_history_counts_the_most_stones_of_its_positions() -> None:
    """What lets the legal pass skip the superko set: a move that captures nothing adds a
    stone, so it can repeat a board only if some position had more stones than now."""
    game = Game(5, Rules(komi=0))
    play(game, "A2", "A1", "B2", "B1")
    assert game.state.info[K.INFO_MOST_STONES] == 4
    play(game, "C1")  # takes A1 and B1
    assert np.count_nonzero(game.board) == 3 and game.state.info[K.INFO_MOST_STONES] == 4
    setup = position(TRIPLE_KO, Rules(komi=0))
    assert setup.state.info[K.INFO_MOST_STONES] == np.count_nonzero(setup.board)  # setup starts it
