"""Leagues: schedules, configuration, storage, resume after kill -9, failures, clean-up scoring."""

from __future__ import annotations

import errno
import hashlib
import json
import os
import pathlib
import re
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections import Counter

import pytest

from go_env import Game, Rules
from go_env.sgf import read_sgf
from goarena.agents.gtp import find_engine
from goarena.agents.protocols import GameContext
from goarena.agents.specs import AgentSpecError, check_spec
from goarena.benchmarks.commands.league import league_config
from goarena.benchmarks.commands.league import parser as league_parser
from goarena.benchmarks.league.config import LeagueConfig, LeagueConfigError
from goarena.benchmarks.league.play import check_players, default_config, load_config, run_league
from goarena.benchmarks.league.schedule import schedule
from goarena.benchmarks.league.standings import build_report, plot_ladder
from goarena.benchmarks.league.store import LeagueStore, LeagueStoreError

HERE = pathlib.Path(__file__).parent  # misbehaving_players

GNUGO = find_engine("gnugo")
FAST = {"random": "random", "uct-20": "uct:simulations=20"}


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


def test_two_players_of_one_name_are_refused_naming_it():
    argv = ["--player", "a=random", "--player", "a=uct:simulations=10", "--player", "b=random"]
    with pytest.raises(
        LeagueConfigError, match=r"two players are named 'a' \(random and uct:simulations=10\)"
    ):
        league_config(league_parser().parse_args(argv))


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


