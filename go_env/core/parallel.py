"""Kernels over a batch of games, run in parallel only where the batch pays for the threads.

A ``prange`` loop over a batch wakes numba's thread pool at every call. On idle cores that
costs microseconds; on busy ones a call waits until the operating system runs every worker,
a time slice (measured on two busy cores: 8 to 20 ms a parallel call, whatever its batch,
against 15 to 30 µs for the feature planes of one position on one thread). Searches call
these kernels on a few leaves at a time, thousands of times a second, so ``batch_kernel``
compiles each one twice, serial and parallel, and every call picks one by the batch's work:
parallel only when numba has more than one thread (``numba.get_num_threads``, which a caller
may lower around a call) and the games times their board points reach the kernel's
``min_work``.

Each kernel's threshold is about a millisecond of serial work or more: far past what waking
idle threads costs, so that large batches (self-play, training data) still use the cores,
and far above a search's few leaves. On busy cores no threshold serves large batches well:
set ``NUMBA_NUM_THREADS=1`` there. ``goarena bench threads`` times both variants by batch
size and prints the crossover next to the threshold in use.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from typing import Any

import numba
from numba import njit


def _serial_copy(function: types.FunctionType) -> types.FunctionType:
    """``function`` under another qualified name: numba names its cache files after that name
    and does not key them on the ``parallel`` flag, so the two variants must differ in it."""
    code, defaults, closure = function.__code__, function.__defaults__, function.__closure__
    copy = types.FunctionType(code, function.__globals__, function.__name__, defaults, closure)
    copy.__qualname__ = f"{function.__qualname__}_serial"
    copy.__module__ = function.__module__
    copy.__doc__ = function.__doc__
    return copy


class BatchKernel:
    """A ``prange`` kernel compiled serial (``serial``) and parallel (``parallel``); a call runs
    the one ``variant`` picks for its batch.

    Args:
        function: the kernel, a ``prange`` loop over the games of the batched ``GoState`` that is
            its argument number ``batch_arg``.
        min_work: the least games × board points at which the parallel variant runs.
        batch_arg: which argument is the batched state whose games and points are counted.
    """

    def __init__(self, function: Callable[..., Any], min_work: int, batch_arg: int = 0):
        if not isinstance(function, types.FunctionType):
            raise TypeError(f"batch_kernel takes a plain Python function, got {type(function).__name__}")
        if min_work < 1:
            raise ValueError(f"min_work counts games times points: at least 1, got {min_work}")
        self.serial = njit(cache=True)(_serial_copy(function))
        self.parallel = njit(cache=True, parallel=True)(function)
        self.min_work = min_work
        self.batch_arg = batch_arg
        functools.update_wrapper(self, function)

    def variant(self, games: int, points: int) -> Any:
        """The compiled variant a call on ``games`` positions of ``points`` points runs."""
        if games * points >= self.min_work and numba.get_num_threads() > 1:
            return self.parallel
        return self.serial

    def __call__(self, *args: Any) -> Any:
        board = args[self.batch_arg].board  # [B, P + 1]: the last entry is the wall
        return self.variant(board.shape[0], board.shape[1] - 1)(*args)


def batch_kernel(min_work: int, batch_arg: int = 0) -> Callable[[Callable[..., Any]], BatchKernel]:
    """Decorator: the kernel as a ``BatchKernel`` with these thresholds."""
    return functools.partial(BatchKernel, min_work=min_work, batch_arg=batch_arg)
