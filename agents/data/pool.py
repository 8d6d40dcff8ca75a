"""The worker processes of the data commands (gnugo, ownership, shards, value), and how they stop.

A data command owns its process. Within ``stoppable()``, a ``kill`` (SIGTERM) stops it as
Ctrl-C does: the command ends its pool and prints its one-line note (what is written, and that
the same command resumes), instead of dying at once and leaving its workers to fail. The
workers of ``worker_pool`` ignore Ctrl-C (the command ends them), and end at once, quietly, when
the command's process is gone (``kill -9``): a worker that outlived it would fail to send its
next result and print a ``BrokenPipeError`` traceback per worker. A worker that dies on its
own (killed, out of memory) would leave the command waiting forever for its result (a pool
replaces the worker, not its task): ``WorkerPool.imap`` notices and raises ``WorkerLost``, which
the command reports as it reports Ctrl-C.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.pool import Pool
from typing import Any

POLL_SECONDS = 1.0  # how often a command waiting for a result checks that its workers live


_LOST = "a worker process ended without its result: killed? out of memory?"


class WorkerLost(Exception):
    """A worker process ended without its result: the command stops, keeping what is written."""


class WorkerPool:
    """A ``multiprocessing`` pool whose results stop coming with ``WorkerLost`` when a worker
    dies, instead of never."""

    def __init__(self, pool: Pool, workers: set[int | None]):
        self.pool = pool
        self.workers = workers  # the pool's process ids

    def imap(self, task: Callable[[Any], Any], items: Iterable[Any], ordered: bool = True) -> Iterator[Any]:
        """``task`` of each of ``items`` in the workers, in order or as they come (one item a
        task: a pool's chunks come as a generator, which cannot wait with a timeout)."""
        results = (self.pool.imap if ordered else self.pool.imap_unordered)(task, items)
        while True:
            try:
                yield results.next(timeout=POLL_SECONDS)
            except StopIteration:
                return
            except multiprocessing.TimeoutError:
                if not self.workers <= {child.pid for child in multiprocessing.active_children()}:
                    raise WorkerLost(_LOST) from None


@contextlib.contextmanager
def worker_pool(
    processes: int, initializer: Callable[..., None] | None = None, initargs: tuple[Any, ...] = ()
) -> Iterator[WorkerPool]:
    """A pool of ``processes`` spawned workers (no inherited threads or engine pipes), each
    running ``initializer(*initargs)`` first; ended (its workers terminated) on leaving."""
    context = multiprocessing.get_context("spawn")
    before = {child.pid for child in multiprocessing.active_children()}
    with context.Pool(processes, initializer=_start_worker, initargs=(initializer, initargs)) as pool:
        started = {child.pid for child in multiprocessing.active_children()} - before
        yield WorkerPool(pool, started)


def stopped(reason: BaseException) -> str:
    """How a data command's note begins when ``reason`` (Ctrl-C, SIGTERM, ``WorkerLost``) stops it."""
    return f"stopped ({reason})" if isinstance(reason, WorkerLost) else "stopped"


def _start_worker(initializer: Callable[..., None] | None, initargs: tuple[Any, ...]) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the command, which ends the pool
    parent = multiprocessing.parent_process()
    if parent is not None and parent.sentinel is not None:
        threading.Thread(target=_end_with, args=(parent.sentinel,), daemon=True).start()
    if initializer is not None:
        initializer(*initargs)


def _end_with(sentinel: int) -> None:
    """End this worker as soon as its parent is gone (the sentinel's pipe closes)."""
    multiprocessing.connection.wait([sentinel])
    os._exit(1)  # its engines see their input close and end too


def _interrupt(number: int, frame: object) -> None:
    raise KeyboardInterrupt


@contextlib.contextmanager
def stoppable() -> Iterator[None]:
    """SIGTERM raises ``KeyboardInterrupt`` within, as Ctrl-C does (in the main thread only,
    where Python runs signal handlers)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
