"""Files written whole or not at all: to a temporary file beside the target, renamed over it.

One helper for every writer of ours that must never leave a cut file behind (checkpoints, run
configs, JSON manifests, SGF records, a league's games, crash notes and live files). A reader
sees the old file or the new one; a writer killed mid-write leaves only a hidden temporary file
(``.NAME.XXXXXXXX.tmp``), which ``leftovers`` finds. ``go_env`` does not need it (its SGF writer
writes where it is told), so it lives here, below every part of ``agents`` and ``benchmarks``.
``exclusive_lock`` is the other guard of a folder's files: one process at a time (a training
run's directory, a league's).
"""

from __future__ import annotations

import fcntl
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SUFFIX = ".tmp"


@contextmanager
def replacing(path: Path, *, suffix: str = SUFFIX, durable: bool = False) -> Iterator[Path]:
    """A fresh temporary path beside ``path`` for the block to write; renamed over ``path``
    when the block ends, removed when it raises.

    Each call has a name of its own (two writers never share one); ``suffix`` ends it (SB3 adds
    ``.zip`` to a name without it). The file is readable by all (0644, not mkstemp's 0600: other
    users load the weights). ``durable``: fsync the file before the rename and the folder after
    it, so that a crash or power cut leaves the old file or the new one (checkpoints).
    """
    handle, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix, dir=path.parent)
    temporary = Path(name)
    try:
        try:
            os.fchmod(handle, 0o644)
        finally:
            os.close(handle)
        yield temporary
        if durable:
            _fsync(temporary)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    if durable:
        _fsync(path.parent)  # the rename itself survives a crash


def write_atomically(path: Path, data: str | bytes, *, durable: bool = False) -> None:
    """Write ``data`` (text or bytes) to ``path`` whole or not at all (``replacing``)."""
    with replacing(path, durable=durable) as temporary:
        if isinstance(data, str):
            temporary.write_text(data)
        else:
            temporary.write_bytes(data)


def leftovers(path: Path) -> list[Path]:
    """The temporary files that writers of ``path`` killed mid-write left beside it (``path``'s
    name may be a glob pattern: ``games/*.sgf``)."""
    return sorted(path.parent.glob(f".{path.name}.*{SUFFIX}"))


def exclusive_lock(path: Path) -> int | None:
    """Lock the file ``path`` (made if need be) exclusively, without waiting: the descriptor
    that holds the lock until it is closed, or None when another process holds it.

    Raises:
        OSError: the file cannot be opened.
    """
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(descriptor)
        return None
    return descriptor


def _fsync(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
