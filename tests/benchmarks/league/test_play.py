"""The league's play (``goarena.benchmarks.league.play``): the default league, its players
checked before the first game, every game stored once and a league resumed or grown (after kill
-9 too) without replaying one, another league's directory refused, results counted after the
clean-up or by the arbiter, the same seed the same league; it warms up the players it will run,
and a network player's kernels are compiled by the warm-up of the league (and of the GTP engine),
not in its first timed move."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from go_env import Game, Rules
from go_env.sgf import read_sgf
from goarena.agents.gtp import find_engine
from goarena.agents.protocols import GameContext
from goarena.agents.specs import AgentSpecError, check_spec
from goarena.benchmarks.league import play
from goarena.benchmarks.league.config import LeagueConfig, LeagueConfigError
from goarena.benchmarks.league.play import check_players, default_config, run_league
from goarena.benchmarks.league.standings import build_report, plot_ladder
from goarena.benchmarks.league.store import LeagueStore, LeagueStoreError
from tests.agents.gtp.test_engine import warmed_player


@pytest.fixture
def warmed(tmp_path, monkeypatch):
    """The spec of a plug-in player with a warm-up hook, and a reader of the sizes it was warmed at."""
    yield from warmed_player(tmp_path, monkeypatch)


def test_the_league_warms_up_the_players_it_will_run(warmed, monkeypatch):
    spec, sizes = warmed
    config = LeagueConfig(players={"warmed": spec, "random": "random"}, size=5)
    play.warm_up(config)
    assert sizes() == [5]


WARMED_KERNELS = """
import sys

from go_env.features import alphago

planes = alphago.batch_alphago_planes.serial  # what a player's move runs on its few leaves
assert not planes.signatures  # nothing has run the feature planes yet
if sys.argv[1] == "league":
    from goarena.benchmarks.league.config import LeagueConfig
    from goarena.benchmarks.league.play import warm_up

    warm_up(LeagueConfig(players={"sl": "sl-policy", "random": "random"}))
else:
    from goarena.agents.specs import make_agent
    from goarena.agents.gtp.engine import warm_up_in_background

    warm_up_in_background(make_agent("sl-policy"), 9, print).wait()
