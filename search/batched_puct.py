"""Batched PUCT: one tree per game of a ``GameBatch``, searched in lock step, for self-play.

Each step collects up to ``leaves_per_game`` leaves in every game still searching (one
parallel kernel over the games), hands all of them to the evaluator in one call, then expands
and backs them up (another parallel kernel). A network thus sees one batch of about
``B · leaves_per_game`` positions per step, however many games are played::

    batch = GameBatch(9, 64, seed=0)
    search = BatchedPUCT(network, noise=0.25, seed=0)
    while not batch.is_over.all():
        search.search(batch, simulations=200)
        targets = search.visit_distributions()          # float[B, A], training targets
        batch.play(search.choose_moves(temperature=1.0))

Game ``b``'s tree is the one ``PUCT(evaluator, batch=leaves_per_game)`` grows for that game
alone, given an evaluator that values each leaf on its own: the same selection, the same
chunks of leaves, the same noise for one game.

With ``reuse=True``, moves are played through ``search.play(batch, moves)``: each game keeps
the subtree of its move, and the next search tops its root up to ``simulations`` visits (as
KataGo's visit limit does), so the visits already spent below the move are not paid twice.
"""

from __future__ import annotations

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
from goarena.search.puct import collect, expand_backup, mix_root_noise
from goarena.search.selection import make_selection
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


@batch_kernel(MIN_WORK_TREES, batch_arg=1)  # the roots
def collect_all(
    trees, roots, geometry, scratch_states, scratch_arrays, leaves, leaf_nodes, legal, expanding, counts,
    selection, collected, finished,
):  # fmt: skip
    """``collect`` up to ``counts[b]`` leaves in every game ``b``, into ``leaves`` (fields
    [B, k, ...]), ``leaf_nodes[b]`` and ``legal[b]``; counts go to ``collected`` and ``finished``."""
    for b in prange(counts.shape[0]):
        collected[b] = 0
        finished[b] = 0
        if counts[b] > 0:
            scratch = scratch_item(scratch_states, scratch_arrays, b)
            leaves_b, finished_b = collect(
                tree_item(trees, b), K.batch_item(roots, b), geometry, scratch, K.batch_item(leaves, b),
                leaf_nodes[b], legal[b], expanding[b], counts[b], selection, 0,
            )  # fmt: skip
            collected[b] = leaves_b
            finished[b] = finished_b


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


