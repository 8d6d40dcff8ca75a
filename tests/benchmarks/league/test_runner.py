"""The league's game runner: players that crash, hang, kill their process or meddle with the
game lose that game and the league goes on; a player that cannot be built or reset leaves its
games unplayed, not lost (crashing GTP engines and illegal moves too); Ctrl-C and kill -9 leave
nothing behind; the same league on a local Ray instance."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import multiprocessing
import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from misbehaving_players import SILENT_ENGINE

from go_env import BLACK, WHITE, Rules
from go_env.sgf import read_sgf
from goarena.benchmarks.league.config import LeagueConfig
from goarena.benchmarks.league.play import LeagueSetupError, run_league
from goarena.benchmarks.league.runner import LeagueRunError, ScheduledGame, UnplayedGame, run_local
from goarena.benchmarks.league.schedule import schedule
from goarena.benchmarks.league.standings import build_report
from goarena.benchmarks.league.store import LeagueStore
from tests.benchmarks.league.test_play import FAST

HERE = Path(__file__).parents[1]  # misbehaving_players is imported from here, in the workers too
RULES = Rules(komi=0.5)

# How each misbehaviour (at the player's second move) ends its games: the reason, and
# whether that is a loss on time.
ENDINGS = {
    "system-exit": (r"crash: SystemExit: 3", False),
    "keyboard-interrupt": (r"crash: KeyboardInterrupt", False),
    "overflow": (r"illegal move: .*(off board|not a move)", False),
    "exit": (r"crash: worker died during select_move for move \d+ \(exit code 3\)", False),
    "segfault": (r"crash: worker died during select_move for move \d+ \(signal 11 SIGSEGV\)", False),
    "sigkill": (r"crash: worker died during select_move for move \d+ \(signal 9 SIGKILL\)", False),
    "loop": (r"time: select_move for move \d+ still running after [\d.]+ s, over 1 s; stopped", True),
}


def both_colours(
    games: list[ScheduledGame], name: str, spec: str, seconds: float | None = None
) -> list[ScheduledGame]:
    """``games`` and two more 5x5 games of ``name`` against random, one with each colour."""
    specs = {name: spec, "random": "random"}
    for black, white in ((name, "random"), ("random", name)):
        games = [
            *games,
            ScheduledGame(len(games), black, white, specs[black], specs[white], 5, RULES, 0, seconds),
        ]
    return games


@pytest.mark.slow  # some twenty games in two worker processes, four of them killed
def test_players_that_crash_kill_their_process_hang_or_meddle_lose_and_the_league_finishes():
    games: list[ScheduledGame] = []
    for how in [*ENDINGS, "mutate"]:
        spec = f"misbehaving_players:Misbehaving:how='{how}'"
        games = both_colours(games, how, spec, seconds=1.0 if how == "loop" else None)
    games = both_colours(games, "unbuilt", "misbehaving_players:exit_when_built")
    results = {p.scheduled.id: p for p in run_local(games, workers=2)}
    assert sorted(results) == list(range(len(games)))
    for game in games:
        how = game.white if game.black == "random" else game.black
        bad = BLACK if game.black == how else WHITE
        if how == "unbuilt":  # a broken setup, not the player's play: no result
            unplayed = results[game.id]
            assert isinstance(unplayed, UnplayedGame) and (unplayed.color, unplayed.call) == (
                bad,
                "make_agent",
            )
            assert unplayed.reason == "crash: worker died during make_agent (exit code 4)"
            continue
        record = results[game.id].record
        sgf = read_sgf(record.sgf)
        assert (sgf.moves, sgf.result) == (record.moves, record.result)
        if how == "mutate":  # its meddling with its copy changed nothing: a game like any other
            assert record.reason in ("two passes", "move cap") and record.margin is not None
            continue
        (pattern, on_time), moves = ENDINGS[how], 2 if bad == BLACK else 3
        assert re.fullmatch(pattern, record.reason), (how, record.reason)
        assert record.winner == 3 - bad
        assert record.result == ("W+" if bad == BLACK else "B+") + ("T" if on_time else "F")
        assert len(record.moves) == moves  # the game so far is kept


def test_a_silent_engine_loses_on_time_by_the_leagues_limit(tmp_path):
    engine = tmp_path / "silent.py"
    engine.write_text(SILENT_ENGINE)
    games = both_colours([], "silent", f"gtp:{sys.executable} {engine}", seconds=1.0)
    records = [played.record for played in run_local(games[:1], workers=1)]
    assert records[0].result == "W+T", records[0].reason
    assert records[0].reason.startswith("time: ") and "within 1.5 s; killed it" in records[0].reason


def test_a_player_whose_building_or_reset_never_returns_leaves_its_games_unplayed(tmp_path, monkeypatch):
    from goarena.benchmarks.league import runner

    monkeypatch.setattr(runner, "SETUP_SECONDS", 1.0)  # the watchdog runs in this process
    players = {
        "built": "misbehaving_players:hang_when_built",
        "reset": "misbehaving_players:Misbehaving:how='hang-at-reset'",
        "random": "random",
        "random-2": "random",
    }
    config = LeagueConfig(players=players, size=5, games_per_pair=1)  # no seconds_per_move
    failed: list[BaseException] = []

    def play() -> None:
        try:
            run_league(config, tmp_path, workers=1).close()
        except BaseException as error:
            failed.append(error)

    league = threading.Thread(target=play, daemon=True)
    league.start()
    league.join(120)
    assert not league.is_alive(), "the league hangs on a player that never finishes its setup"
    assert len(failed) == 1 and isinstance(failed[0], LeagueSetupError), failed
    message = str(failed[0])
    assert message.startswith("5 game(s) not played, since ")
    assert re.search(
        r"player 'built' could not be built \(time: make_agent still running after [\d.]+ s; stopped\)",
        message,
    )
    assert re.search(
        r"player 'reset' could not be reset \(time: reset still running after [\d.]+ s; stopped\)", message
    )
    with LeagueStore.open_existing(tmp_path) as store:
        assert [(game.black, game.white) for game in store.games()] == [("random", "random-2")]
    crashes = sorted((tmp_path / "crashes").iterdir())
    assert len(crashes) == 5
    assert sum("so not tried again" in path.read_text() for path in crashes) == 3  # one wait per player


def test_the_leagues_own_failure_stops_it_with_a_clear_error():
    game = dataclasses.replace(both_colours([], "random", "random")[0], settle="status", arbiter="random")
    with pytest.raises(LeagueRunError, match="the arbiter 'random' cannot name dead stones"):
        list(run_local([game], workers=1))


def test_stopping_the_league_kills_its_workers_mid_game():
    games = both_colours([], "random", "random")[:1]
    games = both_colours(games, "stuck", "misbehaving_players:Misbehaving:how='loop',at=1")[:2]  # no limit
    results = run_local(games, workers=2)
    assert next(results).scheduled.id == 0
    workers = multiprocessing.active_children()
    assert workers
    results.close()  # as Ctrl-C's KeyboardInterrupt does: the stuck game is not waited for
    assert not [p for p in workers if p.is_alive()]


COUNTED_PLAYERS = """
import os