print(len(planes.signatures))
"""


@pytest.mark.slow  # a fresh process that loads torch and the kernels
@pytest.mark.parametrize("path", ["league", "gtp"])
def test_the_network_players_feature_planes_are_compiled_by_the_warm_up(path):
    """sl-policy's kernels (the feature planes of its evaluator's leaf batches, ladders
    included) are compiled or loaded by the warm-up of the league and of the GTP engine, not
    in its first timed move: in a fresh process, the kernel has a compiled signature once the
    warm-up is over."""
    result = subprocess.run(
        [sys.executable, "-c", WARMED_KERNELS, path], capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr
    assert int(result.stdout.split()[-1]) >= 1


GNUGO = find_engine("gnugo")


FAST = {"random": "random", "uct-20": "uct:simulations=20"}


def test_default_league_anchors_gnu_go_level_10_or_random():
    config = default_config()
    name, elo = config.rated_anchor()
    if GNUGO:
        assert (name, elo) == ("gnugo-10", 1000.0)
    else:
        assert (name, elo) == ("random", 0.0)
    budgets = [spec for spec in config.players.values() if spec.startswith("uct")]
    assert budgets == sorted(budgets, key=lambda s: int(s.split("=")[1]))
    check_players(config)  # the shipped networks' weights are there and fit the board


def test_the_shipped_networks_play_9x9_and_refuse_other_boards():
    for spec in ("sl-policy", "rl-policy", "rollout-policy", "zero"):
        check_spec(spec, GameContext(9, Rules()))
        with pytest.raises(AgentSpecError, match="9x9, not 13x13"):
            check_spec(spec, GameContext(13, Rules()))


def test_a_league_stores_every_game_once_with_its_sgf_and_resumes_with_nothing_to_do(tmp_path):
    config = LeagueConfig(players=FAST, games_per_pair=4, seed=3)
    store = run_league(config, tmp_path, workers=2)
    games = store.games()
    assert [g.id for g in games] == list(range(4))
    for game in games:
        record = read_sgf((tmp_path / game.sgf).read_bytes())
        assert record.black == game.black and record.white == game.white
        replayed = Game(9, config.game_rules())
        replayed.replay([int(m) for m in game.moves.split()])
        assert replayed.result() == game.result == record.result
    assert set(store.players()) == set(FAST)
    assert all(version for _, version in store.players().values())
    first = [(g.id, g.finished_at, g.result) for g in games]
    store.close()
    again = run_league(config, tmp_path, workers=2)  # nothing left to play
    assert [(g.id, g.finished_at, g.result) for g in again.games()] == first
    report = build_report(again)
    assert report.games == report.scheduled == 4
    json.dumps(report.to_json())
    assert plot_ladder(report, tmp_path / "ladder.png").stat().st_size > 1000
    again.close()


@pytest.mark.parametrize(
    ("change", "differs"),
    [
        ({"komi": 5.5}, "komi"),
        ({"size": 7}, "size"),
        ({"games_per_pair": 1}, "games_per_pair"),
        ({"players": {"random": "random", "uct-20": "uct:simulations=30"}}, "players"),
        ({"players": {"random": "random", "other": "random"}}, "players"),
        ({"seed": 1, "games_per_pair": 4}, "seed"),
    ],
)
def test_a_directory_holding_another_league_is_refused(tmp_path, change, differs):
    config = LeagueConfig(players=FAST, size=5, games_per_pair=2)
    run_league(config, tmp_path, workers=1).close()
    with pytest.raises(LeagueStoreError, match=f"another league \\(it differs in: {differs}\\)"):
        run_league(LeagueConfig(**{**config.to_dict(), **change}), tmp_path, workers=1)
    with LeagueStore.open_existing(tmp_path) as store:
        assert store.configs() == [config.to_dict()] and len(store.games()) == 2


def test_a_league_that_played_no_game_yet_takes_the_new_options(tmp_path):
    from goarena.benchmarks.league.play import open_league

    config = LeagueConfig(players=FAST, size=5, games_per_pair=2)
    store, _ = open_league(config, tmp_path)  # stopped before its first game
    store.close()
    corrected = LeagueConfig(**{**config.to_dict(), "komi": 3.5, "games_per_pair": 1})
    with run_league(corrected, tmp_path, workers=1) as store:
        assert store.configs() == [corrected.to_dict()] and len(store.games()) == 1


def test_raising_games_per_pair_and_adding_a_player_grows_the_league(tmp_path):
    config = LeagueConfig(players=FAST, size=5, games_per_pair=2, seed=2)
    store = run_league(config, tmp_path, workers=2)
    first = store.games()
    files = {game.sgf: (tmp_path / game.sgf).read_bytes() for game in first}
    stamps = {game.sgf: (tmp_path / game.sgf).stat().st_mtime_ns for game in first}
    store.close()
    grown = LeagueConfig(
        **{**config.to_dict(), "games_per_pair": 4, "players": {**FAST, "random-2": "random"}}
    )
    played = []
    store = run_league(
        grown, tmp_path, workers=2, on_game=lambda game, done, total: played.append((done, total))
    )
    games = store.games()
    assert games[:2] == first  # the same rows: not replayed
    assert {sgf: (tmp_path / sgf).read_bytes() for sgf in files} == files
    assert {sgf: (tmp_path / sgf).stat().st_mtime_ns for sgf in files} == stamps
    assert [g.id for g in games] == list(range(12)) and len(list((tmp_path / "games").glob("*.sgf"))) == 12
    assert sorted(played) == [
        (done, 12) for done in range(3, 13)
    ]  # only the new games, counted after the old
    assert store.configs() == [config.to_dict(), grown.to_dict()]
    report = build_report(store)
    assert report.games == report.scheduled == 12
    assert {row.name: row.games for row in report.standings} == {"random": 8, "uct-20": 8, "random-2": 8}
    store.close()
    run_league(grown, tmp_path, workers=1).close()  # resumed again: nothing left to play
    with pytest.raises(LeagueStoreError, match="differs in: games_per_pair"):
        run_league(config, tmp_path, workers=1)  # the smaller league it grew from is another one


def test_stored_games_that_the_schedule_places_otherwise_are_refused(tmp_path):
    players = {"a": "random", "b": "random", "c": "random"}
    run_league(LeagueConfig(players=players, size=5, games_per_pair=1), tmp_path, workers=1).close()
    reordered = LeagueConfig(players=dict(reversed(players.items())), size=5, games_per_pair=1)
    with pytest.raises(LeagueStoreError, match="holds game 0 as a \\(B\\) vs b \\(W\\).*first order"):
        run_league(reordered, tmp_path, workers=1)


def test_a_misspelt_player_stops_the_league_before_it_starts(tmp_path):
    config = LeagueConfig(players={"random": "random", "typo": "uct:playout=100"}, games_per_pair=1)
    with pytest.raises(LeagueConfigError, match="player 'typo'.*playout"):
        run_league(config, tmp_path / "league", workers=1)
    assert not (tmp_path / "league").exists()


def test_an_engine_that_will_not_start_stops_the_league_before_its_first_game(tmp_path):
    config = LeagueConfig(players={"random": "random", "gnugo": "gtp:gnugoo --mode gtp"}, games_per_pair=1)
    with pytest.raises(
        LeagueConfigError, match="player 'gnugo': cannot start GTP engine 'gnugoo --mode gtp'"
    ):
        run_league(config, tmp_path / "league", workers=1)
    assert not (tmp_path / "league").exists()
    config = LeagueConfig(
        players=FAST, games_per_pair=1, settle="status", arbiter="gtp:no-such-arbiter --mode gtp"
    )
    with pytest.raises(LeagueConfigError, match="the arbiter: cannot start GTP engine"):
        run_league(config, tmp_path / "league", workers=1)
    assert not (tmp_path / "league").exists()


def test_a_league_killed_mid_way_resumes_and_plays_every_game_exactly_once(tmp_path):
    league_dir = tmp_path / "league"
    command = [
        sys.executable,
        "-m",
        "goarena.benchmarks.cli",
        "league",
        "--player",
        "random",
        "--player",
        "uct-200=uct:simulations=200",
        "--games-per-pair",
        "16",
        "--workers",
        "2",
        "--no-progress",
        "--dir",
        str(league_dir),
    ]
    process = subprocess.Popen(
        command, start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    database = league_dir / LeagueStore.FILENAME
    deadline = time.monotonic() + 120
    finished: list[tuple[int, str]] = []
    while time.monotonic() < deadline and process.poll() is None:
        if database.exists():
            with sqlite3.connect(database) as connection:
                try:
                    finished = connection.execute("SELECT id, finished_at FROM games").fetchall()
                except sqlite3.OperationalError:
                    finished = []
            if len(finished) >= 3:
                break
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)  # the league and its workers, mid-game
    process.wait()
    assert 3 <= len(finished) < 16, f"the league was not caught mid-way: {len(finished)} games"
    with sqlite3.connect(database) as connection:
        survived = connection.execute("SELECT id, finished_at FROM games").fetchall()
    assert set(finished) <= set(survived)  # nothing committed was lost

    completed = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr
    store = LeagueStore.open_existing(league_dir)
    games = store.games()
    assert [g.id for g in games] == list(range(16))  # all, each once (id is the primary key)
    by_id = {g.id: g.finished_at for g in games}
    assert all(by_id[i] == stamp for i, stamp in survived)  # the earlier games were not replayed
    assert len(list((league_dir / "games").glob("*.sgf"))) == 16
    store.close()


NET_PLAYER = """
from goarena.agents.protocols import UnsupportedGame, files_digest


