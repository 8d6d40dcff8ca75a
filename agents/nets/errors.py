"""The one error a network file gives, with its one shape of message: ``"PATH: what is wrong"``;
and the size check every zip-based model file passes before anything in it is decompressed
(``zip_file_problem``, ``zip_size_problem``).

Its own module so that the loader (``load``) and the checkpoint format (``checkpoint``), which
the loader calls, both raise it without importing each other.
"""

from __future__ import annotations

import zipfile
from collections import Counter
from pathlib import Path

# A model file's entries may unpack to at most MAX_UNPACKED bytes in all, and, above
# FREE_UNPACKED, to at most MAX_EXPANSION times the file's own size. Weights hardly deflate
# (torch stores them as they are; an SB3 zip deflates them by about 1.1x), so a file that
# declares more is a zip bomb (1 MB that inflates to 1 GiB) or entries that share their bytes.
MAX_UNPACKED = 4 << 30
MAX_EXPANSION = 20
FREE_UNPACKED = 64 << 20


class NetworkFileError(ValueError):
    """A network file that cannot be used: missing, corrupt, cut short, or not what was asked for.
    Its message is ``"PATH: what is wrong"`` (``refuse``)."""


def refuse(path: Path | str, problem: str) -> NetworkFileError:
    """The error for the file at ``path`` with ``problem``, in the one shape of message."""
    return NetworkFileError(f"{path}: {problem}")


def zip_size_problem(archive: zipfile.ZipFile, packed: int) -> str | None:
    """What is wrong with the sizes (and names) that ``archive``'s directory declares, read from
    the directory alone, for an archive of ``packed`` bytes; None when nothing is.

    Refused: entries that unpack to more than the limits above, and a name given twice (two
    readers could take different entries for it)."""
    infos = archive.infolist()
    twice = [name for name, count in Counter(info.filename for info in infos).items() if count > 1]
    if twice:
        return f"its zip directory names the entry {twice[0]!r} twice"
    unpacked = sum(info.file_size for info in infos)
    limit = min(MAX_UNPACKED, max(FREE_UNPACKED, MAX_EXPANSION * packed))
    if unpacked > limit:
        return (
            f"its entries unpack to {_size(unpacked)} from {_size(packed)} (a zip bomb?); a model file "
            f"may unpack to {MAX_EXPANSION} times its size, {_size(MAX_UNPACKED)} at most: refused "
            "before decompressing"
        )
    return None


def zip_file_problem(path: Path) -> str | None:
    """``zip_size_problem`` of the zip file at ``path``: what is wrong with the sizes (and
    names) its directory declares, read before anything in it is decompressed; None when nothing is.

    Raises:
        zipfile.BadZipFile, OSError: the file is no readable zip (each reader says so its way).
    """
    with zipfile.ZipFile(path) as archive:
        return zip_size_problem(archive, path.stat().st_size)


def _size(count: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{count} bytes"
