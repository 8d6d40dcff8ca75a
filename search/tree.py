"""The search tree as preallocated arrays, its kernels, and the search driver UCT and PUCT share.

A tree of ``M`` nodes over ``A = N*N + 1`` moves is a ``Tree`` of arrays (mctx's layout):
node ``i`` is created by simulation ``i`` of a search started from scratch, so nodes need no
allocator and there is no Python object per node. Node 0 is always the root; reusing the
tree for the next move keeps the chosen subtree and renumbers it from 0 (``reroot``).

Values: a leaf's value is for its side to move, +1 a win and -1 a loss. A node's
``value_sum`` is kept for the player who made the move into the node, so that the parent
picks children by their own ``value_sum / visits`` with no sign; ``backup`` is the one place
that flips the sign, once per ply (negamax).

Visits: a node's first visit is its own evaluation (a playout, or the evaluator's value)
and every later one passes on to a child, so an inner node has ``visits == 1 + sum of its
children's visits``. A finished game is a leaf scored by the rules every time it is reached
(without its dead stones where the game is settled so: ``settle_finished_games``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from go_env import Game
from go_env import core as K
from go_env.core import inline_kernel, kernel
from goarena.search.evaluator import Scratch, new_scratch, random_state, shapes

ROOT = 0
NO_PARENT = -1  # parent of the root
UNVISITED = -1  # children[n, a]: a legal move that has no node yet
ILLEGAL = -2  # children[n, a]: not a legal move
# A timed search looks at the clock about every CHUNK_SECONDS, and after at least MIN_CHUNK
# simulations (two of PUCT's default batches) but for the last chunk, cut to the deadline.
CHUNK_SECONDS = 0.005
MIN_CHUNK = 16


class Tree(NamedTuple):
    """A search tree of capacity ``M`` nodes over ``A`` moves; node 0 is the root.

    Per-move arrays a search does not use (priors for UCT, AMAF without RAVE) have one row.
    """

    parent: np.ndarray  # int32[M]: parent node, NO_PARENT for the root
    action: np.ndarray  # int32[M]: the move from the parent to the node
    visits: np.ndarray  # int32[M]: N, simulations backed up through the node
    value_sum: np.ndarray  # float64[M]: W, their values for the player who made ``action``
    virtual_loss: np.ndarray  # int32[M]: simulations under way through the node (0 between batches)
    expanded: np.ndarray  # int8[M]: 1 once the node's row of ``children`` is written
    children: np.ndarray  # int32[M, A]: child node of each move, or UNVISITED / ILLEGAL
    prior: np.ndarray  # float32[M or 1, A]: move priors (PUCT)
    amaf_visits: np.ndarray  # int32[M or 1, A]: all-moves-as-first visits (RAVE)
    amaf_value: np.ndarray  # float32[M or 1, A]: their value sum, for the player choosing at the node
    num_nodes: np.ndarray  # int64[1]: nodes in use, 0 .. num_nodes-1


def new_tree(capacity: int, num_actions: int, priors: bool = False, amaf: bool = False) -> Tree:
    """An empty tree (a root not yet visited) with room for ``capacity`` nodes (at least 2)."""
    capacity = max(capacity, 2)  # one row tells an unused per-move array
    prior_rows = capacity if priors else 1
    amaf_rows = capacity if amaf else 1
    tree = Tree(
        parent=np.zeros(capacity, np.int32),
        action=np.zeros(capacity, np.int32),
        visits=np.zeros(capacity, np.int32),
        value_sum=np.zeros(capacity, np.float64),
        virtual_loss=np.zeros(capacity, np.int32),
        expanded=np.zeros(capacity, np.int8),
        children=np.zeros((capacity, num_actions), np.int32),
        prior=np.zeros((prior_rows, num_actions), np.float32),
        amaf_visits=np.zeros((amaf_rows, num_actions), np.int32),
        amaf_value=np.zeros((amaf_rows, num_actions), np.float32),
        num_nodes=np.zeros(1, np.int64),
    )
    clear(tree)
    return tree


@kernel
def clear(tree):
    """Drop every node but a fresh root."""
    tree.num_nodes[0] = 1
    _fresh_node(tree, ROOT, NO_PARENT, NO_PARENT)


def grow(tree: Tree, capacity: int) -> Tree:
    """A copy of ``tree`` with room for ``capacity`` nodes."""
    used = int(tree.num_nodes[0])
    priors, amaf = tree.prior.shape[0] > 1, tree.amaf_visits.shape[0] > 1
    grown = new_tree(max(capacity, used), tree.children.shape[1], priors, amaf)
    for old, new in zip(tree[:-1], grown[:-1], strict=True):  # every field but num_nodes
        rows = min(used, old.shape[0])
        new[:rows] = old[:rows]
    grown.num_nodes[0] = used
    return grown


@inline_kernel
def add_node(tree, parent, move):
    """Create the child reached by ``move`` from ``parent``; return its index."""
    node = tree.num_nodes[0]
    tree.num_nodes[0] = node + 1
    _fresh_node(tree, node, parent, move)
    tree.children[parent, move] = node
    return node


@inline_kernel
def _fresh_node(tree, node, parent, move):
    """Make ``node`` the one reached by ``move`` from ``parent``: not visited, not expanded."""
    tree.parent[node] = parent
    tree.action[node] = move
    tree.visits[node] = 0
    tree.value_sum[node] = 0.0
    tree.virtual_loss[node] = 0
    tree.expanded[node] = 0


@inline_kernel
def expand(tree, node, legal):
    """Write the node's children row from its legal-move mask (int8[A]); clear its AMAF row."""
    for a in range(legal.shape[0]):
        tree.children[node, a] = UNVISITED if legal[a] else ILLEGAL
    if tree.amaf_visits.shape[0] > 1:
        tree.amaf_visits[node, :] = 0
        tree.amaf_value[node, :] = 0.0
    tree.expanded[node] = 1


