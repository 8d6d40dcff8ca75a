"""PUCT: batched evaluation with virtual loss, evaluators, noise, temperature, tactics, reuse;
and its golden trees."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pytest

from go_env import BLACK, WHITE, Game, Rules, coords
from go_env import core as K
from goarena.search import (
    ILLEGAL,
    PUCT,
    EvaluatorError,
    Leaves,
    MixedEvaluator,
    RolloutEvaluator,
    UniformEvaluator,
)
from goarena.search.invariants import InvariantError, check_tree
from tests.boards import CAPTURE, HALF_POINT_KOMI, ONLY_WIN, ONLY_WIN_RULES, position


@pytest.mark.parametrize("batch", [1, 8, 64])
def test_batched_search_leaves_a_consistent_tree(batch):
    game = Game(5)
    game.replay([12, 7])
    puct = PUCT(RolloutEvaluator(seed=0), batch=batch, seed=0)
    puct.search(game, simulations=1500)
    check_tree(puct)
    assert puct.tree is not None and puct.tree.visits[0] == puct.simulations == 1500


def test_visit_distribution_is_a_distribution_over_legal_moves():
    game = position(CAPTURE)
    puct = PUCT(seed=0)
    puct.search(game, simulations=400)
    legal = game.legal_mask().astype(bool)
    pi = puct.visit_distribution()
    assert pi.shape == (26,) and np.isclose(pi.sum(), 1.0)
    assert np.all(pi[~legal] == 0) and np.all(puct.visit_counts()[~legal] == 0)


def test_temperature_zero_picks_the_most_visited_move():
    game = Game(7)
    puct = PUCT(RolloutEvaluator(seed=1), seed=1)
    puct.search(game, simulations=800)
    counts = puct.visit_counts()
    assert counts[puct.choose_move(0.0)] == counts.max()
    one_hot = puct.visit_distribution(0.0)
    assert one_hot.sum() == 1.0 and counts[np.argmax(one_hot)] == counts.max()
    drawn = {puct.choose_move(1.0) for _ in range(200)}
    assert len(drawn) > 1 and all(counts[m] > 0 for m in drawn)
    sharper = puct.visit_distribution(0.5)
    assert sharper.max() > puct.visit_distribution(1.0).max()


def test_dirichlet_noise_changes_the_root_priors_only():
    game = Game(5)
    puct = PUCT(UniformEvaluator(), noise=0.25, seed=0)
    puct.search(game, simulations=300)
    check_tree(puct)
    tree = puct.tree
    assert tree is not None
    legal = tree.children[0] != ILLEGAL
    assert not np.allclose(tree.prior[0][legal], 1.0 / legal.sum())
    for node in range(1, int(tree.num_nodes[0])):
        if tree.expanded[node]:
            row = tree.children[node] != ILLEGAL
            assert np.allclose(tree.prior[node][row], 1.0 / row.sum())
    before = tree.prior[0].copy()
    puct.search(game, simulations=100)  # the same root: noised once
    assert puct.tree is not None and np.array_equal(puct.tree.prior[0], before)


@pytest.mark.parametrize(
    ("diagram", "rules", "answer"),
    [(CAPTURE, HALF_POINT_KOMI, "C2"), (ONLY_WIN, ONLY_WIN_RULES, "D4")],
    ids=["capture", "only-win"],
)
def test_rollout_evaluator_finds_the_tactic(diagram, rules, answer):
    game = position(diagram, rules)
    for seed in range(3):
        puct = PUCT(RolloutEvaluator(seed=seed), seed=seed)
        assert coords.to_gtp(puct.search(game, simulations=1000), game.size) == answer


def _leaves(game: Game) -> Leaves:
    states = type(game.state)(*(field[None] for field in game.state))
    return Leaves(states, game.legal_mask()[None].copy(), game.geometry)


def test_uniform_evaluator():
    game = position(CAPTURE)
    priors, values = UniformEvaluator().evaluate(_leaves(game))
    legal = game.legal_mask().astype(bool)
    assert np.allclose(priors[0][legal], 1.0 / legal.sum()) and np.all(priors[0][~legal] == 0)
    assert values.tolist() == [0.0]


def test_rollout_values_are_mean_outcomes_for_the_side_to_move():
    game = position(CAPTURE)
    value = RolloutEvaluator(rollouts=200, seed=0).values(_leaves(game))[0]
    assert 0.5 < value <= 1.0  # Black, to move, is far ahead
    game.play(game.pass_move)
    assert RolloutEvaluator(rollouts=200, seed=0).values(_leaves(game))[0] < -0.5


class _Network:
    """A stand-in for a policy-value network: a fixed value, priors on point 0 only."""

    def __init__(self, value: float):
        self.value = value

    def evaluate(self, leaves: Leaves) -> tuple[np.ndarray, np.ndarray]:
        priors = np.zeros(leaves.legal.shape, np.float32)
        priors[:, 0] = 1.0
        return priors, np.full(len(leaves), self.value)


class _NoRollouts(RolloutEvaluator):
    def values(self, leaves: Leaves) -> np.ndarray:
        raise AssertionError("no playouts at mix 0")


def test_mixed_evaluator_blends_value_and_rollout():
    leaves = _leaves(position(CAPTURE))
    z = RolloutEvaluator(rollouts=50, seed=3).values(leaves)
    priors, values = MixedEvaluator(_Network(-0.2), _NoRollouts(), mix=0.0).evaluate(leaves)
    assert values.tolist() == [-0.2] and priors[0, 0] == 1.0
    _, values = MixedEvaluator(_Network(-0.2), RolloutEvaluator(rollouts=50, seed=3), mix=1.0).evaluate(
        leaves
    )
    assert np.allclose(values, z)
    _, values = MixedEvaluator(_Network(-0.2), RolloutEvaluator(rollouts=50, seed=3), mix=0.25).evaluate(
        leaves
    )
    assert np.allclose(values, 0.75 * -0.2 + 0.25 * z)
    with pytest.raises(ValueError):
        MixedEvaluator(_Network(0.0), mix=1.5)


def test_a_callable_evaluator_and_its_priors_on_illegal_moves():
    game = position(CAPTURE)
    calls = []

    def evaluate(leaves: Leaves) -> tuple[np.ndarray, np.ndarray]:
        calls.append(len(leaves))
        priors = np.ones(leaves.legal.shape)  # illegal moves too: the search drops them
        priors[:, 17] = 100.0
        return priors, np.zeros(len(leaves))

    puct = PUCT(evaluate, batch=4, seed=0)
    puct.search(game, simulations=200)
    check_tree(puct)
    assert sum(calls) == 200 and max(calls) <= 4
    assert puct.tree is not None and puct.best_move() == 17
    assert puct.priors()[17] == pytest.approx(100.0 / (100.0 + game.legal_mask().sum() - 1))


def test_tree_reuse_keeps_the_subtree():
    game = Game(7)
    puct = PUCT(RolloutEvaluator(seed=0), seed=0)
    puct.search(game, simulations=2000)
    move, reply = puct.principal_variation(puct.best_move())[:2]
    tree = puct.tree
    assert tree is not None
    kept = tree.visits[tree.children[tree.children[0, move], reply]]
    game.replay([move, reply])
    puct.search(game, simulations=500)
    check_tree(puct)
    assert puct.tree is not None and puct.tree.visits[0] == kept + 500


def _keyed(leaves: Leaves) -> tuple[np.ndarray, np.ndarray]:
    """Deterministic priors and values that differ from leaf to leaf."""
    keys = leaves.states.key[:, 0]
    weights = (
        1.0
        + (np.arange(leaves.legal.shape[1])[None, :] + (keys % np.uint64(5)).astype(np.int64)[:, None]) % 3
    )
    priors = np.where(leaves.legal != 0, weights, 0.0)
    values = np.tanh(((keys % np.uint64(7)).astype(np.float64) - 3.0) / 4.0)
    return priors / priors.sum(axis=1, keepdims=True), values


def _returning(priors_of, values_of):
    def evaluate(leaves: Leaves) -> tuple[np.ndarray, np.ndarray]:
        priors, values = UniformEvaluator().evaluate(leaves)
        return priors_of(priors), values_of(values)

    return evaluate


@pytest.mark.parametrize(
    ("evaluator", "message"),
    [
        (_returning(lambda p: np.log(p + 1e-9), lambda v: v), r"leaf 0 have negative .* not logits"),
        (
            _returning(lambda p: np.where(p > 0, 0.0, 1.0), lambda v: v),
            r"leaf 0 put no mass on its \d+ legal",
        ),
        (_returning(lambda p: p * np.nan, lambda v: v), r"priors of leaf 0 are not all finite"),
        (_returning(lambda p: p, lambda v: v + 1.5), r"value of leaf 0 is 1.5, outside \[-1, 1\]"),
        (_returning(lambda p: p, lambda v: v * np.nan), r"value of leaf 0 is nan"),
        (_returning(lambda p: p[:, :-1], lambda v: v), r"priors of shape \(1, 26\)"),
        (_returning(lambda p: p, lambda v: v[:, None]), r"values of shape \(1,\)"),
    ],
    ids=["logits", "illegal-mass", "nan-priors", "value-range", "nan-value", "priors-shape", "values-shape"],
)
def test_an_evaluator_that_breaks_the_contract_is_named(evaluator, message):
    with pytest.raises(EvaluatorError, match=message):
        PUCT(evaluator, seed=0).search(Game(5), simulations=10)
    assert issubclass(EvaluatorError, ValueError)


def test_values_a_rounding_error_outside_the_range_are_clipped():
    puct = PUCT(_returning(lambda p: p, lambda v: v + 1.0 + 1e-6), seed=0)
    puct.search(Game(5), simulations=50)
    check_tree(puct)


def test_ask_and_tell_grow_the_tree_that_search_grows():
    game = position(CAPTURE)
    searched = PUCT(_keyed, batch=8, seed=0)
    searched.search(game, simulations=300)
    asked = PUCT(batch=8, seed=0)  # its own evaluator is never called
    tree = None
    while tree is None or tree.visits[0] < 300:
        count = 1 if tree is None else 300 - int(tree.visits[0])
        leaves = asked.ask(game, count)
        assert len(leaves) <= min(8, count)
        asked.tell(leaves, *_keyed(leaves))
        tree = asked.tree
        assert tree is not None
    check_tree(asked)
    np.testing.assert_array_equal(asked.visit_counts(), searched.visit_counts())
    np.testing.assert_allclose(asked.values(), searched.values(), atol=1e-12)


def test_tell_answers_the_last_ask_once():
    game = Game(5)
    puct = PUCT(batch=4, seed=0)
    leaves = puct.ask(game)
    puct.tell(leaves, *_keyed(leaves))  # the root, expanded
    leaves = puct.ask(game)
    assert len(leaves) == 4
    with pytest.raises(ValueError, match="before asking again"):
        puct.ask(game)
    puct.tell(leaves, *_keyed(leaves))
    with pytest.raises(ValueError, match="the last ask, once"):
        puct.tell(leaves, *_keyed(leaves))
    check_tree(puct)


class _Recording:
    """``_keyed``'s priors and values, recording which leaves' priors were wanted."""

    def __init__(self):
        self.wanted: list[np.ndarray] = []

    def evaluate(self, leaves: Leaves) -> tuple[np.ndarray, np.ndarray]:
        self.wanted.append(leaves.wants_priors())
        return _keyed(leaves)


@pytest.mark.parametrize("threshold", [1, 3])
def test_an_expansion_threshold_expands_a_leaf_after_its_evaluations(threshold):
    game = Game(5)
    game.replay([12, 7])
    recording = _Recording()
    puct = PUCT(recording, batch=8, expansion_threshold=threshold, seed=0)
    puct.search(game, simulations=600)
    check_tree(puct)
    tree = puct.tree
    assert tree is not None and tree.visits[0] == 600
    wanted = np.concatenate(recording.wanted)
    used = int(tree.num_nodes[0])
    # Priors were asked for the root's first evaluation and once for every other node expanded.
    assert wanted[0] and wanted.sum() == tree.expanded[:used].sum() < len(wanted) / threshold
    inner = np.flatnonzero(tree.expanded[1:used]) + 1
    below = np.zeros(used, np.int64)
    np.add.at(below, tree.parent[1:used], tree.visits[1:used])
    # ... at its (threshold + 1)-th evaluation, after which its visits went to its children.
    assert len(inner) > 10 and np.all(tree.visits[inner] - below[inner] == threshold + 1)


def test_an_expansion_threshold_checks_and_keeps_the_tree_between_moves():
    game = Game(7)
    puct = PUCT(RolloutEvaluator(seed=0), expansion_threshold=2, seed=0)
    puct.search(game, simulations=1500)
    game.replay(list(puct.principal_variation(puct.best_move())[:2]))
    puct.search(game, simulations=300)
    check_tree(puct)
    assert puct.tree is not None and puct.tree.expanded[0]
    with pytest.raises(ValueError, match="expansion_threshold"):
        PUCT(expansion_threshold=-1)


def test_the_tree_invariant_knows_the_expansion_threshold():
    puct = PUCT(RolloutEvaluator(seed=0), expansion_threshold=3, seed=0)
    puct.search(Game(5), simulations=400)
    check_tree(puct)  # the threshold is read off the searcher
    with pytest.raises(InvariantError, match="own evaluations"):
        check_tree(puct.tree)  # taken for a tree that expands at once


class _Clock:
    """A stand-in for ``time`` in the search's module: an evaluator moves it on."""

    def __init__(self) -> None:
        self.now = 100.0

    def perf_counter(self) -> float:
        return self.now


