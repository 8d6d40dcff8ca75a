"""``goarena bench alphago`` prints every configuration's simulations per second, from one run,
and with ``--compare-threads`` the default configuration with numba's default threads against
one thread. The tests check the report's shape, never a measured speed."""

import re

import numba

from goarena.benchmarks.bench import alphago_speed
from goarena.benchmarks.bench.alphago_speed import CONFIGURATIONS, sample_positions
from goarena.benchmarks.cli import main

RATE = r"\d[\d,]* simulations/s"


def test_positions_are_spaced_along_one_game():
    positions = sample_positions(3, 4)
    assert [len(game.moves) for game in positions] == [0, 4, 8]
    assert positions[2].moves[:4] == positions[1].moves


def test_prints_each_configuration_against_the_default(capsys):
    main(["bench", "alphago", "--search-seconds", "0.05", "--positions", "2", "--spacing", "3"])
    out = capsys.readouterr().out
    assert out.startswith(
        "alphago on 9x9: 2 positions (every 3 moves), 0.05 s each, one torch thread, "
        f"{numba.get_num_threads()} numba thread(s)\n"
    )
    rows = [line for line in out.splitlines()[1:] if line.strip()]
    assert [row.split("  ")[1].strip() for row in rows] == list(CONFIGURATIONS)
    for row in rows:
        assert re.search(rf"{RATE}\s+(\d+\.\d\dx|-)$", row), row
    assert rows[0].endswith("1.00x") or rows[0].endswith("-")  # "-": nothing searched in time


def test_a_child_process_measures_with_the_threads_it_is_given():
    rate, threads = alphago_speed.child_rate(0.05, 1, 1, numba_threads=1)
    assert threads == 1 and isinstance(rate, float)


def test_compare_threads_prints_both_settings_and_their_ratio(capsys, monkeypatch):
    calls = []

    def child_rate(seconds, positions, spacing, numba_threads):
        calls.append(numba_threads)
        return (500.0 if numba_threads == 1 else 450.0), (numba_threads or 2)

    monkeypatch.setattr(alphago_speed, "child_rate", child_rate)
    alphago_speed.show_threads(0.05, 1, 1, rounds=2)
    assert calls == [None, 1, None, 1]  # taken in turn
    rows = capsys.readouterr().out.splitlines()
    assert re.match(r"numba threads, the default configuration in 4 fresh processes taken in turn", rows[0])
    assert re.match(rf"  NUMBA_NUM_THREADS unset \(2 threads\)\s+{RATE}$", rows[1])
    assert re.match(rf"  NUMBA_NUM_THREADS=1\s+{RATE}$", rows[2])
    assert re.match(r"  unset / one thread\s+0\.90x$", rows[3])
