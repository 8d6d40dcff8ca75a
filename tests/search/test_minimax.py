"""Minimax: exact values of tiny boards, transpositions under superko, alpha-beta vs minimax.

Points of the 2x2 board are named  a b  (flat 0 1) and pass is 4.
                                   c d       (2 3)
"""

import math

import numpy as np
import pytest
from numba import njit

from go_env import Game, Rules
from go_env import core as K
from goarena.search.minimax import (
    Minimax,
    _history_key,
    _node_key,
    area_heuristic,
    final_value,
    leaf_value,
    solve,
)

A, B, C, D, PASS = 0, 1, 2, 3, 4
# Under positional superko every stone played makes a board not seen before (there are
# 3**4), and passes never come twice in a row: no 2x2 game reaches this cap.
UNCAPPED_2X2 = 2 * 3**4


def replay(size: int, rules: Rules, moves: list[int]) -> Game:
    game = Game(size, rules)
    game.replay(moves)
    return game


def final_score_for(game: Game, pv: list[int]) -> float:
    """Replay ``pv`` (raising on an illegal move) and return the final score for the side to
    move at the start."""
    line = game.copy()
    line.replay(pv)
    assert line.is_over, "the principal variation must reach the end of the game"
    return line.score() if game.to_play == K.BLACK else -line.score()


def brute_force(game: Game, depth: int) -> float:
    """Plain depth-limited negamax (the NM recurrence) with the area heuristic at the leaves."""
    if game.is_over:
        return final_value(game)
    if depth == 0:
        return leaf_value(game, area_heuristic)
    best = -math.inf
    for move in game.legal_moves():
        child = game.copy()
        child.play(int(move))
        best = max(best, -brute_force(child, depth - 1))
    return best


def test_2x2_is_black_by_one():
    """2x2 Go, area scoring, komi 0, positional superko, no suicide: Black wins by 1.

    This is the published value (Bill Taylor's proof, Sensei's Library "2x2 board"; John
    Tromp's solver). By hand, along the main line (by symmetry Black's first stone can go
    anywhere; say d):

    - White must answer on the diagonal, a. If White passes, Black passes and owns the board
      (+4). If White plays next to d, say b, Black a captures it, and then every empty point
      is suicide for White (+4).
    - Black b puts both stones in atari on purpose, and White c captures them (White a, c).
    - Black b again. White d would capture it, but Black b then takes three stones; White
      passes instead, and Black d captures a and c: Black b, d.
    - White c threatens nothing: White a would capture b and d and recreate "White a, c",
      which superko forbids. Both pass. Black has 2 stones, White 1, and a is neutral: +1.

    Two of Black's deviations are easy: passing first hands White Black's role (-1), and
    so does passing after d, a, the colours reversed (-1). That no other deviation helps
    either side is the longer part of Taylor's proof; the solver checks all of them, and
    the next test checks the line move by move.
    """
    game = Game(2, Rules(komi=0, max_moves=UNCAPPED_2X2))
    value, pv = solve(game)
    assert value == 1
    assert final_score_for(game, pv) == 1


def test_2x2_main_line_is_optimal():
    """Each move of the line in the docstring above keeps the value at +1 for Black."""
    rules = Rules(komi=0, max_moves=UNCAPPED_2X2)
    line = [D, A, B, C, B, PASS, D, C, PASS, PASS]
    for played in range(len(line)):
        game = replay(2, rules, line[:played])
        value, _ = solve(game)
        assert value == (1 if game.to_play == K.BLACK else -1), line[:played]
    assert replay(2, rules, line).score() == 1


def test_the_default_move_cap_changes_the_2x2_value():
    """The default cap (2 * N * N = 8 moves) stops the game before Black's win completes."""
    game = Game(2, Rules(komi=0))
    value, pv = solve(game)
    assert value == 0
    line = game.copy()
    line.replay(pv)
    assert line.is_over and final_score_for(game, pv) == 0


def test_3x3_is_black_by_nine():
    """The published value of 3x3 (area scoring): Black takes the whole board. With the
    default cap of 18 moves, every line of the proof still ends in time."""
    game = Game(3, Rules(komi=0))
    result = Minimax().solve(game)
    assert result.value == 9 and result.solved
    assert final_score_for(game, result.pv) == 9


def test_komi_shifts_the_value_and_values_are_for_the_side_to_move():
    rules = Rules(komi=2.5, max_moves=UNCAPPED_2X2)
    assert solve(Game(2, rules))[0] == 1 - 2.5
    after_pass = replay(2, rules, [PASS])
    value, pv = solve(after_pass)  # White moves first now and takes Black's role
    assert value == 1 + 2.5
    assert final_score_for(after_pass, pv) == value