@kernel
def backup(tree, leaf, value, virtual_loss, amaf, scratch, depth, length):
    """Add one simulation's result to every node from ``leaf`` up to the root.

    Args:
        tree: the tree.
        leaf: the node the simulation ended at.
        value: the result for the side to move at ``leaf``, in [-1, 1].
        virtual_loss: virtual losses to take back along the path (1 for a batched leaf, else 0).
        amaf: also update the AMAF statistics (RAVE) of the nodes on the path.
        scratch: with ``amaf``, ``scratch.moves[:length]`` holds the simulation's moves from
            the root, the first ``depth`` of them (down to ``leaf``) chosen in the tree.
        depth: the depth of ``leaf``.
        length: the number of moves in the simulation.
    """
    first = scratch.first
    if amaf:
        first[:] = -1
        for ply in range(length - 1, depth - 1, -1):
            first[scratch.moves[ply]] = ply & 1
    num_points = tree.children.shape[1] - 1
    # The sign convention: ``v`` is for the player who made the move into ``node``.
    v = -value
    node = leaf
    while True:
        tree.visits[node] += 1
        tree.value_sum[node] += v
        tree.virtual_loss[node] -= virtual_loss
        parent = tree.parent[node]
        if parent == NO_PARENT:
            return
        if amaf:
            # Moves the player choosing at ``parent`` played first, from there on, get ``v``.
            depth -= 1
            parity = depth & 1
            first[scratch.moves[depth]] = parity
            for a in range(num_points):
                if first[a] == parity:
                    tree.amaf_visits[parent, a] += 1
                    tree.amaf_value[parent, a] += v
        v = -v
        node = parent


@kernel
def add_virtual_loss(tree, leaf):
    """Mark one simulation under way through every node from ``leaf`` up to the root."""
    node = leaf
    while node != NO_PARENT:
        tree.virtual_loss[node] += 1
        node = tree.parent[node]


