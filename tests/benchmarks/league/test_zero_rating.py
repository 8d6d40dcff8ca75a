"""The Elo curve of a zero run: its generations rated in a league that grows with the run."""

import json

import pytest

from goarena.agents.gtp import find_engine
from goarena.agents.nets.checkpoint import save_model
from goarena.agents.nets.zero import ZeroNet
from goarena.benchmarks.league.play import GNUGO_RULES
from goarena.benchmarks.league.store import LeagueStore
from goarena.benchmarks.league.zero_rating import (
    ZeroRatingError,
    anchor_players,
    anchor_specs,
    plot_elo,
    plot_runs,
    rate_generations,
    rate_runs,
    read_generations,
    runs_table,
)

SIZE = 5
TINY = {"anchors": ["random"], "games_per_pair": 2, "simulations": 2, "progress": False}


def add_generation(run, number, seed=None):
    """Save an untrained 5x5 network as generation ``number`` and list it in generations.json."""
    import torch

    torch.manual_seed(number if seed is None else seed)
    weights = f"generations/gen-{number:04d}.pt"
    save_model(run / weights, ZeroNet(SIZE, 1, 8))
    path = run / "generations.json"
    listed = json.loads(path.read_text()) if path.exists() else []
    entry = {"generation": number, "step": 40 * number, "games": 100 * number, "seconds": 600.0 * number}
    listed.append({**entry, "weights": weights})
    path.write_text(json.dumps(listed))


@pytest.fixture
def run(tmp_path):
    """A run directory of a 5x5 zero run with generations 0 and 1."""
    run = tmp_path / "run"
    (run / "generations").mkdir(parents=True)
    (run / "config.json").write_text(json.dumps({"size": SIZE, "komi": 0.5}))
    add_generation(run, 0)
    add_generation(run, 1)
    return run


def stored_games(run):
    with LeagueStore.open_existing(run / "league") as store:
        return store.games()


@pytest.mark.slow  # a league in processes of its own
def test_every_generation_and_anchor_is_rated_and_written_to_elo_json(run):
    rows = rate_generations(run, **TINY)
    assert [row["name"] for row in rows] == ["gen-0000", "gen-0001"]
    assert [row["games"] for row in rows] == [0, 100]  # the generations.json entries, joined
    for row in rows:
        assert row["elo_low"] <= row["elo"] <= row["elo_high"] and row["league_games"] == 4
        assert all(type(row[key]) is float for key in ("elo", "elo_low", "elo_high"))
    table = json.loads((run / "elo.json").read_text())
    assert table["generations"] == rows
    assert [anchor["name"] for anchor in table["anchors"]] == ["random"]
    # Anchored as every league is: random = 0.
    assert (table["anchor"], table["anchor_elo"], table["anchors"][0]["elo"]) == ("random", 0.0, 0.0)
    assert table["league_games"] == len(stored_games(run)) == 3 * 2


@pytest.mark.slow  # a league in processes of its own
def test_a_new_generation_plays_only_the_new_pairs_and_keeps_every_game(run):
    rate_generations(run, **TINY)
    before = stored_games(run)
    add_generation(run, 2)
    rows = rate_generations(run, **TINY)
    after = stored_games(run)
    assert after[: len(before)] == before  # none played again, none lost
    new = after[len(before) :]
    assert len(new) == 3 * 2  # gen-0002 against gen-0000, gen-0001 and random, twice each
    assert all("gen-0002" in (game.black, game.white) for game in new)
    assert [row["name"] for row in rows] == ["gen-0000", "gen-0001", "gen-0002"]
    rate_generations(run, **TINY)  # nothing new: nothing played
    assert stored_games(run) == after


@pytest.mark.slow  # a league in processes of its own
def test_a_league_whose_players_changed_is_refused_before_anything_is_written(run):
    rate_generations(run, **TINY)
    before = stored_games(run)
    with pytest.raises(ZeroRatingError, match="'gen-0000' was rated as .*simulations=2.*simulations=3"):
        rate_generations(run, **{**TINY, "simulations": 3})
    with pytest.raises(ZeroRatingError, match="anchor 'random' .* is missing now"):
        rate_generations(run, **{**TINY, "anchors": ["uct:simulations=2"]})
    assert stored_games(run) == before


@pytest.mark.slow  # a league in processes of its own
def test_a_generation_whose_weights_were_rewritten_is_refused(run):
    rate_generations(run, **TINY)
    add_generation(run, 2)
    save_model(run / "generations/gen-0001.pt", ZeroNet(SIZE, 1, 8))  # other weights, same path
    with pytest.raises(ZeroRatingError, match=r"gen-0001\.pt: the weights of gen-0001 differ"):
        rate_generations(run, **TINY)


@pytest.mark.slow  # a league in processes of its own
def test_the_plot_is_a_png_in_the_run_directory(run):
    rate_generations(run, **TINY)
    path = plot_elo(run)
    assert path == run / "elo.png"
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plotting_before_rating_names_the_missing_file(run):
    with pytest.raises(ZeroRatingError, match="elo.json"):
        plot_elo(run)


