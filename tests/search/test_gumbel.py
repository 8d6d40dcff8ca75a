"""Gumbel root search: sequential halving's schedule, the move it picks, the improved policy,
seeds, finished games, one evaluator call per step, tactics, the batched search's result surface;
and its golden trees."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pytest

from go_env import BLACK, WHITE, Game, Rules, coords
from go_env import core as K
from go_env.batch import GameBatch
from goarena.search import BatchedSearch, Leaves, RolloutEvaluator, UniformEvaluator
from goarena.search.evaluator import uniform_priors
from goarena.search.gumbel import GumbelSearch, halving_schedule
from goarena.search.invariants import check_tree
from goarena.search.tree import ROOT, Tree
from tests.boards import CAPTURE, HALF_POINT_KOMI, ONLY_WIN, ONLY_WIN_RULES, position
from tests.search.test_puct import FixedEvaluator, _keyed

GOOD, LURE = 12, 6  # 5x5 points: the centre wins, the prior's favourite loses
PASS = 25


class Fixed:
    """A stand-in for a network: fixed priors (the favourite ``LURE``, then ``GOOD``) and values
    for Black that say a black stone on ``GOOD`` wins and one on ``LURE`` loses; a record of
    every call."""

    def __init__(self) -> None:
        self.calls: list[int] = []
        self.prior = np.full(26, 0.3 / 24)
        self.prior[LURE], self.prior[GOOD] = 0.4, 0.3

    def evaluate(self, leaves: Leaves) -> tuple[np.ndarray, np.ndarray]:
        self.calls.append(len(leaves))
        board = leaves.states.board
        black = 0.9 * (board[:, GOOD] == BLACK) - 0.5 * (board[:, LURE] == BLACK)
        to_move = leaves.states.info[:, K.INFO_TO_PLAY]
        values = np.where(to_move == BLACK, black, -black)
        return np.repeat(self.prior[None], len(leaves), axis=0), values


def _batch_of(game: Game, count: int) -> GameBatch:
    """``count`` copies of ``game``'s position as a batch."""
    batch = GameBatch(game.size, count, game.rules)
    for b in range(count):
        K.copy_into(K.state_item(batch.state, b), game.state)
    return batch


def _tree(search: GumbelSearch, b: int) -> Tree:
    assert search.trees is not None
    return Tree(*(field[b] for field in search.trees))


@pytest.mark.parametrize(
    ("considered", "simulations", "expected"),
    [
        (4, 16, [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]),
        (16, 32, [0] * 16 + [1] * 8 + [2] * 4 + [3] * 4),
        (1, 5, [0, 1, 2, 3, 4]),
        (2, 3, [0, 0, 1]),
    ],
)
def test_halving_schedule(considered, simulations, expected):
    assert halving_schedule(considered, simulations).tolist() == expected


def test_visits_follow_sequential_halving():
    # m = 4, n = 16: two rounds; each of the 4 moves gets 2 visits, then the best 2 get 4 more.
    search = GumbelSearch(Fixed(), max_considered=4, seed=0)
    search.search(GameBatch(5, 3), simulations=16)
    counts = search.visit_counts()
    for b in range(3):
        assert sorted(counts[b][counts[b] > 0].tolist()) == [2, 2, 6, 6]
        check_tree(_tree(search, b))
        assert _tree(search, b).visits[ROOT] == 17  # the root's evaluation and 16 simulations
    assert search.simulations.tolist() == [16, 16, 16]


@pytest.mark.parametrize(("simulations", "considered"), [(8, 4), (16, 8), (32, 16)])
def test_the_move_with_the_best_value_is_chosen_over_the_prior_favourite(simulations, considered):
    search = GumbelSearch(Fixed(), max_considered=considered, seed=0)
    moves = search.search(GameBatch(5, 8), simulations=simulations)
    # The winner is chosen wherever the noise let it be considered (most games); the
    # favourite of the prior, a loser, nowhere.
    considered_good = search.visit_counts()[:, GOOD] > 0
    assert (moves[considered_good] == GOOD).all() and considered_good.sum() >= 5
    assert (moves != LURE).all()
    deterministic = GumbelSearch(Fixed(), max_considered=considered, gumbel=False)
    assert deterministic.search(GameBatch(5, 1), simulations=simulations).tolist() == [GOOD]