def test_config_from_toml_and_the_command_line(tmp_path):
    path = tmp_path / "league.toml"
    path.write_text(
        textwrap.dedent(
            """
            name = "ladder"
            size = 7
            komi = 5.5
            games_per_pair = 3
            [players]
            random = "random"
            uct-50 = "uct:simulations=50"
            """
        )
    )
    config = load_config(path)
    assert config.players == {"random": "random", "uct-50": "uct:simulations=50"}
    assert config.size == 7 and config.game_rules().komi == 5.5 and config.games_per_pair == 3
    args = league_parser().parse_args(
        [str(path), "--games-per-pair", "5", "--size", "9", "--anchor", "uct-50=100"]
    )
    overridden = league_config(args)
    assert overridden.games_per_pair == 5 and overridden.size == 9
    assert overridden.rated_anchor() == ("uct-50", 100.0)
    args = league_parser().parse_args(["--player", "random", "--player", "best=uct:simulations=9"])
    assert league_config(args).players == {"random": "random", "best": "uct:simulations=9"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("players = ['random']", "at least two players"),
        ("players = ['random', 'uct']\nschedul = 'x'", "unknown league option"),
        ("players = ['random', 'uct']\nrules = 'klingon'", "unknown rules preset"),
        ("players = ['random', 'uct']\nanchor = 'gnugo'", "anchor"),
        ("players = [", "cannot read league file"),
        ("players = ['random', 'uct']\nsettle = 'vote'", "unknown settle mode"),
        ("players = ['random', 'uct']\nsettle = 'status'\nrules = 'japanese-like'", "area scoring"),
        ("players = ['random', 'uct']\narbiter = 'gtp:gnugo'", "only with settle"),
        ("players = ['random', 'uct']\nsize = 1", "size must be a whole number from 2 to 25, got 1"),
        ("players = ['random', 'uct']\nsize = '9'", "size must be a whole number"),
        ("players = ['random', 'uct']\ngames_per_pair = 1e8", "games_per_pair must be a whole number"),
        ("players = ['random', 'uct']\ngames_per_pair = 100_000", "games_per_pair must be a whole number"),
        (
            "players = [" + ", ".join(f"'random:seed={i}'" for i in range(40)) + "]\ngames_per_pair = 200",
            "more than",
        ),
        ("players = ['random', 'uct']\nseconds_per_move = 0", "seconds_per_move must be .* above 0"),
        ("players = ['random', 'uct']\nseconds_per_move = -1", "seconds_per_move must be"),
        ("players = ['random', 'uct']\nseconds_per_move = nan", "seconds_per_move must be"),
        ("players = ['random', 'uct']\nkomi = nan", "komi must be a finite number"),
        ("players = ['random', 'uct']\nkomi = -inf", "komi must be a finite number"),
        ("players = ['random', 'uct']\nkomi = 0.3", "multiple of 0.5"),
        ("players = ['random', 'uct']\nseed = -1", "seed must be"),
        ("players = ['random', 'uct']\nrules = ['goarena']", "rules must be text"),
        ("players = ['random', 'uct']\nname = ''", "name must be a non-empty string"),
    ],
)
def test_bad_configurations_are_refused_with_a_clear_error(tmp_path, text, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(LeagueConfigError, match=message):
        load_config(path)


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


def test_a_corrupt_database_is_refused_not_overwritten(tmp_path):
    (tmp_path / LeagueStore.FILENAME).write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(LeagueStoreError, match="not a league database"):
        run_league(LeagueConfig(players=FAST, games_per_pair=1), tmp_path, workers=1)
    assert (tmp_path / LeagueStore.FILENAME).read_bytes().startswith(b"this is not sqlite")


@pytest.mark.parametrize("damage", ["emptied", "missing"])
def test_a_league_whose_database_is_lost_is_not_started_over_its_games(tmp_path, damage):
    config = LeagueConfig(players={"random": "random", "random-2": "random"}, size=5, games_per_pair=1)
    run_league(config, tmp_path, workers=1).close()
    database = tmp_path / LeagueStore.FILENAME
    if damage == "emptied":
        database.write_bytes(b"")
    else:
        database.unlink()
    sgf = next((tmp_path / "games").glob("*.sgf"))
    with pytest.raises(LeagueStoreError, match="holds 1 games"):
        run_league(config, tmp_path, workers=1)
    assert database.exists() == (damage == "emptied") and list((tmp_path / "games").iterdir()) == [sgf]


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


CRASHING_ENGINE = """
import sys
moves = 0
for line in sys.stdin:
    parts = line.split()
    if not parts:
        continue
    command = parts[0]
    if command == "name":
        answer = "crasher"
    elif command == "version":
        answer = "1"
    elif command == "list_commands":
        answer = "name\\nversion\\nlist_commands\\nboardsize\\nclear_board\\nkomi\\nplay\\ngenmove\\nquit"
    elif command == "genmove":
        moves += 1
        if moves > 3:
            sys.exit(3)  # dies in the middle of the game
        answer = ["A1", "J9", "A9"][moves - 1]
    elif command == "quit":
        print("=\\n", flush=True)
        break
    else:
        answer = ""
    print("= " + answer + "\\n", flush=True)
"""

ILLEGAL_PLAYER = """
class OccupiedPointPlayer:
    name = "occupied-point"

    def reset(self, rules):
        pass

    def select_move(self, game):
        stones = game.board.ravel().nonzero()[0]
        return int(stones[0]) if len(stones) else 40  # a taken point once there is one
"""


def test_crashing_engines_and_illegal_moves_lose_the_game_and_the_league_goes_on(tmp_path, monkeypatch):
    (tmp_path / "crasher.py").write_text(CRASHING_ENGINE)
    (tmp_path / "illegal_players.py").write_text(ILLEGAL_PLAYER)
    monkeypatch.syspath_prepend(str(tmp_path))
    players = {
        "random": "random",
        "crasher": f"gtp:{sys.executable} {tmp_path / 'crasher.py'}",
        "illegal": "illegal_players:OccupiedPointPlayer",
    }
    config = LeagueConfig(players=players, games_per_pair=2)
    store = run_league(config, tmp_path / "league", workers=2)
    games = store.games()
    assert len(games) == len(schedule(config)) == 6
    for game in games:
        loser = {"black": game.white, "white": game.black}.get(game.winner)
        if "crasher" in (game.black, game.white) and "random" in (game.black, game.white):
            assert loser == "crasher" and game.reason.startswith("crash:") and "exited" in game.reason
        if "illegal" in (game.black, game.white) and "random" in (game.black, game.white):
            assert (
                loser == "illegal" and game.reason.startswith("illegal move:") and "occupied" in game.reason
            )
    report = build_report(store)
    assert report.standings[0].name == "random"  # the only player that never failed
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


@pytest.fixture
def local_ray():
    """A local Ray instance, or a skip saying why there is none."""
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'goarena[ray]')")
    try:
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    except Exception as error:  # a machine where Ray cannot start (no shared memory, ...)
        pytest.skip(f"Ray cannot start here: {type(error).__name__}: {error}")
    yield ray
    ray.shutdown()


@pytest.mark.slow
def test_the_same_league_runs_on_a_local_ray_instance(tmp_path, local_ray):
    config = LeagueConfig(players=FAST, games_per_pair=2, seed=5)
    store = run_league(config, tmp_path, workers=2, use_ray=True)
    assert [g.id for g in store.games()] == [0, 1]
    assert local_ray.is_initialized()  # a Ray instance the league did not start is left running
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


