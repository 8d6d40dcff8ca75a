"""PUCT: AlphaGo Zero's tree search, guided by an evaluator's priors and values.

Each simulation walks down from the root, at each node picking the move that maximises

    Q(s, a) + c_puct · P(s, a) · sqrt(N(s)) / (1 + N(s, a))

(``Q = 0`` for a move not tried yet; ``N(s)`` counts the node's own evaluation, so the
first pick from a node follows the priors) until it leaves the tree; the new leaf is
evaluated and its value backed up. Leaves are gathered in batches: each leaf collected
puts a virtual loss on its path (one more visit, valued as a loss) so that the next
selection of the batch goes elsewhere; the batch is evaluated in one call and expanded
and backed up in numba. A selection that reaches a leaf already in the batch is dropped.
The selection rule (AlphaZero's above, AlphaGo's, UCB1), the first-play value and the size
of a virtual loss are parameters (``search.selection``).

The loop is split for callers that evaluate leaves themselves: ``ask`` collects a batch of
leaves, ``tell`` expands them with the evaluator's priors and backs their values up.
``search`` is that loop with the search's own evaluator; ``BatchedPUCT`` runs it over many
games at once.

For self-play, Dirichlet noise ``(1 - ε) P + ε Dir(α)`` perturbs the root's priors, and
``choose_move(temperature)`` samples a move in proportion to ``N^(1/τ)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from go_env import Game
from go_env import core as K
from go_env.core import GoState, kernel
from goarena.search.evaluator import (
    Evaluator,
    Leaves,
    UniformEvaluator,
    as_evaluator,
    check_evaluation,
    settled_outcome,
    shapes,
)
from goarena.search.selection import make_selection, select
from goarena.search.tree import (
    ILLEGAL,
    ROOT,
    UNVISITED,
    Tree,
    TreeSearch,
    add_node,
    add_virtual_loss,
    backup,
    expand,
)


@kernel
def collect(tree, root, geometry, scratch, leaves, leaf_nodes, legal, expanding, count, selection, threshold):
    """Select up to ``count`` leaves from the position ``root`` (left unchanged).

    Leaf ``b`` goes to ``leaves`` (batched states), its node to ``leaf_nodes[b]`` and its
    legal moves to ``legal[b]``, with a virtual loss on its path; ``expanding[b]`` is 1 if
    its priors are wanted: it is the root or has been evaluated ``threshold`` times already
    (a leaf under the threshold is evaluated again, unexpanded). Simulations that end in a
    finished game are scored by the rules (``settled_outcome``) and backed up at once.

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
            move = select(tree, node, selection)
            K.apply_legal(state, geometry, move, True)
            child = tree.children[node, move]
            node = add_node(tree, node, move) if child == UNVISITED else child
        if state.info[K.INFO_OVER] != K.RUNNING:
            value = settled_outcome(state, geometry, state.info[K.INFO_TO_PLAY], scratch)
            backup(tree, node, value, 0, False, scratch, 0, 0)
            finished += 1
        elif tree.virtual_loss[node] > 0:
            collisions += 1  # already in this batch
        else:
            expanding[collected] = node == ROOT or tree.visits[node] >= threshold
            add_virtual_loss(tree, node)
            K.copy_into(K.batch_item(leaves, collected), state)
            K.legal_mask(state, geometry, legal[collected])
            leaf_nodes[collected] = node
            collected += 1
    return collected, finished


@kernel
def expand_backup(tree, leaf_nodes, legal, expanding, priors, values, scratch):
    """Expand each collected leaf marked ``expanding`` with its priors (checked: >= 0, some
    mass on a legal move; kept on legal moves and renormalised) and back every leaf's value
    up, taking its virtual loss back."""
    for b in range(leaf_nodes.shape[0]):
        node = leaf_nodes[b]
        if expanding[b]:
            expand(tree, node, legal[b])
            total = 0.0
            for a in range(legal.shape[1]):
                if legal[b, a]:
                    total += priors[b, a]
            for a in range(legal.shape[1]):
                tree.prior[node, a] = priors[b, a] / total if legal[b, a] else 0.0
        value = min(max(values[b], -1.0), 1.0)
        backup(tree, node, value, 1, False, scratch, 0, 0)


class _LeafBuffers(NamedTuple):
    states: GoState  # every field [batch, ...]
    nodes: np.ndarray  # int32[batch]
    legal: np.ndarray  # int8[batch, A]
    expanding: np.ndarray  # int8[batch]: the leaves whose priors are wanted


def mix_root_noise(tree: Tree, weight: float, alpha: float | None, rng: np.random.Generator) -> None:
    """Mix Dirichlet noise into the root's priors over its legal moves: (1 - ε) P + ε Dir(α),
    with α = 10 / (legal moves) unless given. ``tree`` may be one game's view of a batch."""
    legal = np.flatnonzero(tree.children[ROOT] != ILLEGAL)
    noise = rng.dirichlet(np.full(len(legal), alpha if alpha is not None else 10.0 / len(legal)))
    priors = tree.prior[ROOT]
    priors[legal] = (1.0 - weight) * priors[legal] + weight * noise


