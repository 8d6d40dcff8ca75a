"""Options declared once, as fields of a frozen dataclass: a training job's config
(``training.config``) and a player's options (``players.options``) are each such a declaration.

A field is made by ``option``: its default (none: a required option), its help text, the check
its value must pass (a function of the option's name and value that gives the error message,
or None when the value is good), for a command line, the type its text is read as, and for an
option added to a training config since runs began, the value those runs had (``before``).
``check_fields`` runs every field's check; ``redefault`` gives a field another default in a
declaration that inherits it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, field, fields
from typing import Any

# A field's check: given the option's name and value, the error message, or None when it is good.
Check = Callable[[str, Any], "str | None"]


def option(
    default: Any = MISSING,
    help: str = "",
    *,
    check: Check | None = None,
    parse: type | None = None,
    before: Any = MISSING,
) -> Any:
    """A declared option: its ``default`` (none: a required one), its ``help``, the ``check``
    its value must pass when the declaration is made, the type a command line's text is read as
    (``parse``; by default the default's: a default of None needs one) and, for an option added
    to a training job's config later, the value that runs begun before it had (``before``: a
    resumed run goes on as it began, ``training.loop``)."""
    metadata = {"help": help, "check": check, "parse": parse}
    if before is not MISSING:
        metadata["before"] = before
    return field(default=default, metadata=metadata)


def redefault(declaration: type, name: str, default: Any) -> Any:
    """The field ``name`` of ``declaration`` with another default (its help and check kept)."""
    inherited = next(each for each in fields(declaration) if each.name == name)
    return field(default=default, metadata=inherited.metadata)


def check_fields(declared: Any) -> None:
    """Run the check of every field of the dataclass instance ``declared``.

    Raises:
        ValueError: the first field whose value fails its check, with the check's message.
    """
    for each in fields(declared):
        check = each.metadata.get("check")
        message = check(each.name, getattr(declared, each.name)) if check else None
        if message:
            raise ValueError(message)


def positive(name: str, value: Any) -> str | None:
    """Above 0 (None passes: not given)."""
    return None if value is None or value > 0 else f"{name} must be positive, got {value}"


def one_of(*choices: str | None) -> Check:
    """One of ``choices``."""

    def check(name: str, value: Any) -> str | None:
        shown = ", ".join(str(choice) for choice in choices)
        return None if value in choices else f"{name} is one of {shown}, got {value!r}"

    return check