def test_policy_target_moves_mass_to_the_better_value_and_none_to_illegal_moves():
    game = Game(5)
    game.replay([0, 24, 1, 23])  # Black to play, four points taken
    evaluator = Fixed()
    search = GumbelSearch(evaluator, max_considered=8, seed=1)
    search.search(_batch_of(game, 4), simulations=16)
    targets = search.policy_targets()
    legal = game.legal_mask().astype(bool)
    prior = np.where(legal, evaluator.prior, 0.0) / evaluator.prior[legal].sum()
    np.testing.assert_allclose(targets.sum(axis=1), 1.0)
    assert (targets[:, ~legal] == 0).all() and (search.visit_counts()[:, ~legal] == 0).all()
    assert (targets[:, GOOD] > prior[GOOD]).all() and (targets[:, LURE] < prior[LURE]).all()


def test_policy_target_is_the_softmax_of_logits_and_completed_q():
    evaluator = Fixed()
    search = GumbelSearch(evaluator, max_considered=8, c_visit=50.0, c_scale=0.1, seed=2)
    search.search(GameBatch(5, 2), simulations=12)
    counts, values = search.visit_counts(), search.values()
    tree = _tree(search, 0)
    raw = 0.0  # the empty board's value for Black
    visited = counts[0] > 0
    prior = tree.prior[ROOT].astype(np.float64)
    weighted = (prior[visited] * values[0][visited]).sum() / prior[visited].sum()
    mixed = (raw + counts[0].sum() * weighted) / (counts[0].sum() + 1)
    q = np.where(visited, values[0], mixed)
    q = (q - q.min()) / max(q.max() - q.min(), 1e-8)
    logits = np.log(prior) + (50.0 + counts[0].max()) * 0.1 * q
    expected = np.exp(logits - logits.max())
    np.testing.assert_allclose(search.policy_targets()[0], expected / expected.sum(), rtol=1e-6)
    assert search.root_values()[0] == pytest.approx(-tree.value_sum[ROOT] / tree.visits[ROOT])


def test_deterministic_under_a_seed_and_without_noise():
    def run(seed, gumbel=True):
        search = GumbelSearch(Fixed(), max_considered=8, gumbel=gumbel, seed=seed)
        moves = search.search(GameBatch(5, 6), simulations=16)
        return moves, search.visit_counts(), search.policy_targets()

    for first, second in zip(run(3), run(3), strict=True):
        np.testing.assert_array_equal(first, second)
    assert not np.array_equal(run(3)[1], run(4)[1])  # other noise, other moves considered
    for first, second in zip(run(3, gumbel=False), run(4, gumbel=False), strict=True):
        np.testing.assert_array_equal(first, second)
    counts = run(0, gumbel=False)[1]
    assert (counts == counts[0]).all()  # no noise: every copy of the position searched alike


def test_one_evaluator_call_per_step_and_finished_games_skipped():
    batch = GameBatch(5, 5, seed=0)
    for _ in range(3):
        batch.sample_and_play(np.ones((5, batch.num_actions)))
    finished = Game(5)
    finished.replay([PASS, PASS])
    K.copy_into(K.state_item(batch.state, 1), finished.state)
    over = batch.is_over
    assert over.tolist() == [False, True, False, False, False]
    evaluator = Fixed()
    search = GumbelSearch(evaluator, max_considered=4, seed=0)
    moves = search.search(batch, simulations=10)
    assert search.steps == search.evaluations == len(evaluator.calls) == 11
    assert evaluator.calls[0] == 4 and max(evaluator.calls) == 4
    assert search.simulations.tolist() == [10, 0, 10, 10, 10]
    assert moves[1] == PASS and not search.visit_counts()[1].any() and not search.policy_targets()[1].any()
    assert search.root_values()[1] == 0.0
    assert batch.legal_masks()[~over, moves[~over]].all()


def test_self_play_to_the_end():
    batch = GameBatch(5, 4, seed=1)
    search = GumbelSearch(Fixed(), max_considered=4, seed=1)
    while not batch.is_over.all():
        running = ~batch.is_over
        moves = search.search(batch, simulations=8)
        targets = search.policy_targets()
        np.testing.assert_allclose(targets.sum(axis=1), np.where(running, 1.0, 0.0))
        assert batch.legal_masks()[running, moves[running]].all()
        batch.play(moves)


def _material(leaves: Leaves) -> tuple[np.ndarray, np.ndarray]:
    """Uniform priors; a value from the stones on the board, for the side to move."""
    board = leaves.states.board[:, :-1]
    lead = np.tanh(0.3 * ((board == BLACK).sum(axis=1) - (board == WHITE).sum(axis=1)))
    return uniform_priors(leaves.legal), np.where(leaves.states.info[:, K.INFO_TO_PLAY] == BLACK, lead, -lead)


