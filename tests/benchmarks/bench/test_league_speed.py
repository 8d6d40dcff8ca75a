"""``goarena bench league`` (``goarena.benchmarks.bench.league_speed``): games per minute of a
league played from an empty directory."""

from __future__ import annotations

from goarena.benchmarks.bench import league_speed
from goarena.benchmarks.league.config import LeagueConfig


def test_games_per_minute_counts_the_games_the_league_played(monkeypatch):
    times = iter([10.0, 16.0])  # the league takes 6 s
    monkeypatch.setattr(league_speed.time, "perf_counter", lambda: next(times))
    config = LeagueConfig(players={"random": "random", "random-2": "random"}, size=5, games_per_pair=2)
    assert league_speed.games_per_minute(config, workers=1, use_ray=False) == 20.0  # 2 games in 6 s


def test_the_bench_prints_one_rate_a_worker_count_and_says_when_ray_is_missing(monkeypatch, capsys):
    rates = iter([0.0, 30.0, 45.0])  # the compiling run, then 1 and 2 workers
    monkeypatch.setattr(league_speed, "games_per_minute", lambda config, workers, use_ray: next(rates))
    monkeypatch.setattr(league_speed.importlib.util, "find_spec", lambda name: None)
    league_speed.show(games_per_pair=2, worker_counts=[1, 2], with_ray=True)
    lines = [" ".join(line.split()) for line in capsys.readouterr().out.splitlines()]
    assert lines[0].startswith("League of random (random), uct-20") and lines[0].endswith(": 6 games")
    assert lines[1:] == [
        "processes, 1 worker(s): 30.0 games/min (1.00x)",
        "processes, 2 worker(s): 45.0 games/min (1.50x)",
        "Ray: not installed (pip install 'goarena[ray]')",
    ]
