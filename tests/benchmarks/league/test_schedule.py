"""The league's schedule (``goarena.benchmarks.league.schedule``): round robin and
gauntlet, shared random openings, a grown schedule that keeps the games it grew from."""

from __future__ import annotations

from collections import Counter

import pytest

from go_env import Game, Rules
from goarena.benchmarks.commands.league import league_config
from goarena.benchmarks.commands.league import parser as league_parser
from goarena.benchmarks.league.config import LeagueConfig, LeagueConfigError
from goarena.benchmarks.league.schedule import schedule


def test_round_robin_pairs_everyone_and_alternates_colours():
    config = LeagueConfig(players={"a": "random", "b": "random", "c": "random"}, games_per_pair=4)
    games = schedule(config)
    assert [g.id for g in games] == list(range(12))
    pairings = Counter(frozenset((g.black, g.white)) for g in games)
    assert set(pairings.values()) == {4} and len(pairings) == 3
    as_black = Counter(g.black for g in games)
    assert as_black == {"a": 4, "b": 4, "c": 4}
    for pair in pairings:
        blacks = Counter(g.black for g in games if {g.black, g.white} == pair)
        assert sorted(blacks.values()) == [2, 2]
    assert len({g.seed for g in games}) == 12  # every game seeded on its own


def test_random_openings_are_shared_by_each_pair_of_rounds_one_game_a_colour():
    config = LeagueConfig(
        players={"a": "random", "b": "random", "c": "random"}, games_per_pair=4, opening_moves=3
    )
    games = schedule(config)
    assert schedule(config) == games  # the same league draws the same openings
    for pair in {frozenset((g.black, g.white)) for g in games}:
        rounds = [g for g in games if {g.black, g.white} == pair]
        assert rounds[0].opening == rounds[1].opening != rounds[2].opening == rounds[3].opening
        assert rounds[0].black == rounds[1].white and rounds[2].black == rounds[3].white
    assert len({g.opening for g in games}) == 6
    for game in games:
        assert len(game.opening) == 3 and Game(9, Rules()).pass_move not in game.opening
        Game(9, config.game_rules()).replay(game.opening)  # legal
    assert all(g.opening == () for g in schedule(LeagueConfig(players=config.players)))
    argv = ["--player", "a=random", "--player", "b=random", "--opening-moves", "4"]
    assert league_config(league_parser().parse_args(argv)).opening_moves == 4
    with pytest.raises(LeagueConfigError, match="opening_moves must be a whole number from 0 to 40"):
        LeagueConfig(players=config.players, opening_moves=41)


def test_gauntlet_plays_the_challenger_against_the_field_only():
    config = LeagueConfig(
        players={"new": "random", "a": "random", "b": "random"},
        schedule="gauntlet",
        challenger="new",
        games_per_pair=2,
    )
    games = schedule(config)
    assert len(games) == 4 and all("new" in (g.black, g.white) for g in games)
    with pytest.raises(LeagueConfigError, match="challenger"):
        LeagueConfig(players={"a": "random", "b": "random"}, schedule="gauntlet")


def test_a_grown_schedule_keeps_the_games_it_grew_from_and_balances_the_colours():
    first = LeagueConfig(players={"a": "random", "b": "random", "c": "random"}, games_per_pair=2, seed=4)
    grown = LeagueConfig(
        **{**first.to_dict(), "players": {**first.players, "d": "random"}, "games_per_pair": 4}
    )
    before, after = schedule(first), schedule(grown, grown_from=[first])
    key = [(g.id, g.black, g.white, g.seed) for g in before]
    assert [(g.id, g.black, g.white, g.seed) for g in after[: len(before)]] == key
    assert [g.id for g in after] == list(range(24)) == [g.id for g in schedule(grown)]
    pairings = Counter(frozenset((g.black, g.white)) for g in after)
    assert len(pairings) == 6 and set(pairings.values()) == {4}
    for pair in pairings:
        blacks = Counter(g.black for g in after if {g.black, g.white} == pair)
        assert sorted(blacks.values()) == [2, 2]