class NinePlayer:  # stands for a network trained on 9x9: building it loads its weights
    name = "nine"

    def __init__(self, weights):
        self.weights = open(weights, "rb").read()
        self.path = weights

    @staticmethod
    def check_options(context, weights):
        if context is not None and context.size != 9:
            raise UnsupportedGame(f"trained for 9x9, not {context.size}x{context.size}")

    def reset(self, context):
        pass

    def select_move(self, game):
        return game.pass_move

    def weights_digest(self):
        return files_digest([self.path])
"""


def test_a_network_for_another_board_stops_the_league_and_its_weights_digest_is_stored(tmp_path, monkeypatch):
    (tmp_path / "nine_players.py").write_text(NET_PLAYER)
    monkeypatch.syspath_prepend(str(tmp_path))
    weights = tmp_path / "nine.bin"
    weights.write_bytes(b"weights")
    players = {"random": "random", "net": f"nine_players:NinePlayer:weights={str(weights)!r}"}
    with pytest.raises(LeagueConfigError, match="player .net.: .*cannot play this game: trained for 9x9"):
        run_league(LeagueConfig(players=players, size=7, games_per_pair=1), tmp_path / "small", workers=1)
    assert not (tmp_path / "small").exists()
    store = run_league(LeagueConfig(players=players, games_per_pair=2), tmp_path / "league", workers=1)
    assert store.weights() == {"net": hashlib.sha256(b"weights").hexdigest()}
    store.close()


@pytest.mark.skipif(GNUGO is None, reason="GNU Go is not installed (e.g. `apt install gnugo`)")
def test_results_against_gnu_go_agree_with_its_own_final_score_after_the_clean_up(tmp_path):
    from goarena.agents.gtp import GTPAgent

    config = LeagueConfig(
        players={
            "uct": "uct:simulations=300,resign_threshold=None",  # played out, to be scored
            "gnugo": "gtp:gnugo --mode gtp --level 1 --chinese-rules --positional-superko",
        },
        games_per_pair=4,
        komi=7.5,
    )
    store = run_league(config, tmp_path, workers=2)
    games = store.games()
    assert len(games) == 4
    with GTPAgent(f"{GNUGO} --mode gtp --chinese-rules --positional-superko") as referee:
        for game in games:
            assert game.reason in ("two passes after clean-up", "resign", "move cap"), game.reason
            if game.margin is None:
                continue
            moves = tuple(int(m) for m in game.moves.split())
            final = Game(9, config.game_rules())
            final.replay(moves, resume=True)  # the passes before the clean-up phase included
            record = read_sgf((tmp_path / game.sgf).read_bytes())
            assert record.moves == moves and (record.game.board == final.board).all()
            if game.reason == "move cap":  # counted as the board stood, dead stones and all
                assert final.score() == game.margin, game
                continue
            assert moves[game.cleanup_from - 2 : game.cleanup_from] == (81, 81), game
            assert referee.final_score(final) == game.margin, game
            assert referee.final_status_list(final, "dead") == []
    store.close()


@pytest.mark.skipif(GNUGO is None, reason="GNU Go is not installed (e.g. `apt install gnugo`)")
def test_a_league_settled_by_the_arbiters_dead_stones(tmp_path):
    from goarena.agents.gtp import GTPAgent

    rules = "--chinese-rules --positional-superko"
    config = LeagueConfig(
        players={
            "uct": "uct:simulations=300,resign_threshold=None",  # played out, to be scored
            "gnugo": f"gtp:gnugo --mode gtp --level 1 {rules}",
        },
        games_per_pair=2,
        komi=7.5,
        settle="status",
        arbiter=f"gtp:gnugo --mode gtp {rules}",
    )
    store = run_league(config, tmp_path, workers=2)
    scored = [game for game in store.games() if game.margin is not None]
    assert scored, [game.reason for game in store.games()]
    with GTPAgent(f"{GNUGO} --mode gtp {rules}") as arbiter:
        for game in scored:
            assert game.reason.startswith("two passes, dead stones named by the arbiter"), game.reason
            final = Game(9, config.game_rules())
            final.replay([int(m) for m in game.moves.split()])
            assert arbiter.final_score(final) == game.margin
    store.close()


def test_the_same_seed_replays_the_same_league(tmp_path):
    config = LeagueConfig(players=FAST, games_per_pair=2, seed=11)
    first = run_league(config, tmp_path / "first", workers=2)
    second = run_league(config, tmp_path / "second", workers=1)
    assert [(g.moves, g.result) for g in first.games()] == [(g.moves, g.result) for g in second.games()]
    other = run_league(LeagueConfig(**{**config.to_dict(), "seed": 12}), tmp_path / "other", workers=2)
    assert [g.moves for g in other.games()] != [g.moves for g in first.games()]
    for store in (first, second, other):
        store.close()
