"""Property tests: random move sequences on small boards, checked against a slow
reference written here from the rules, and against the kernels' own invariants
(``go_env.invariants``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from go_env import core as K
from go_env.game import BLACK, EMPTY, WHITE, Game, IllegalMoveError
from go_env.invariants import check_state
from go_env.rules import Rules

KO_CODES = {"simple": K.KO_SIMPLE, "positional": K.KO_POSITIONAL, "situational": K.KO_SITUATIONAL}

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


# ---------------------------------------------------------------------------------------
# Batched kernels against single games
# ---------------------------------------------------------------------------------------


def same_state(a: K.GoState, b: K.GoState) -> None:
    for name, x, y in zip(K.GoState._fields, a, b, strict=True):
        np.testing.assert_array_equal(x, y, err_msg=name)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    size=st.integers(2, 7),
    ko=st.sampled_from(sorted(KO_CODES)),
    suicide=st.booleans(),
    batch=st.integers(1, 5),
    steps=st.integers(0, 60),
    seed=st.integers(0, 2**32 - 1),
)
def test_batched_kernels_match_single_games(
    size: int, ko: str, suicide: bool, batch: int, steps: int, seed: int
) -> None:
    geometry = K.make_geometry(size)
    num_points = size * size
    max_moves = 3 * num_points
    # Komi 7.5 (15 half points); territory scoring with simple ko, area with superko.
    rules = (KO_CODES[ko], suicide, max_moves, 15, K.SCORING_TERRITORY if ko == "simple" else K.SCORING_AREA)
    states = K.new_state(size, *rules, batch=batch)
    singles = [K.new_state(size, *rules) for _ in range(batch)]
    rng = np.random.default_rng(seed)
    masks = np.empty((batch, num_points + 1), np.int8)
    mask = np.empty(num_points + 1, np.int8)
    statuses = np.empty(batch, np.int64)

    for _ in range(steps):
        K.batch_legal_mask(states, geometry, masks)
        moves = np.empty(batch, np.int64)
        for b, single in enumerate(singles):
            K.legal_mask(single, geometry, mask)
            np.testing.assert_array_equal(masks[b], mask)
            legal = np.flatnonzero(mask)
            # Mostly legal moves; now and then any point, to compare refusals too.
            if rng.random() < 0.2 or len(legal) == 0:
                moves[b] = rng.integers(-1, num_points + 2)
            else:
                moves[b] = rng.choice(legal)
        K.batch_play(states, geometry, moves, statuses)
        for b, single in enumerate(singles):
            assert statuses[b] == K.play(single, geometry, moves[b])
            same_state(K.state_item(states, b), single)

    # Play every game out at random from there, each seeded as the batch seeds it.
    seeds = rng.integers(1, 2**63, size=batch).astype(np.uint64)
    played = np.empty(batch, np.int64)
    K.batch_random_playout(states, geometry, seeds, played)
    scores = np.empty(batch, np.float64)
    K.batch_score(states, geometry, scores)
    for b, single in enumerate(singles):
        generator = np.array([seeds[b] | np.uint64(1)], np.uint64)
        assert played[b] == K.random_playout(single, geometry, generator)
        same_state(K.state_item(states, b), single)
        assert single.info[K.INFO_OVER] != K.RUNNING
        check_state(single, geometry, history=False)
        assert scores[b] == K.score(single, geometry)


@settings(max_examples=30, deadline=None)
@given(
    size=st.integers(2, 9),
    ko=st.sampled_from(sorted(KO_CODES)),
    suicide=st.booleans(),
    seed=st.integers(1, 2**62),
)
def test_random_playout_keeps_the_bookkeeping(size: int, ko: str, suicide: bool, seed: int) -> None:
    """random_move reorders the empty list as it searches; the state must stay whole."""
    geometry = K.make_geometry(size)
    state = K.new_state(size, KO_CODES[ko], suicide, 4 * size * size, 15, K.SCORING_AREA)
    generator = np.array([seed], np.uint64)
    while state.info[K.INFO_OVER] == K.RUNNING:
        move = K.random_move(state, geometry, generator)
        if move != size * size:  # it never fills its own eye
            assert not K.is_eye(state, geometry, move, state.info[K.INFO_TO_PLAY])
        assert K.play(state, geometry, move) == K.LEGAL
        check_state(state, geometry)
    # The in-numba loop plays the same game from the same generator state.
    replay = K.new_state(size, KO_CODES[ko], suicide, 4 * size * size, 15, K.SCORING_AREA)
    played = K.random_playout(replay, geometry, np.array([seed], np.uint64))
    assert played == state.info[K.INFO_MOVE_NUMBER]
    np.testing.assert_array_equal(replay.board, state.board)
    check_state(replay, geometry, history=False)


@settings(max_examples=20, deadline=None)
@given(
    size=st.integers(2, 9),
    ko=st.sampled_from(sorted(KO_CODES)),
    opening=st.integers(0, 20),
    seed=st.integers(1, 2**62),
)
def test_random_playouts_match_playouts_one_by_one(size: int, ko: str, opening: int, seed: int) -> None:
    geometry = K.make_geometry(size)
    root = K.new_state(size, KO_CODES[ko], 0, 3 * size * size, 0, K.SCORING_AREA)  # komi 0
    generator = np.array([seed], np.uint64)
    for _ in range(opening):  # start from some position, not only the empty board
        if root.info[K.INFO_OVER] == K.RUNNING:
            K.play(root, geometry, K.random_move(root, geometry, generator))
    before = K.copy_state(root)
    scratch = K.copy_state(root)
    start = generator.copy()
    moves, black_wins, draws = K.random_playouts(root, geometry, scratch, 8, generator)
    same_state(root, before)  # the root is left alone

    expected = [0, 0, 0]
    for _ in range(8):
        game = K.copy_state(before)
        expected[0] += K.random_playout(game, geometry, start)
        margin = K.score(game, geometry)
        expected[1] += margin > 0
        expected[2] += margin == 0
    assert [moves, black_wins, draws] == expected
    np.testing.assert_array_equal(generator, start)


@pytest.mark.parametrize("size", [13, 19, 25])
def test_big_board_playout_keeps_the_bookkeeping(size: int) -> None:
    geometry = K.make_geometry(size)
    state = K.new_state(size, K.KO_POSITIONAL, 0, 4 * size * size, 15, K.SCORING_AREA)
    K.random_playout(state, geometry, np.array([size], np.uint64))
    assert state.info[K.INFO_OVER] == K.ENDED_BY_PASSES
    check_state(state, geometry, history=False)
