"""``goarena serve``: the command starts the real server (uvicorn, WebSockets included) on this
machine's address, and refuses bad options with a message."""

from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

pytest.importorskip("uvicorn")
websockets_client = pytest.importorskip("websockets.sync.client")

from goarena.benchmarks.commands.serve import DEFAULT_PLAYERS, add_arguments, command, named_spec  # noqa: E402

SERVE = [sys.executable, "-m", "goarena.benchmarks.cli", "serve"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_player_options_are_name_equals_spec():
    assert named_spec(" strong = uct:simulations=2000 ") == ("strong", "uct:simulations=2000")
    for bad in ("uct", "=uct", "name=", ""):
        with pytest.raises(argparse.ArgumentTypeError, match="NAME=SPEC"):
            named_spec(bad)


def test_the_default_players_are_built_ins_that_load_offline():
    from goarena.agents.specs import check_spec

    for spec in DEFAULT_PLAYERS.values():
        check_spec(spec)


def test_serve_prints_its_address_and_serves_pages_and_games(tmp_path):
    port = free_port()
    command = [*SERVE, "--dir", str(tmp_path), "--port", str(port)]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = server.stdout.readline()
        assert f"http://127.0.0.1:{port}/" in line
        url = f"http://127.0.0.1:{port}"
        for _ in range(100):  # until uvicorn listens
            assert server.poll() is None, "the server stopped"
            try:
                with urllib.request.urlopen(f"{url}/api/leagues", timeout=5) as answer:
                    assert json.load(answer) == {"leagues": []}
                break
            except OSError:
                time.sleep(0.1)
        with websockets_client.connect(f"ws://127.0.0.1:{port}/ws/play", open_timeout=10) as play:
            play.send(json.dumps({"type": "new", "player": "random", "size": 5}))
            state = json.loads(play.recv(timeout=30))
            assert state["type"] == "state" and state["size"] == 5 and state["human"] == "black"
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_serve_refuses_a_missing_directory_and_a_bad_player(tmp_path):
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    with pytest.raises(SystemExit, match="no directory"):
        command(parser.parse_args(["--dir", str(tmp_path / "nope")]))
    with pytest.raises(SystemExit, match="--player x=uct:sims=3: .*sims"):
        command(parser.parse_args(["--dir", str(tmp_path), "--player", "x=uct:sims=3"]))


def test_serve_refuses_allow_spec_off_the_loopback_unless_told_what_it_does(tmp_path):
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    for host in ("0.0.0.0", "192.168.1.5", "::"):
        refused = "run any command on this machine as you.*--let-the-network-run-code"
        with pytest.raises(SystemExit, match=refused):
            command(parser.parse_args(["--dir", str(tmp_path), "--host", host, "--allow-spec"]))


@pytest.mark.parametrize(
    ("options", "said"),
    [
        ([], "warning: every host that reaches 0.0.0.0 port {port} may play games here"),
        (["--allow-spec", "--let-the-network-run-code"], "WARNING: every host that reaches 0.0.0.0 port"),
    ],
)
def test_serve_off_the_loopback_says_who_can_reach_it(tmp_path, options, said):
    port = free_port()
    command = [*SERVE, "--dir", str(tmp_path), "--port", str(port), "--host", "0.0.0.0", *options]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        assert said.format(port=port) in server.stderr.readline()
    finally:
        server.terminate()
        server.wait(timeout=30)
