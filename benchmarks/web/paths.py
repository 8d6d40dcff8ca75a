"""Paths from the browser, resolved inside the served directory and nowhere else.

``goarena serve --dir RUNS`` reads only inside ``RUNS``: every path a request names (a league's
id, a game's SGF file as its database records it) goes through ``inside(root, path)``, which
refuses an absolute path, a ``..`` step and a symbolic link that leads out of the root
(``OutsideRoot``, answered 403), and returns the resolved path otherwise.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath


class OutsideRoot(ValueError):
    """A path that would leave the served directory."""


def inside(root: Path, path: str) -> Path:
    """``path`` (relative, ``/``-separated) resolved under ``root``.

    Raises:
        OutsideRoot: ``path`` is absolute, has a ``..`` step or a NUL, or resolves (through
            symbolic links) to a place outside ``root``.
    """
    if "\0" in path or "\\" in path:
        raise OutsideRoot(f"not a path inside the served directory: {path!r}")
    relative = PurePosixPath(path)
    if relative.is_absolute() or ".." in relative.parts:
        raise OutsideRoot(f"not a path inside the served directory: {path!r}")
    base = root.resolve()
    resolved = (base / relative).resolve()
    if not resolved.is_relative_to(base):
        raise OutsideRoot(f"{path!r} leads outside the served directory")
    return resolved


def relative_id(root: Path, directory: Path) -> str:
    """The id the browser names ``directory`` by: its path under ``root``, ``/``-separated
    (``"."`` for the root itself)."""
    return directory.resolve().relative_to(root.resolve()).as_posix()
