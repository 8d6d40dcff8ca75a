"""Selection rules, first-play value and virtual-loss size as PUCT's parameters."""

from __future__ import annotations

import numpy as np
import pytest

from go_env import Game
from go_env import core as K
from goarena.search import PUCT, Leaves, UniformEvaluator
from goarena.search.invariants import check_tree


class _Counting(UniformEvaluator):
    """Uniform priors, value 0; remembers how many leaves each call got."""

    def __init__(self) -> None:
        self.calls: list[int] = []

    def evaluate(self, leaves: Leaves) -> tuple[np.ndarray, np.ndarray]:
        self.calls.append(len(leaves))
        return super().evaluate(leaves)


def _peaked(leaves: Leaves) -> tuple[np.ndarray, np.ndarray]:
    """Almost all prior mass on pass; values 0."""
    priors = leaves.legal.astype(np.float64)
    priors[:, -1] = 1000.0
    return priors, np.zeros(len(leaves))


def test_the_defaults_are_alphazero_with_no_first_play_bonus_and_unit_virtual_loss():
    game = Game(5)
    default, explicit = (
        PUCT(_peaked, seed=0),
        PUCT(_peaked, seed=0, selection="alphazero", fpu=0.0, virtual_loss=1),
    )
    default.search(game, simulations=200)
    explicit.search(game, simulations=200)
    np.testing.assert_array_equal(default.visit_counts(), explicit.visit_counts())


@pytest.mark.parametrize("rule", ["alphazero", "alphago", "ucb1"])
def test_every_rule_leaves_a_consistent_tree(rule):
    puct = PUCT(_peaked, batch=8, selection=rule, seed=0)
    puct.search(Game(5), simulations=300)
    check_tree(puct)


def test_ucb1_tries_every_root_move_before_any_twice():
    game = Game(5)
    puct = PUCT(_peaked, batch=1, selection="ucb1", seed=0)
    puct.search(game, simulations=27)  # the root's evaluation and one visit per legal move
    assert puct.visit_counts().tolist() == [1] * 26


def test_the_rules_grow_different_trees():
    game = Game(5)
    visits = []
    for rule in ("alphazero", "alphago", "ucb1"):
        puct = PUCT(_peaked, batch=1, selection=rule, c_puct=1.0, seed=0)
        puct.search(game, simulations=400)
        visits.append(tuple(puct.visit_counts()))
    assert len(set(visits)) == 3


def test_first_play_value_decides_how_wide_the_search_goes():
    game = Game(5)
    tried = {}
    for fpu in (-1.0, 1.0):
        puct = PUCT(_peaked, batch=1, fpu=fpu, seed=0)
        puct.search(game, simulations=100)
        tried[fpu] = int((puct.visit_counts() > 0).sum())
    assert tried[1.0] == 26  # an optimistic first-play value tries every move
    assert tried[-1.0] < 26


def test_without_virtual_loss_a_batch_collapses_onto_one_leaf():
    game = Game(5)
    for virtual_loss, most in ((0.0, 1), (1.0, 8), (3.0, 8)):
        evaluator = _Counting()
        puct = PUCT(evaluator, batch=8, virtual_loss=virtual_loss, seed=0)
        puct.search(game, simulations=200)
        check_tree(puct)
        assert max(evaluator.calls) == most


@pytest.mark.parametrize(
    "options", [{"selection": "gumbel"}, {"fpu": 2.0}, {"virtual_loss": -1.0}, {"c_puct": -1.0}]
)
def test_bad_selection_parameters_are_refused(options):
    with pytest.raises(ValueError):
        PUCT(**options)


def _white_ahead(leaves: Leaves) -> tuple[np.ndarray, np.ndarray]:
    """Uniform priors; White is ahead (0.6) wherever it is."""
    to_play = leaves.states.info[:, K.INFO_TO_PLAY]
    return leaves.legal.astype(np.float64), np.where(to_play == K.WHITE, 0.6, -0.6)


def test_a_first_play_reduction_keeps_the_player_behind_from_trying_every_move():
    game = Game(5)  # Black to move, behind
    tried = {}
    for reduction in (None, 0.2):
        puct = PUCT(_white_ahead, batch=1, fpu=0.0, fpu_reduction=reduction, seed=0)
        puct.search(game, simulations=30)
        check_tree(puct)
        tried[reduction] = int((puct.visit_counts() > 0).sum())
    assert tried[None] == 26  # a first-play value of 0 beats every move tried (-0.6)
    assert tried[0.2] < 13  # the root's own value less 0.2 does not


@pytest.mark.parametrize("reduction", [-0.1, 2.5])
def test_a_first_play_reduction_outside_the_value_range_is_refused(reduction):
    with pytest.raises(ValueError, match="fpu_reduction"):
        PUCT(fpu_reduction=reduction)
