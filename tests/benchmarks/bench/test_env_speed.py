"""``goarena bench env`` (``goarena.benchmarks.bench.env_speed``): random play timed by each
runner, and the table comparing them with the AEC env."""

from __future__ import annotations

from goarena.benchmarks.bench.env_speed import (
    CallCost,
    Measurement,
    call_costs,
    core_python_loop,
    interleaved_rates,
    report,
)
from goarena.benchmarks.bench.env_speed import _game_api as game_api


def test_the_python_driven_loop_plays_random_games_for_the_time_given():
    assert core_python_loop(5, 0.05) > 0


def test_the_table_compares_each_runner_with_the_aec_env_and_names_the_skipped():
    results = [
        Measurement("goarena AEC env", 9, 1000.0),
        Measurement("PettingZoo classic go_v5", 9, 100.0),
        Measurement("goarena playouts in numba, 1 core", 9, 50_000.0),
        Measurement("OpenSpiel go (state API)", 9, None, "skipped: no pyspiel"),
    ]
    text = report(results)
    lines = [" ".join(line.split()) for line in text.splitlines()]
    assert "9x9 random play" in lines
    assert "PettingZoo classic go_v5 100 10.00x" in lines and "goarena AEC env 1,000 1.00x" in lines
    assert "OpenSpiel go (state API) skipped: no pyspiel" in lines
    assert "9x9: AEC env / PettingZoo go_v5 = 10.0x (target 25x)" in lines
    assert not any("OpenSpiel =" in line for line in lines)  # no ratio to a runner that was skipped


def test_the_per_call_costs_time_play_and_each_call_over_replayed_random_games():
    cost = call_costs("goarena Game", 5, game_api(5), min_moves=50)
    assert (cost.name, cost.size) == ("goarena Game", 5)
    assert cost.play is not None and cost.play > 0
    assert cost.legal_moves is not None and cost.observe is not None


def test_the_table_gives_the_costs_per_call_and_the_game_against_openspiel():
    results = [
        Measurement("goarena Game, Python-driven", 9, 600.0),
        Measurement("OpenSpiel go (state API)", 9, 500.0),
    ]
    costs = [
        CallCost("goarena Game", 9, 1.25, 0.5, 2.0),
        CallCost("PettingZoo go_v5 (step, observe)", 9, 90.0, None, 70.0),
        CallCost("OpenSpiel go (state API)", 9, None, note="skipped: no pyspiel"),
    ]
    lines = [" ".join(line.split()) for line in report(results, costs).splitlines()]
    assert "9x9 cost per call (µs)" in lines
    assert "implementation play legal_moves observe" in lines
    assert "goarena Game 1.25 0.50 2.00" in lines
    assert "PettingZoo go_v5 (step, observe) 90.00 - 70.00" in lines
    assert "OpenSpiel go (state API) skipped: no pyspiel" in lines
    assert "9x9: Game, Python-driven / OpenSpiel state API = 1.20x (target 1x)" in lines


def test_runners_timed_in_turns_each_get_their_share_of_the_time():
    calls = {"a": 0, "b": 0}

    def work(name: str):
        def one() -> int:
            calls[name] += 1
            return 2

        return one

    speeds = interleaved_rates({"a": work("a"), "b": work("b")}, 0.06, turns=3)
    assert set(speeds) == {"a", "b"} and all(speed > 0 for speed in speeds.values())
    assert calls["a"] > 3 and calls["b"] > 3  # the warm-up call, then three turns each