def test_a_timed_search_ends_at_its_deadline(monkeypatch):
    import goarena.search.tree as tree_module

    clock = _Clock()
    monkeypatch.setattr(tree_module, "time", clock)

    def evaluate(leaves: Leaves) -> tuple[np.ndarray, np.ndarray]:
        # 1 ms a leaf for the first 200 leaves, then 3 ms: the last chunk's rate goes stale
        clock.now += (0.001 if evaluate.leaves < 200 else 0.003) * len(leaves)
        evaluate.leaves += len(leaves)
        return np.ones(leaves.legal.shape), np.zeros(len(leaves))

    evaluate.leaves = 0
    puct = PUCT(evaluate, batch=8, seed=0)
    start = clock.now
    puct.search(Game(9), seconds=0.71)
    spent = clock.now - start
    # Chunks of 16 leaves would end at 0.72 s: the last chunk is cut to end near the deadline.
    assert 0.71 <= spent <= 0.71 + 0.003 + 1e-9
    assert puct.simulations == evaluate.leaves


# ---------------------------------------------------------------------------------------
# Golden trees
#
# Golden PUCT trees: the root's visits and values after a fixed search, recorded once.
#
# Each case searches a small position with a deterministic evaluator (no noise, no random
# draws), so the tree it grows is a pure function of the search's code. The root's visit
# counts must match exactly and its values to 1e-9: a faster search must grow the same tree.
#
# Regenerate ``golden/puct.json`` only when a change of search results is intended:
#
#     pytest tests/search/test_puct.py --regenerate-golden
# ---------------------------------------------------------------------------------------

