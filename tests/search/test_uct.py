"""UCT: the tree's invariants, tactics with and without RAVE, budgets, and tree reuse."""

from __future__ import annotations

import numpy as np
import pytest

from go_env import Game, Rules, coords
from go_env import core as K
from go_env.features.patterns import PatternPolicy, pattern_tables
from goarena.search import PUCT, UCT
from goarena.search.evaluator import new_scratch, outcome, random_state, score_margin
from goarena.search.invariants import check_tree
from goarena.search.rollout import new_playout_scratch, pattern_playout
from tests.boards import CAPTURE, HALF_POINT_KOMI, ONLY_WIN, ONLY_WIN_RULES, position


def test_scoring_matches_the_rules_core():
    rng = np.array([7], np.uint64)
    for size, scoring in ((5, "area"), (7, "territory"), (9, "area")):
        game = Game(size, Rules(scoring=scoring))
        scratch = new_scratch(game.state)
        for _ in range(20):
            state = K.copy_state(game.state)
            K.random_playout(state, game.geometry, rng)
            assert score_margin(state, game.geometry, scratch) == K.score(state, game.geometry)


@pytest.mark.parametrize("rave", [False, True])
def test_tree_invariants(rave):
    game = Game(9)
    game.replay([40, 41, 81])
    uct = UCT(rave=rave, seed=1)
    uct.search(game, simulations=2000)
    check_tree(uct)
    assert uct.tree is not None and uct.tree.visits[0] == uct.simulations == 2000
    legal = game.legal_mask().astype(bool)
    counts = uct.visit_counts()
    assert counts.sum() == 1999 and np.all(counts[~legal] == 0)


@pytest.mark.parametrize("rave", [False, True])
def test_captures_the_group_in_atari(rave):
    game = position(CAPTURE, HALF_POINT_KOMI)
    for seed in range(3):
        assert coords.to_gtp(UCT(rave=rave, seed=seed).search(game, simulations=1000), 5) == "C2"


@pytest.mark.parametrize("rave", [False, True])
def test_finds_the_only_winning_move(rave):
    game = position(ONLY_WIN, ONLY_WIN_RULES)
    for seed in range(3):
        uct = UCT(rave=rave, seed=seed)
        assert coords.to_gtp(uct.search(game, simulations=1000), 5) == "D4"
        assert uct.values()[uct.best_move()] > 0


def test_a_finished_line_is_scored_by_the_rules():
    # White passed: Black's pass ends the game, and Black is ahead on the board.
    game = position(CAPTURE, HALF_POINT_KOMI, to_play=2)
    game.play(game.pass_move)
    uct = UCT(seed=0)
    uct.search(game, simulations=3000)
    check_tree(uct)
    assert game.score() > 0
    assert uct.values()[game.pass_move] == 1.0
    assert uct.visit_counts()[game.pass_move] > 1


def test_the_seed_makes_a_search_reproducible():
    game = Game(7)
    first, second = UCT(seed=3), UCT(seed=3)
    first.search(game, simulations=500)
    second.search(game, simulations=500)
    assert np.array_equal(first.visit_counts(), second.visit_counts())


def test_tree_reuse_keeps_the_subtree():
    game = Game(9)
    uct = UCT(seed=0, capacity=64)  # small on purpose: the tree grows as needed
    uct.search(game, simulations=3000)
    move, reply = uct.principal_variation(uct.best_move())[:2]
    tree = uct.tree
    assert tree is not None
    kept = tree.visits[tree.children[tree.children[0, move], reply]]
    game.replay([move, reply])
    uct.search(game, simulations=1000)
    check_tree(uct)
    assert uct.tree is not None and uct.tree.visits[0] == kept + 1000


def test_moves_outside_the_tree_or_reuse_off_start_afresh():
    game = Game(9)
    fresh = UCT(seed=0, reuse=False)
    reused = UCT(seed=0)
    for uct in (fresh, reused):
        uct.search(game, simulations=500)
    game.play(uct.best_move())
    for uct in (fresh, reused):
        uct.search(game, simulations=100)
    assert fresh.tree is not None and fresh.tree.visits[0] == 100
    assert reused.tree is not None and reused.tree.visits[0] > 100
    other = Game(9)
    other.play(0)  # not the move the tree followed: nothing to keep
    reused.search(other, simulations=100)
    assert reused.tree is not None and reused.tree.visits[0] == 100


