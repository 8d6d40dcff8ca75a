"""The data commands' worker pool: results in order or as they come, and a lost worker said."""

from __future__ import annotations

import os
import signal

import pytest

from goarena.agents.data.pool import WorkerLost, stopped, worker_pool


def square(number: int) -> int:
    return number * number


def die_on_three(number: int) -> int:
    if number == 3:
        os.kill(os.getpid(), signal.SIGKILL)  # as the kernel's OOM killer or a user's kill -9 would
    return number


def test_results_come_in_order_or_as_they_come():
    with worker_pool(2) as pool:
        assert list(pool.imap(square, range(6))) == [0, 1, 4, 9, 16, 25]
        assert sorted(pool.imap(square, range(6), ordered=False)) == [0, 1, 4, 9, 16, 25]


def test_a_worker_that_dies_stops_the_results_instead_of_hanging():
    with worker_pool(2) as pool, pytest.raises(WorkerLost) as lost:
        list(pool.imap(die_on_three, range(6), ordered=False))  # a plain pool waited forever here
    assert stopped(lost.value) == (
        "stopped (a worker process ended without its result: killed? out of memory?)"
    )
    assert stopped(KeyboardInterrupt()) == "stopped"
