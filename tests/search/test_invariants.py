"""``check_tree``: trees grown by every search pass, and each invariant broken by hand is named."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from go_env import Game
from goarena.search import PUCT, UCT, RolloutEvaluator, TreeSearch
from goarena.search.invariants import InvariantError, check_tree
from goarena.search.tree import ILLEGAL, UNVISITED, Tree, new_tree
from tests.boards import CAPTURE, HALF_POINT_KOMI, ONLY_WIN, ONLY_WIN_RULES, position


def searched(searcher: TreeSearch, game: Game, simulations: int = 300) -> TreeSearch:
    searcher.search(game, simulations=simulations)
    return searcher


@pytest.mark.parametrize(
    "make",
    [
        lambda: PUCT(batch=1, seed=0),
        lambda: PUCT(RolloutEvaluator(seed=0), batch=8, seed=0),
        lambda: PUCT(batch=16, noise=0.25, seed=0),
        lambda: UCT(seed=0),
        lambda: UCT(rave=True, seed=0),
    ],
    ids=["puct", "puct-batched", "puct-noise", "uct", "uct-rave"],
)
def test_every_search_leaves_a_sound_tree(make):
    searcher = make()
    for game in (Game(5), position(CAPTURE, HALF_POINT_KOMI), position(ONLY_WIN, ONLY_WIN_RULES)):
        check_tree(searched(searcher, game))
        # Down the principal variation: the kept subtree is renumbered and must stay whole.
        for move in searcher.principal_variation(searcher.best_move())[:2]:
            game.play(move)
        if not game.is_over:
            check_tree(searched(searcher, game, 100))


def test_a_fresh_tree_is_sound_and_a_searcher_without_one_is_not():
    check_tree(new_tree(16, 26, priors=True, amaf=True))
    with pytest.raises(InvariantError, match="^tree: "):
        check_tree(PUCT())


def first_child(tree: Tree) -> int:
    return int(np.flatnonzero(tree.children[0] >= 0)[0])


CORRUPTIONS: dict[str, tuple[str, Callable[[Tree], None]]] = {}


def breaks(invariant: str) -> Callable[[Callable[[Tree], None]], Callable[[Tree], None]]:
    """Register a corruption of a sound tree, which ``invariant`` must catch."""

    def register(corrupt: Callable[[Tree], None]) -> Callable[[Tree], None]:
        CORRUPTIONS[corrupt.__name__] = (invariant, corrupt)
        return corrupt

    return register


@breaks("parent")
def root_with_a_parent(t: Tree) -> None:
    t.parent[0] = 3


@breaks("parent")
def parent_after_its_child(t: Tree) -> None:
    t.parent[3] = 5


@breaks("expanded")
def parent_not_expanded(t: Tree) -> None:
    grandchild = np.flatnonzero(t.parent[: int(t.num_nodes[0])] > 0)[0]
    t.expanded[t.parent[grandchild]] = 0


@breaks("action")
def move_off_the_board(t: Tree) -> None:
    t.action[3] = 99


@breaks("children")
def child_forgotten(t: Tree) -> None:
    t.children[0, first_child(t)] = UNVISITED


@breaks("visits")
def visits_off(t: Tree) -> None:
    t.visits[0] += 1


@breaks("visits")
def never_visited(t: Tree) -> None:
    t.visits[int(t.num_nodes[0]) - 1] = 0


@breaks("virtual_loss")
def loss_left_pending(t: Tree) -> None:
    t.virtual_loss[1] = 1


@breaks("value_sum")
def value_too_large(t: Tree) -> None:
    t.value_sum[1] = t.visits[1] + 1.0


@breaks("value_sum")
def value_undefined(t: Tree) -> None:
    t.value_sum[1] = np.nan


@breaks("prior")
def prior_on_an_illegal_move(t: Tree) -> None:
    illegal = np.flatnonzero(t.children[0] == ILLEGAL)[0]  # CAPTURE's stones
    t.prior[0, illegal], t.prior[0, first_child(t)] = t.prior[0, first_child(t)], 0.0


@breaks("prior")
def priors_not_summing_to_1(t: Tree) -> None:
    t.prior[0, first_child(t)] = 2.0


@pytest.fixture(scope="module")
def sound() -> Tree:
    puct = searched(PUCT(batch=4, seed=0), position(CAPTURE, HALF_POINT_KOMI), 100)
    assert puct.tree is not None
    return puct.tree


@pytest.mark.parametrize("name", CORRUPTIONS)
def test_a_broken_invariant_is_named(name, sound):
    invariant, corrupt = CORRUPTIONS[name]
    tree = Tree(*(field.copy() for field in sound))
    check_tree(tree)
    corrupt(tree)
    with pytest.raises(InvariantError, match=f"^{invariant}: "):
        check_tree(tree)


def test_amaf_statistics_are_checked():
    uct = searched(UCT(rave=True, seed=0), Game(5), 200)
    assert uct.tree is not None
    uct.tree.amaf_value[0, 0] = uct.tree.amaf_visits[0, 0] + 1.0
    with pytest.raises(InvariantError, match="^amaf_value: "):
        check_tree(uct)
