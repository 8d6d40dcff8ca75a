"""``goarena bench alphago`` prints every configuration's simulations per second, from one run."""

import re

from goarena.benchmarks.bench.alphago_speed import CONFIGURATIONS, sample_positions
from goarena.benchmarks.cli import main


def test_positions_are_spaced_along_one_game():
    positions = sample_positions(3, 4)
    assert [len(game.moves) for game in positions] == [0, 4, 8]
    assert positions[2].moves[:4] == positions[1].moves


def test_prints_each_configuration_against_the_default(capsys):
    main(["bench", "alphago", "--seconds", "0.05", "--positions", "2", "--spacing", "3"])
    out = capsys.readouterr().out
    assert out.startswith("alphago on 9x9: 2 positions (every 3 moves), 0.05 s each, one thread")
    rows = [line for line in out.splitlines()[1:] if line.strip()]
    assert [row.split("  ")[1].strip() for row in rows] == list(CONFIGURATIONS)
    rates = [float(re.search(r"([\d,]+) simulations/s", row)[1].replace(",", "")) for row in rows]
    assert all(rate > 0 for rate in rates) and rows[0].endswith("1.00x")