GOLDEN = Path(__file__).parent / "golden" / "puct.json"


class FixedEvaluator:
    """Priors and values that are a fixed function of the position (its Zobrist key and
    stones), different from node to node so that search must follow them."""

    def evaluate(self, leaves: Leaves) -> tuple[np.ndarray, np.ndarray]:
        boards = leaves.states.board[:, :-1]
        keys = leaves.states.key[:, 0]
        moves = np.arange(leaves.legal.shape[1])
        weights = 1.0 + (3 * moves[None, :] + (keys % np.uint64(11)).astype(np.int64)[:, None]) % 5
        priors = np.where(leaves.legal != 0, weights, 0.0)
        priors /= priors.sum(axis=1, keepdims=True)
        black = (boards == BLACK).sum(axis=1)
        white = (boards == WHITE).sum(axis=1)
        margin = np.where(leaves.states.info[:, K.INFO_TO_PLAY] == BLACK, black - white, white - black)
        jitter = (keys % np.uint64(7)).astype(np.float64) - 3.0  # in -3 .. 3
        return priors, np.tanh((margin + jitter / 4.0) / 3.0)


class Case(NamedTuple):
    board: str | int  # a diagram, or the size of an empty board
    rules: Rules
    evaluator: str  # "uniform" or "fixed"
    batch: int
    simulations: int
    replies: int = 0  # then play this many moves of the principal variation and search again