@kernel
def reroot(tree, new_root, remap):
    """Keep only the subtree under ``new_root``, renumbered from 0 in creation order.

    A subtree's nodes come after its root and after their own parents, so the nodes can be
    moved down in one pass in increasing order. ``remap`` is int32[M] work space.
    """
    used = tree.num_nodes[0]
    prior_rows = tree.prior.shape[0] > 1
    amaf_rows = tree.amaf_visits.shape[0] > 1
    num_actions = tree.children.shape[1]
    kept = 0
    for old in range(new_root, used):
        parent = tree.parent[old]
        if old != new_root and (parent < new_root or remap[parent] < 0):
            remap[old] = -1
            continue
        remap[old] = kept
        tree.parent[kept] = NO_PARENT if old == new_root else remap[parent]
        tree.action[kept] = NO_PARENT if old == new_root else tree.action[old]
        tree.visits[kept] = tree.visits[old]
        tree.value_sum[kept] = tree.value_sum[old]
        tree.virtual_loss[kept] = tree.virtual_loss[old]
        tree.expanded[kept] = tree.expanded[old]
        for a in range(num_actions):
            tree.children[kept, a] = tree.children[old, a]
            if prior_rows:
                tree.prior[kept, a] = tree.prior[old, a]
            if amaf_rows:
                tree.amaf_visits[kept, a] = tree.amaf_visits[old, a]
                tree.amaf_value[kept, a] = tree.amaf_value[old, a]
        kept += 1
    for node in range(kept):
        if tree.expanded[node]:
            for a in range(num_actions):
                child = tree.children[node, a]
                if child >= 0:
                    tree.children[node, a] = remap[child]
    tree.num_nodes[0] = kept


def principal_variation(tree: Tree, move: int) -> tuple[int, ...]:
    """``move`` and then the most visited move at each node below it (the root's child)."""
    line = [move]
    node = int(tree.children[ROOT, move])
    while node >= 0 and tree.expanded[node]:
        row = tree.children[node]
        created = np.flatnonzero(row >= 0)
        if created.size == 0:
            break
        best = created[np.argmax(tree.visits[row[created]])]
        line.append(int(best))
        node = int(row[best])
    return tuple(line)


class Candidate(NamedTuple):
    """A root move as the search sees it."""

    move: int
    visits: int
    value: float  # mean value for the side to move at the root, in [-1, 1]
    prior: float  # the search's prior (uniform over legal moves for UCT)
    pv: tuple[int, ...]  # most-visited line, starting with ``move``