ENTRY = {"generation": 0, "step": 0, "games": 0, "seconds": 0.0, "weights": "generations/gen-0000.pt"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not readable JSON"),
        ("[]", "expected a non-empty list"),
        (json.dumps({"generation": 0}), "expected a non-empty list"),
        (json.dumps([7]), "entry 0: expected an object"),
        (json.dumps([{"generation": 0}]), "entry 0: lacks step, games, seconds, weights"),
        (json.dumps([{**ENTRY, "games": -1}]), "entry 0: games must be a whole number"),
        (json.dumps([{**ENTRY, "seconds": "an hour"}]), "entry 0: seconds must be a finite number"),
        (json.dumps([ENTRY, ENTRY]), "entry 1: generation 0 follows generation 0"),
        (
            json.dumps([{**ENTRY, "weights": "generations/gen-0009.pt"}]),
            "gen-0009.pt of generation 0 is missing",
        ),
    ],
)
def test_a_bad_generations_json_is_an_error_naming_the_file(run, text, message):
    (run / "generations.json").write_text(text)
    with pytest.raises(ZeroRatingError, match=message) as error:
        rate_generations(run, **TINY)
    assert str(run / "generations.json") in str(error.value)
    assert not (run / "league").exists()


def test_no_generations_json_is_an_error_naming_the_file(tmp_path):
    with pytest.raises(ZeroRatingError, match=r"generations\.json: no such file"):
        read_generations(tmp_path)


def test_anchors_are_named_as_the_league_names_its_players():
    assert anchor_players(["random", "uct-300=uct:simulations=300"]) == {
        "random": "random",
        "uct-300": "uct:simulations=300",
    }
    with pytest.raises(ZeroRatingError, match="two anchors are named 'random'"):
        anchor_players(["random", "random"])
    with pytest.raises(ZeroRatingError, match="gnugo:level=N"):
        anchor_players(["gnugo:strength=1"])


@pytest.mark.skipif(not find_engine("gnugo"), reason="GNU Go is not installed")
def test_gnugo_at_a_level_is_the_default_leagues_gnugo_player():
    assert anchor_players(["gnugo:level=1"]) == {"gnugo-1": f"gtp:gnugo --mode gtp --level 1 {GNUGO_RULES}"}


def test_an_anchor_named_as_a_generation_is_refused(run):
    with pytest.raises(ZeroRatingError, match="named as a generation: gen-0001"):
        rate_generations(run, **{**TINY, "anchors": ["gen-0001=random"]})


@pytest.mark.slow  # a league in processes of its own
def test_a_league_killed_before_its_configuration_was_stored_is_started(run):
    """An empty database (the league killed as it began) is the league's to start, as
    ``goarena league`` starts it; the check of its players must not refuse it."""
    import sqlite3

    (run / "league").mkdir()
    sqlite3.connect(run / "league" / LeagueStore.FILENAME).close()
    assert len(rate_generations(run, **TINY)) == 2


def test_a_bad_run_config_is_an_error_naming_the_file(run):
    (run / "config.json").write_text(json.dumps({"size": 1, "komi": 0.5}))
    with pytest.raises(ZeroRatingError, match=r"config\.json: .*size must be a whole number"):
        rate_generations(run, **TINY)
    (run / "config.json").write_text(json.dumps({"komi": 0.5}))
    with pytest.raises(ZeroRatingError, match=r"config\.json: the run's config names no board size"):
        rate_generations(run, **TINY)


@pytest.fixture
def runs(tmp_path):
    """Two 5x5 runs, ``zero`` with generations 0 and 1, ``warm`` with generation 0."""
    made = {}
    for label, numbers in (("zero", (0, 1)), ("warm", (0,))):
        run = tmp_path / label
        (run / "generations").mkdir(parents=True)
        (run / "config.json").write_text(json.dumps({"size": SIZE, "komi": 0.5}))
        for number in numbers:
            add_generation(run, number, seed=number + 10 * len(made))
        made[label] = run
    return made


@pytest.mark.slow  # a league in processes of its own
def test_runs_are_rated_in_one_league_each_its_own_curve(runs, tmp_path):
    out = tmp_path / "compared"
    table = rate_runs(runs, out, **TINY)
    assert {label: [row["name"] for row in rows] for label, rows in table["runs"].items()} == {
        "zero": ["zero-gen-0000", "zero-gen-0001"],
        "warm": ["warm-gen-0000"],
    }
    assert [row["seconds"] for row in table["runs"]["zero"]] == [0.0, 600.0]  # the runs' own entries
    assert [anchor["name"] for anchor in table["anchors"]] == ["random"]
    assert table["league_games"] == 6 * 2  # 4 players, 6 pairs, 2 games each
    assert json.loads((out / "elo.json").read_text()) == table
    assert plot_runs(out).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = runs_table(table).splitlines()
    assert [line.split()[0] for line in text[1:]] == [
        "zero-gen-0000",
        "zero-gen-0001",
        "warm-gen-0000",
        "random",
    ]


def test_runs_on_different_boards_or_with_bad_labels_are_refused(runs, tmp_path):
    with pytest.raises(ZeroRatingError, match="label 'a b'"):
        rate_runs({"a b": runs["zero"]}, tmp_path / "out", **TINY)
    (runs["warm"] / "config.json").write_text(json.dumps({"size": SIZE, "komi": 7.5}))
    with pytest.raises(ZeroRatingError, match="runs zero and warm were trained on different boards"):
        rate_runs(runs, tmp_path / "out", **TINY)
    with pytest.raises(ZeroRatingError, match="no runs"):
        rate_runs({}, tmp_path / "out", **TINY)
    assert not (tmp_path / "out").exists()  # refused before anything is written


def test_plotting_runs_before_rating_them_names_the_missing_file(tmp_path):
    with pytest.raises(ZeroRatingError, match="elo.json: cannot read the runs' ratings"):
        plot_runs(tmp_path)


def test_anchors_are_separated_by_semicolons_as_specs_have_commas():
    assert anchor_specs("random; uct-300=uct:simulations=300,c=1.4;") == [
        "random",
        "uct-300=uct:simulations=300,c=1.4",
    ]