CASES = {
    "empty5-uniform-batch1": Case(5, Rules(), "uniform", 1, 200),
    "empty5-fixed-batch1": Case(5, Rules(), "fixed", 1, 200),
    "empty5-fixed-batch8": Case(5, Rules(), "fixed", 8, 200),
    "capture-uniform-batch8": Case(CAPTURE, HALF_POINT_KOMI, "uniform", 8, 200),
    "capture-fixed-batch1": Case(CAPTURE, HALF_POINT_KOMI, "fixed", 1, 200),
    "capture-fixed-batch16": Case(CAPTURE, HALF_POINT_KOMI, "fixed", 16, 200),
    # Near the end of a capped game: many simulations end in a finished game, scored by the rules.
    "only-win-fixed-batch1": Case(ONLY_WIN, ONLY_WIN_RULES, "fixed", 1, 300),
    "only-win-uniform-batch8": Case(ONLY_WIN, ONLY_WIN_RULES, "uniform", 8, 300),
    # Tree reuse: two moves down the principal variation, the subtree kept.
    "empty5-fixed-batch8-reused": Case(5, Rules(), "fixed", 8, 100, replies=2),
}


def run_case(case: Case) -> dict[str, Any]:
    """The root after the case's search: visits and values of the visited moves, the move
    chosen, the principal variation and the number of nodes."""
    game = Game(case.board, case.rules) if isinstance(case.board, int) else position(case.board, case.rules)
    evaluator = UniformEvaluator() if case.evaluator == "uniform" else FixedEvaluator()
    puct = PUCT(evaluator, batch=case.batch, seed=0)
    move = puct.search(game, simulations=case.simulations)
    if case.replies:
        for reply in puct.principal_variation(move)[: case.replies]:
            game.play(reply)
        move = puct.search(game, simulations=case.simulations)
    assert puct.tree is not None

    def vertex(point: int | np.integer) -> str:
        return coords.to_gtp(int(point), game.size)

    counts, values = puct.visit_counts(), puct.values()
    visited = np.flatnonzero(counts)
    return {
        "move": vertex(move),
        "principal_variation": [vertex(p) for p in puct.principal_variation(move)],
        "nodes": int(puct.tree.num_nodes[0]),
        "visits": {vertex(a): int(counts[a]) for a in visited},
        "values": {vertex(a): float(values[a]) for a in visited},
    }