class _Clock:
    """A stand-in for ``time`` in the search's module: the simulations move it on."""

    def __init__(self) -> None:
        self.now = 100.0

    def perf_counter(self) -> float:
        return self.now


def test_time_budget_and_stop_end_the_search(monkeypatch):
    import goarena.search.tree as tree_module

    game = Game(9)
    uct = UCT(seed=0)
    clock = _Clock()
    simulate = uct._simulate

    def timed(game: Game, count: int) -> int:
        ran = simulate(game, count)
        clock.now += 0.001 * ran  # a millisecond a simulation, on the search's own clock
        return ran

    with monkeypatch.context() as patched:
        patched.setattr(tree_module, "time", clock)
        patched.setattr(uct, "_simulate", timed)
        uct.search(game, seconds=0.2)
    assert 200 <= uct.simulations <= 201  # the last chunk is cut to end at the budget
    calls = 0

    def stop() -> bool:
        nonlocal calls
        calls += 1
        return calls == 4

    uct.search(game, stop=stop)
    assert calls == 4
    assert UCT(seed=0).search(game, stop=lambda: True) in game.legal_moves()
    assert PUCT(seed=0).search(game, simulations=1) in game.legal_moves()


def test_reports_candidates_while_searching():
    game = Game(9)
    reports = []
    UCT(seed=0).search(game, simulations=20000, report=reports.append, interval=0.0)
    assert len(reports) >= 2
    final = reports[-1]
    assert [c.visits for c in final] == sorted((c.visits for c in final), reverse=True)
    assert all(c.pv[0] == c.move and -1.0 <= c.value <= 1.0 for c in final)


def test_budget_is_required_and_finished_games_are_refused():
    game = Game(5)
    with pytest.raises(ValueError, match="budget"):
        UCT().search(game)
    game.replay([game.pass_move, game.pass_move])
    with pytest.raises(ValueError, match="over"):
        UCT().search(game, simulations=10)


def _noisy_pattern_policy(seed: int) -> PatternPolicy:
    tables = pattern_tables()
    weights = np.random.default_rng(seed).normal(0, 1, tables.num_features).astype(np.float32)
    return PatternPolicy(tables, weights)


def test_a_simulation_plays_the_rollout_policys_playout():
    # The first simulation plays out from the root itself: its result is that of the
    # pattern playout the same generator draws (and, over a few seeds, not of random ones).
    policy, game = _noisy_pattern_policy(3), Game(5)

    def first_result(seed: int, rollout_policy: PatternPolicy | None) -> float:
        uct = UCT(rollout_policy=rollout_policy, seed=seed)
        uct.sync(game)
        assert uct._simulate(game, 1) == 1  # one simulation alone (a search plays one more)
        assert uct.tree is not None
        return -float(uct.tree.value_sum[0])  # kept for the player who moved into the root

    agreements = {True: 0, False: 0}
    for seed in range(8):
        state = K.copy_state(game.state)
        moves = np.zeros(int(state.info[K.INFO_MAX_MOVES]) + 1, np.int32)
        pattern_playout(state, game.geometry, policy, new_playout_scratch(5), random_state(seed), moves, 0)
        expected = outcome(state, game.geometry, K.BLACK, new_scratch(state))
        assert first_result(seed, policy) == expected
        agreements[first_result(seed, None) == expected] += 1
    assert agreements[False] > 0


@pytest.mark.parametrize("rave", [False, True])
def test_pattern_playouts_keep_the_tree_sound_and_find_the_capture(rave):
    policy = _noisy_pattern_policy(4)
    game = position(CAPTURE, HALF_POINT_KOMI)
    uct = UCT(rave=rave, rollout_policy=policy, seed=0)
    assert coords.to_gtp(uct.search(game, simulations=1000), 5) == "C2"
    check_tree(uct)
    game = Game(9)
    game.replay([40, 41])
    uct = UCT(rave=rave, rollout_policy=policy, seed=1)
    uct.search(game, simulations=500)
    check_tree(uct)
    assert uct.visit_counts().sum() == 499