@pytest.mark.parametrize("seed", [0, 1])
def test_finds_the_capture(seed):
    game = position(CAPTURE, HALF_POINT_KOMI)
    search = GumbelSearch(_material, max_considered=32, seed=seed)
    moves = search.search(_batch_of(game, 8), simulations=32)
    assert [coords.to_gtp(int(m), game.size) for m in moves] == ["C2"] * 8


def test_finds_the_only_capture_that_wins():
    game = position(ONLY_WIN, ONLY_WIN_RULES)
    search = GumbelSearch(RolloutEvaluator(rollouts=16, seed=0), max_considered=32, gumbel=False)
    assert coords.to_gtp(int(search.search(_batch_of(game, 1), simulations=128)[0]), game.size) == "D4"
    noisy = GumbelSearch(RolloutEvaluator(rollouts=16, seed=0), max_considered=32, seed=0)
    moves = noisy.search(_batch_of(game, 8), simulations=128)
    assert sum(coords.to_gtp(int(m), game.size) == "D4" for m in moves) >= 6  # rollouts are noisy


def test_bad_arguments():
    with pytest.raises(ValueError, match="simulations"):
        GumbelSearch().search(GameBatch(5, 1), simulations=0)
    with pytest.raises(ValueError, match="max_considered"):
        GumbelSearch(max_considered=0)
    with pytest.raises(ValueError, match="c_visit"):
        GumbelSearch(c_scale=-1.0)


def test_below_the_root_visits_follow_the_priors():
    # Values all 0: completed Q is flat and the improved policy is the prior, so the rule
    # "most lagging visit share" gives each move of the one considered root move a share of
    # the visits within one visit of its prior's.
    def flat(leaves: Leaves) -> tuple[np.ndarray, np.ndarray]:
        weights = 1.0 + np.arange(leaves.legal.shape[1]) % 4
        return np.where(leaves.legal != 0, weights, 0.0), np.zeros(len(leaves))

    search = GumbelSearch(flat, max_considered=1, gumbel=False)
    move = search.search(GameBatch(5, 1), simulations=120)[0]
    tree = _tree(search, 0)
    child = tree.children[ROOT, move]
    row = tree.children[child]
    visits = np.where(row >= 0, tree.visits[np.maximum(row, 0)], 0)
    assert visits.sum() == 119  # the child's own evaluation aside
    np.testing.assert_allclose(visits, tree.prior[child] * (1 + visits.sum()), atol=1.0)


def test_the_chosen_move_is_among_the_most_visited():
    search = GumbelSearch(_keyed, max_considered=8, seed=5)
    batch = GameBatch(5, 32, seed=5)
    for _ in range(3):
        batch.sample_and_play(np.ones((32, batch.num_actions)))
    moves = search.search(batch, simulations=24)
    counts = search.visit_counts()
    assert (counts[np.arange(32), moves] == counts.max(axis=1)).all()


def test_the_result_surface_is_the_batched_search_s():
    batch = GameBatch(5, 3, seed=0)
    search = GumbelSearch(Fixed(), max_considered=4, seed=0)
    moves = search.search(batch, simulations=8)
    assert isinstance(search, BatchedSearch)
    np.testing.assert_array_equal(search.best_moves(), moves)
    np.testing.assert_array_equal(search.choose_moves(1.0), moves)  # its Gumbel noise was its draw
    search.play(batch, moves)
    assert (batch.state.info[:, K.INFO_MOVE_NUMBER] == 1).all()
    search.search(batch, simulations=8)
    assert search.simulations.tolist() == [8, 8, 8]  # a fresh tree: nothing kept from the last move


# ---------------------------------------------------------------------------------------
# Golden trees
#
# Golden Gumbel trees: each game's root after a fixed search, recorded once, beside PUCT's.
#
# Each case searches copies of a small position with a deterministic evaluator, either without
# Gumbel noise or with it drawn from a fixed seed, so the trees are a pure function of the
# search's code. The root's visit counts and chosen moves must match exactly, its values, root
# value and improved policy to 1e-9: a faster or restructured search must grow the same trees.
#
# Regenerate ``golden/gumbel.json`` only when a change of search results is intended:
#
#     pytest tests/search/test_gumbel.py --regenerate-golden
# ---------------------------------------------------------------------------------------

GOLDEN = Path(__file__).parent / "golden" / "gumbel.json"