@pytest.mark.parametrize(
    ("size", "rules", "moves"),
    [
        (2, Rules(komi=0, max_moves=UNCAPPED_2X2), []),
        (2, Rules(komi=0, ko="situational", max_moves=UNCAPPED_2X2), []),
        (2, Rules(komi=0, ko="simple"), []),
        (2, Rules(komi=0, scoring="territory"), []),
        (3, Rules(komi=0), [4, 0, 2, 6, 8]),
        (3, Rules(komi=0.5), [0, 4, 8, 2, 6, 7]),
        (3, Rules(komi=0, ko="simple"), [4, 3, 5, 1, 7, 0]),
    ],
)
def test_table_on_and_off_agree(size, rules, moves):
    game = replay(size, rules, moves)
    with_table = solve(game)
    without = solve(game, use_tt=False)
    assert with_table[0] == without[0]
    assert final_score_for(game, with_table[1]) == with_table[0]
    assert final_score_for(game, without[1]) == without[0]


def test_the_table_key_holds_the_history_under_superko():
    """One position, two histories, two values: a table keyed without the history is wrong.

    Both games reach Black a, White b d, White to move with one pass pending at move 5.
    White c then captures a. After the first history Black's recapture at a would recreate
    "Black a alone", which superko forbids, so White keeps the board (+4 for White); after the
    second (where "White b alone" was seen instead) Black may recapture, worth only +1 to White.
    """
    rules = Rules(komi=0, max_moves=UNCAPPED_2X2)
    first = replay(2, rules, [A, B, PASS, D, PASS])
    second = replay(2, rules, [PASS, B, A, D, PASS])
    assert first.key == second.key and first.to_play == second.to_play
    assert first.move_number == second.move_number and first.ko_point == second.ko_point

    exact = [Minimax(use_tt=False).solve(game).value for game in (first, second)]
    assert exact == [4, 1]
    # Without the history the two keys are one; with it they differ.
    keys = [_node_key(g.state, g.geometry, _history_key(g.state)) for g in (first, second)]
    bare = [_node_key(g.state, g.geometry, np.uint64(0)) for g in (first, second)]
    assert bare[0] == bare[1] and keys[0] != keys[1]
    # One table shared by both searches, in either order, still gives each its own value.
    for order in ((first, second), (second, first)):
        searcher = Minimax()
        assert [searcher.solve(game).value for game in order] == [
            exact[0 if g is first else 1] for g in order
        ]


@pytest.mark.parametrize(
    ("size", "rules", "moves"),
    [
        (3, Rules(komi=0), []),
        (3, Rules(komi=0), [4, 0]),
        (4, Rules(komi=0.5), [5, 10, 6]),
        (5, Rules(), [12, 6, 8]),
        (5, Rules(scoring="territory", ko="simple"), [12, 13, 7, 8]),
    ],
)
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_alpha_beta_equals_plain_minimax(size, rules, moves, depth):
    game = replay(size, rules, moves)
    expected = brute_force(game, depth)
    for use_tt in (False, True):
        result = Minimax(use_tt=use_tt).search(game, depth=depth)
        assert result.value == expected
        best = game.copy()
        best.play(result.move)
        assert -brute_force(best, depth - 1) == expected, "the move played must achieve the value"


def test_search_to_a_depth_gives_a_principal_variation_of_that_length():
    game = Game(5, Rules())
    result = Minimax().search(game, depth=3)
    assert result.depth == 3 and not result.solved and len(result.pv) == 3
    assert result.pv[0] == result.move
    game.replay(result.pv)


def test_a_time_budget_stops_the_deepening():
    game = Game(5, Rules())
    result = Minimax().search(game, seconds=0.3)
    assert 1 <= result.depth < 50 and not result.solved
    assert game.is_legal(result.move)


@njit
def stones_heuristic(state, geometry):
    """Stones of the side to move minus the opponent's."""
    color = state.info[K.INFO_TO_PLAY]
    count = 0.0
    for p in range(geometry.size * geometry.size):
        if state.board[p] == color:
            count += 1
        elif state.board[p] == 3 - color:
            count -= 1
    return count


def test_a_custom_heuristic_is_used_at_the_leaves():
    game = Game(5, Rules(komi=0))
    # After one stone, area counts the whole board as Black's; stone counting counts one.
    assert Minimax().search(game, depth=1).value == 25
    assert Minimax(stones_heuristic).search(game, depth=1).value == 1


def test_the_heuristic_must_be_compiled():
    with pytest.raises(TypeError, match="numba"):
        Minimax(lambda state, geometry: 0.0)  # type: ignore[arg-type]


def test_a_finished_game_has_its_final_score_and_no_move():
    game = replay(2, Rules(komi=0), [D, PASS, PASS])
    result = Minimax().search(game)
    assert result.value == -4 and result.move == -1 and result.pv == []  # White to move, Black owns all
