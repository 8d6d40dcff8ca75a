"""Invariants of a search tree between searches: a checker for tests and users.

``check_tree`` reads a ``Tree`` (or the tree of a ``TreeSearch``) with numpy and raises
``InvariantError`` naming the first invariant that does not hold. The conventions it checks
are those of ``search.tree``: node 0 is the root, a node comes after its parent, a node's
first visit is its own evaluation and every later one passes on to a child.

Example::

    puct.search(game, simulations=800)
    check_tree(puct)
"""

from __future__ import annotations

import numpy as np

from go_env.invariants import InvariantError
from goarena.search.tree import ILLEGAL, NO_PARENT, ROOT, Tree, TreeSearch

__all__ = ["InvariantError", "check_tree"]

# Priors are kept in float32: their sum is 1 to within a few rounding errors.
PRIOR_TOLERANCE = 1e-5


def _nowhere(broken: np.ndarray | np.bool_, invariant: str, what: str) -> None:
    """Raise unless ``broken`` (a mask over the nodes) is all false, naming the first node."""
    if broken.any():
        raise InvariantError(f"{invariant}: {what} at node {int(np.flatnonzero(broken)[0])}")


def check_tree(tree: Tree | TreeSearch, expansion_threshold: int | None = None) -> None:
    """Check a tree (or a searcher's tree) between searches; ``expansion_threshold`` is the
    search's (``PUCT``'s: 0 unless given or read off the searcher).

    Raises:
        InvariantError: the first invariant broken, by name (``parent``, ``visits``, ...).
    """
    if isinstance(tree, TreeSearch):
        if tree.tree is None:
            raise InvariantError("tree: the searcher has not searched yet")
        if expansion_threshold is None:
            expansion_threshold = getattr(tree, "expansion_threshold", 0)
        tree = tree.tree
    used = int(tree.num_nodes[0])
    if not 1 <= used <= tree.parent.shape[0]:
        raise InvariantError(f"num_nodes: {used} nodes in room for {tree.parent.shape[0]}")
    _check_links(tree, used)
    _check_visits(tree, used, expansion_threshold or 0)
    if tree.prior.shape[0] > 1:
        _check_priors(tree, used)
    if tree.amaf_visits.shape[0] > 1:
        amaf_visits, amaf_value = tree.amaf_visits[:used], tree.amaf_value[:used]
        _nowhere((amaf_visits < 0).any(axis=1), "amaf_visits", "a negative count")
        # float32 sums: a mean may pass 1 by a rounding error.
        _nowhere(
            (np.abs(amaf_value) > amaf_visits + 1e-3).any(axis=1), "amaf_value", "a mean outside [-1, 1]"
        )


def _check_links(tree: Tree, used: int) -> None:
    """Parents and children point at each other, and only expanded nodes have children."""
    parent, action = tree.parent[:used].astype(np.int64), tree.action[:used].astype(np.int64)
    nodes = np.arange(used)
    if parent[ROOT] != NO_PARENT:
        raise InvariantError(f"parent: the root has parent {parent[ROOT]}")
    inner = nodes > ROOT
    _nowhere(inner & ((parent < 0) | (parent >= nodes)), "parent", "a node before its parent")
    parent[ROOT], action[ROOT] = ROOT, 0  # so that the rows below may index with them
    _nowhere(inner & (tree.expanded[parent] == 0), "expanded", "a child of a node not expanded")
    _nowhere(inner & ((action < 0) | (action >= tree.children.shape[1])), "action", "a move off the board")
    children = tree.children[:used]
    _nowhere(inner & (children[parent, action] != nodes), "children", "a node its parent does not list")
    expanded = tree.expanded[:used] != 0
    _nowhere(
        expanded & ((children < ILLEGAL) | (children >= used)).any(axis=1),
        "children",
        "an index out of range",
    )
    listed = np.count_nonzero(children[expanded] >= 0)
    if listed != used - 1:
        raise InvariantError(f"children: {listed} listed for {used - 1} nodes below the root")
    _nowhere(tree.virtual_loss[:used] != 0, "virtual_loss", "simulations left pending")


def _check_visits(tree: Tree, used: int, threshold: int) -> None:
    """An expanded node's visits are its own evaluations plus its children's: one, or up to
    ``threshold + 1`` for a node that waited for expansion (a root expands at once); every
    node but a fresh root has been visited; values are means in [-1, 1]."""
    visits = tree.visits[:used].astype(np.int64)
    fresh = used == 1 and not tree.expanded[ROOT]
    _nowhere(visits < (0 if fresh else 1), "visits", "no visit")
    below = np.zeros(used, np.int64)
    np.add.at(below, tree.parent[1:used], visits[1:])
    expanded = tree.expanded[:used] != 0
    own = visits - below
    _nowhere(
        expanded & ((own < 1) | (own > threshold + 1)),
        "visits",
        "not its own evaluations + the children's visits",
    )
    _nowhere(~(np.abs(tree.value_sum[:used]) <= visits + 1e-9), "value_sum", "a mean outside [-1, 1]")


def _check_priors(tree: Tree, used: int) -> None:
    """At an expanded node the priors are a distribution over the legal moves."""
    expanded = tree.expanded[:used] != 0
    priors = tree.prior[:used].astype(np.float64)
    legal = tree.children[:used] != ILLEGAL
    _nowhere(expanded & ~legal.any(axis=1), "children", "an expanded node without a legal move")
    _nowhere(expanded & ~(priors >= 0).all(axis=1), "prior", "a negative or undefined prior")
    _nowhere(expanded & (priors * ~legal != 0).any(axis=1), "prior", "mass on an illegal move")
    _nowhere(expanded & (np.abs(priors.sum(axis=1) - 1.0) > PRIOR_TOLERANCE), "prior", "not summing to 1")
