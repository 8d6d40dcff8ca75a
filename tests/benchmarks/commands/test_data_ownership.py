"""``goarena data ownership`` (``goarena.benchmarks.commands.data_ownership``): workers mark
alike, the summary is printed, and what cannot be marked is refused (the job itself:
``tests/agents/data/test_ownership.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from go_env.sgf import load_sgf
from goarena.agents.data.ownership import mark_folder
from goarena.benchmarks.cli import main
from tests.agents.data.test_ownership import fake_engine, write_folder


def test_workers_mark_the_same_and_the_command_prints_the_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "sgf"
    write_folder(root)
    (root / "finished2.sgf").write_bytes((root / "finished.sgf").read_bytes())

    main(["data", "ownership", str(root), "--engine", fake_engine(tmp_path, "B4"), "--workers", "2"])

    out = capsys.readouterr().out
    assert "2 records marked" in out and "malformed 1" in out and "broken.sgf" in out
    first, second = (load_sgf(root / name).final_owner for name in ("finished.sgf", "finished2.sgf"))
    assert first is not None and second is not None and first.tolist() == second.tolist()


def test_an_engine_without_final_status_list_or_a_missing_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no folder of SGF files"):
        mark_folder(tmp_path / "nowhere", fake_engine(tmp_path))
    with pytest.raises(SystemExit, match="not-an-engine"):
        main(["data", "ownership", str(tmp_path), "--engine", "not-an-engine-at-all"])
