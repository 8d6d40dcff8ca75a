"""The web board's server: an ASGI app (FastAPI) of JSON routes, two WebSockets and the page.

``create_app(root, players, allow_spec)`` serves the leagues under ``root`` and live games
against ``players`` (name -> spec); ``goarena serve`` runs it on uvicorn. Every call that may
take time runs off the event loop: the league views in the server's thread pool, the players'
moves and analysis in threads of their session (``sessions``), so that one slow search never
holds up another page or another game.

==============================================  ===============================================
route                                           answer
==============================================  ===============================================
``GET /``, ``GET /static/...``                  the page (``static/``)
``GET /api/players``                            ``{"players": [{"name", "spec", "analysis",
                                                "ownership", "policy"}], "allow_spec", "rules",
                                                "sizes"}``: the capabilities are the player's
                                                protocols (``AnalysisAgent``, ...)
``GET /api/leagues``                            ``{"leagues": [{"id", "games", "players",
                                                "updated"}]}``
``GET /api/leagues/{id}``                       standings, crosstable, Elo history, games
                                                (``leagues.league_view``)
``GET /api/leagues/{id}/games/{n}``             a replay (``leagues.replay``)
``GET /api/leagues/{id}/games/{n}/analysis``    ``?player=NAME``: ``{"winrates": [...]}``, Black's
                                                win rate at each position by an offered player
``WS /ws/play``                                 one live game per connection (``sessions``)
``WS /ws/watch/{id}``                           ``{"type": "table", ...league view...}`` at once
                                                and each time the league's database changes;
                                                ``{"type": "live", "games": [...]}`` at once
                                                and each time a game in progress changes
                                                (``leagues.live_games``)
==============================================  ===============================================

Errors are ``{"error": message}``: 400 for bad input, 403 for a path outside the root or a
player not offered, 404 for a league or game that is not there; on a WebSocket,
``{"type": "error", "message": ...}``, and the connection goes on.

Players are code, so the browser picks only among the players offered: those the server was
started with and, once a league is opened, the league's own players whose specs name a
built-in player other than an external engine (``gtp:`` runs a command) and load. With
``allow_spec`` the browser may give any spec, and a league's players are offered whatever
they are.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import threading
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from go_env.rules import RULES_PRESETS
from goarena.agents.protocols import AnalysisAgent, Closeable, OwnershipAgent, PolicyAgent
from goarena.agents.specs import BUILTIN_AGENTS, AgentSpecError, make_agent
from goarena.benchmarks.web import leagues
from goarena.benchmarks.web.paths import OutsideRoot
from goarena.benchmarks.web.sessions import Flood, PlaySession, SessionError, decode, winrates_along

STATIC = Path(__file__).parent / "static"
SIZES = [5, 7, 9, 13, 19]
WATCH_SECONDS = 1.0  # how often a watched league's database and games in progress are looked at
# The built-ins a league's own players are offered as, unless --allow-spec (gtp: runs a command).
_LEAGUE_BUILTINS = BUILTIN_AGENTS.keys() - {"gtp"}


class NotOffered(PermissionError):
    """A player the server does not offer (answered 403)."""


_STATUS = ((SessionError, 400), (OutsideRoot, 403), (NotOffered, 403), (leagues.NotFound, 404))


@functools.lru_cache(maxsize=64)
def capabilities(spec: str) -> dict[str, bool] | None:
    """What the player of ``spec`` can show (its protocols), None when it cannot be built."""
    try:
        agent = make_agent(spec)
    except (AgentSpecError, ValueError, OSError):
        return None
    try:
        return {
            "analysis": isinstance(agent, AnalysisAgent),
            "ownership": isinstance(agent, OwnershipAgent),
            "policy": isinstance(agent, PolicyAgent),
        }
    finally:
        if isinstance(agent, Closeable):
            agent.close()


class Offer:
    """The players the browser may choose: name -> spec, grown by the leagues opened."""

    def __init__(self, players: dict[str, str], allow_spec: bool):
        self.specs = dict(players)
        self.allow_spec = allow_spec
        self._lock = threading.Lock()

    def describe(self) -> list[dict[str, Any]]:
        with self._lock:
            offered = list(self.specs.items())
        found = [(name, spec, capabilities(spec)) for name, spec in offered]
        return [{"name": name, "spec": spec, **able} for name, spec, able in found if able is not None]

    def spec(self, name: str) -> str:
        with self._lock:
            spec = self.specs.get(name)
        if spec is None:
            raise NotOffered(f"player {name!r} is not offered by this server")
        return spec

    def adopt(self, league_id: str, specs: dict[str, str]) -> None:
        """Offer a league's players (see the module documentation); a name already offered
        for another spec is offered as ``name (league id)``."""
        for name, spec in specs.items():
            if not self.allow_spec and spec.partition(":")[0].strip() not in _LEAGUE_BUILTINS:
                continue
            if capabilities(spec) is None:
                continue
            with self._lock:
                if spec in self.specs.values():
                    continue
                self.specs[name if name not in self.specs else f"{name} ({league_id})"] = spec


def create_app(root: Path, players: dict[str, str], allow_spec: bool = False) -> FastAPI:
    """The web board over the leagues under ``root``, offering ``players`` (name -> spec)
    and, with ``allow_spec``, any spec the browser gives."""
    root = Path(root).resolve()
    offer = Offer(players, allow_spec)
    app = FastAPI(title="goarena", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.offer = offer

    for error_type, status in _STATUS:
        app.add_exception_handler(error_type, _answer_with(status))

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> JSONResponse:
        return JSONResponse({"error": str(error.detail)}, status_code=error.status_code)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, error: RequestValidationError) -> JSONResponse:
        words = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())
        return JSONResponse({"error": f"bad request: {words}"}, status_code=400)

    @app.get("/")
    def index() -> FileResponse:
        page = STATIC / "index.html"
        if not page.is_file():
            raise HTTPException(404, "the page is not installed")
        return FileResponse(page)

    app.mount("/static", StaticFiles(directory=STATIC, check_dir=False), name="static")

    @app.get("/api/players")
    def list_players() -> dict[str, Any]:
        return {
            "players": offer.describe(),
            "allow_spec": allow_spec,
            "rules": list(RULES_PRESETS),
            "sizes": SIZES,
        }

    @app.get("/api/leagues")
    def list_leagues() -> dict[str, Any]:
        return {"leagues": leagues.find_leagues(root)}

    @app.get("/api/leagues/{league_id:path}/games/{game_id}/analysis")
    def game_analysis(league_id: str, game_id: str, player: str) -> dict[str, Any]:
        spec = offer.spec(player)
        leagues.load_game(root, league_id, game_id)  # 404 before any work
        return {"winrates": _winrates(root, league_id, game_id, spec)}

    @app.get("/api/leagues/{league_id:path}/games/{game_id}")
    def game_replay(league_id: str, game_id: str) -> dict[str, Any]:
        return leagues.replay(root, league_id, game_id)

    @app.get("/api/leagues/{league_id:path}")
    def league(league_id: str) -> dict[str, Any]:
        view = leagues.league_view(root, league_id)
        offer.adopt(league_id, {row["name"]: row["spec"] for row in view["standings"]})
        return view

    @app.websocket("/ws/play")
    async def play(websocket: WebSocket) -> None:
        await websocket.accept()
        outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        session = PlaySession(offer.specs, allow_spec, outbox.put_nowait)
        writer = asyncio.create_task(_write(websocket, outbox))
        flood = Flood()
        try:
            while True:
                received = await websocket.receive()
                if received["type"] == "websocket.disconnect":
                    break
                verdict = flood.check()
                if verdict == "warn":
                    outbox.put_nowait({"type": "error", "message": "too many messages: the rest are dropped"})
                if verdict != "ok":
                    continue
                try:
                    message = decode(received.get("text"))
                except SessionError as error:
                    outbox.put_nowait({"type": "error", "message": str(error)})
                    continue
                await session.handle(message)
        except WebSocketDisconnect:
            pass
        finally:
            writer.cancel()
            await session.close()

    @app.websocket("/ws/watch/{league_id:path}")
    async def watch(websocket: WebSocket, league_id: str) -> None:
        await websocket.accept()
        seen, shown = None, None  # the database and the games in progress last sent
        with contextlib.suppress(WebSocketDisconnect, RuntimeError):  # the page is gone
            while True:
                try:
                    now = await asyncio.to_thread(leagues.signature, root, league_id)
                    if now != seen:
                        view = await asyncio.to_thread(leagues.league_view, root, league_id)
                        await websocket.send_json({"type": "table", **view})
                        seen = now
                    playing = await asyncio.to_thread(leagues.live_games, root, league_id)
                    if playing != shown:
                        await websocket.send_json({"type": "live", "games": playing})
                        shown = playing
                except (leagues.NotFound, OutsideRoot) as error:
                    await websocket.send_json({"type": "error", "message": str(error)})
                    await websocket.close()
                    return
                try:
                    received = await asyncio.wait_for(websocket.receive(), WATCH_SECONDS)
                except asyncio.TimeoutError:
                    continue
                if received["type"] == "websocket.disconnect":
                    return

    return app


@functools.lru_cache(maxsize=256)
def _winrates(root: Path, league_id: str, game_id: str, spec: str) -> list[float | None]:
    """Black's win rate along a stored game by the player of ``spec`` (kept: it is slow)."""
    _, record, _ = leagues.load_game(root, league_id, game_id)
    found = winrates_along(leagues.start_of(record), record.moves, spec)
    return [None if value is None else round(value, 4) for value in found]


async def _write(websocket: WebSocket, outbox: asyncio.Queue[dict[str, Any]]) -> None:
    """Send the session's messages in order, from one task (a WebSocket has one writer)."""
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):
        while True:
            await websocket.send_json(await outbox.get())


def _answer_with(status: int) -> Any:
    async def answer(request: Request, error: Exception) -> JSONResponse:
        return JSONResponse({"error": str(error)}, status_code=status)

    return answer
