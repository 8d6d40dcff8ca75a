"""PUCT: AlphaGo Zero's tree search, guided by an evaluator's priors and values.

Each simulation walks down from the root, at each node picking the move that maximises

    Q(s, a) + c_puct · P(s, a) · sqrt(N(s)) / (1 + N(s, a))

(``Q = 0`` for a move not tried yet; ``N(s)`` counts the node's own evaluation, so the
first pick from a node follows the priors) until it leaves the tree; the new leaf is
evaluated and its value backed up. Leaves are gathered in batches: each leaf collected
puts a virtual loss on its path (one more visit, valued as a loss) so that the next
selection of the batch goes elsewhere; the batch is evaluated in one call and expanded
and backed up in numba. A selection that reaches a leaf already in the batch is dropped.

For self-play, Dirichlet noise ``(1 - ε) P + ε Dir(α)`` perturbs the root's priors, and
``choose_move(temperature)`` samples a move in proportion to ``N^(1/τ)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from go_env import Game
from go_env import _kernels as K
from go_env._kernels import GoState, inline_kernel, kernel
from search.evaluator import Evaluator, Leaves, UniformEvaluator, as_evaluator, outcome, shapes
from search.tree import ILLEGAL, ROOT, UNVISITED, TreeSearch, add_node, add_virtual_loss, backup, expand


@inline_kernel
def _select(tree, node, c_puct):
    """The move to play from the expanded ``node``, counting virtual losses."""
    scale = c_puct * np.sqrt(tree.visits[node] + tree.virtual_loss[node])
    best = -np.inf
    best_move = -1
    for a in range(tree.children.shape[1]):
        child = tree.children[node, a]
        if child == ILLEGAL:
            continue
        n = 0
        q = 0.0
        if child != UNVISITED:
            pending = tree.virtual_loss[child]
            n = tree.visits[child] + pending
            if n > 0:
                q = (tree.value_sum[child] - pending) / n
        score = q + scale * tree.prior[node, a] / (1 + n)
        if score > best:
            best = score
            best_move = a
    return best_move


@kernel
def collect(tree, root, geometry, scratch, leaves, leaf_nodes, legal, count, c_puct, komi, territory):
    """Select up to ``count`` new leaves from the position ``root`` (left unchanged).

    Leaf ``b`` goes to ``leaves`` (batched states), its node to ``leaf_nodes[b]`` and its
    legal moves to ``legal[b]``, with a virtual loss on its path. Simulations that end in a
    finished game are scored by the rules and backed up at once.

    Returns:
        (leaves collected, simulations finished in a finished game).
    """
    state = scratch.state
    collected = 0
    finished = 0
    collisions = 0
    while collected + finished < count and collisions < count:
        if tree.num_nodes[0] >= tree.parent.shape[0]:
            break
        K.copy_into(state, root)
        node = ROOT
        while tree.expanded[node] and state.info[K.INFO_OVER] == K.RUNNING:
            move = _select(tree, node, c_puct)
            K._apply(state, geometry, move, True)
            child = tree.children[node, move]
            node = add_node(tree, node, move) if child == UNVISITED else child
        if state.info[K.INFO_OVER] != K.RUNNING:
            value = outcome(state, geometry, komi, territory, state.info[K.INFO_TO_PLAY], scratch)
            backup(tree, node, value, 0, False, scratch, 0, 0)
            finished += 1
        elif tree.virtual_loss[node] > 0:
            collisions += 1  # already in this batch
        else:
            add_virtual_loss(tree, node)
            K.copy_into(K.batch_item(leaves, collected), state)
            K.legal_mask(state, geometry, legal[collected])
            leaf_nodes[collected] = node
            collected += 1
    return collected, finished


@kernel
def expand_backup(tree, leaf_nodes, legal, priors, values, scratch):
    """Expand each collected leaf with its priors (kept on legal moves, renormalised; uniform
    if none is positive) and back its value up, taking its virtual loss back."""
    for b in range(leaf_nodes.shape[0]):
        node = leaf_nodes[b]
        expand(tree, node, legal[b])
        total = 0.0
        num_legal = 0
        for a in range(legal.shape[1]):
            if legal[b, a]:
                total += max(priors[b, a], 0.0)
                num_legal += 1
        for a in range(legal.shape[1]):
            if not legal[b, a]:
                tree.prior[node, a] = 0.0
            elif total > 0.0:
                tree.prior[node, a] = max(priors[b, a], 0.0) / total
            else:
                tree.prior[node, a] = 1.0 / num_legal
        value = min(max(values[b], -1.0), 1.0)
        backup(tree, node, value, 1, False, scratch, 0, 0)


class _LeafBuffers(NamedTuple):
    states: GoState  # every field [batch, ...]
    nodes: np.ndarray  # int32[batch]
    legal: np.ndarray  # int8[batch, A]


class PUCT(TreeSearch):
    """PUCT search over an evaluator.

    Args:
        evaluator: an ``Evaluator`` or a callable ``f(leaves) -> (priors, values)``
            (default: ``UniformEvaluator``).
        c_puct: exploration constant.
        batch: leaves evaluated per evaluator call.
        noise: ε, the weight of Dirichlet noise in the root's priors (0: none).
        dirichlet_alpha: α of the noise; ``None`` scales it to the position as AlphaZero
            did (0.03 on 19x19): ``10 / number of legal moves``.
        reuse: keep the subtree of the moves played between searches.
        seed: seed of the noise and of ``choose_move``.
        capacity: initial room for nodes (one per simulation; grown when needed).

    Example::

        puct = PUCT(RolloutEvaluator(), batch=8, seed=0)
        puct.search(game, simulations=800)
        pi = puct.visit_distribution()        # training target
        move = puct.choose_move(temperature=1.0)
    """

    def __init__(
        self,
        evaluator: Evaluator | Callable[[Leaves], tuple[np.ndarray, np.ndarray]] | None = None,
        c_puct: float = 1.5,
        batch: int = 8,
        noise: float = 0.0,
        dirichlet_alpha: float | None = None,
        reuse: bool = True,
        seed: int | None = None,
        capacity: int = 1024,
    ):
        super().__init__(priors=True, amaf=False, reuse=reuse, seed=seed, capacity=capacity)
        if batch < 1 or c_puct < 0 or not 0.0 <= noise <= 1.0:
            raise ValueError("batch must be >= 1, c_puct >= 0 and noise in [0, 1]")
        self.evaluator = as_evaluator(evaluator if evaluator is not None else UniformEvaluator())
        self.c_puct = float(c_puct)
        self.batch = batch
        self.noise = noise
        self.dirichlet_alpha = dirichlet_alpha
        self._buffers: _LeafBuffers | None = None
        self._noised_root = -1  # ``root_version`` whose priors carry noise

    def _prepare(self, game: Game) -> int:
        assert self.tree is not None
        done = 0
        if not self.tree.expanded[ROOT]:
            done = self._simulate(game, self._reserve(1))
        if self.noise > 0.0 and self._noised_root != self.root_version:
            legal = np.flatnonzero(self.tree.children[ROOT] != ILLEGAL)
            alpha = self.dirichlet_alpha if self.dirichlet_alpha is not None else 10.0 / len(legal)
            noise = self.np_random.dirichlet(np.full(len(legal), alpha))
            priors = self.tree.prior[ROOT]
            priors[legal] = (1.0 - self.noise) * priors[legal] + self.noise * noise
            self._noised_root = self.root_version
        return done

    def _leaf_buffers(self, game: Game) -> _LeafBuffers:
        buffers = self._buffers
        if buffers is None or shapes(buffers.states, batched=True) != shapes(game.state):
            states = GoState(*(np.zeros((self.batch, *field.shape), field.dtype) for field in game.state))
            legal = np.zeros((self.batch, game.num_points + 1), np.int8)
            buffers = self._buffers = _LeafBuffers(states, np.zeros(self.batch, np.int32), legal)
        return buffers

    def _simulate(self, game: Game, count: int) -> int:
        buffers = self._leaf_buffers(game)
        komi = float(game.rules.komi)
        territory = game.rules.scoring == "territory"
        done = 0
        while done < count:
            collected, finished = collect(
                self.tree, game.state, game.geometry, self._scratch, buffers.states, buffers.nodes,
                buffers.legal, min(self.batch, count - done), self.c_puct, komi, territory,
            )  # fmt: skip
            done += finished
            if collected:
                legal = buffers.legal[:collected]
                states = GoState(*(field[:collected] for field in buffers.states))
                leaves = Leaves(states, legal, game.geometry, komi, territory)
                priors, values = self.evaluator.evaluate(leaves)
                expand_backup(
                    self.tree, buffers.nodes[:collected], legal,
                    np.ascontiguousarray(priors, np.float32), np.ascontiguousarray(values, np.float64),
                    self._scratch,
                )  # fmt: skip
                done += collected
            elif not finished:
                break
        return done
