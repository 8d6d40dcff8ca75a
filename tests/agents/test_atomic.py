"""Files written whole or not at all: one helper for every writer of ours."""

import os
import stat

import pytest

from goarena.agents.atomic import exclusive_lock, leftovers, replacing, write_atomically


def test_a_file_is_replaced_whole_and_readable_by_all(tmp_path):
    path = tmp_path / "config.json"
    path.write_text("old")
    write_atomically(path, "new")
    write_atomically(tmp_path / "weights.pt", b"\x00\x01", durable=True)
    assert path.read_text() == "new" and (tmp_path / "weights.pt").read_bytes() == b"\x00\x01"
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert sorted(each.name for each in tmp_path.iterdir()) == ["config.json", "weights.pt"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "game.sgf"
    path.write_text("(;SZ[9])")
    with pytest.raises(RuntimeError), replacing(path) as temporary:
        temporary.write_text("(;SZ")
        raise RuntimeError("killed")
    assert path.read_text() == "(;SZ[9])" and list(tmp_path.iterdir()) == [path]


def test_each_write_has_a_temporary_name_of_its_own_and_leftovers_finds_them(tmp_path):
    path = tmp_path / "last.zip"
    names = []
    for _ in range(2):
        with replacing(path, suffix=".tmp.zip") as temporary:
            names.append(temporary.name)
            temporary.write_bytes(b"zip")
    assert names[0] != names[1] and all(name.endswith(".tmp.zip") for name in names)
    cut = tmp_path / ".0001-a-vs-b.sgf.k1ll3d.tmp"  # as a writer killed mid-write leaves it
    cut.write_text("(;")
    assert leftovers(tmp_path / "0001-a-vs-b.sgf") == [cut] == leftovers(tmp_path / "*.sgf")
    assert leftovers(tmp_path / "0002-a-vs-b.sgf") == []


def test_an_exclusive_lock_is_held_by_one_descriptor_until_it_closes(tmp_path):
    path = tmp_path / "league.lock"
    held = exclusive_lock(path)
    assert held is not None and exclusive_lock(path) is None  # flock: even in this process
    os.close(held)
    again = exclusive_lock(path)
    assert again is not None
    os.close(again)
