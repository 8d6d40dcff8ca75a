"""Who may talk to the web board: requests for the server's own address, from its own page.

Any page the user visits can make the browser send requests to ``http://127.0.0.1:8000``: an
``<img>`` sends a GET, a script opens a WebSocket (which no same-origin policy stops), and a
name of the attacker's that resolves to 127.0.0.1 (DNS rebinding) even reads the answers. So
``Guard``, an ASGI middleware in front of every route, refuses:

- a ``Host`` that is not the server's address (``Address.allows``): the port it listens on,
  with the address it is bound to, ``localhost``, ``127.0.0.1`` and ``[::1]`` when that is a
  loopback address, any IP literal when it is every interface (``0.0.0.0``, ``::``), and the
  names the user gives (``goarena serve --allowed-host``): a rebinding name is none of them;
- an ``Origin`` (sent by browsers with every WebSocket, POST and cross-origin fetch) other
  than the ``Host`` itself: the page of another site, or a sandboxed one (``null``); a
  request without one is no browser's page (a script that can reach the port anyway);
- under ``/api/`` and ``/ws/``, a ``Sec-Fetch-Site`` (sent by current browsers with every
  request, an ``<img>``'s included) other than ``same-origin`` or ``none`` (an address typed).

A refused request is answered 403 with ``{"error": ...}``; a refused WebSocket is closed
before it opens (the browser sees a failed handshake).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocketClose

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
EVERY_INTERFACE = frozenset({"0.0.0.0", "::", ""})
GUARDED = ("/api/", "/ws/")  # the routes that read leagues, build players or play
SAME_SITE = frozenset({"same-origin", "none"})  # Sec-Fetch-Site of the page itself, or a typed address


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an IP literal, brackets allowed) is this machine only."""
    host = host.strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class Address:
    """The address the server listens on (``host``, ``port``) and the other names it may be
    reached by (``names``, given by the user)."""

    host: str = "127.0.0.1"
    port: int = 8000
    names: frozenset[str] = field(default_factory=frozenset)

    def allows(self, authority: str) -> bool:
        """Whether a ``Host`` header (``name[:port]``) names this server (see the module
        documentation)."""
        parsed = _split(authority)
        if parsed is None:
            return False
        name, port = parsed
        bound = self.host.strip("[]").lower()
        if port != self.port:
            return False
        if name == bound or name in {n.lower() for n in self.names}:
            return True
        if bound in EVERY_INTERFACE:
            return name == "localhost" or _is_ip(name)
        return is_loopback(bound) and name in LOOPBACK_NAMES


def _split(authority: str) -> tuple[str, int] | None:
    """``name[:port]`` as (name lowercased, without brackets; port, 80 when none), or None
    when it is no such thing."""
    if not authority or any(c in authority for c in "/?#@\\ "):
        return None
    try:
        parts = urlsplit(f"//{authority}")
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname:
        return None
    return parts.hostname.lower(), 80 if port is None else port


def refusal(scope: Scope, address: Address) -> str | None:
    """Why the request of ``scope`` is refused, or None when it is the server's own page's."""
    headers = Headers(scope=scope)
    host = headers.get("host", "")
    if not address.allows(host):
        names = "" if address.names else " (goarena serve --allowed-host NAME names another)"
        return f"refused: {host!r} is not this server's address{names}"
    origin = headers.get("origin")
    if origin is not None:
        parts = urlsplit(origin)
        if parts.scheme != "http" or _split(parts.netloc) != _split(host):
            return f"refused: a page of {origin!r} may not use this server"
    site = headers.get("sec-fetch-site")
    if site is not None and site not in SAME_SITE and scope["path"].startswith(GUARDED):
        return "refused: a page of another site may not use this server"
    return None


class Guard:
    """ASGI middleware that refuses the requests ``refusal`` names, over ``app``."""

    def __init__(self, app: ASGIApp, address: Address):
        self.app = app
        self.address = address

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        why = refusal(scope, self.address) if scope["type"] in ("http", "websocket") else None
        if why is None:
            await self.app(scope, receive, send)
        elif scope["type"] == "websocket":
            await WebSocketClose(code=1008, reason=why)(scope, receive, send)
        else:
            await JSONResponse({"error": why}, status_code=403)(scope, receive, send)
