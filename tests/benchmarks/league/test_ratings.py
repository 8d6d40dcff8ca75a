"""The Elo fit recovers known strengths and agrees with choix, an independent implementation."""

import choix
import numpy as np
import pytest

from goarena.benchmarks.league.ratings import ELO_PER_NATURAL, Result, fit_ratings

TRUE_ELO = {"random": 0.0, "weak": 150.0, "medium": 400.0, "strong": 700.0}


def simulate(rng, games_per_pair, black_advantage=60.0):
    names = list(TRUE_ELO)
    results = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            for g in range(games_per_pair):
                black, white = (a, b) if g % 2 == 0 else (b, a)
                d = TRUE_ELO[black] - TRUE_ELO[white] + black_advantage
                p_black = 1 / (1 + 10 ** (-d / 400))
                results.append(Result(black, white, float(rng.random() < p_black)))
    return results


def test_true_gaps_fall_inside_the_intervals_in_most_trials():
    rng = np.random.default_rng(7)
    inside = total = 0
    advantage_inside = 0
    trials = 40
    for _ in range(trials):
        ratings = fit_ratings(simulate(rng, 60), anchor="random", anchor_elo=0.0)
        for name, elo in TRUE_ELO.items():
            if name == "random":
                continue
            low, high = ratings.interval(name)
            inside += low <= elo <= high
            total += 1
        low, high = (ratings.black_advantage + s * 1.96 * ratings.black_advantage_stderr for s in (-1, 1))
        advantage_inside += low <= 60.0 <= high
    # 95% intervals: expect about 95% coverage; allow sampling noise over 120 intervals.
    assert inside / total >= 0.88
    assert advantage_inside / trials >= 0.85


def test_anchor_is_fixed_and_ladder_is_in_true_order():
    ratings = fit_ratings(simulate(np.random.default_rng(1), 200), anchor="random", anchor_elo=0.0)
    assert ratings.elo[ratings.players.index("random")] == 0.0
    assert ratings.stderr[ratings.players.index("random")] == 0.0
    assert ratings.ranked() == ["strong", "medium", "weak", "random"]
    assert ratings.los("strong", "medium") > 0.99 and ratings.los("random", "weak") < 0.01
    moved = fit_ratings(simulate(np.random.default_rng(1), 200), anchor="strong", anchor_elo=1000.0)
    np.testing.assert_allclose(moved.elo - moved.elo[moved.players.index("random")], ratings.elo, atol=0.5)


def test_agrees_with_choix_without_colour_term():
    results = simulate(np.random.default_rng(3), 80, black_advantage=0.0)
    ours = fit_ratings(results, anchor="random", colour_term=False)
    index = {p: i for i, p in enumerate(ours.players)}
    pairs = [
        (index[r.black], index[r.white]) if r.score == 1 else (index[r.white], index[r.black])
        for r in results
    ]
    params = choix.opt_pairwise(len(ours.players), pairs, alpha=0.0)
    theirs = (params - params[index["random"]]) * ELO_PER_NATURAL
    np.testing.assert_allclose(ours.elo, theirs, atol=1.0)


def test_a_player_who_won_everything_needs_the_prior():
    results = [Result("a", "b", 1.0) for _ in range(10)] + [Result("b", "a", 0.0) for _ in range(10)]
    finite = fit_ratings(results, anchor="b", prior_games=2.0)
    assert np.isfinite(finite.elo).all() and finite.elo[finite.players.index("a")] > 200


def test_draws_count_half():
    # Every game drawn: whatever the colours, all players come out equal.
    results = [Result(a, b, 0.5) for a, b in [("a", "b"), ("b", "c"), ("c", "a")] * 10]
    ratings = fit_ratings(results, anchor="a")
    np.testing.assert_allclose(ratings.elo, 0.0, atol=1e-3)
    assert abs(ratings.black_advantage) < 1e-3


def test_unknown_anchor_is_an_error():
    with pytest.raises(ValueError, match="anchor 'gnugo' played no game"):
        fit_ratings([Result("a", "b", 1.0)], anchor="gnugo")


@pytest.mark.parametrize("anchor", ["a", "d"])
@pytest.mark.parametrize("winner", [1.0, 0.0])
def test_one_colour_winning_every_game_leaves_the_ladder_in_the_order_of_the_scores(anchor, winner):
    # One game per pair, every game won by the same colour: a league stopped in round one.
    # The earlier name is Black, so with Black winning a scores 3/3, b 2/3, c 1/3 and d 0/3.
    pairs = [("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"), ("b", "d"), ("c", "d")]
    results = [Result(black, white, winner) for black, white in pairs]
    ratings = fit_ratings(results, anchor=anchor, prior_games=1.0)
    assert ratings.ranked() == (["a", "b", "c", "d"] if winner else ["d", "c", "b", "a"])
    assert abs(ratings.black_advantage) < 500 and ratings.black_advantage * (winner - 0.5) > 0
    assert np.isfinite(ratings.stderr).all() and ratings.black_advantage_stderr > 0
