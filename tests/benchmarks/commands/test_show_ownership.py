"""``goarena show ownership`` (``goarena.benchmarks.commands.show_ownership``): the picture of a
record's position and its figures, a move out of range and both sources refused (the pictures
themselves: ``tests/benchmarks/test_pictures.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from goarena.benchmarks import cli
from tests.benchmarks.test_pictures import PNG_SIZE, png_size, record_and_networks


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    return record_and_networks(tmp_path_factory.mktemp("pictures"))


def test_goarena_show_ownership(files, tmp_path, capsys):
    out = tmp_path / "cli.png"
    cli.main(
        [
            "show",
            "ownership",
            str(files["game"]),
            "--move",
            "4",
            "--weights",
            str(files["ownership"]),
            "--out",
            str(out),
        ]
    )
    printed = capsys.readouterr().out
    assert (
        printed.startswith("Move 4, Black to move: this position's figures, for Black: V = ")
        and f"wrote {out}" in printed
    )
    assert png_size(out) == PNG_SIZE
    with pytest.raises(SystemExit, match="--move 9 is out of range"):
        cli.main(
            ["show", "ownership", str(files["game"]), "--move", "9", "--weights", str(files["ownership"])]
        )
    with pytest.raises(SystemExit) as usage:  # both --weights and --player
        cli.main(["show", "ownership", str(files["game"]), "--weights", "a.pt", "--player", "random"])
    assert usage.value.code == 2
