"""``goarena bench env`` (``goarena.benchmarks.bench.env_speed``): random play timed by each
runner, and the table comparing them with the AEC env."""

from __future__ import annotations

from goarena.benchmarks.bench.env_speed import Measurement, core_python_loop, report


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
    assert "9x9: AEC env / PettingZoo go_v5 = 10.0x (target 20x on 19x19)" in lines
    assert not any("OpenSpiel =" in line for line in lines)  # no ratio to a runner that was skipped
