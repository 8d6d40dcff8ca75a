"""One integrity scheme for every array file the project writes: the shards of ``goarena data
shards`` and ``goarena data value``, and a zero run's replay chunks.

A folder of arrays holds one ``NAME.npy`` per array and ``digest.json``, the sha256 of each
file's bytes. ``write_arrays`` writes them into a hidden sibling folder and renames it into
place, so a killed writer leaves whole folders only; it refuses a float array holding NaN, and a
full (or read-only) disk is one ``DataStorageError`` naming the folder. ``read_arrays``
memory-maps the arrays (``allow_pickle=False``) after checking each file once, and refuses a
file that is

- missing;
- cut: shorter than its header's shape needs (a copy or a write that stopped);
- garbled: a header numpy cannot read, bytes after the array, or bytes whose sha256 is not
  ``digest.json``'s (a bit flipped on disk, an edit);
- short: fewer (or more) rows than the folder's other arrays, or than its listing says;
- NaN: a float array holding NaN or an infinity;

with a ``DataFileError`` that names the file and the cause. Hashing reads each file once, at
the speed of sha256 (some 1.5 GB/s on a CPU with SHA extensions); reads after that are the
memory map's. The JSON beside the arrays (manifests, reports) is written atomically by
``write_json`` and read back by ``read_json``, which names a file that is no JSON object.
"""

from __future__ import annotations

import errno
import json
import shutil
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from goarena.agents.atomic import write_atomically
from goarena.agents.protocols import files_digest

DIGESTS = "digest.json"
_DISK_FULL = (errno.ENOSPC, errno.EDQUOT)
_READ_ONLY = (errno.EROFS, errno.EACCES, errno.EPERM)
_HEADERS = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}


class DataFileError(ValueError):
    """A data file that cannot be trained on: missing, cut, garbled, short or holding NaN."""


class DataStorageError(OSError):
    """A data file that cannot be written: the disk is full, or refuses writes."""


def storage_cause(error: OSError) -> str | None:
    """What a failed write says about the disk ("disk full", "Read-only file system", ...), or
    None for another failure. numpy reports a full disk as a short write ("N requested and M
    written"), with no errno."""
    if error.errno in _DISK_FULL or "requested and" in str(error):
        return "disk full"
    if error.errno in _READ_ONLY:
        return error.strerror or "not writable"
    return None


def note(line: str) -> None:
    """A line for the user on stderr, as goarena's commands write them: no source line, no
    traceback (stdout may be a protocol, or a command's figures)."""
    print(f"goarena: {line}", file=sys.stderr, flush=True)


def write_arrays(folder: Path, arrays: Mapping[str, np.ndarray]) -> None:
    """Write ``arrays`` as ``folder/NAME.npy`` with their ``digest.json``, replacing ``folder``
    only once all is written.

    Raises:
        DataFileError: a float array holds NaN or an infinity (nothing is written).
        DataStorageError: the disk is full or refuses writes (the partial folder is removed).
    """
    for name, array in arrays.items():
        if not _finite(array):
            raise DataFileError(f"{folder / name}.npy: refusing to write NaN or infinite values")
    temporary = folder.with_name(f".{folder.name}.tmp")
    try:
        shutil.rmtree(temporary, ignore_errors=True)
        temporary.mkdir(parents=True)
        digests = {}
        for name, array in arrays.items():
            path = temporary / f"{name}.npy"
            np.save(path, array, allow_pickle=False)
            digests[name] = files_digest([path])  # of the bytes on disk, read back
        (temporary / DIGESTS).write_text(json.dumps(digests, indent=1) + "\n")
        shutil.rmtree(folder, ignore_errors=True)
        temporary.rename(folder)
    except OSError as error:
        shutil.rmtree(temporary, ignore_errors=True)  # gives back what the partial folder took
        raise _storage_error(error, folder) from None