import numpy as np


class Counted:
    # A random player that logs its building, resets and closing, and fails the game
    # whose seed is ``fail_seed``; with ``broken`` (a file's path), its building (``broken``
    # holds "build") or its reset ("reset") fails while that file says so, as a network
    # player's does when its weights cannot be loaded or its device is gone.

    def __init__(self, log, tag, fail_seed=None, broken=None):
        self.name, self.log, self.tag, self.fail_seed = f"counted-{tag}", log, tag, fail_seed
        self.seed = None
        self.broken = broken
        self.rng = np.random.default_rng()
        self.fail_at("build")
        self.write("built")

    def fail_at(self, stage):
        if self.broken and open(self.broken).read().strip() == stage:
            raise OSError(f"{stage} failed on purpose")

    def write(self, event):
        with open(self.log, "a") as file:
            file.write(f"{self.tag} {event} {os.getpid()}\\n")

    def reset(self, context):
        self.fail_at("reset")
        self.seed = context.seed
        self.rng = np.random.default_rng(context.seed)
        self.write("reset")
        with open(f"{self.log}.contexts", "a") as file:
            file.write(f"{self.tag} {context.device} {context.run_dir}\\n")

    def select_move(self, game):
        if self.seed == self.fail_seed:
            raise RuntimeError("failed on purpose")
        legal = game.legal_moves()[:-1]
        return int(self.rng.choice(legal)) if len(legal) else game.pass_move

    def weights_digest(self):
        return "sha-" + self.tag

    def close(self):
        self.write("closed")
