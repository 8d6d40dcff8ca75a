"""The one error a network file gives, with its one shape of message: ``"PATH: what is wrong"``.

Its own module so that the loader (``load``) and the checkpoint format (``checkpoint``), which
the loader calls, both raise it without importing each other.
"""

from __future__ import annotations

from pathlib import Path


class NetworkFileError(ValueError):
    """A network file that cannot be used: missing, corrupt, cut short, or not what was asked for.
    Its message is ``"PATH: what is wrong"`` (``refuse``)."""


def refuse(path: Path | str, problem: str) -> NetworkFileError:
    """The error for the file at ``path`` with ``problem``, in the one shape of message."""
    return NetworkFileError(f"{path}: {problem}")