def read_arrays(
    folder: Path,
    names: Sequence[str],
    *,
    optional: Iterable[str] = (),
    rows: int | None = None,
    unlisted: bool = False,
) -> dict[str, np.ndarray]:
    """The arrays ``names``, and those of ``optional`` that the folder holds, memory-mapped
    (read-only) and checked as the module's docs say.

    Args:
        rows: the rows every array must have; None: the first array's.
        unlisted: allow a folder without ``digest.json`` (written before it existed): its
            files get every check but the digest's.

    Raises:
        DataFileError: naming the file and why it cannot be used.
    """
    digests = _read_digests(folder, unlisted)
    if digests is None:
        present = [name for name in optional if (folder / f"{name}.npy").is_file()]
    else:
        present = [name for name in optional if name in digests]
    arrays = {}
    for name in (*names, *present):
        path = folder / f"{name}.npy"
        array = _checked_array(path, None if digests is None else digests.get(name, ""))
        expected = len(array) if rows is None else rows
        if array.ndim == 0 or len(array) != expected:
            found = "no rows" if array.ndim == 0 else f"{len(array)} rows"
            raise DataFileError(f"{path}: short: {found}, where the folder's arrays have {expected}")
        rows = expected
        arrays[name] = array
    return arrays


def _read_digests(folder: Path, unlisted: bool) -> dict[str, str] | None:
    path = folder / DIGESTS
    if not path.is_file():
        if not folder.is_dir():
            raise DataFileError(f"{folder}: missing")
        if unlisted:
            return None
        raise DataFileError(f"{path}: missing: the folder's files cannot be checked")
    digests = read_json(path)
    if not all(isinstance(value, str) for value in digests.values()):
        raise DataFileError(f"{path}: garbled: its values are not sha256 digests")
    return digests


def _checked_array(path: Path, digest: str | None) -> np.ndarray:
    """The array at ``path``, memory-mapped, once its size, bytes (against ``digest``; None:
    none to check) and values are checked."""
    if not path.is_file():
        raise DataFileError(f"{path}: missing")
    try:
        with open(path, "rb") as file:
            version = np.lib.format.read_magic(file)
            read_header = _HEADERS.get(version)
            if read_header is None:
                raise ValueError(f"a .npy file of version {version}, which numpy's save does not write")
            shape, _, dtype = read_header(file)
            expected = file.tell() + int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
            size = path.stat().st_size
    except (ValueError, OSError, EOFError) as error:
        raise DataFileError(f"{path}: garbled: not a .npy array ({error})") from None
    if dtype.hasobject:
        raise DataFileError(f"{path}: garbled: an array of Python objects, which is never read")
    if size < expected:
        raise DataFileError(f"{path}: cut: {size} bytes where its header needs {expected}")
    if size > expected:
        raise DataFileError(f"{path}: garbled: {size - expected} bytes after its array")
    if digest is not None and files_digest([path]) != digest:
        why = "not listed in digest.json" if not digest else "its sha256 is not the one in digest.json"
        raise DataFileError(f"{path}: garbled: {why}")
    array = np.load(path, mmap_mode="r", allow_pickle=False)
    if not _finite(array):
        raise DataFileError(f"{path}: holds NaN or infinite values")
    return array


def _finite(array: np.ndarray) -> bool:
    return not np.issubdtype(array.dtype, np.inexact) or bool(np.isfinite(array).all())


def write_json(path: Path, data: Mapping[str, Any]) -> None:
    """Write ``data`` as JSON to ``path`` atomically (a temporary file renamed over it).

    Raises:
        DataStorageError: the disk is full or refuses writes.
    """
    try:
        write_atomically(path, json.dumps(data, indent=1) + "\n")
    except OSError as error:
        raise _storage_error(error, path) from None


def read_json(path: Path) -> dict[str, Any]:
    """The JSON object in the file at ``path``.

    Raises:
        DataFileError: the file is missing, unreadable, or no JSON object (cut or garbled).
    """
    try:
        data = json.loads(path.read_bytes())
    except FileNotFoundError:
        raise DataFileError(f"{path}: missing") from None
    except OSError as error:
        raise DataFileError(f"{path}: unreadable ({error.strerror})") from None
    except ValueError as error:
        raise DataFileError(f"{path}: cut or garbled: not JSON ({error})") from None
    if not isinstance(data, dict):
        raise DataFileError(f"{path}: garbled: not a JSON object")
    return data


def _storage_error(error: OSError, where: Path) -> OSError:
    """``error`` as a ``DataStorageError`` naming ``where`` when the disk caused it."""
    cause = storage_cause(error)
    if cause is None:
        return error
    return DataStorageError(f"{cause}: cannot write {where} ({error.strerror or error})")