"""


@pytest.fixture
def counted(tmp_path, monkeypatch):
    """A spec factory for logged players, and a reader of their log: (tag, event) -> count."""
    return counted_players(tmp_path, monkeypatch)


def counted_players(tmp_path, monkeypatch):
    """``counted``'s spec factory and log reader, for the tests of other files."""
    (tmp_path / "counted_players.py").write_text(COUNTED_PLAYERS)
    monkeypatch.syspath_prepend(str(tmp_path))  # the workers start with this process's path
    log = tmp_path / "log"

    def spec(tag: str, **options: object) -> str:
        extra = "".join(f",{key}={value!r}" for key, value in options.items())
        return f"counted_players:Counted:log={str(log)!r},tag={tag!r}{extra}"

    def events() -> dict[tuple[str, str], int]:
        lines = [line.split()[:2] for line in log.read_text().splitlines()] if log.exists() else []
        return {(tag, event): lines.count([tag, event]) for tag, event in map(tuple, lines)}

    return spec, events


def test_a_worker_builds_each_player_once_and_closes_it_when_the_league_ends(counted):
    spec, events = counted
    pairs = [("a", "b"), ("b", "a"), ("a", "b"), ("b", "a"), ("a", "a")]  # the last one self-play
    games = [
        ScheduledGame(i, black, white, spec(black), spec(white), 5, RULES, i, None)
        for i, (black, white) in enumerate(pairs)
    ]
    played = list(run_local(games, workers=1))
    assert len(played) == 5 and all(p.record.reason in ("two passes", "move cap") for p in played)
    assert events() == {
        ("a", "built"): 2,  # one, and a second for its game against itself
        ("b", "built"): 1,
        ("a", "reset"): 6,
        ("b", "reset"): 4,
        ("a", "closed"): 2,
        ("b", "closed"): 1,
    }
    assert played[0].digests == {"a": "sha-a", "b": "sha-b"}


def test_players_learn_the_leagues_device_and_a_directory_of_their_own(counted, tmp_path, monkeypatch):
    from goarena.benchmarks.league import play

    spec, _ = counted
    config = LeagueConfig(players={"a": spec("a"), "b": spec("b")}, size=5, games_per_pair=2)
    monkeypatch.setattr(play, "check_device", lambda device: None)  # as on a machine with two GPUs
    run_league(config, tmp_path / "league", workers=1, device="cuda:1").close()
    contexts = {tuple(line.split()) for line in (tmp_path / "log.contexts").read_text().splitlines()}
    players = tmp_path / "league" / "players"
    assert contexts == {("a", "cuda:1", str(players / "a")), ("b", "cuda:1", str(players / "b"))}
    assert (players / "a").is_dir() and (players / "b").is_dir()