def test_command_line_json_and_the_table_of_a_finished_league(tmp_path, capsys):
    from goarena.benchmarks.commands.league import league as main

    league_dir = tmp_path / "league"
    options = ["--player", "random", "--player", "uct-20=uct:simulations=20", "--games-per-pair", "2"]
    main([*options, "--workers", "1", "--dir", str(league_dir), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert [row["name"] for row in report["standings"]] == ["uct-20", "random"]
    assert report["anchor"] == "random" and report["games"] == 2
    assert report["crosstable"]["uct-20"]["random"] == [1.0, 1.0, 1.0, 1.0]
    main(["table", str(league_dir), "--json"])
    assert json.loads(capsys.readouterr().out) == report
    main(["table", str(league_dir), "--plot", str(tmp_path / "ladder.png")])
    text = capsys.readouterr().out
    assert "uct-20" in text and "Points of the row player" in text and "Anchor: random fixed at 0" in text
    assert (tmp_path / "ladder.png").exists()
    with pytest.raises(SystemExit, match="no league"):
        main(["table", str(tmp_path / "nowhere")])


TWO_RANDOM = ["--player", "random", "--player", "random-2=random", "--size", "5", "--workers", "1"]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--size", "1"], "size must be a whole number from 2 to 25, got 1"),
        (["--size", "26"], "size must be"),
        (["--seconds-per-move", "0"], "seconds_per_move must be a number of seconds above 0"),
        (["--seconds-per-move", "-1"], "seconds_per_move must be"),
        (["--seconds-per-move", "nan"], "seconds_per_move must be"),
        (["--games-per-pair", "100000000"], "games_per_pair must be a whole number from 1 to 10000"),
        (["--games-per-pair", "0"], "games_per_pair must be"),
        (["--komi", "nan"], "komi must be a finite number"),
        (["--komi", "inf"], "komi must be a finite number"),
        (["--komi", "0.3"], "multiple of 0.5"),
        (["--seed", "-1"], "seed must be"),
        (["--anchor", "random=strong"], "--anchor takes NAME or NAME=ELO"),
        (["--player", "puct:evaluator=net"], "bad options for 'puct:evaluator=net': unknown evaluator"),
        (["--player", "deep=minimax:depth=None"], "player 'deep': bad options for 'minimax:depth=None'"),
        (["--player", "gtp:gnugoo --mode gtp"], "cannot start GTP engine 'gnugoo --mode gtp'"),
        (["--player", "sl-policy:device='mps'"], "unsupported device 'mps': use cpu or cuda"),
    ],
)
def test_bad_options_are_refused_in_one_line_before_anything_is_written(tmp_path, options, message):
    from goarena.benchmarks.commands.league import league as main

    league_dir = tmp_path / "league"
    with pytest.raises(SystemExit) as exit:
        main([*TWO_RANDOM, *options, "--dir", str(league_dir)])
    text = str(exit.value.code)
    assert text.startswith("goarena league: ") and "\n" not in text
    assert re.search(message, text), text
    assert not league_dir.exists()


def test_a_device_the_players_cannot_run_on_is_refused_before_anything_is_written(tmp_path, capsys):
    from goarena.benchmarks.commands.league import league as main

    with pytest.raises(SystemExit) as exit:
        main([*TWO_RANDOM, "--device", "mps", "--dir", str(tmp_path / "mps")])
    assert (
        exit.value.code == 2
        and "unsupported device 'mps': use cpu, cuda or cuda:N" in capsys.readouterr().err
    )
    with pytest.raises(SystemExit) as exit:
        main([*TWO_RANDOM, "--device", "cuda:7", "--dir", str(tmp_path / "cuda")])
    assert re.fullmatch(r"goarena league: --device: device 'cuda:7' asked for, but .*", str(exit.value.code))
    assert not (tmp_path / "mps").exists() and not (tmp_path / "cuda").exists()


def test_games_per_pair_that_is_no_whole_number_is_refused_by_the_parser(tmp_path, capsys):
    from goarena.benchmarks.commands.league import league as main

    with pytest.raises(SystemExit) as exit:
        main([*TWO_RANDOM, "--games-per-pair", "1e8", "--dir", str(tmp_path / "league")])
    assert exit.value.code == 2 and "invalid int value: '1e8'" in capsys.readouterr().err
    assert not (tmp_path / "league").exists()


def test_players_that_write_to_stdout_leave_the_leagues_json_valid(tmp_path):
    """A print, a write to descriptor 1 and a child process's output, in the league's
    workers: all go to stderr, and stdout holds the JSON alone."""
    options = ["--player", "noisy=misbehaving_players:Noisy", "--player", "random", "--size", "5"]
    process = subprocess.run(
        [sys.executable, "-m", "goarena.benchmarks.cli", "league", *options, "--games-per-pair", "2",
         "--workers", "1", "--json", "--dir", str(tmp_path / "league")],
        capture_output=True, text=True, timeout=300,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])},
    )  # fmt: skip
    assert process.returncode == 0, process.stderr
    report = json.loads(process.stdout)
    assert report["games"] == 2 and {row["name"] for row in report["standings"]} == {"noisy", "random"}
    assert "= noisy os.write when asked for a move" in process.stderr
    assert "= noisy child when reset" in process.stderr


