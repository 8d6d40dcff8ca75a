"""One integrity scheme for every array file the project writes: a folder of ``.npy`` files and
their digests, written atomically, read memory-mapped once each file is checked; a missing,
cut, garbled, short or NaN-holding file is refused by name with its cause."""

from __future__ import annotations

import errno
import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from goarena.agents.data import integrity
from goarena.agents.data.integrity import (
    DataFileError,
    DataStorageError,
    read_arrays,
    read_json,
    write_arrays,
    write_json,
)
from goarena.agents.protocols import files_digest


def arrays() -> dict[str, np.ndarray]:
    return {
        "planes": np.arange(6 * 4 * 2, dtype=np.uint8).reshape(6, 4, 2),
        "scores": np.linspace(-3, 3, 6, dtype=np.float32),
        "moves": np.arange(6, dtype=np.int16),
    }


def rewrite(folder: Path, name: str, array: np.ndarray) -> None:
    """Replace an array and its digest, as a writer with a bug would (the digest matches)."""
    np.save(folder / f"{name}.npy", array)
    digests = json.loads((folder / "digest.json").read_text())
    digests[name] = files_digest([folder / f"{name}.npy"])
    (folder / "digest.json").write_text(json.dumps(digests))


def flip_last_bit(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[-1] ^= 0x01
    path.write_bytes(bytes(data))


def test_arrays_read_back_memory_mapped(tmp_path: Path) -> None:
    write_arrays(tmp_path / "shard", arrays())
    read = read_arrays(tmp_path / "shard", ["planes", "moves"], optional=["scores", "absent"])
    assert sorted(read) == ["moves", "planes", "scores"]
    assert all(isinstance(array, np.memmap) for array in read.values())
    for name, array in arrays().items():
        np.testing.assert_array_equal(read[name], array)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["shard"]  # no temporary left


# Each damage, and the cause the refusal names.
DAMAGES: dict[str, tuple[Callable[[Path], None], str, str]] = {
    "cut": (
        lambda folder: _cut(folder / "planes.npy"),
        "planes",
        r"cut: \d+ bytes where its header needs \d+",
    ),
    "bit flipped": (
        lambda folder: flip_last_bit(folder / "moves.npy"),
        "moves",
        "garbled: its sha256 is not",
    ),
    "header garbled": (
        lambda folder: (folder / "moves.npy").write_bytes(b"\x93NUMPY garbage"),
        "moves",
        "garbled: not a .npy array",
    ),
    "bytes appended": (
        lambda folder: (folder / "moves.npy").write_bytes((folder / "moves.npy").read_bytes() + b"\0"),
        "moves",
        "garbled: 1 bytes after its array",
    ),
    "NaN": (
        lambda folder: rewrite(folder, "scores", np.array([0, 1, np.nan, 2, 3, 4], np.float32)),
        "scores",
        "holds NaN or infinite values",
    ),
    "short": (
        lambda folder: rewrite(folder, "moves", np.arange(4, dtype=np.int16)),
        "moves",
        "short: 4 rows",
    ),
    "missing": (lambda folder: (folder / "planes.npy").unlink(), "planes", "missing"),
    "pickled": (
        lambda folder: rewrite(folder, "moves", np.array([None] * 6, object)),
        "moves",
        "garbled: an array of Python objects",
    ),
}


def _cut(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:-5])


@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_file_is_refused_with_its_name_and_the_cause(tmp_path: Path, damage: str) -> None:
    folder = tmp_path / "shard"
    write_arrays(folder, arrays())
    damaged, name, cause = DAMAGES[damage]
    damaged(folder)
    with pytest.raises(DataFileError, match=f"^{folder / name}.npy: {cause}"):
        read_arrays(folder, ["planes", "scores", "moves"])


def test_a_folder_without_digests_is_refused_unless_it_predates_them(tmp_path: Path) -> None:
    folder = tmp_path / "shard"
    write_arrays(folder, arrays())
    (folder / "digest.json").unlink()
    with pytest.raises(DataFileError, match=f"^{folder / 'digest.json'}: missing"):
        read_arrays(folder, ["planes"])
    assert len(read_arrays(folder, ["planes"], unlisted=True)["planes"]) == 6
    (folder / "moves.npy").write_bytes((folder / "moves.npy").read_bytes()[:-1])
    with pytest.raises(DataFileError, match="moves.npy: cut"):  # the other checks stand
        read_arrays(folder, ["moves"], unlisted=True)
    (folder / "digest.json").write_text('{"planes": ')
    with pytest.raises(DataFileError, match=f"^{folder / 'digest.json'}: cut or garbled: not JSON"):
        read_arrays(folder, ["planes"])


def test_nan_is_never_written(tmp_path: Path) -> None:
    with pytest.raises(DataFileError, match=f"{tmp_path / 'shard' / 'scores'}.npy: refusing to write NaN"):
        write_arrays(tmp_path / "shard", {**arrays(), "scores": np.full(6, np.inf, np.float32)})
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    "failure",
    [
        OSError("855888 requested and 610176 written"),  # numpy's own words for a short write
        OSError(errno.ENOSPC, "No space left on device"),
    ],
)
def test_a_full_disk_says_so_and_where(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: OSError
) -> None:
    write_arrays(tmp_path / "shard", arrays())
    written = []

    def full(path: Path, array: np.ndarray, allow_pickle: bool = True) -> None:
        if written:  # the disk fills up on the second file
            Path(path).write_bytes(b"\x93NUMPY part")
            raise failure
        written.append(path)
        with open(path, "wb") as file:
            np.lib.format.write_array(file, array)

    monkeypatch.setattr(integrity.np, "save", full)
    with pytest.raises(DataStorageError, match=f"^disk full: cannot write {tmp_path / 'shard'} "):
        write_arrays(tmp_path / "shard", arrays())
    monkeypatch.undo()
    assert [path.name for path in tmp_path.iterdir()] == ["shard"]  # the partial folder is gone
    assert len(read_arrays(tmp_path / "shard", ["planes"])["planes"]) == 6  # the old one stands


def test_json_is_written_atomically_and_a_garbled_file_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "manifest.json"
    write_json(path, {"format": 3})
    assert read_json(path) == {"format": 3}

    def full(self: Path, text: str) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "write_text", full)
    with pytest.raises(DataStorageError, match=f"^disk full: cannot write {path} "):
        write_json(path, {"format": 4})
    monkeypatch.undo()
    assert read_json(path) == {"format": 3} and [p.name for p in tmp_path.iterdir()] == ["manifest.json"]
    path.write_text("[3]")
    with pytest.raises(DataFileError, match=f"^{path}: garbled: not a JSON object"):
        read_json(path)