class Case(NamedTuple):
    board: str | int  # a diagram, or the size of an empty board
    rules: Rules
    evaluator: str  # "uniform" or "fixed"
    simulations: int
    max_considered: int
    games: int = 1  # copies of the position searched in one batch
    seed: int | None = None  # None: no Gumbel noise


CASES = {
    "empty5-uniform-m4": Case(5, Rules(), "uniform", 16, 4),
    "empty5-fixed-m8": Case(5, Rules(), "fixed", 32, 8),
    "empty5-fixed-m16-noise": Case(5, Rules(), "fixed", 32, 16, games=3, seed=0),
    "capture-fixed-m16": Case(CAPTURE, HALF_POINT_KOMI, "fixed", 64, 16),
    "capture-uniform-m32-noise": Case(CAPTURE, HALF_POINT_KOMI, "uniform", 48, 32, games=2, seed=1),
    # Near the end of a capped game: many simulations end in a finished game, scored by the rules.
    "only-win-fixed-m8": Case(ONLY_WIN, ONLY_WIN_RULES, "fixed", 64, 8),
    "only-win-fixed-m32-noise": Case(ONLY_WIN, ONLY_WIN_RULES, "fixed", 40, 32, games=2, seed=2),
}


def run_case(case: Case) -> list[dict[str, Any]]:
    """Each game's root after the case's search: the move chosen, the nodes, the root's value,
    the visits and values of the visited moves and the improved policy over the legal moves."""
    game = Game(case.board, case.rules) if isinstance(case.board, int) else position(case.board, case.rules)
    batch = GameBatch(game.size, case.games, game.rules)
    for b in range(case.games):
        K.copy_into(K.state_item(batch.state, b), game.state)
    evaluator = UniformEvaluator() if case.evaluator == "uniform" else FixedEvaluator()
    noise = case.seed is not None
    search = GumbelSearch(evaluator, max_considered=case.max_considered, gumbel=noise, seed=case.seed)
    moves = search.search(batch, simulations=case.simulations)
    assert search.trees is not None

    def vertex(point: int | np.integer) -> str:
        return coords.to_gtp(int(point), game.size)

    counts, values = search.visit_counts(), search.values()
    targets, root_values = search.policy_targets(), search.root_values()
    legal = game.legal_mask().astype(bool)
    games = []
    for b in range(case.games):
        visited = np.flatnonzero(counts[b])
        games.append(
            {
                "move": vertex(moves[b]),
                "nodes": int(search.trees.num_nodes[b, 0]),
                "root_value": float(root_values[b]),
                "visits": {vertex(a): int(counts[b, a]) for a in visited},
                "values": {vertex(a): float(values[b, a]) for a in visited},
                "policy": {vertex(a): float(targets[b, a]) for a in np.flatnonzero(legal)},
            }
        )
    return games


def regenerate() -> None:
    GOLDEN.parent.mkdir(exist_ok=True)
    cases = []
    for name, case in CASES.items():  # one field a line: diffs show what changed
        games = []
        for result in run_case(case):
            fields = [f"   {json.dumps(key)}: {json.dumps(value)}" for key, value in result.items()]
            games.append("  {\n" + ",\n".join(fields) + "\n  }")
        cases.append(f" {json.dumps(name)}: [\n" + ",\n".join(games) + "\n ]")
    GOLDEN.write_text("{\n" + ",\n".join(cases) + "\n}\n")


@pytest.fixture(scope="module")
def golden(request: pytest.FixtureRequest) -> dict[str, Any]:
    if request.config.getoption("--regenerate-golden"):
        regenerate()
        pytest.skip("golden trees regenerated: run again without --regenerate-golden to compare")
    return json.loads(GOLDEN.read_text())


def _close(got: dict[str, float], expected: dict[str, float]) -> None:
    assert got.keys() == expected.keys()
    for move, value in expected.items():
        assert got[move] == pytest.approx(value, abs=1e-9), move


@pytest.mark.parametrize("name", CASES)
def test_gumbel_grows_the_golden_trees(name, golden):
    expected_games, got_games = golden[name], run_case(CASES[name])
    assert len(got_games) == len(expected_games)
    for expected, got in zip(expected_games, got_games, strict=True):
        for key in ("move", "nodes", "visits"):
            assert got[key] == expected[key], key
        assert got["root_value"] == pytest.approx(expected["root_value"], abs=1e-9)
        _close(got["values"], expected["values"])
        _close(got["policy"], expected["policy"])


def test_golden_cases_cover_every_recorded_tree(golden):
    assert golden.keys() == CASES.keys()