def test_a_game_in_progress_is_shown_in_its_live_file_until_it_is_stored(tmp_path):
    live = tmp_path / "live"
    live.mkdir()
    for stale in ("game-0099.json", ".game-0000.json.k1ll3d.tmp"):  # left by a league killed here
        (live / stale).write_text("{}")
    players = {"random": "random", "slow": "misbehaving_players:Slow:seconds=0.05"}
    config = LeagueConfig(players=players, size=5, games_per_pair=1, komi=0.5)
    failures: list[BaseException] = []

    def play() -> None:
        try:
            run_league(config, tmp_path, workers=1).close()
        except BaseException as error:
            failures.append(error)

    league = threading.Thread(target=play)
    league.start()
    shown: list[dict] = []  # the file as it was read, move after move
    while league.is_alive():
        with contextlib.suppress(FileNotFoundError):  # not yet begun, or stored
            shown.append(json.loads((live / "game-0000.json").read_text()))
        time.sleep(0.01)
    league.join()
    assert not failures, failures
    assert sorted(live.iterdir()) == []  # stored: gone, and the stale files with it
    with LeagueStore.open_existing(tmp_path) as store:
        [stored] = store.games()
    moves = [int(move) for move in stored.moves.split()]
    counts = [len(seen["moves"]) for seen in shown]
    assert len(set(counts)) >= 3 and counts == sorted(counts)  # it grew as the game went on
    for seen in shown:
        assert {key: seen[key] for key in ("id", "black", "white", "size", "komi")} == {
            "id": 0,
            "black": stored.black,
            "white": stored.white,
            "size": 5,
            "komi": 0.5,
        }
        assert seen["moves"] == moves[: len(seen["moves"])]  # the game so far
        assert Rules(**seen["rules"]) == config.game_rules()
        assert seen["to_play"] == ("black", "white")[len(seen["moves"]) % 2]


def test_a_player_that_failed_a_game_is_built_afresh_for_the_next(counted):
    spec, events = counted
    a = spec("a", fail_seed=0)  # Black's seed in game 0
    games = [ScheduledGame(i, "a", "b", a, spec("b"), 5, RULES, i, None) for i in range(3)]
    played = list(run_local(games, workers=1))
    assert played[0].record.reason == "crash: RuntimeError: failed on purpose"
    assert [p.record.reason in ("two passes", "move cap") for p in played] == [False, True, True]
    assert events()[("a", "built")] == 2 and events()[("b", "built")] == 1
    assert events()[("a", "closed")] == 2 and events()[("b", "closed")] == 1


def test_a_crashed_game_keeps_its_traceback_in_the_leagues_directory(counted, tmp_path):
    spec, _ = counted
    players = {"a": spec("a", fail_seed=0), "b": spec("b")}  # a fails game 0 (it plays Black)
    config = LeagueConfig(players=players, size=5, games_per_pair=2)
    store = run_league(config, tmp_path / "league", workers=1)
    [crashed] = [game for game in store.games() if game.reason.startswith("crash:")]
    assert crashed.id == 0 and crashed.reason == "crash: RuntimeError: failed on purpose"
    [file] = (tmp_path / "league" / "crashes").iterdir()
    assert file.name == "0000-a-vs-b.txt"  # named from the game's row, as its SGF is
    text = file.read_text()
    assert "Traceback (most recent call last)" in text and "in select_move" in text
    assert "RuntimeError: failed on purpose" in text and "W+F" in text
    report = build_report(store)
    assert (report.crashes, report.crash_folder) == (1, str(tmp_path / "league" / "crashes"))
    store.close()


@pytest.mark.parametrize("stage", ["build", "reset"])
def test_a_player_whose_setup_fails_leaves_its_games_unplayed_and_a_rerun_plays_them(
    counted, tmp_path, stage
):
    spec, events = counted
    broken = tmp_path / "broken"
    broken.write_text(stage)
    players = {"a": spec("a", broken=str(broken)), "b": spec("b"), "c": spec("c")}
    config = LeagueConfig(players=players, size=5, games_per_pair=1)
    directory = tmp_path / "league"
    with pytest.raises(LeagueSetupError) as failed:
        run_league(config, directory, workers=1)
    message = str(failed.value)
    what = "built" if stage == "build" else "reset"
    assert (
        f"2 game(s) not played, since player 'a' could not be {what} (crash: OSError: {stage} failed"
        in message
    )
    assert "run the same command to play them" in message
    with LeagueStore.open_existing(directory) as store:
        games = store.games()
    assert [(game.black, game.white) for game in games] == [("b", "c")]  # no forfeit of a's stored
    assert {file.name for file in (directory / "crashes").iterdir()} == {"0000-a-vs-b.txt", "0001-a-vs-c.txt"}
    assert f"OSError: {stage} failed on purpose" in (directory / "crashes" / "0000-a-vs-b.txt").read_text()
    broken.write_text("mended")
    with run_league(config, directory, workers=1) as store:
        games = store.games()
    assert len(games) == 3 and not any(game.result.endswith(("F", "T")) for game in games)
    assert not (directory / "crashes" / "0000-a-vs-b.txt").exists()  # that setup failure is over


