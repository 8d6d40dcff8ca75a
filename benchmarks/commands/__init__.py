"""The ``goarena`` commands that belong to no other package: each module is one command
(``add_arguments(parser)`` and ``command(args)``, or ``parser()`` and ``main(argv)`` where it
parses its own options); ``benchmarks.cli`` registers them. What they share is here."""

from __future__ import annotations

import argparse
import inspect
import re
import sys
import textwrap

# reST markup that a docstring may hold and a terminal should not show, besides backquotes.
_ROLE = re.compile(r":[a-z]+:`~?")  # the role of :class:`~go_env.Game`
_BORDER = re.compile(r"^\s*=+(\s+=+)*\s*$")  # a simple table's ==== lines


# The modules of the optional extras (pyproject.toml's optional-dependencies), by the name
# they are imported by: a command that misses one says which extra to install.
EXTRAS = {
    "fastapi": "web",
    "pydantic": "web",
    "starlette": "web",
    "uvicorn": "web",
    "websockets": "web",
    "stable_baselines3": "sb3",
    "sb3_contrib": "sb3",
    "ray": "ray",
    "pyspiel": "peers",
    "open_spiel": "peers",
    "pygame": "render",
}


def missing_extra(error: BaseException | None) -> str | None:
    """The extra whose module ``error`` (or an error it was raised from) failed to import."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        seen.add(id(error))
        if isinstance(error, ImportError) and error.name:
            extra = EXTRAS.get(error.name.partition(".")[0])
            if extra:
                return extra
        error = error.__cause__ or error.__context__
    return None


def needs_extra(doing: str, extra: str) -> str:
    """``goarena serve needs the web extra: pip install 'goarena[web]'``."""
    return f"{doing} needs the {extra} extra: pip install 'goarena[{extra}]'"


def device_name(text: str) -> str:
    """A device name, checked by its form here (without importing torch); whether it is there
    is checked before the first game (``league.play.check_players``) or at the player's reset."""
    if not re.fullmatch(r"cpu|cuda(:\d+)?", text):
        raise argparse.ArgumentTypeError(f"unsupported device {text!r}: use cpu, cuda or cuda:N")
    return text


def log(line: str) -> None:
    """A line of progress on stderr (stdout is a GTP engine's protocol, or a command's figures)."""
    print(f"goarena: {line}", file=sys.stderr, flush=True)


def plain_text(doc: str, width: int = 79) -> str:
    """A docstring as a command's help text: its paragraphs wrapped to ``width``, without
    reST markup (``code``, roles, table borders), for ``--help``."""
    text = _ROLE.sub("", inspect.cleandoc(doc)).replace("`", "").replace("\\ ", "")
    lines = [line for line in text.splitlines() if not _BORDER.match(line)]
    paragraphs = "\n".join(lines).split("\n\n")
    return "\n\n".join(textwrap.fill(" ".join(p.split()), width) for p in paragraphs if p.strip())
