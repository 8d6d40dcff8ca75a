"""Expectimax: the expectimax recurrence, against a model of the opponent.

The side to move at the root (the maximiser, "us") takes its best move; at the opponent's
turn the value is the expectation over its moves under a model ``p(a | s)``:

    Ev(s) = final score                              s the end of the game
          = max_a Ev(a(s))                           we are to move
          = sum_a p(a | s) Ev(a(s))                  the opponent is to move

with every value in points from our side (the textbook negamax form negates at each ply
instead; it is the same recurrence). Depth-limited lines end with the heuristic of
``search.minimax``, so against a model that always plays minimax's choice the value is the
minimax value, and against any other model it is at least that.

The tree is walked in Python over ``Game`` copies, so that the model can be any callable
(a policy network, another player's ``policy``): fine for the shallow depths it can afford,
since nothing is pruned at the opponent's nodes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from go_env import Game
from goarena.search.minimax import Heuristic, area_heuristic, final_value, leaf_value

OpponentModel = Callable[[Game], np.ndarray]
"""``p(game) -> float[N*N+1]``: the opponent's move distribution (sums to 1, legal moves only)."""


def uniform_opponent(game: Game) -> np.ndarray:
    """The default model: every legal move (pass included) equally likely."""
    mask = game.legal_mask().astype(np.float64)
    return mask / mask.sum()


class ExpectimaxResult(NamedTuple):
    """``value``: points for the side to move at the root, komi included; ``move``: its best
    move (-1 when the game is over); ``nodes``: positions visited."""

    value: float
    move: int
    nodes: int


def _distribution(opponent: OpponentModel, game: Game) -> np.ndarray:
    probs = np.asarray(opponent(game), dtype=np.float64)
    if probs.shape != (game.num_points + 1,):
        raise ValueError(f"the opponent model gave shape {probs.shape}, expected ({game.num_points + 1},)")
    if np.any(probs < 0) or not np.isclose(probs.sum(), 1.0):
        raise ValueError("the opponent model must give non-negative probabilities summing to 1")
    if np.any(probs[game.legal_mask() == 0] > 0):
        raise ValueError("the opponent model gave probability to an illegal move")
    return probs


def expectimax(
    game: Game,
    depth: int,
    opponent: OpponentModel | None = None,
    heuristic: Heuristic = area_heuristic,
) -> ExpectimaxResult:
    """Search ``game`` to ``depth`` plies by the EM recurrence.

    Args:
        game: the position; the side to move is the maximiser. It is not changed.
        depth: plies to search (at least 1); lines still running there get ``heuristic``.
        opponent: the model of the other side; ``None`` is ``uniform_opponent``.
        heuristic: the leaf estimate (see ``search.minimax.Heuristic``).

    Returns:
        The expected value for the side to move under its best play, and its best move.
    """
    if depth < 1:
        raise ValueError(f"depth must be at least 1, got {depth}")
    model = opponent if opponent is not None else uniform_opponent
    us = game.to_play
    nodes = 0

    def child(node: Game, move: int) -> Game:
        after = node.copy()
        after.play(move)
        return after

    def value(node: Game, depth: int) -> float:
        nonlocal nodes
        nodes += 1
        if node.is_over or depth == 0:
            estimate = final_value(node) if node.is_over else leaf_value(node, heuristic)
            return estimate if node.to_play == us else -estimate
        if node.to_play == us:
            return max(value(child(node, int(m)), depth - 1) for m in node.legal_moves())
        probs = _distribution(model, node)
        return sum(float(probs[m]) * value(child(node, int(m)), depth - 1) for m in np.flatnonzero(probs))

    if game.is_over:
        return ExpectimaxResult(final_value(game), -1, 1)
    nodes = 1
    best_value, best_move = -np.inf, -1
    for move in game.legal_moves():
        v = value(child(game, int(move)), depth - 1)
        if v > best_value:
            best_value, best_move = v, int(move)
    return ExpectimaxResult(float(best_value), best_move, nodes)