class BatchedPUCT:
    """PUCT over every game of a ``GameBatch`` at once, one evaluator call per step.

    Args:
        evaluator: an ``Evaluator`` or a callable ``f(leaves) -> (priors, values)``
            (default: ``UniformEvaluator``); it gets the leaves of all games in one call.
        c_puct: exploration constant.
        leaves_per_game: leaves each game collects per step (with virtual losses).
        noise: ε, the weight of Dirichlet noise in each root's priors (0: none).
        dirichlet_alpha: α of the noise; ``None``: ``10 / number of legal moves``.
        seed: seed of the noise and of ``choose_moves``.
        selection, fpu, fpu_reduction, virtual_loss: the selection rule and its parameters,
            as for ``PUCT``.
        reuse: keep each game's subtree of the move played by ``play`` for the next search,
            which then runs only the simulations its root lacks.
        threads: numba threads that may work on the trees during a search (at most numba's
            number and one per game). A step's tree work is small, microseconds a game, and
            waking threads for it twice a step costs more than it saves unless the games are
            many and the cores idle; hence one by default, and with more the tree kernels run
            in parallel only on batches above ``MIN_WORK_TREES``. The evaluator's own kernels
            choose for themselves.
    """

    def __init__(
        self,
        evaluator: Evaluator | Callable[[Leaves], tuple[np.ndarray, np.ndarray]] | None = None,
        c_puct: float = 1.5,
        leaves_per_game: int = 1,
        noise: float = 0.0,
        dirichlet_alpha: float | None = None,
        seed: int | None = None,
        selection: str = "alphazero",
        fpu: float = 0.0,
        fpu_reduction: float | None = None,
        virtual_loss: float = 1.0,
        reuse: bool = False,
        threads: int = 1,
    ):
        if leaves_per_game < 1 or threads < 1 or not 0.0 <= noise <= 1.0:
            raise ValueError("leaves_per_game and threads must be >= 1 and noise in [0, 1]")
        self.threads = threads
        self.reuse = reuse
        self.evaluator = as_evaluator(evaluator if evaluator is not None else UniformEvaluator())
        self.selection = make_selection(selection, c_puct, fpu, virtual_loss, fpu_reduction)
        self.leaves_per_game = leaves_per_game
        self.noise = noise
        self.dirichlet_alpha = dirichlet_alpha
        self.np_random = np.random.default_rng(seed)
        self.trees: Tree | None = None  # every field with a leading axis [B]
        self._key: tuple | None = None  # the shapes the work arrays were made for
        self._kept: np.ndarray | None = None  # (key, move number) of each game whose tree ``play`` kept
        self.simulations = np.zeros(0, np.int64)  # per game, in the last search
        self.steps = 0  # collection steps of the last search
        self.evaluations = 0  # evaluator calls of the last search (one per step with leaves)

    def _allocate(self, batch: GameBatch, simulations: int) -> Tree:
        """Trees with room for ``simulations`` in each game, and the work arrays; a game's
        tree is kept if ``play`` kept it for the position it is in now, else emptied."""
        size, k = batch.batch_size, self.leaves_per_game
        key = (shapes(batch.state), k)
        trees = self.trees
        kept = self._kept_trees(batch) if key == self._key else np.zeros(size, bool)
        if key != self._key or trees is None or trees.parent.shape[1] < simulations + 1:
            # A simulation adds one node at most, and a kept tree has no more nodes than visits.
            old = trees
            trees = Tree(*_stacked(new_tree(simulations + 1, batch.num_actions, priors=True), size))
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
            self._expanding = np.zeros((size, k), np.int8)  # all set by collect: no expansion threshold here
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

    def search(self, batch: GameBatch, simulations: int) -> np.ndarray:
        """Run ``simulations`` simulations in every running game of ``batch`` (left unchanged).

        Returns:
            int64[B]: each game's most visited move (pass in finished games).
        """
        if simulations < 1:
            raise ValueError(f"simulations must be >= 1, got {simulations}")
        self._search(batch, simulations)
        return self.best_moves()

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

    def _search(self, batch: GameBatch, simulations: int) -> None:
        trees, k = self._allocate(batch, simulations), self.leaves_per_game
        visited = trees.visits[:, ROOT].astype(np.int64)  # a kept tree's visits count
        done = np.where(batch.is_over, simulations, np.minimum(visited, simulations))
        unexpanded = trees.expanded[:, ROOT] == 0
        if self.noise > 0.0:  # fresh noise on a kept root; a new one gets it once expanded
            self._add_noise(np.flatnonzero(~unexpanded & ~batch.is_over))
        collected = np.zeros(batch.batch_size, np.int64)
        finished = np.zeros(batch.batch_size, np.int64)
        slots = np.arange(k)[None, :]
        self.steps = self.evaluations = 0
        while (counts := np.minimum(k, simulations - done)).any():
            self._on_trees(
                collect_all,
                trees, batch.state, batch.geometry, self._scratch_states, self._scratch_arrays, self._leaves,
                self._nodes, self._legal, self._expanding, counts, self.selection, collected, finished,
            )  # fmt: skip
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
            if self.steps == 1 and self.noise > 0.0:
                self._add_noise(np.flatnonzero((counts > 0) & unexpanded))
        self.simulations = np.where(batch.is_over, 0, np.maximum(done - visited, 0))

    def _add_noise(self, games: np.ndarray) -> None:
        """Mix Dirichlet noise into the priors of the roots of ``games``, as ``PUCT`` does."""
        assert self.trees is not None
        for b in games:
            if self.trees.expanded[b, ROOT]:
                tree = Tree(*(field[b] for field in self.trees))
                mix_root_noise(tree, self.noise, self.dirichlet_alpha, self.np_random)

    # -- reading the roots ------------------------------------------------------------------

    def _root_stats(self) -> tuple[np.ndarray, np.ndarray]:
        assert self.trees is not None, "search first"
        return root_stats(self.trees)

    def visit_counts(self) -> np.ndarray:
        """int64[B, A]: visits of each root move of each game (0 where unvisited or illegal)."""
        return self._root_stats()[0]

    def values(self) -> np.ndarray:
        """float64[B, A]: mean value of each root move for the side to move (0 where unvisited)."""
        return self._root_stats()[1]

    def best_moves(self) -> np.ndarray:
        """int64[B]: the most visited root move of each game, ties to the better value; pass
        where nothing was searched."""
        counts, values = self._root_stats()
        moves = np.lexsort((-values, -counts))[:, 0]
        return np.where(counts.any(axis=1), moves, counts.shape[1] - 1)

    def visit_distributions(self, temperature: float = 1.0) -> np.ndarray:
        """float64[B, A]: each game's root visits to the power ``1/temperature``, normalised
        (temperature 0: all mass on the best move); a row of zeros where nothing was searched."""
        counts = self.visit_counts().astype(np.float64)
        searched = counts.sum(axis=1) > 0
        if temperature == 0.0:
            distributions = np.zeros_like(counts)
            distributions[np.arange(len(counts)), self.best_moves()] = 1.0
        else:
            logs = np.where(counts > 0, np.log(np.maximum(counts, 1.0)) / temperature, -np.inf)
            weights = np.exp(logs - np.where(searched, logs.max(axis=1), 0.0)[:, None])
            distributions = weights / np.maximum(weights.sum(axis=1, keepdims=True), 1e-300)
        return np.where(searched[:, None], distributions, 0.0)

    def choose_moves(self, temperature: float = 0.0) -> np.ndarray:
        """int64[B]: a root move of each game drawn from ``visit_distributions(temperature)``
        (the best at 0; pass where nothing was searched)."""
        if temperature == 0.0:
            return self.best_moves()
        distributions = self.visit_distributions(temperature)
        moves = np.full(len(distributions), distributions.shape[1] - 1, np.int64)
        for b in np.flatnonzero(distributions.any(axis=1)):
            moves[b] = self.np_random.choice(distributions.shape[1], p=distributions[b])
        return moves
