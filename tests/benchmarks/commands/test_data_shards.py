"""``goarena data shards`` (``goarena.benchmarks.commands.data_shards``): the command prints the
report, and a full disk is named and the rerun goes on (the job itself:
``tests/agents/data/test_shards.py``)."""

from __future__ import annotations

import errno
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from goarena.agents.data import shards
from goarena.agents.data.dataset import ShardDataset
from goarena.agents.data.shards import MANIFEST, REPORT
from goarena.benchmarks.cli import main
from tests.agents.data.test_shards import stone_planes, write_folder


def test_the_command_prints_the_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_folder(tmp_path / "sgf")
    main(["data", "shards", str(tmp_path / "sgf"), str(tmp_path / "out"), "--size", "5"])
    out = capsys.readouterr().out
    assert "8 files read, 3 games kept, 15 positions in 1 shards" in out
    assert "handicap or setup 1" in out and (tmp_path / "out" / REPORT).exists()


@pytest.mark.parametrize(
    "failure",
    [
        OSError("855888 requested and 610176 written"),  # numpy's words for a write cut short
        OSError(errno.ENOSPC, "No space left on device"),
    ],
)
def test_a_full_disk_says_so_and_where_and_the_rerun_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: OSError
) -> None:
    write_folder(tmp_path / "sgf")
    sgf, out = tmp_path / "sgf", tmp_path / "out"
    saved = np.save

    def full(path: Path, array: np.ndarray, **options: object) -> None:
        if "chunk-000001" in str(path):  # the second chunk no longer fits
            Path(path).write_bytes(b"\x93NUMPY")
            raise failure
        saved(path, array, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(np, "save", full)
    command = ["data", "shards", str(sgf), str(out), "--size", "5"]
    monkeypatch.setattr(shards, "build_shards", _chunks_of_three(shards.build_shards))
    with pytest.raises(SystemExit, match=f"^goarena: disk full: cannot write {out / 'chunk-000001-0'} "):
        main(command)
    assert sorted(path.name for path in out.iterdir()) == ["chunk-000000-0", MANIFEST]  # no partial shard
    monkeypatch.setattr(np, "save", saved)  # room again
    main(command)
    assert len(ShardDataset(out)) == 15


def _chunks_of_three(build: Callable[..., dict]) -> Callable[..., dict]:
    """``build_shards`` in chunks of 3 files, with the stand-in planes: the command's, smaller."""

    def small(*args: object, **options: object) -> dict:
        return build(*args, **{**options, "chunk_size": 3, "encoder": stone_planes})

    return small