class PUCT(TreeSearch):
    """PUCT search over an evaluator.

    Args:
        evaluator: an ``Evaluator`` or a callable ``f(leaves) -> (priors, values)``
            (default: ``UniformEvaluator``).
        c_puct: exploration constant.
        batch: leaves evaluated per evaluator call.
        selection: the selection rule, ``"alphazero"``, ``"alphago"`` or ``"ucb1"``
            (``search.selection``).
        fpu: first-play value: the value of a move not tried yet, in [-1, 1].
        fpu_reduction: if given, a move not tried yet is valued at its node's mean value
            less this, in place of ``fpu`` (``search.selection``).
        virtual_loss: visits, each valued as a loss, that a leaf waiting for evaluation
            puts on its path.
        expansion_threshold: AlphaGo's ``n_thr``: a new leaf is evaluated for its value
            alone, and expanded with the evaluator's priors once it has been evaluated this
            many times (0: at its first evaluation). Evaluators that can skip the priors of
            the other leaves (``Leaves.expanding``) save that work: most leaves are reached
            once.
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
        selection: str = "alphazero",
        fpu: float = 0.0,
        fpu_reduction: float | None = None,
        virtual_loss: float = 1.0,
        expansion_threshold: int = 0,
    ):
        super().__init__(priors=True, amaf=False, reuse=reuse, seed=seed, capacity=capacity)
        if batch < 1 or c_puct < 0 or not 0.0 <= noise <= 1.0 or expansion_threshold < 0:
            raise ValueError("batch must be >= 1, c_puct >= 0, noise in [0, 1] and expansion_threshold >= 0")
        self.expansion_threshold = int(expansion_threshold)
        self.evaluator = as_evaluator(evaluator if evaluator is not None else UniformEvaluator())
        self.c_puct = float(c_puct)
        self.selection = make_selection(selection, c_puct, fpu, virtual_loss, fpu_reduction)
        self.batch = batch
        self.noise = noise
        self.dirichlet_alpha = dirichlet_alpha
        self._buffers: _LeafBuffers | None = None
        # The last ask's nodes and ``expanding`` flags, until told.
        self._pending: tuple[np.ndarray, np.ndarray] | None = None
        self._noised_root = -1  # ``root_version`` whose priors carry noise

    def _prepare(self, game: Game) -> int:
        assert self.tree is not None
        done = 0
        if not self.tree.expanded[ROOT]:
            done = self._simulate(game, self._reserve(1))
        if self.noise > 0.0 and self._noised_root != self.root_version:
            mix_root_noise(self.tree, self.noise, self.dirichlet_alpha, self.np_random)
            self._noised_root = self.root_version
        return done

    def _leaf_buffers(self, game: Game) -> _LeafBuffers:
        buffers = self._buffers
        if buffers is None or shapes(buffers.states, batched=True) != shapes(game.state):
            states = GoState(*(np.zeros((self.batch, *field.shape), field.dtype) for field in game.state))
            legal = np.zeros((self.batch, game.num_points + 1), np.int8)
            nodes, expanding = np.zeros(self.batch, np.int32), np.zeros(self.batch, np.int8)
            buffers = self._buffers = _LeafBuffers(states, nodes, legal, expanding)
        return buffers

    def ask(self, game: Game, count: int | None = None) -> Leaves:
        """Collect up to ``count`` (default ``batch``) new leaves below ``game``'s position,
        each with a virtual loss on its path, for one evaluator call; answer with ``tell``.

        Simulations that end in a finished game are scored by the rules and backed up at
        once, so fewer leaves may come back (none when the tree is full). The leaves are
        views into buffers that the next ``ask`` overwrites. Root noise is ``search``'s alone.
        """
        self._check_told()
        self.sync(game)
        return self._ask(game, self._reserve(self.batch if count is None else count))[0]

    def tell(self, leaves: Leaves, priors: np.ndarray, values: np.ndarray) -> None:
        """Expand the leaves of the last ``ask`` with ``priors`` (float[B, A]) and back
        ``values`` (float[B], for each leaf's side to move) up, as an evaluator gives them.

        Raises:
            EvaluatorError: if they break the evaluator's contract (``Evaluator``).
        """
        pending = self._pending
        if not len(leaves):
            return
        if pending is None or len(pending[0]) != len(leaves):
            raise ValueError("tell answers the leaves of the last ask, once")
        priors, values = check_evaluation(leaves.legal, priors, values)
        nodes, expanding = pending
        expand_backup(self.tree, nodes, leaves.legal, expanding, priors, values, self._scratch)
        self._pending = None

    def _ask(self, game: Game, count: int) -> tuple[Leaves, int]:
        """``ask`` on a synced tree with room for ``count`` nodes: (leaves, simulations
        finished in a finished game)."""
        self._check_told()
        buffers = self._leaf_buffers(game)
        collected, finished = collect(
            self.tree, game.state, game.geometry, self._scratch, buffers.states, buffers.nodes, buffers.legal,
            buffers.expanding, min(self.batch, count), self.selection, self.expansion_threshold,
        )  # fmt: skip
        states = GoState(*(field[:collected] for field in buffers.states))
        expanding = buffers.expanding[:collected]
        self._pending = (buffers.nodes[:collected], expanding) if collected else None
        return Leaves(states, buffers.legal[:collected], game.geometry, expanding), finished

    def _check_told(self) -> None:
        if self._pending is not None:
            raise ValueError("tell the leaves of the last ask before asking again")

    def _simulate(self, game: Game, count: int) -> int:
        done = 0
        while done < count:
            leaves, finished = self._ask(game, count - done)
            done += finished
            if len(leaves):
                self.tell(leaves, *self.evaluator.evaluate(leaves))
                done += len(leaves)
            elif not finished:
                break
        return done
