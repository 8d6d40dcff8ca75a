"""A player in a process of its own (``goarena.benchmarks.web.remote``): a search that cannot be
stopped mid-move is killed when its browser leaves, and the server plays on."""

from __future__ import annotations

import multiprocessing
import time

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient  # noqa: E402
from web_fixtures import make_league  # noqa: E402

from goarena.benchmarks.web.app import create_app  # noqa: E402
from goarena.benchmarks.web.guard import Address  # noqa: E402

TESTSERVER = Address("testserver", 80)  # the TestClient's address


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs")
    make_league(root / "small", games=1)
    return root


def test_a_search_that_cannot_be_stopped_is_killed_when_its_browser_leaves(root):
    # minimax has no analyze to stop: to depth 30 it would search for hours.
    players = {"deep": "minimax:depth=30"}
    with TestClient(create_app(root, players, address=TESTSERVER)) as client:
        with client.websocket_connect("/ws/play") as socket:
            socket.send_json({"type": "new", "player": "deep", "size": 9, "color": "white"})
            assert socket.receive_json()["thinking"]
            searching = multiprocessing.active_children()
            assert [child.name for child in searching] == ["player"]  # it searches in a process
        deadline = time.monotonic() + 20
        while any(child.is_alive() for child in searching):
            assert time.monotonic() < deadline, "the search outlived its browser"
            time.sleep(0.05)
        with client.websocket_connect("/ws/play") as socket:  # and the server plays on
            socket.send_json({"type": "new", "player": "deep", "size": 5})
            assert socket.receive_json()["type"] == "state"
