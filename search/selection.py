"""Selection rules for searches with priors: which child a simulation walks into.

At node ``s``, a child ``a`` has ``N(s, a)`` visits, a mean value ``Q(s, a)`` for the player
choosing at ``s`` and a prior ``P(s, a)``; while unvisited, its ``Q`` is the first-play value:
``fpu``, or, with an ``fpu_reduction``, the mean value of ``s`` for that player less the
reduction (Leela Zero's: a fixed ``fpu`` below the position's value sends the search into
every untried move of a node where its player is behind, and none where it is ahead);
``N(s)`` counts the node's own evaluation and its children's visits. The rules:

- ``"alphazero"``: ``Q + c · P · sqrt(N(s)) / (1 + N(s, a))`` (AlphaGo Zero and AlphaZero);
- ``"alphago"``: ``Q + c · P / (1 + N(s, a))`` (AlphaGo, whose bonus is ``u ∝ P / (1 + N)``);
- ``"ucb1"``: ``Q + c · sqrt(ln N(s) / N(s, a))``, unvisited moves first in move order; the
  priors are not used.

A simulation under way through a child (a virtual loss) counts as ``virtual_loss`` more
visits, each valued as a loss, so that a batch of selections spreads out. UCT's own UCB1,
with random tie-breaks and RAVE, is in ``search.uct``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from go_env.core import inline_kernel
from goarena.search.tree import ILLEGAL, UNVISITED

ALPHAZERO, ALPHAGO, UCB1 = 0, 1, 2
RULES = {"alphazero": ALPHAZERO, "alphago": ALPHAGO, "ucb1": UCB1}


class Selection(NamedTuple):
    """A selection rule and its parameters, as the kernels take them."""

    rule: int  # ALPHAZERO, ALPHAGO or UCB1
    c: float  # exploration constant
    fpu: float  # Q of an unvisited child, in [-1, 1]
    virtual_loss: float  # visits (valued -1) that a pending simulation adds, >= 0
    fpu_reduction: float  # >= 0: Q of an unvisited child is the node's mean value less this; < 0: fpu


def make_selection(
    rule: str = "alphazero",
    c: float = 1.5,
    fpu: float = 0.0,
    virtual_loss: float = 1.0,
    fpu_reduction: float | None = None,
) -> Selection:
    """Checked parameters of a selection rule named by a string (``fpu_reduction`` None: the
    first-play value is ``fpu``)."""
    if rule not in RULES:
        raise ValueError(f"unknown selection rule {rule!r}: one of {', '.join(RULES)}")
    if c < 0 or not -1.0 <= fpu <= 1.0 or virtual_loss < 0:
        raise ValueError("the exploration constant must be >= 0, fpu in [-1, 1] and virtual_loss >= 0")
    if fpu_reduction is not None and not 0.0 <= fpu_reduction <= 2.0:
        raise ValueError(f"fpu_reduction is a value difference in [0, 2], got {fpu_reduction}")
    reduction = -1.0 if fpu_reduction is None else float(fpu_reduction)
    return Selection(RULES[rule], float(c), float(fpu), float(virtual_loss), reduction)


@inline_kernel
def select(tree, node, selection):
    """The move to play from the expanded ``node``, counting virtual losses; ties go to the
    lowest move."""
    parent_visits = tree.visits[node] + selection.virtual_loss * tree.virtual_loss[node]
    scale = selection.c * np.sqrt(parent_visits) if selection.rule == ALPHAZERO else selection.c
    log_visits = np.log(parent_visits) if selection.rule == UCB1 else 0.0
    first_play = selection.fpu
    if selection.fpu_reduction >= 0.0 and tree.visits[node] > 0:
        # ``value_sum`` is for the player who moved into ``node``: the chooser is the other one.
        first_play = -tree.value_sum[node] / tree.visits[node] - selection.fpu_reduction
    best = -np.inf
    best_move = -1
    for a in range(tree.children.shape[1]):
        child = tree.children[node, a]
        if child == ILLEGAL:
            continue
        n = 0.0
        q = first_play
        if child != UNVISITED:
            pending = selection.virtual_loss * tree.virtual_loss[child]
            n = tree.visits[child] + pending
            if n > 0:
                q = (tree.value_sum[child] - pending) / n
        if selection.rule == UCB1:
            score = q + selection.c * np.sqrt(log_visits / n) if n > 0 else np.inf
        else:
            score = q + scale * tree.prior[node, a] / (1 + n)
        if score > best:
            best = score
            best_move = a
    return best_move
