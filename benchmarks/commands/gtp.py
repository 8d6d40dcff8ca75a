"""``goarena gtp``: serve a player as a GTP engine on stdin and stdout."""

from __future__ import annotations

import argparse
import contextlib
import functools
import math
import os
import sys
from collections.abc import Callable, Iterator
from typing import TextIO

from go_env import Rules
from go_env.game import MAX_SIZE, MIN_SIZE
from go_env.rules import RULES_PRESETS
from goarena.agents.gtp.clock import DEFAULT_LAG
from goarena.benchmarks.commands import device_name, log


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--agent", default="random", help="player spec, e.g. random or uct:simulations=800")
    parser.add_argument(
        "--size", type=int, default=None, help="initial board size (default 19, else one the player plays)"
    )
    parser.add_argument(
        "--rules",
        choices=sorted(RULES_PRESETS),
        default="goarena",
        help="rules preset (default goarena: area scoring, positional superko, no suicide, komi 7.5)",
    )
    parser.add_argument("--komi", type=float, default=None, help="komi (default: the preset's)")
    parser.add_argument(
        "--device", type=device_name, default="cpu", help="where a network player runs: cpu (default), cuda"
    )
    parser.add_argument("--threads", type=int, default=1, help="torch's CPU threads (default 1)")
    parser.add_argument(
        "--lag",
        type=seconds,
        default=DEFAULT_LAG,
        metavar="SECONDS",
        help=f"time kept back from each move's budget under a clock, for the engine's and the "
        f"controller's latency (default {DEFAULT_LAG})",
    )


def command(args: argparse.Namespace) -> None:
    """Build the player, warm its kernels up in the background, and answer GTP until ``quit``."""
    from goarena.agents.gtp.engine import GTPEngine, warm_up_in_background
    from goarena.agents.protocols import Closeable
    from goarena.agents.specs import AgentSpecError, make_agent

    rules = Rules.preset(args.rules, komi=args.komi) if args.komi is not None else Rules.preset(args.rules)
    set_threads(args.threads)  # this process serves one game: its threads are the command's to set
    with private_stdout() as protocol:  # from the player's import on: it may write to stdout
        try:
            agent = make_agent(args.agent)
        except AgentSpecError as error:  # a bad spec or a bad network file: a message, not a traceback
            sys.exit(f"goarena gtp: {error}")
        playable = size_check(args.agent, rules)
        size = args.size if args.size is not None else initial_size(playable)
        if MIN_SIZE <= size <= MAX_SIZE and not playable(size):
            sys.exit(f"goarena gtp: {args.agent} cannot play {size}x{size}")
        # Compiling in the background: protocol commands answer at once, moves wait for it.
        ready = warm_up_in_background(agent, size, log)
        try:
            engine = GTPEngine(
                agent,
                size=size,
                rules=rules,
                ready=ready,
                device=args.device,
                playable=playable,
                lag=args.lag,
            )
            engine.run(sys.stdin, protocol)
        finally:
            if isinstance(agent, Closeable):
                agent.close()


@contextlib.contextmanager
def private_stdout() -> Iterator[TextIO]:
    """This process's standard output as a stream of its own, for a protocol (or a command's
    JSON) alone: meanwhile file descriptor 1 is stderr, so that whatever else writes to stdout
    (a player's print, its C code, a process it starts, which inherits the descriptor) goes
    to stderr instead of corrupting the stream. Where ``sys.stdout`` is not descriptor 1
    (captured by a test, embedded), that is ``sys.stdout`` itself, left as it is."""
    try:
        ours = sys.stdout.fileno() == 1
    except (AttributeError, OSError, ValueError):  # no descriptor at all
        ours = False
    if not ours:
        yield sys.stdout
        return
    sys.stdout.flush()
    stream = os.fdopen(os.dup(1), "w", encoding=sys.stdout.encoding)
    os.dup2(2, 1)
    try:
        yield stream
    finally:
        sys.stdout.flush()  # what went to stderr meanwhile
        try:
            stream.flush()
        finally:
            os.dup2(stream.fileno(), 1)
            stream.close()


def seconds(text: str) -> float:
    """A time in seconds, at least 0 (``--lag``)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value < math.inf:
        raise argparse.ArgumentTypeError(f"{text!r} is not a time in seconds (at least 0)")
    return value


def size_check(spec: str, rules: Rules) -> Callable[[int], bool]:
    """Whether the player of ``spec`` plays a board of a size: the league's check
    (``check_spec`` with the game's context), remembered per size."""
    from goarena.agents.protocols import GameContext
    from goarena.agents.specs import AgentSpecError, check_spec

    @functools.cache
    def playable(size: int) -> bool:
        try:
            check_spec(spec, GameContext(size, rules))
        except AgentSpecError:
            return False
        return True

    return playable


def initial_size(playable: Callable[[int], bool]) -> int:
    """19 if the player plays it, else the first of 9, 13 and the other sizes it plays (19
    if none: the engine then refuses every move with the player's reason)."""
    candidates = (19, 9, 13, *range(MIN_SIZE, MAX_SIZE + 1))
    return next((size for size in candidates if playable(size)), 19)


def set_threads(threads: int) -> None:
    """torch's CPU threads for this process, when torch is installed (a player that loads a
    network runs on them); numba's are left to their kernels."""
    try:
        from goarena.agents.nets.predict import set_torch_threads
    except ImportError:  # goarena without its agents extra: no network player to run
        return
    set_torch_threads(threads)