class TreeSearch:
    """What UCT and PUCT share: the tree kept across moves, budgets, and reading results.

    Subclasses run simulations in ``_simulate`` (and may prepare the root in ``_prepare``).

    Args:
        priors: keep a prior per move (PUCT).
        amaf: keep AMAF statistics (RAVE).
        reuse: keep the subtree of the moves played between searches (else start afresh).
        seed: seed of the search's random generator.
        capacity: initial room for nodes; the tree grows when a search needs more.
    """

    def __init__(self, priors: bool, amaf: bool, reuse: bool, seed: int | None, capacity: int = 1024):
        self.reuse = reuse
        self._priors = priors
        self._amaf = amaf
        self._capacity = capacity
        self._rng = random_state(seed)
        self.np_random = np.random.default_rng(seed)
        self.tree: Tree | None = None
        self._scratch: Scratch | None = None
        self._owner: np.ndarray | None = None  # see ``settle_finished_games``
        self._game_key: tuple | None = None
        self._root_moves: list[int] = []
        self.simulations = 0  # run by the last search
        self.root_version = 0  # changes whenever the root does

    # -- the tree across moves ----------------------------------------------------------

    def reset(self) -> None:
        """Forget the tree; the next search starts from a fresh root."""
        self._game_key = None
        self._root_moves = []
        self.root_version += 1
        if self.tree is not None:
            clear(self.tree)

    def sync(self, game: Game) -> None:
        """Make the root ``game``'s position: advance it along the moves played since the
        last search when they are in the tree (and ``reuse`` is on), else start afresh."""
        num_actions = game.num_points + 1
        if self.tree is None or self.tree.children.shape[1] != num_actions:
            self.tree = new_tree(self._capacity, num_actions, self._priors, self._amaf)
        if self._scratch is None or shapes(self._scratch.state) != shapes(game.state):
            self._scratch = new_scratch(game.state)
        key = (game.size, game.rules, tuple(game.setup_black), tuple(game.setup_white), game.first_to_play)
        if key == self._game_key and game.moves == self._root_moves:
            return
        self.root_version += 1
        known = len(self._root_moves)
        if self.reuse and key == self._game_key and game.moves[:known] == self._root_moves:
            for move in game.moves[known:]:
                child = self.tree.children[ROOT, move] if self.tree.expanded[ROOT] else UNVISITED
                if child < 0:
                    clear(self.tree)
                    break
                reroot(self.tree, child, np.empty(self.tree.parent.shape[0], np.int32))
        else:
            clear(self.tree)
        self._game_key = key
        self._root_moves = list(game.moves)

    def _reserve(self, count: int) -> int:
        """Grow the tree if needed so that ``count`` more nodes fit; return ``count``."""
        assert self.tree is not None
        needed = int(self.tree.num_nodes[0]) + count
        if needed > self.tree.parent.shape[0]:
            self.tree = grow(self.tree, max(needed, 2 * self.tree.parent.shape[0]))
        return count

    def settle_finished_games(self, owner: np.ndarray | None) -> None:
        """From the next search on, score a game that finishes in the tree without the stones
        on points that ``owner`` (int8[N*N]: ``BLACK``, ``WHITE`` or 0 per point) gives the
        other side, as where dead stones are taken off before the count; None: count every
        stone, as Tromp-Taylor rules do (the default). A tree kept from earlier searches
        keeps the values it has; its finished games are scored afresh at each visit."""
        self._owner = None if owner is None else np.asarray(owner, np.int8)

    # -- searching ----------------------------------------------------------------------

    def search(
        self,
        game: Game,
        simulations: int | None = None,
        seconds: float | None = None,
        stop: Callable[[], bool] | None = None,
        report: Callable[[list[Candidate]], None] | None = None,
        interval: float = 1.0,
    ) -> int:
        """Search ``game``'s position (``game`` is not changed) and return the most visited move.

        The search runs until the first of: ``simulations`` done, ``seconds`` passed,
        ``stop()`` true. Time and ``stop`` are checked between chunks of simulations (a few
        milliseconds each), ``report`` gets the candidates about every ``interval`` seconds
        and once at the end. However short the budget, at least one root move is visited.
        """
        if game.is_over:
            raise ValueError("the game is over: there is nothing to search")
        if simulations is None and seconds is None and stop is None:
            raise ValueError("give a budget: simulations, seconds or stop")
        start = time.perf_counter()  # syncing the tree is part of the move's time
        self.sync(game)
        assert self._scratch is not None
        if self._owner is not None and self._owner.shape != self._scratch.owner.shape:
            raise ValueError(f"owner has {self._owner.size} points; the board has {game.num_points}")
        self._scratch.owner[:] = 0 if self._owner is None else self._owner
        deadline = None if seconds is None else start + seconds
        next_report = start + interval
        watched = seconds is not None or stop is not None or report is not None
        chunk = MIN_CHUNK
        done = self._prepare(game)
        done += self._strike_root_moves(game)
        while simulations is None or done < simulations:
            remaining = chunk if simulations is None else simulations - done
            began = time.perf_counter()
            ran = self._simulate(game, self._reserve(min(chunk, remaining) if watched else remaining))
            done += ran
            now = time.perf_counter()
            if ran == 0 or (deadline is not None and now >= deadline) or (stop is not None and stop()):
                break
            if report is not None and now >= next_report:
                report(self.candidates())
                next_report = now + interval
            # Chunks sized by the last one's rate; the last one is cut to end at the deadline.
            rate = ran / max(now - began, 1e-6)
            chunk = max(MIN_CHUNK, int(rate * CHUNK_SECONDS))
            if deadline is not None:
                chunk = max(1, min(chunk, int(rate * (deadline - now))))
        while not self.visit_counts().any():  # leave a move to play, whatever the budget
            done += self._simulate(game, self._reserve(1))
        self.simulations = done
        if report is not None:
            report(self.candidates())
        return self.best_move()

    def _prepare(self, game: Game) -> int:
        """Get the root ready for a search; return the simulations that took."""
        return 0

    def _strike_root_moves(self, game: Game) -> int:
        """Take off the root the moves that recreate an earlier whole board (whatever the
        game's ko rule, a positional-superko referee forfeits them) and those that fill a true
        eye of the side to move's own (never better than a pass; against GNU Go a network's
        search filled its own eyes in a clean-up phase and lost its group): ``ILLEGAL``, no
        prior, so that the search's visits go elsewhere. The root is expanded first where it
        is not (a simulation or two); return the simulations that took."""
        state, geometry, color = game.state, game.geometry, game.to_play
        empty = np.flatnonzero(game.board.ravel() == K.EMPTY)
        eyes = [p for p in empty if K.is_eye(state, geometry, int(p), color)]
        struck = np.concatenate([game.repeating_moves(), np.asarray(eyes, np.int64)])
        if not len(struck):
            return 0
        assert self.tree is not None
        done = 0
        while not self.tree.expanded[ROOT]:
            done += self._simulate(game, self._reserve(1))
        self.tree.children[ROOT, struck] = ILLEGAL
        if self._priors:
            self.tree.prior[ROOT, struck] = 0.0
        return done

    def _simulate(self, game: Game, count: int) -> int:
        """Run up to ``count`` simulations; return how many ran."""
        raise NotImplementedError

    # -- reading the root ---------------------------------------------------------------

    def _root_children(self) -> np.ndarray:
        assert self.tree is not None, "search first"
        return self.tree.children[ROOT]

    def _per_root_move(self, of_nodes: Callable[[np.ndarray], np.ndarray], dtype: type) -> np.ndarray:
        """``of_nodes(children)`` at each root move with a child node, 0 at the others."""
        children = self._root_children()
        assert self.tree is not None
        out: np.ndarray = np.zeros(children.shape[0], dtype)
        if self.tree.expanded[ROOT]:
            created = children >= 0
            out[created] = of_nodes(children[created])
        return out

    def visit_counts(self) -> np.ndarray:
        """int64[A]: visits of each root move (0 for unvisited and illegal moves)."""
        assert self.tree is not None, "search first"
        return self._per_root_move(self.tree.visits.__getitem__, np.int64)

    def values(self) -> np.ndarray:
        """float64[A]: mean value of each root move for the side to move (0 where unvisited)."""
        tree = self.tree
        assert tree is not None, "search first"
        mean = lambda nodes: tree.value_sum[nodes] / np.maximum(tree.visits[nodes], 1)  # noqa: E731
        return self._per_root_move(mean, np.float64)

    def priors(self) -> np.ndarray:
        """float64[A]: the root's move priors (uniform over the legal moves without a prior)."""
        assert self.tree is not None, "search first"
        if self._priors:
            return self.tree.prior[ROOT].astype(np.float64)
        legal = (self._root_children() != ILLEGAL).astype(np.float64)
        return legal / max(legal.sum(), 1.0)

    def visit_distribution(self, temperature: float = 1.0) -> np.ndarray:
        """float64[A]: root visits to the power ``1/temperature``, normalised (temperature 0:
        all mass on the most visited move). Illegal moves get none."""
        counts = self.visit_counts().astype(np.float64)
        if temperature == 0.0:
            distribution = np.zeros_like(counts)
            distribution[self.best_move()] = 1.0
            return distribution
        logs = np.full_like(counts, -np.inf)
        visited = counts > 0
        logs[visited] = np.log(counts[visited]) / temperature
        weights = np.exp(logs - logs.max())
        return weights / weights.sum()

    def choose_move(self, temperature: float = 0.0) -> int:
        """A root move drawn from ``visit_distribution(temperature)``: the most visited at 0."""
        if temperature == 0.0:
            return self.best_move()
        distribution = self.visit_distribution(temperature)
        return int(self.np_random.choice(distribution.shape[0], p=distribution))

    def best_move(self) -> int:
        """The most visited root move; ties go to the better value."""
        order = np.lexsort((-self.values(), -self.visit_counts()))
        return int(order[0])

    def principal_variation(self, move: int) -> tuple[int, ...]:
        """``move`` and then the most visited move at each node below it."""
        assert self.tree is not None
        return principal_variation(self.tree, move)

    def candidates(self, limit: int | None = None) -> list[Candidate]:
        """The visited root moves, most visited first (``limit`` of them at most)."""
        counts, values, priors = self.visit_counts(), self.values(), self.priors()
        order = [int(a) for a in np.lexsort((-values, -counts)) if counts[a] > 0][:limit]
        return [
            Candidate(a, int(counts[a]), float(values[a]), float(priors[a]), self.principal_variation(a))
            for a in order
        ]
