"""Gumbel root search (Danihelka et al. 2022, "Policy improvement by planning with Gumbel")
over every game of a ``GameBatch`` at once, one evaluator call per step.

At each root the search draws Gumbel noise ``g(a)`` and considers the ``m`` legal moves with
the highest ``g(a) + logits(a)`` (``logits``: the log of the evaluator's priors). Sequential
halving spreads the simulations over them: ``ceil(log2 m)`` rounds, each giving every
surviving move the same number of visits, after which the half with the highest
``g + logits + σ(q̂)`` survives (mctx's schedule: two survivors share what is left of the
budget). The move played is the survivor with the highest ``g + logits + σ(q̂)``, and the
training target is the improved policy ``softmax(logits + σ(completed Q))`` over the legal
moves. Below the root, selection is deterministic: the move whose share of the visits lags
its improved-policy probability most (``π'(a) - N(a) / (1 + Σ N)``), as in mctx.

Completed Q: a visited move's mean value; an unvisited one's is the node's mixed value
``(v + Σ N · Σ_visited π(a) q(a) / Σ_visited π(a)) / (1 + Σ N)`` (``v``: the evaluator's value
of the node). Completed Q is rescaled to [0, 1] over the node's legal moves (``q̂``) and
``σ(q̂) = (c_visit + max_b N(b)) · c_scale · q̂``.

The Gumbel noise is the exploration: no Dirichlet noise and no temperature. With
``gumbel=False`` the noise is zero and the search deterministic, for evaluation play::

    batch = GameBatch(9, 64, seed=0)
    search = GumbelSearch(network, seed=0)
    while not batch.is_over.all():
        moves = search.search(batch, simulations=16)
        targets = search.policy_targets()               # float[B, A], training targets
        search.play(batch, moves)

``simulations`` counts the visits given to the root's moves; the root's own evaluation is one
step more, so a search calls the evaluator ``simulations + 1`` times at most (a simulation that
ends in a finished game is scored by the rules, without the evaluator). Trees are not kept
between moves. The driver (trees, steps, evaluator calls, the roots' reading) is
``search.batched``'s; this module gives Gumbel's selection and result kernels.

A player on a clock gives ``search`` a time as well (``seconds``): sequential halving then
plans its budget from the time left. Once every considered move has its first visit (the
same ``m`` simulations under any budget), the search measures its rate and plans
``min(simulations, what the rate fits in the time left)``, the schedule of that budget from
then on, so that it ends as a search of that many simulations would; should the rate drop,
it stops at ``seconds`` all the same, choosing among the moves with the most visits. A
``stop`` callable ends it early too, and ``report`` hears of it about every ``interval``
seconds (live analysis); without any of them a search is the plain one above.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numba import njit

from go_env import core as K
from go_env.batch import GameBatch
from go_env.core import inline_kernel
from goarena.search.batched import BatchedSearch, root_stats, scratch_item, tree_item
from goarena.search.evaluator import Evaluator, Leaves, settled_outcome
from goarena.search.tree import (
    ILLEGAL,
    ROOT,
    UNVISITED,
    Candidate,
    Tree,
    add_node,
    add_virtual_loss,
    backup,
    principal_variation,
)

# The log-prior of a legal move whose prior is 0 (float32 underflow): finite, so that scores
# stay comparable, and far below any real prior.
PRIOR_FLOOR = 1e-30
RESCALE_EPSILON = 1e-8  # the least spread of Q that rescaling to [0, 1] divides by


def halving_schedule(considered: int, simulations: int) -> np.ndarray:
    """int64[simulations]: the visit count a considered root move must have to get
    simulation ``i``, under sequential halving of ``simulations`` over ``considered`` moves.

    Each round gives every survivor ``max(1, simulations // (ceil(log2 m) · survivors))``
    visits, then halves the survivors (down to two, which share what is left). Simulation
    ``i`` goes to the best-scoring move among those with ``schedule[i]`` visits, so a round's
    survivors are those the earlier rounds scored highest.
    """
    if simulations < 0 or considered < 0:
        raise ValueError("considered and simulations must be >= 0")
    if considered <= 1:
        return np.arange(simulations, dtype=np.int64)
    rounds = math.ceil(math.log2(considered))
    schedule: list[int] = []
    level, survivors = 0, considered
    while len(schedule) < simulations:
        for _ in range(max(1, simulations // (rounds * survivors))):
            schedule += [level] * survivors
            level += 1
        survivors = max(2, survivors // 2)
    return np.array(schedule[:simulations], np.int64)


def halving_table(max_considered: int, simulations: int) -> np.ndarray:
    """int64[max_considered + 1, max(simulations, 1)]: row ``k`` is ``halving_schedule(k, simulations)``
    (a root with ``k`` legal moves below ``max_considered`` considers them all)."""
    table = np.zeros((max_considered + 1, max(simulations, 1)), np.int64)
    for k in range(1, max_considered + 1):
        table[k, :simulations] = halving_schedule(k, simulations)
    return table


@inline_kernel
def completed_q(tree, node, c_visit, c_scale, sigma, logits):
    """Write ``σ(q̂(a))`` into ``sigma[a]`` and the log-prior into ``logits[a]`` for every legal
    move of the expanded ``node`` (``-inf`` in ``logits`` for illegal ones), for the player
    choosing at ``node``; return the visits of its children."""
    total = 0
    most = 0
    weight = 0.0
    weighted_q = 0.0
    child_sums = 0.0
    for a in range(tree.children.shape[1]):
        child = tree.children[node, a]
        if child == ILLEGAL:
            logits[a] = -np.inf
            continue
        prior = max(np.float64(tree.prior[node, a]), PRIOR_FLOOR)
        logits[a] = np.log(prior)
        if child >= 0 and tree.visits[child] > 0:
            n = tree.visits[child]
            total += n
            most = max(most, n)
            child_sums += tree.value_sum[child]
            weight += prior
            weighted_q += prior * tree.value_sum[child] / n
    # The node's first visit is its own evaluation: what its children did not bring back.
    # ``value_sum`` is kept for the player who moved into a node: the chooser here is the other.
    raw = -tree.value_sum[node] - child_sums
    mixed = raw if total == 0 else (raw + total * weighted_q / weight) / (total + 1)
    low = np.inf
    high = -np.inf
    for a in range(tree.children.shape[1]):
        child = tree.children[node, a]
        if child == ILLEGAL:
            continue
        q = mixed
        if child >= 0 and tree.visits[child] > 0:
            q = tree.value_sum[child] / tree.visits[child]
        sigma[a] = q
        low = min(low, q)
        high = max(high, q)
    scale = (c_visit + most) * c_scale / max(high - low, RESCALE_EPSILON)
    for a in range(tree.children.shape[1]):
        if tree.children[node, a] != ILLEGAL:
            sigma[a] = (sigma[a] - low) * scale
    return total


@inline_kernel
def child_visits(tree, node, a):
    child = tree.children[node, a]
    return tree.visits[child] if child >= 0 else 0


@inline_kernel
def root_move(tree, gumbel, level, c_visit, c_scale, sigma, logits):
    """The root move with the best ``g + logits + σ(q̂)`` among those with ``level`` visits
    (``level < 0``: among those with the most visits; among all legal moves if none has
    ``level``, which the schedule never leaves); -1 if the root has no legal move."""
    completed_q(tree, ROOT, c_visit, c_scale, sigma, logits)
    if level < 0:
        for a in range(tree.children.shape[1]):
            if tree.children[ROOT, a] != ILLEGAL:
                level = max(level, child_visits(tree, ROOT, a))
    best = -np.inf
    best_move = -1
    matched = False  # a move with ``level`` visits was seen (the schedule leaves one; else any will do)
    for a in range(tree.children.shape[1]):
        if tree.children[ROOT, a] == ILLEGAL:
            continue
        match = child_visits(tree, ROOT, a) == level
        if matched and not match:
            continue
        score = gumbel[a] + logits[a] + sigma[a]
        if best_move < 0 or (match and not matched) or score > best:
            best = score
            best_move = a
            matched = match
    return best_move


@inline_kernel
def interior_move(tree, node, c_visit, c_scale, sigma, logits):
    """The move below the root whose visit share lags its improved-policy probability most:
    argmax ``softmax(logits + σ(q̂))(a) - N(a) / (1 + Σ N)``; ties to the lowest move."""
    total = completed_q(tree, node, c_visit, c_scale, sigma, logits)
    top = -np.inf
    for a in range(tree.children.shape[1]):
        if tree.children[node, a] != ILLEGAL:
            top = max(top, logits[a] + sigma[a])
    norm = 0.0
    for a in range(tree.children.shape[1]):
        if tree.children[node, a] != ILLEGAL:
            norm += np.exp(logits[a] + sigma[a] - top)
    best = -np.inf
    best_move = -1
    for a in range(tree.children.shape[1]):
        if tree.children[node, a] == ILLEGAL:
            continue
        score = np.exp(logits[a] + sigma[a] - top) / norm - child_visits(tree, node, a) / (1.0 + total)
        if best_move < 0 or score > best:
            best = score
            best_move = a
    return best_move


@inline_kernel
def legal_count(tree, node):
    count = 0
    for a in range(tree.children.shape[1]):
        if tree.children[node, a] != ILLEGAL:
            count += 1
    return count


@njit(cache=True)
def gumbel_collect_all(
    trees, roots, geometry, scratch_states, scratch_arrays, leaves, leaf_nodes, legal, expanding, active,
    gumbel, table, params, work, collected, finished,
):  # fmt: skip
    """One simulation in every game ``b`` with ``active[b]``: the root's own evaluation first,
    then the root move sequential halving picks for simulation ``visits[ROOT] - 1`` and the
    deterministic selection below it. A leaf goes to ``leaves`` (fields [B, 1, ...]),
    ``leaf_nodes[b, 0]`` and ``legal[b, 0]`` with a virtual loss on its path (``collected[b] = 1``);
    a finished game is scored by the rules and backed up at once (``finished[b] = 1``).
    ``params`` is (max_considered, c_visit, c_scale); ``work`` float64[B, 2, A]."""
    max_considered, c_visit, c_scale = int(params[0]), params[1], params[2]
    for b in range(active.shape[0]):
        collected[b] = 0
        finished[b] = 0
        if active[b]:
            tree = tree_item(trees, b)
            scratch = scratch_item(scratch_states, scratch_arrays, b)
            sigma, logits = work[b, 0], work[b, 1]
            state = scratch.state
            K.copy_into(state, K.batch_item(roots, b))
            node = ROOT
            if tree.expanded[ROOT]:
                considered = min(max_considered, legal_count(tree, ROOT))
                level = table[considered, tree.visits[ROOT] - 1]
                move = root_move(tree, gumbel[b], level, c_visit, c_scale, sigma, logits)
                while True:
                    K.apply_legal(state, geometry, move, True)
                    child = tree.children[node, move]
                    node = add_node(tree, node, move) if child == UNVISITED else child
                    if not tree.expanded[node] or state.info[K.INFO_OVER] != K.RUNNING:
                        break
                    move = interior_move(tree, node, c_visit, c_scale, sigma, logits)
            if state.info[K.INFO_OVER] != K.RUNNING:
                value = settled_outcome(state, geometry, state.info[K.INFO_TO_PLAY], scratch)
                backup(tree, node, value, 0, False, scratch, 0, 0)
                finished[b] = 1
            else:
                expanding[b, 0] = 1
                add_virtual_loss(tree, node)
                K.copy_into(K.batch_item(K.batch_item(leaves, b), 0), state)
                K.legal_mask(state, geometry, legal[b, 0])
                leaf_nodes[b, 0] = node
                collected[b] = 1


@njit(cache=True)
def gumbel_results_all(trees, searched, gumbel, params, work, moves, targets):
    """For every game ``b`` with ``searched[b]``: ``moves[b]``, the most visited root move with
    the best ``g + logits + σ(q̂)``, and ``targets[b]``, the improved policy
    ``softmax(logits + σ(completed Q))`` over the legal moves. Other games: pass and zeros."""
    c_visit, c_scale = params[1], params[2]
    for b in range(searched.shape[0]):
        pass_move = targets.shape[1] - 1
        moves[b] = pass_move
        targets[b, :] = 0.0
        if searched[b]:
            tree = tree_item(trees, b)
            sigma, logits = work[b, 0], work[b, 1]
            moves[b] = root_move(tree, gumbel[b], -1, c_visit, c_scale, sigma, logits)
            top = -np.inf
            for a in range(targets.shape[1]):
                if tree.children[ROOT, a] != ILLEGAL:
                    top = max(top, logits[a] + sigma[a])
            norm = 0.0
            for a in range(targets.shape[1]):
                if tree.children[ROOT, a] != ILLEGAL:
                    targets[b, a] = np.exp(logits[a] + sigma[a] - top)
                    norm += targets[b, a]
            for a in range(targets.shape[1]):
                targets[b, a] /= norm


class GumbelSearch(BatchedSearch):
    """Gumbel root search with sequential halving over every game of a ``GameBatch``, one
    evaluator call per step (mctx's ``gumbel_muzero_policy``, for two players): ``BatchedSearch``
    with one leaf per game and step, Gumbel's root and interior selection, and the improved
    policy as target. Trees are not kept between moves (``play`` plays only).

    Args:
        evaluator: an ``Evaluator`` or a callable ``f(leaves) -> (priors, values)``
            (default: ``UniformEvaluator``); it gets the leaves of all games in one call.
        max_considered: ``m``, the root moves sequential halving starts from (fewer where
            fewer are legal).
        c_visit, c_scale: ``σ(q̂) = (c_visit + max_b N(b)) · c_scale · q̂``.
        gumbel: draw Gumbel noise at the roots (self-play); ``False``: none, a deterministic
            search that plays the best move it finds (evaluation play).
        seed: seed of the Gumbel noise.
    """

    root_evaluation_extra = 1  # the root's own evaluation comes before the simulations

    def __init__(
        self,
        evaluator: Evaluator | Callable[[Leaves], tuple[np.ndarray, np.ndarray]] | None = None,
        max_considered: int = 16,
        c_visit: float = 50.0,
        c_scale: float = 1.0,
        gumbel: bool = True,
        seed: int | None = None,
    ):
        if max_considered < 1:
            raise ValueError(f"max_considered must be >= 1, got {max_considered}")
        if c_visit < 0 or c_scale < 0:
            raise ValueError(f"c_visit and c_scale must be >= 0, got {c_visit} and {c_scale}")
        # Sequential halving plans the root's whole budget, so each search starts afresh.
        super().__init__(evaluator, leaves_per_game=1, reuse=False, threads=1, seed=seed)
        self.max_considered = int(max_considered)
        self.c_visit = float(c_visit)
        self.c_scale = float(c_scale)
        self.gumbel = gumbel
        self._params = np.array([self.max_considered, self.c_visit, self.c_scale], np.float64)
        self.gumbel_noise = np.zeros((0, 0))  # float64[B, A]: the last search's Gumbel noise
        self._table = np.zeros((1, 1), np.int64)
        self._work = np.zeros((0, 2, 0))  # float64[B, 2, A]: σ(q̂) and logits of each game
        self._targets = np.zeros((0, 0))

    def _start(self, batch: GameBatch, simulations: int) -> None:
        size, num_actions = batch.batch_size, batch.num_actions
        if self.gumbel:
            self.gumbel_noise = self.np_random.gumbel(size=(size, num_actions))
        else:
            self.gumbel_noise = np.zeros((size, num_actions))
        self._table = halving_table(self.max_considered, simulations)
        if self._work.shape != (size, 2, num_actions):
            self._work = np.zeros((size, 2, num_actions), np.float64)

    def _collect(
        self, batch: GameBatch, counts: np.ndarray, collected: np.ndarray, finished: np.ndarray
    ) -> None:
        if self._watch is not None and self.trees is not None and self.trees.visits[0, ROOT] > 0:
            self._watching(counts)
        gumbel_collect_all(
            self.trees, batch.state, batch.geometry, self._scratch_states, self._scratch_arrays, self._leaves,
            self._nodes, self._legal, self._expanding, counts, self.gumbel_noise, self._table, self._params,
            self._work, collected, finished,
        )  # fmt: skip

    def _chosen_moves(self, batch: GameBatch) -> np.ndarray:
        size, num_actions = batch.batch_size, batch.num_actions
        moves = np.empty(size, np.int64)
        self._targets = np.empty((size, num_actions), np.float64)
        searched = ~batch.is_over
        gumbel_results_all(
            self.trees, searched, self.gumbel_noise, self._params, self._work, moves, self._targets
        )
        return moves

    def policy_targets(self) -> np.ndarray:
        """float64[B, A]: each game's improved policy ``softmax(logits + σ(completed Q))`` over
        its legal moves (0 on illegal ones), the training target; zeros in finished games."""
        assert self.trees is not None, "search first"
        return self._targets.copy()

    # -- a search on a clock, stopped or watched (analysis) --------------------------------

    def search(
        self,
        batch: GameBatch,
        simulations: int,
        *,
        seconds: float | None = None,
        stop: Callable[[], bool] | None = None,
        report: Callable[[], None] | None = None,
        interval: float = 1.0,
    ) -> np.ndarray:
        """``BatchedSearch.search``, within ``seconds`` (sequential halving planned from the
        time left, see the module documentation) and until ``stop()``; ``report()`` is called
        about every ``interval`` seconds and once at the end (read the roots then, e.g.
        ``candidates``). Without ``seconds``, ``stop`` and ``report``, the plain search; with
        any of them, ``batch`` holds one game (a player's)."""
        if seconds is None and stop is None and report is None:
            return super().search(batch, simulations)
        if seconds is not None and not seconds > 0:
            raise ValueError(f"seconds must be positive, got {seconds}")
        if batch.batch_size != 1:
            raise ValueError("a search with seconds, stop or report is of one game (a player's)")
        now = time.perf_counter()
        self._watch = _Watch(
            started=now,
            deadline=None if seconds is None else now + seconds,
            stop=stop,
            report=report,
            interval=interval,
            next_report=now + interval,
            planned=simulations,
        )
        try:
            moves = super().search(batch, simulations)
        finally:
            self._watch = None
        assert self.trees is not None
        # A search stopped early ran the simulations its root has, its own evaluation aside.
        self.simulations = np.minimum(self.simulations, np.maximum(self.trees.visits[:, ROOT] - 1, 0))
        if report is not None:
            report()
        return moves

    _watch: _Watch | None = None

    def _watching(self, counts: np.ndarray) -> None:
        """Before a step of a watched search: stop it (``counts`` zeroed) at its planned
        budget, its deadline or its ``stop()``; plan the budget from the time left once the
        considered moves have their first visit; report when a report is due."""
        watch, trees = self._watch, self.trees
        assert watch is not None and trees is not None
        now = time.perf_counter()
        if watch.report is not None and now >= watch.next_report:
            watch.report()
            watch.next_report = now + watch.interval
        done = int(trees.visits[0, ROOT]) - 1  # simulations (single game: a player's batch of one)
        if watch.deadline is not None and not watch.replanned and trees.expanded[0, ROOT]:
            considered = min(self.max_considered, int((trees.children[0, ROOT] != ILLEGAL).sum()))
            if done >= considered:  # every schedule agrees so far: all first visits
                rate = done / max(now - watch.started, 1e-6)
                fits = considered + int(rate * max(watch.deadline - now, 0.0))
                watch.planned = max(min(watch.planned, fits), 1)
                self._table = halving_table(self.max_considered, watch.planned)
                watch.replanned = True
        over = watch.deadline is not None and now >= watch.deadline
        stopped = watch.stop is not None and watch.stop()
        if done >= watch.planned or (done >= 1 and (over or stopped)):  # a root move visited, at least
            counts[:] = 0

    def candidates(self, game: int = 0, limit: int | None = None) -> list[Candidate]:
        """The visited root moves of ``game`` in the batch, the move the search would play now
        first, then the most visited (``limit`` of them at most): visits, mean value for the
        side to move, prior, and the line of the most visited moves below."""
        trees = self.trees
        assert trees is not None, "search first"
        tree = Tree(*(field[game] for field in trees))
        visits, values = (stat[game] for stat in root_stats(trees))
        if not tree.expanded[ROOT]:
            return []
        order = [int(a) for a in np.lexsort((-values, -visits)) if visits[a] > 0]
        chosen = self._current_choice(game)
        if chosen in order:
            order.remove(chosen)
            order.insert(0, chosen)
        return [
            Candidate(
                a, int(visits[a]), float(values[a]), float(tree.prior[ROOT, a]), principal_variation(tree, a)
            )
            for a in order[:limit]
        ]

    def _current_choice(self, game: int) -> int:
        """The root move of ``game`` the search would play if it stopped now."""
        trees = self.trees
        assert trees is not None
        count, num_actions = trees.children.shape[0], trees.children.shape[2]
        searched = np.zeros(count, np.bool_)
        searched[game] = True
        moves, targets = np.empty(count, np.int64), np.empty((count, num_actions))
        gumbel_results_all(trees, searched, self.gumbel_noise, self._params, self._work, moves, targets)
        return int(moves[game])


@dataclass
class _Watch:
    """What a watched search keeps (``GumbelSearch.search`` with a time, a stop or a report)."""

    started: float
    deadline: float | None
    stop: Callable[[], bool] | None
    report: Callable[[], None] | None
    interval: float
    next_report: float
    planned: int
    replanned: bool = False
