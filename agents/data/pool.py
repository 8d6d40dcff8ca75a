"""The worker processes of the data commands (gnugo, ownership, shards, value), and how they stop.

A data command owns its process. Within ``stoppable()``, a ``kill`` (SIGTERM) stops it as
Ctrl-C does: the command ends its pool and prints its one-line note (what is written, and that
the same command resumes), instead of dying at once and leaving its workers to fail. The
workers of ``worker_pool`` ignore Ctrl-C (the command ends them), and end at once, quietly, when
the command's process is gone (``kill -9``): a worker that outlived it would fail to send its
next result and print a ``BrokenPipeError`` traceback per worker.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
from collections.abc import Callable, Iterator
from multiprocessing.pool import Pool
from typing import Any


def worker_pool(
    processes: int, initializer: Callable[..., None] | None = None, initargs: tuple[Any, ...] = ()
) -> Pool:
    """A pool of ``processes`` spawned workers (no inherited threads or engine pipes), each
    running ``initializer(*initargs)`` first."""
    context = multiprocessing.get_context("spawn")
    return context.Pool(processes, initializer=_start_worker, initargs=(initializer, initargs))


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