def regenerate() -> None:
    GOLDEN.parent.mkdir(exist_ok=True)
    cases = []
    for name, case in CASES.items():  # one field a line: diffs show what changed
        fields = [f"  {json.dumps(key)}: {json.dumps(value)}" for key, value in run_case(case).items()]
        cases.append(f" {json.dumps(name)}: {{\n" + ",\n".join(fields) + "\n }")
    GOLDEN.write_text("{\n" + ",\n".join(cases) + "\n}\n")


@pytest.fixture(scope="module")
def golden(request: pytest.FixtureRequest) -> dict[str, Any]:
    if request.config.getoption("--regenerate-golden"):
        regenerate()
        pytest.skip("golden trees regenerated: run again without --regenerate-golden to compare")
    return json.loads(GOLDEN.read_text())


@pytest.mark.parametrize("name", CASES)
def test_puct_grows_the_golden_tree(name, golden):
    expected, got = golden[name], run_case(CASES[name])
    assert got["visits"] == expected["visits"]
    assert got["values"].keys() == expected["values"].keys()
    for move, value in expected["values"].items():
        assert got["values"][move] == pytest.approx(value, abs=1e-9), move
    assert (got["move"], got["principal_variation"], got["nodes"]) == (
        expected["move"],
        expected["principal_variation"],
        expected["nodes"],
    )


def test_golden_cases_cover_every_recorded_tree(golden):
    assert golden.keys() == CASES.keys()
