"""Expectimax: the EM recurrence against opponent models."""

import numpy as np
import pytest

from go_env import Game, Rules
from goarena.search.expectimax import expectimax, uniform_opponent
from goarena.search.minimax import Minimax


def replay(size: int, rules: Rules, moves: list[int]) -> Game:
    game = Game(size, rules)
    game.replay(moves)
    return game


def one_hot(game: Game, move: int) -> np.ndarray:
    probs = np.zeros(game.num_points + 1)
    probs[move] = 1.0
    return probs


def always_pass(game: Game) -> np.ndarray:
    return one_hot(game, game.pass_move)


@pytest.mark.parametrize(("size", "komi"), [(2, 0.0), (3, 0.0), (3, 7.5), (4, 0.5)])
def test_against_an_opponent_who_always_passes_one_stone_takes_the_board(size, komi):
    """Black plays a stone, White passes, Black passes: the stone owns every point."""
    game = Game(size, Rules(komi=komi))
    result = expectimax(game, depth=3, opponent=always_pass)
    assert result.value == size * size - komi
    assert result.move != game.pass_move


def minimax_opponent(root: Game, depth: int):
    """The model that puts all its mass on minimax's choice, at the depth left below ``root``."""

    def model(game: Game) -> np.ndarray:
        left = depth - (game.move_number - root.move_number)
        return one_hot(game, Minimax(use_tt=False).search(game, depth=left).move)

    return model


@pytest.mark.parametrize(
    ("size", "rules", "moves", "depth"),
    [
        (3, Rules(komi=0), [], 2),
        (3, Rules(komi=0), [4, 0], 3),
        (4, Rules(komi=0.5), [5, 10], 2),
        (2, Rules(komi=0, max_moves=162), [3, 0], 4),
    ],
)
def test_against_the_minimax_opponent_expectimax_is_minimax(size, rules, moves, depth):
    game = replay(size, rules, moves)
    minimax = Minimax(use_tt=False).search(game, depth=depth).value
    assert expectimax(game, depth, minimax_opponent(game, depth)).value == minimax


def seeded_model(seed: int):
    """A fixed random distribution over the legal moves of each position."""

    def model(game: Game) -> np.ndarray:
        rng = np.random.default_rng([seed, game.key & 0xFFFFFFFF, game.move_number])
        probs = rng.random(game.num_points + 1) * game.legal_mask()
        return probs / probs.sum()

    return model


@pytest.mark.parametrize(
    ("size", "rules", "moves"),
    [(3, Rules(komi=0), []), (3, Rules(komi=0), [4]), (4, Rules(komi=0.5), [5, 10, 6]), (5, Rules(), [12])],
)
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_an_imperfect_opponent_is_worth_at_least_the_minimax_value(size, rules, moves, depth):
    game = replay(size, rules, moves)
    minimax = Minimax(use_tt=False).search(game, depth=depth).value
    for model in (None, seeded_model(0), seeded_model(1)):
        assert expectimax(game, depth, model).value >= minimax
    if depth == 1:  # no opponent node: the same search
        assert expectimax(game, depth).value == minimax


def test_the_expectation_weights_the_opponents_moves():
    """2x2, three plies, White answering Black's corner stone at random. A pass, or a stone
    next to Black's (captured at once), leaves Black the board: 4 each. The diagonal reply
    leaves Black a count of 2 - 1 = 1 at best. Expectation: (4 + 4 + 4 + 1) / 4."""
    game = Game(2, Rules(komi=0))
    result = expectimax(game, depth=3)
    assert result.value == 13 / 4
    assert result.move != game.pass_move


def test_the_model_must_give_a_distribution_over_legal_moves():
    game = Game(3, Rules(komi=0))
    with pytest.raises(ValueError, match="illegal move"):
        expectimax(game, 2, lambda g: one_hot(g, 4))  # once Black has played there
    with pytest.raises(ValueError, match="summing to 1"):
        expectimax(game, 2, lambda g: 2 * uniform_opponent(g))


def test_a_finished_game_has_its_final_score_and_no_move():
    game = replay(2, Rules(komi=0), [3, 4, 4])
    assert expectimax(game, 2) == (-4, -1, 1)