@pytest.mark.parametrize("spec", ["puct:evaluator=net", "minimax:depth=None", "uct:simulations=-5"])
def test_a_bad_option_value_reads_the_same_in_the_league_and_the_gtp_engine(tmp_path, spec):
    from goarena.benchmarks import cli
    from goarena.benchmarks.commands.league import league as main

    with pytest.raises(SystemExit) as engine:
        cli.main(["gtp", "--agent", spec])
    with pytest.raises(SystemExit) as league:
        main(["--player", spec, "--player", "random", "--dir", str(tmp_path / "league")])
    said_by_engine = str(engine.value.code).removeprefix("goarena gtp: ")
    assert said_by_engine == str(league.value.code).removeprefix("goarena league: ")
    assert said_by_engine.startswith(f"bad options for {spec!r}: ")


def test_a_second_league_on_a_directory_stops_with_one_line_while_the_first_plays(tmp_path):
    from goarena.benchmarks.commands.league import league as main

    config = LeagueConfig(players={"random": "random", "random-2": "random"}, size=5, games_per_pair=1)
    store = LeagueStore(tmp_path)  # as a league playing there now holds it
    with pytest.raises(SystemExit, match=f"goarena league: {re.escape(str(tmp_path))} is in use"):
        main([*TWO_RANDOM, "--games-per-pair", "1", "--dir", str(tmp_path)])
    with pytest.raises(LeagueStoreError, match="is in use"):
        run_league(config, tmp_path, workers=1)
    store.close()
    run_league(config, tmp_path, workers=1).close()
    assert len(list((tmp_path / "games").glob("*.sgf"))) == 1


def test_an_unwritable_directory_or_a_full_disk_stops_the_league_with_one_line(tmp_path, monkeypatch):
    from goarena.benchmarks.commands.league import league as main

    (tmp_path / "file").write_text("")
    with pytest.raises(SystemExit, match="goarena league: cannot create the league's directory"):
        main([*TWO_RANDOM, "--dir", str(tmp_path / "file" / "league")])

    opened = os.open

    def read_only(path, *args, **kwargs):
        if str(path).endswith(LeagueStore.LOCKNAME):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return opened(path, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(os, "open", read_only)
        with pytest.raises(SystemExit, match="goarena league: cannot open the league in .*Permission denied"):
            main([*TWO_RANDOM, "--dir", str(tmp_path / "read-only")])

    def full(self, *args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(pathlib.Path, "write_text", full)
    with pytest.raises(SystemExit) as exit:
        main([*TWO_RANDOM, "--games-per-pair", "1", "--no-progress", "--dir", str(tmp_path / "full")])
    assert re.fullmatch(
        r"goarena league: cannot write the league in .*No space left on device", exit.value.code
    )
    with LeagueStore.open_existing(tmp_path / "full") as store:
        assert store.games() == []


def test_a_resumed_league_shows_every_game_it_played_and_says_when_it_compiles(tmp_path, monkeypatch, capsys):
    from goarena.benchmarks import cli
    from goarena.benchmarks.league import play, standings

    shown: list[dict] = []

    class Progress(standings.LiveProgress):
        def __init__(self, config, total, enabled=True, finished=()):
            super().__init__(config, total, enabled, finished=finished)
            shown.append({"total": total, "finished": [game.id for game in finished], "updates": []})

        def update(self, game, finished, total):
            super().update(game, finished, total)
            shown[-1]["updates"].append(finished)

    warmed: list[tuple[int, list]] = []

    def warmup(board_size=9, log=None, warmups=()):  # as on a cold cache
        warmed.append((board_size, list(warmups)))
        log("compiling the kernels (first run only; this takes a while)...")
        return 60.0

    monkeypatch.setattr(standings, "LiveProgress", Progress)
    monkeypatch.setattr(play, "warmup", warmup)
    options = [*TWO_RANDOM, "--json", "--dir", str(tmp_path)]
    cli.main(["league", *options, "--games-per-pair", "1"])
    assert "goarena league: compiling the kernels" in capsys.readouterr().err
    assert warmed == [(5, [])]  # random runs the game's kernels alone
    cli.main(["league", *options, "--games-per-pair", "3"])
    assert shown[-1] == {"total": 3, "finished": [0], "updates": [2, 3]}
