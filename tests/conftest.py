"""Options and fixtures shared by the whole suite."""

from __future__ import annotations

import numba
import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--regenerate-golden",
        action="store_true",
        help="rewrite the golden search trees from the current code (only for an intended change)",
    )


@pytest.fixture
def many_threads(monkeypatch):
    """numba reports 16 threads, as on a large machine (the kernels are not run)."""
    monkeypatch.setattr(numba, "get_num_threads", lambda: 16)
