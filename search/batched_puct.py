"""Batched PUCT: ``BatchedSearch`` configured with AlphaZero's selection, for self-play.

Each step collects up to ``leaves_per_game`` leaves in every game still searching (one
parallel kernel over the games, PUCT's ``collect`` in each), hands all of them to the evaluator
in one call, then expands and backs them up (``search.batched``). A network thus sees one batch
of about ``B · leaves_per_game`` positions per step, however many games are played::

    batch = GameBatch(9, 64, seed=0)
    search = BatchedPUCT(network, noise=0.25, seed=0)
    while not batch.is_over.all():
        search.search(batch, simulations=200)
        targets = search.policy_targets()               # float[B, A], the visit distributions
        search.play(batch, search.choose_moves(temperature=1.0))

Game ``b``'s tree is the one ``PUCT(evaluator, batch=leaves_per_game)`` grows for that game
alone, given an evaluator that values each leaf on its own: the same selection, the same
chunks of leaves, the same noise for one game.

With ``reuse=True``, moves are played through ``search.play(batch, moves)``: each game keeps
the subtree of its move, and the next search tops its root up to ``simulations`` visits (as
KataGo's visit limit does), so the visits already spent below the move are not paid twice.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import prange

from go_env import core as K
from go_env.batch import GameBatch
from go_env.core.parallel import batch_kernel
from goarena.search.batched import (
    MIN_WORK_TREES,
    BatchedSearch,
    expand_backup_all,
    scratch_item,
    tree_item,
)
from goarena.search.evaluator import Evaluator, Leaves
from goarena.search.puct import collect, mix_root_noise
from goarena.search.selection import make_selection
from goarena.search.tree import ROOT, Tree

# The kernels are tested in tests/search/test_batched_puct.py.
__all__ = ["BatchedPUCT", "collect_all", "expand_backup_all"]


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


class BatchedPUCT(BatchedSearch):
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
        reuse, threads: as for ``BatchedSearch``.
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
        if not 0.0 <= noise <= 1.0:
            raise ValueError(f"noise must be in [0, 1], got {noise}")
        super().__init__(evaluator, leaves_per_game, reuse, threads, seed)
        self.selection = make_selection(selection, c_puct, fpu, virtual_loss, fpu_reduction)
        self.noise = noise
        self.dirichlet_alpha = dirichlet_alpha

    def _start(self, batch: GameBatch, simulations: int) -> None:
        assert self.trees is not None
        kept = self.trees.expanded[:, ROOT] != 0
        self._add_noise(np.flatnonzero(kept & ~batch.is_over))  # fresh noise on a kept root

    def _roots_expanded(self, games: np.ndarray) -> None:
        self._add_noise(games)

    def _collect(
        self, batch: GameBatch, counts: np.ndarray, collected: np.ndarray, finished: np.ndarray
    ) -> None:
        self._on_trees(
            collect_all,
            self.trees, batch.state, batch.geometry, self._scratch_states, self._scratch_arrays, self._leaves,
            self._nodes, self._legal, self._expanding, counts, self.selection, collected, finished,
        )  # fmt: skip

    def _add_noise(self, games: np.ndarray) -> None:
        """Mix Dirichlet noise into the priors of the roots of ``games``, as ``PUCT`` does."""
        assert self.trees is not None
        if self.noise == 0.0:
            return
        for b in games:
            if self.trees.expanded[b, ROOT]:
                tree = Tree(*(field[b] for field in self.trees))
                mix_root_noise(tree, self.noise, self.dirichlet_alpha, self.np_random)

    # -- reading the roots ------------------------------------------------------------------

    def _chosen_moves(self, batch: GameBatch) -> np.ndarray:
        """The most visited root move of each game, ties to the better value; pass where
        nothing was searched."""
        counts, values = self._root_stats()
        moves = np.lexsort((-values, -counts))[:, 0]
        return np.where(counts.any(axis=1), moves, counts.shape[1] - 1)

    def policy_targets(self) -> np.ndarray:
        """float64[B, A]: each game's root visit distribution (``visit_distributions(1.0)``)."""
        return self.visit_distributions(1.0)

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
