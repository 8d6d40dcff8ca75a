"""Where numba keeps compiled kernels: a directory named after a digest of every kernel source.

numba invalidates a cached function only when its own file changes, but search kernels inline
rules-core kernels from other files: after an edit to ``go_env``, a cached search kernel would
go on running the old rules. Keying the whole cache on a digest of every kernel file of
``go_env`` and ``search`` (each file there that compiles anything with numba) makes an edit to
any kernel start a fresh cache, while edits to plain Python files keep it.

The base directory is ``NUMBA_CACHE_DIR`` when set, else ``$XDG_CACHE_HOME/goarena`` (by
default ``~/.cache/goarena``). Where it cannot be written, numba falls back to its own places.
Importing ``go_env`` sets ``numba.config.CACHE_DIR`` before any kernel is defined.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable
from pathlib import Path

import numba

KERNEL_PACKAGES = ("go_env", "search")
# A file holds kernels if it compiles with numba or uses the rules core's kernel decorators.
_KERNEL_FILE = re.compile(rb"\bnjit\b|@(?:\w+\.)?(?:inline_)?kernel\b")


def kernel_digest(roots: Iterable[Path]) -> str:
    """A short digest of every kernel file under ``roots`` (names and contents)."""
    digest = hashlib.sha256()
    for root in roots:
        for path in sorted(Path(root).rglob("*.py")):
            source = path.read_bytes()
            if _KERNEL_FILE.search(source):
                digest.update(path.relative_to(Path(root).parent).as_posix().encode())
                digest.update(b"\0")
                digest.update(source)
                digest.update(b"\0")
    return digest.hexdigest()[:16]


def cache_directory(base: str | None = None) -> Path:
    """The directory this source tree's compiled kernels belong in."""
    if base is None:
        base = os.environ.get("NUMBA_CACHE_DIR") or None
    if base is None:
        xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        base = os.path.join(xdg, "goarena")
    here = Path(__file__).resolve().parent.parent
    roots = [here / package for package in KERNEL_PACKAGES if (here / package).is_dir()]
    return Path(base) / f"kernels-{kernel_digest(roots)}"


def use_keyed_cache() -> Path:
    """Point numba's cache at ``cache_directory()`` (called once, when go_env is imported)."""
    directory = cache_directory()
    numba.config.CACHE_DIR = str(directory)  # type: ignore[attr-defined]
    return directory


CACHE_DIRECTORY = use_keyed_cache()
