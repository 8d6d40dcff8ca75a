"""One batched search in mctx's shape: a tree per game of a ``GameBatch``, searched in lock step.

``BatchedSearch`` is the driver that every batched search shares: it allocates the trees and
the work arrays, runs the steps (each collects the games' leaves in one kernel, hands all of
them to the evaluator in one call, then expands and backs them up in another kernel), keeps a
game's subtree of the move played for the next search, and reads the roots. What differs
between searches, as the root and interior selection and the Q transform differ between
mctx's policies, is a configuration of it (a subclass that gives the collection kernel, the
root's noise and the result): ``BatchedPUCT`` (AlphaZero's PUCT, Dirichlet noise, moves drawn
by visits) and ``GumbelSearch`` (Gumbel noise, sequential halving at the root, the improved
policy as target). Every caller uses one result surface::

    search = GumbelSearch(network, seed=0)              # or BatchedPUCT(network, noise=0.25, ...)
    while not batch.is_over.all():
        moves = search.search(batch, simulations=16)    # int64[B]: the search's own choice
        targets = search.policy_targets()               # float64[B, A]: training targets
        moves = search.choose_moves(temperature=1.0)    # PUCT draws by visits; Gumbel keeps its choice
        search.play(batch, moves)                       # keeps the trees' subtrees where reuse is on

and ``visit_counts()``, ``values()``, ``root_values()``, ``simulations``, ``steps``,
``evaluations`` alike.

The single-game ``PUCT`` (``search.puct``, over ``TreeSearch``) stays the driver players use,
not a batch of one: a player searches on a clock (``seconds``, ``stop``) and reports as it goes
(``report``, principal variations, ``lz-analyze``), grows its tree as the game's moves come
(``sync``), lets callers evaluate leaves themselves (``ask``/``tell``, AlphaGo's mixed
evaluator and expansion threshold) and shares all that with UCT and RAVE; a batch driver plans a
fixed number of simulations for many games at once and has none of it. The two PUCT drivers
cannot drift apart: they run the same ``collect`` and ``expand_backup`` kernels, and a batch of
one grows PUCT's golden trees (``tests/search/test_batched_puct.py``). Gumbel search has no
clock to keep (sequential halving plans its whole budget), so a player runs it as a batch of
one (``agents.players.network``, ``play=gumbel``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable

import numba
import numpy as np
from numba import prange

from go_env import core as K
from go_env.batch import GameBatch
from go_env.core import GoState, inline_kernel
from go_env.core.parallel import BatchKernel, batch_kernel
from goarena.search.evaluator import (
    Evaluator,
    Leaves,
    Scratch,
    UniformEvaluator,
    as_evaluator,
    check_evaluation,
    new_scratch,
    shapes,
)
from goarena.search.puct import expand_backup
from goarena.search.tree import ROOT, Tree, clear, new_tree, reroot


@inline_kernel
def tree_item(trees, b):
    """Tree ``b`` of a stack of trees (every field with a leading axis), as views."""
    return Tree(
        trees.parent[b], trees.action[b], trees.visits[b], trees.value_sum[b], trees.virtual_loss[b],
        trees.expanded[b], trees.children[b], trees.prior[b], trees.amaf_visits[b], trees.amaf_value[b],
        trees.num_nodes[b],
    )  # fmt: skip


@inline_kernel
def scratch_item(states, arrays, b):
    """Work arrays ``b`` of a stack of them, as views: their states and the other arrays
    apart, since a parallel kernel takes no nested tuples."""
    return Scratch(
        K.batch_item(states, b),
        arrays[0][b],
        arrays[1][b],
        arrays[2][b],
        arrays[3][b],
        arrays[4][b],
        arrays[5][b],
    )


# The least games x board points at which the tree kernels run in parallel, given threads:
# a game's descents take microseconds, as the rules core's masks do.
MIN_WORK_TREES = 1 << 17


@batch_kernel(MIN_WORK_TREES, batch_arg=7)  # the scratch states
def expand_backup_all(
    trees, leaf_nodes, legal, expanding, collected, priors, values, scratch_states, scratch_arrays
):  # fmt: skip
    """``expand_backup`` the ``collected[b]`` leaves of every game ``b``."""
    for b in prange(collected.shape[0]):
        n = collected[b]
        if n > 0:
            expand_backup(
                tree_item(trees, b), leaf_nodes[b, :n], legal[b, :n], expanding[b, :n], priors[b, :n],
                values[b, :n], scratch_item(scratch_states, scratch_arrays, b),
            )  # fmt: skip


def root_stats(trees: Tree) -> tuple[np.ndarray, np.ndarray]:
    """(visits int64[B, A], mean values float64[B, A] for the side to move) of every root move
    of a stack of trees; 0 where a move is unvisited or illegal."""
    children = trees.children[:, ROOT]
    created = (children >= 0) & (trees.expanded[:, ROOT, None] != 0)
    nodes = np.where(created, children, 0)
    visits = np.where(created, np.take_along_axis(trees.visits, nodes, axis=1), 0).astype(np.int64)
    sums = np.where(created, np.take_along_axis(trees.value_sum, nodes, axis=1), 0.0)
    return visits, sums / np.maximum(visits, 1)


def _positions(batch: GameBatch) -> np.ndarray:
    """int64[B, 2]: each game's board key and move number, which tell a kept tree's position."""
    return np.stack([batch.state.key[:, 0].view(np.int64), batch.state.info[:, K.INFO_MOVE_NUMBER]], axis=1)


def _stacked(fields: tuple[np.ndarray, ...], count: int) -> list[np.ndarray]:
    return [np.repeat(field[None], count, axis=0) for field in fields]


class BatchedSearch(ABC):
    """The batched driver (see the module documentation); a configuration gives
    ``_collect``, ``_chosen_moves`` and ``policy_targets`` and may prepare the roots.

    Args:
        evaluator: an ``Evaluator`` or a callable ``f(leaves) -> (priors, values)``
            (default: ``UniformEvaluator``); it gets the leaves of all games in one call.
        leaves_per_game: leaves each game collects per step (with virtual losses).
        reuse: keep each game's subtree of the move played by ``play`` for the next search,
            which then runs only the simulations its root lacks.
        threads: numba threads that may work on the trees during a search (at most numba's
            number and one per game). A step's tree work is small, microseconds a game, and
            waking threads for it twice a step costs more than it saves unless the games are
            many and the cores idle; hence one by default, and with more the tree kernels run
            in parallel only on batches above ``MIN_WORK_TREES``. The evaluator's own kernels
            choose for themselves.
        seed: seed of the search's random draws.
    """

    # Root visits a search of ``simulations`` aims at beyond them: 0 where the root's own
    # evaluation is one of the simulations (PUCT), 1 where it comes first (Gumbel).
    root_evaluation_extra = 0

    def __init__(
        self,
        evaluator: Evaluator | Callable[[Leaves], tuple[np.ndarray, np.ndarray]] | None,
        leaves_per_game: int,
        reuse: bool,
        threads: int,
        seed: int | None,
    ):
        if leaves_per_game < 1 or threads < 1:
            raise ValueError("leaves_per_game and threads must be >= 1")
        self.evaluator = as_evaluator(evaluator if evaluator is not None else UniformEvaluator())
        self.leaves_per_game = leaves_per_game
        self.reuse = reuse
        self.threads = threads
        self.np_random = np.random.default_rng(seed)
        self.trees: Tree | None = None  # every field with a leading axis [B]
        self._key: tuple | None = None  # the shapes the work arrays were made for
        self._kept: np.ndarray | None = None  # (key, move number) of each game whose tree ``play`` kept
        self._moves = np.zeros(0, np.int64)  # the last search's choices
        self.simulations = np.zeros(0, np.int64)  # per game, in the last search
        self.steps = 0  # collection steps of the last search
        self.evaluations = 0  # evaluator calls of the last search (one per step with leaves)

    # -- a configuration's part ------------------------------------------------------------

    def _start(self, batch: GameBatch, simulations: int) -> None:  # noqa: B027 (optional hook)
        """Prepare the roots before the first step (a kept root is expanded already)."""

    def _roots_expanded(self, games: np.ndarray) -> None:  # noqa: B027 (optional hook)
        """After the first step: the roots of ``games`` were expanded by it."""

    @abstractmethod
    def _collect(
        self, batch: GameBatch, counts: np.ndarray, collected: np.ndarray, finished: np.ndarray
    ) -> None:
        """Collect up to ``counts[b]`` leaves in every game ``b`` into the work arrays
        (``_leaves``, ``_nodes``, ``_legal``, ``_expanding``), each with a virtual loss on its
        path; ``collected[b]`` of them and ``finished[b]`` simulations scored by the rules."""

    @abstractmethod
    def _chosen_moves(self, batch: GameBatch) -> np.ndarray:
        """int64[B]: the move each game should play after the search (pass in finished games)."""

    @abstractmethod
    def policy_targets(self) -> np.ndarray:
        """float64[B, A]: each game's training target over its legal moves (0 on illegal ones);
        zeros in finished games."""

    # -- the driver --------------------------------------------------------------------------

    def search(self, batch: GameBatch, simulations: int) -> np.ndarray:
        """Run ``simulations`` simulations in every running game of ``batch`` (left unchanged);
        finished games are skipped.

        Returns:
            int64[B]: the move each game should play (pass in finished games).
        """
        if simulations < 1:
            raise ValueError(f"simulations must be >= 1, got {simulations}")
        target = simulations + self.root_evaluation_extra  # root visits wanted
        trees, k = self._allocate(batch, target), self.leaves_per_game
        visited = trees.visits[:, ROOT].astype(np.int64)  # a kept tree's visits count
        done = np.where(batch.is_over, target, np.minimum(visited, target))
        fresh = trees.expanded[:, ROOT] == 0
        self._start(batch, simulations)
        collected = np.zeros(batch.batch_size, np.int64)
        finished = np.zeros(batch.batch_size, np.int64)
        slots = np.arange(k)[None, :]
        self.steps = self.evaluations = 0
        while (counts := np.minimum(k, target - done)).any():
            self._collect(batch, counts, collected, finished)
            self.steps += 1
            done += collected + finished
            if not collected.any():
                if finished.any():
                    continue
                break  # trees full
            taken = slots < collected[:, None]
            states = GoState(*(field[taken] for field in self._leaves))
            leaves = Leaves(states, self._legal[taken], batch.geometry)
            priors, values = check_evaluation(leaves.legal, *self.evaluator.evaluate(leaves))
            self.evaluations += 1
            self._priors[taken] = priors
            self._values[taken] = values
            self._on_trees(
                expand_backup_all,
                trees, self._nodes, self._legal, self._expanding, collected, self._priors, self._values,
                self._scratch_states, self._scratch_arrays,
            )  # fmt: skip
            if self.steps == 1:
                self._roots_expanded(np.flatnonzero((counts > 0) & fresh))
        self.simulations = np.where(batch.is_over, 0, np.clip(done - visited, 0, simulations))
        self._moves = self._chosen_moves(batch)
        return self._moves.copy()

    def _allocate(self, batch: GameBatch, visits: int) -> Tree:
        """Trees with room for ``visits`` root visits in each game, and the work arrays; a
        game's tree is kept if ``play`` kept it for the position it is in now, else emptied."""
        size, k = batch.batch_size, self.leaves_per_game
        key = (shapes(batch.state), k)
        trees = self.trees
        kept = self._kept_trees(batch) if key == self._key else np.zeros(size, bool)
        if key != self._key or trees is None or trees.parent.shape[1] < visits + 1:
            # A visit adds one node at most, and a kept tree has no more nodes than visits.
            old = trees
            trees = Tree(*_stacked(new_tree(visits + 1, batch.num_actions, priors=True), size))
            if old is not None and kept.any():
                for new_field, old_field in zip(trees, old, strict=True):
                    new_field[:, : old_field.shape[1]] = old_field
            one = K.state_item(batch.state, 0)
            scratch = new_scratch(one)
            self._scratch_states = GoState(*_stacked(scratch.state, size))
            self._scratch_arrays = tuple(_stacked(scratch[1:], size))  # Scratch's other fields
            self._leaves = GoState(*(np.zeros((size, k, *field.shape), field.dtype) for field in one))
            self._nodes = np.zeros((size, k), np.int32)
            self._legal = np.zeros((size, k, batch.num_actions), np.int8)
            self._expanding = np.zeros((size, k), np.int8)  # all set by collection: no expansion threshold
            self._priors = np.zeros((size, k, batch.num_actions), np.float32)
            self._values = np.zeros((size, k), np.float64)
            self._key = key
        for b in np.flatnonzero(~kept):
            clear(Tree(*(field[b] for field in trees)))
        self.trees = trees
        self._kept = None
        return trees

    def _kept_trees(self, batch: GameBatch) -> np.ndarray:
        """bool[B]: the games whose tree ``play`` kept for the position they are in now."""
        if self._kept is None or len(self._kept) != batch.batch_size:
            return np.zeros(batch.batch_size, bool)
        return (self._kept == _positions(batch)).all(axis=1)

    def _on_trees(self, kernel: BatchKernel, *args: object) -> None:
        """Run a tree kernel on at most ``threads`` threads (serial on one)."""
        if self.threads == 1:
            kernel.serial(*args)
            return
        previous = numba.get_num_threads()
        numba.set_num_threads(min(self.threads, previous))
        try:
            kernel(*args)
        finally:
            numba.set_num_threads(previous)

    def play(self, batch: GameBatch, moves: np.ndarray) -> None:
        """Play ``moves`` (int[B]) in ``batch``; with ``reuse``, each game's tree keeps the
        subtree of its move for the next search."""
        batch.play(moves)
        if not self.reuse or self.trees is None:
            return
        trees = self.trees
        remap = np.empty(trees.parent.shape[1], np.int32)
        for b, move in enumerate(np.asarray(moves)):
            tree = Tree(*(field[b] for field in trees))
            child = tree.children[ROOT, move] if tree.expanded[ROOT] else -1
            if child > 0 and not batch.is_over[b]:
                reroot(tree, child, remap)
            else:
                clear(tree)
        self._kept = _positions(batch)

    # -- reading the roots -------------------------------------------------------------------

    def _root_stats(self) -> tuple[np.ndarray, np.ndarray]:
        assert self.trees is not None, "search first"
        return root_stats(self.trees)

    def visit_counts(self) -> np.ndarray:
        """int64[B, A]: visits of each root move of each game (0 where unvisited or illegal)."""
        return self._root_stats()[0]

    def values(self) -> np.ndarray:
        """float64[B, A]: mean value of each root move for the side to move (0 where unvisited)."""
        return self._root_stats()[1]

    def root_values(self) -> np.ndarray:
        """float64[B]: each root's mean value over its evaluation and simulations, for the side
        to move (0 in finished games)."""
        trees = self.trees
        assert trees is not None, "search first"
        visits = trees.visits[:, ROOT]
        return np.where(visits > 0, -trees.value_sum[:, ROOT] / np.maximum(visits, 1), 0.0)

    def best_moves(self) -> np.ndarray:
        """int64[B]: the moves the last search chose (pass in finished games)."""
        assert self.trees is not None, "search first"
        return self._moves.copy()

    def choose_moves(self, temperature: float = 0.0) -> np.ndarray:
        """int64[B]: the move to play in each game at ``temperature`` (pass where nothing was
        searched). Here the search's own choice; PUCT draws by visits."""
        return self.best_moves()
