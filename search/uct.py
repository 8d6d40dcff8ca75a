"""UCT: Monte-Carlo tree search with UCB1 selection and random or pattern playouts, optionally with RAVE.

Each simulation walks down from the root, at each node picking the move that maximises

    Q(s, a) + c · sqrt(ln N(s) / N(s, a))      (moves not tried yet first, in random order)

adds one node for the first move that leads out of the tree, plays the game out at random
from it (``go_env``'s playouts: uniformly random legal moves that fill no own eye) and backs
the result up. Given a rollout policy (``search.rollout``'s pattern policy), the playouts draw
their moves from it instead. ``Q`` is in [-1, 1]: UCB1's constant for rewards in [0, 1], ``sqrt(2)``,
is ``c = 2 sqrt(2)`` here; the default 0.5 plays better on 9x9 (it beat 1.0 in 22 of 30
games at 1,000 playouts a move, and 1.0 beat 1.4 in 19 of 30). The whole simulation loop
runs in numba.

With ``rave=True`` (Gelly and Silver's MC-RAVE), a move's value blends in its
all-moves-as-first value ``Q~`` (the result of simulations in which the player played that
point later on):

    (1 - β) · Q + β · Q~ + c · sqrt(ln N(s) / max(N(s, a), 1)),   β = sqrt(k / (3 N(s, a) + k))

with ``k`` the equivalence parameter, the visit count at which both weigh the same.
"""

from __future__ import annotations

import numpy as np

from go_env import Game
from go_env import core as K
from go_env.core import inline_kernel, kernel
from go_env.features.patterns import PatternPolicy
from goarena.search.evaluator import outcome, playout, settled_outcome
from goarena.search.rollout import PlayoutScratch, new_playout_scratch, pattern_playout
from goarena.search.tree import ILLEGAL, ROOT, UNVISITED, TreeSearch, add_node, backup, expand


@inline_kernel
def _select(tree, node, rng, c, rave, equivalence):
    """The move to play from ``node`` (expanded, visited); ties are broken at random."""
    log_visits = np.log(tree.visits[node])
    best = -np.inf
    best_move = -1
    ties = 0
    for a in range(tree.children.shape[1]):
        child = tree.children[node, a]
        if child == ILLEGAL:
            continue
        n = 0 if child == UNVISITED else tree.visits[child]
        if rave:
            amaf_n = tree.amaf_visits[node, a]
            if n == 0 and amaf_n == 0:
                score = np.inf
            else:
                q = tree.value_sum[child] / n if n > 0 else 0.0
                amaf_q = tree.amaf_value[node, a] / amaf_n if amaf_n > 0 else 0.0
                beta = np.sqrt(equivalence / (3.0 * n + equivalence)) if amaf_n > 0 else 0.0
                score = (1.0 - beta) * q + beta * amaf_q + c * np.sqrt(log_visits / max(n, 1))
        elif n == 0:
            score = np.inf
        else:
            score = tree.value_sum[child] / n + c * np.sqrt(log_visits / n)
        if score > best:
            best = score
            best_move = a
            ties = 1
        elif score == best:
            ties += 1
            if (K.next_random(rng) >> np.uint64(33)) % np.uint64(ties) == 0:
                best_move = a
    return best_move


@kernel
def simulate(tree, root, geometry, scratch, rng, count, c, rave, equivalence, policy, patterns):
    """Run up to ``count`` UCT simulations from the position ``root`` (left unchanged),
    with random playouts, or with pattern playouts of ``policy`` (``patterns`` its scratch)
    where it is not None (numba compiles each case on its own).

    Returns:
        The number run: ``count``, or fewer when the tree is full.
    """
    state = scratch.state
    for i in range(count):
        if tree.num_nodes[0] >= tree.parent.shape[0]:
            return i
        K.copy_into(state, root)
        node = ROOT
        depth = 0
        while tree.visits[node] > 0 and state.info[K.INFO_OVER] == K.RUNNING:
            if not tree.expanded[node]:
                K.legal_mask(state, geometry, scratch.legal)
                expand(tree, node, scratch.legal)
            move = _select(tree, node, rng, c, rave, equivalence)
            scratch.moves[depth] = move
            depth += 1
            K.apply_legal(state, geometry, move, False)
            child = tree.children[node, move]
            node = add_node(tree, node, move) if child == UNVISITED else child
        color = state.info[K.INFO_TO_PLAY]
        if state.info[K.INFO_OVER] != K.RUNNING:  # finished in the tree: no playout to play
            length = depth
            value = settled_outcome(state, geometry, color, scratch)
        else:
            if policy is None:
                length = playout(state, geometry, rng, scratch.moves, depth)
            else:
                length = pattern_playout(state, geometry, policy, patterns, rng, scratch.moves, depth)
            value = outcome(state, geometry, color, scratch)
        backup(tree, node, value, 0, rave, scratch, depth, length)
    return count


class UCT(TreeSearch):
    """UCT search over the rules core's random playouts, or a rollout policy's.

    Args:
        c: exploration constant (values are in [-1, 1]).
        rave: blend in all-moves-as-first values (MC-RAVE).
        rave_equivalence: RAVE's ``k``: visits at which a move's own value and its AMAF
            value weigh the same.
        rollout_policy: play the playouts with this pattern policy (``go_env.features.patterns``)
            instead of uniformly at random.
        reuse: keep the subtree of the moves played between searches.
        seed: seed of the selection tie-breaks and the playouts.
        capacity: initial room for nodes (one per simulation; grown when needed).

    Example::

        uct = UCT(rave=True, seed=0)
        move = uct.search(game, simulations=1000)
        uct.candidates(limit=5)
    """

    def __init__(
        self,
        c: float = 0.5,
        rave: bool = False,
        rave_equivalence: float = 1000.0,
        rollout_policy: PatternPolicy | None = None,
        reuse: bool = True,
        seed: int | None = None,
        capacity: int = 1024,
    ):
        super().__init__(priors=False, amaf=rave, reuse=reuse, seed=seed, capacity=capacity)
        if c < 0 or rave_equivalence <= 0:
            raise ValueError("c must be >= 0 and rave_equivalence > 0")
        self.c = float(c)
        self.rave = bool(rave)
        self.rave_equivalence = float(rave_equivalence)
        self.rollout_policy = rollout_policy
        self._patterns: PlayoutScratch | None = None

    def _simulate(self, game: Game, count: int) -> int:
        patterns = None
        if self.rollout_policy is not None:
            if self._patterns is None or self._patterns.weights.shape[1] != game.size**2:
                self._patterns = new_playout_scratch(game.size)
            patterns = self._patterns
        return int(
            simulate(
                self.tree, game.state, game.geometry, self._scratch, self._rng, count,
                self.c, self.rave, self.rave_equivalence, self.rollout_policy, patterns,
            )
        )  # fmt: skip
