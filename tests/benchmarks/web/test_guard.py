"""Who may talk to the web board (``goarena.benchmarks.web.guard``): a request's host must be one
of the server's own addresses (no DNS rebinding); the whole threat model, through the app:
``test_trust.py``."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi")

from goarena.benchmarks.web.guard import Address  # noqa: E402


@pytest.mark.parametrize(
    ("address", "host", "allowed"),
    [
        (Address("127.0.0.1", 8000), "127.0.0.1:8000", True),
        (Address("127.0.0.1", 8000), "localhost:8000", True),
        (Address("127.0.0.1", 8000), "[::1]:8000", True),
        (Address("127.0.0.1", 8000), "LOCALHOST:8000", True),
        (Address("127.0.0.1", 8000), "127.0.0.1:8001", False),  # another server's port
        (Address("127.0.0.1", 8000), "127.0.0.1", False),  # port 80
        (Address("127.0.0.1", 8000), "evil.example:8000", False),  # DNS rebinding
        (Address("127.0.0.1", 8000), "", False),
        (Address("127.0.0.1", 8000), "user@127.0.0.1:8000", False),
        (Address("127.0.0.1", 8000), "127.0.0.1:80x", False),
        (Address("0.0.0.0", 8000), "192.168.1.5:8000", True),  # every interface: any IP literal
        (Address("0.0.0.0", 8000), "[fe80::1]:8000", True),
        (Address("0.0.0.0", 8000), "localhost:8000", True),
        (Address("0.0.0.0", 8000), "evil.example:8000", False),
        (Address("0.0.0.0", 8000, frozenset({"mybox.lan"})), "MyBox.lan:8000", True),  # --allowed-host
        (Address("192.168.1.5", 8000), "192.168.1.5:8000", True),
        (Address("192.168.1.5", 8000), "localhost:8000", False),  # not listening there
        (Address("testserver", 80), "testserver", True),
    ],
)
def test_the_host_must_be_one_of_the_servers_own_addresses(address, host, allowed):
    assert address.allows(host) is allowed