def league_command(directory: Path, *players: str, games_per_pair: int) -> list[str]:
    options = [option for player in players for option in ("--player", player)]
    return [
        *(sys.executable, "-m", "goarena.benchmarks.cli", "league", *options, "--size", "5"),
        *(
            "--games-per-pair",
            str(games_per_pair),
            "--workers",
            "2",
            "--no-progress",
            "--dir",
            str(directory),
        ),
    ]


def start_league(command: list[str], output: int = subprocess.PIPE) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])}
    return subprocess.Popen(
        command,
        env=env,
        start_new_session=True,
        stdout=output,
        stderr=output,
        text=True,
        preexec_fn=_default_ctrl_c,
    )


def _default_ctrl_c() -> None:
    """The league starts as from a terminal, whatever this test run was started with (a
    background job inherits Ctrl-C ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def stored_games(directory: Path) -> int:
    try:
        # Read-only: a plain connect would create the file before the league does.
        uri = f"{(directory / LeagueStore.FILENAME).as_uri()}?mode=ro"
        with sqlite3.connect(uri, uri=True) as connection:
            return int(connection.execute("SELECT count(*) FROM games").fetchone()[0])
    except sqlite3.Error:
        return 0


def wait_for(condition, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_ctrl_c_stops_the_league_at_once_keeps_its_games_and_says_how_to_resume(tmp_path):
    command = league_command(
        tmp_path, "random", "slow=misbehaving_players:Slow:seconds=0.1", games_per_pair=8
    )
    league = start_league(command)
    wait_for(lambda: stored_games(tmp_path) >= 1 or league.poll() is not None)
    os.killpg(league.pid, signal.SIGINT)  # as Ctrl-C in a terminal: the whole foreground group
    _, stderr = league.communicate(timeout=60)
    assert league.returncode == 130, stderr
    assert "Traceback" not in stderr, stderr
    [line] = [line for line in stderr.splitlines() if "resume" in line]
    kept = stored_games(tmp_path)
    assert 1 <= kept < 8 and f"stopped; {kept} of 8 games kept in {tmp_path}" in line

    again = start_league(command)
    _, stderr = again.communicate(timeout=300)
    assert again.returncode == 0, stderr
    assert stored_games(tmp_path) == 8


def descendants(pid: int) -> set[int]:
    """The processes started by ``pid``, and theirs."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (ValueError, OSError, IndexError):
            continue
        children.setdefault(parent, []).append(int(entry.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has ended


def test_workers_and_their_engines_end_when_the_league_is_killed(tmp_path):
    engine = f"engine=gtp:{sys.executable} -m benchmarks.cli gtp --agent misbehaving_players:Slow:seconds=1"
    league = start_league(league_command(tmp_path, "random", engine, games_per_pair=4), subprocess.DEVNULL)
    wait_for(lambda: len(descendants(league.pid)) >= 4 or league.poll() is not None)  # workers, engines
    time.sleep(1)  # mid-game
    started = descendants(league.pid)
    assert league.poll() is None and len(started) >= 4, started  # killed mid-game, with its workers
    os.kill(league.pid, signal.SIGKILL)  # the league's process only
    league.wait()
    try:
        wait_for(lambda: not any(running(pid) for pid in started), seconds=10)
    finally:
        for pid in started:
            if running(pid):
                os.kill(pid, signal.SIGKILL)


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
