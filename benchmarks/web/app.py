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
                                                "ownership", "policy", "strength"}],
                                                "allow_spec", "rules", "sizes"}``: the
                                                capabilities are the player's protocols
                                                (``AnalysisAgent``, ...); its strength one
                                                line: its Elo in the league under the root
                                                where it played most, else what it plays
``GET /api/leagues``                            ``{"leagues": [{"id", "games", "players",
                                                "updated"}]}``
``GET /api/leagues/{id}``                       standings, crosstable, Elo history, games
                                                (``leagues.league_view``)
``GET /api/leagues/{id}/games/{n}``             a replay (``leagues.replay``)
``GET /api/leagues/{id}/games/{n}/sgf``         the game's SGF file, to download
``POST /api/leagues/{id}/games/{n}/analysis``   ``{"player": NAME}``: ``{"winrates": [...],
                                                "scores": [...]}``, Black's win rate and lead
                                                (None where the player counts no points) at
                                                each position by an offered player (kept: asked
                                                again, it is not redone)
``POST /api/sgf``                               an SGF record of the person's own (the body,
                                                ``UPLOAD_BYTES`` at most), read by
                                                ``go_env.sgf`` as untrusted data: its replay as
                                                ``leagues.replay_record`` gives it
``POST /api/sgf/analysis``                      ``{"player": NAME, "sgf": TEXT}``: as a league
                                                game's analysis, of that record
``WS /ws/play``                                 one live game per connection (``sessions``)
``WS /ws/watch/{id}``                           ``{"type": "table", ...league view...}`` at once
                                                and each time the league's database changes;
                                                ``{"type": "live", "games": [...]}`` at once
                                                and each time a game in progress changes
                                                (``leagues.live_games``)
==============================================  ===============================================

Errors are ``{"error": message}``: 400 for bad input (an SGF record that cannot be read
says why), 413 for an SGF record past ``UPLOAD_BYTES``, 403 for a path outside the root, a
player not offered or a request ``guard`` refuses, 404 for a league or game that is not there,
429 past a cap; on a WebSocket, ``{"type": "error", "message": ...}``, and the connection goes
on. No message names the served folder's own path.

Only the server's own page may use it (``guard``: its ``Host``, ``Origin`` and
``Sec-Fetch-Site``), and no GET changes anything or builds a player: what a player can show
comes from its factory's class (``capabilities``), not from an instance.

Players are code, so the browser picks only among the players offered (``Offer``): those the
server was started with and the players of the leagues under the root whose specs name, read
as ``make_agent`` reads them (``builtin_name``), a built-in that runs nothing from outside:
neither an external engine (``gtp:`` runs a command) nor a model file (``sb3:``, ``torch:``).
With ``allow_spec`` the browser may give any spec, and a league's players are offered whatever
they are.

Each client (by address) plays ``GAMES_PER_CLIENT`` games at once at most (a game holds its
place until its player has stopped), and ``GAMES`` in all; replay analyses likewise
(``ANALYSES_PER_CLIENT``, ``ANALYSES``).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import threading
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ValidationError
from starlette.exceptions import HTTPException

from go_env.game import BLACK, Game
from go_env.rules import RULES_PRESETS, Rules
from go_env.sgf import SgfError, SgfRecord, read_sgf
from goarena.agents.protocols import AnalysisAgent, OwnershipAgent, PolicyAgent
from goarena.agents.specs import BUILTIN_AGENTS, PATH_SPECS, AgentSpecError, builtin_name, player_factory
from goarena.benchmarks.web import leagues
from goarena.benchmarks.web.guard import Address, Guard
from goarena.benchmarks.web.paths import OutsideRoot
from goarena.benchmarks.web.sessions import Flood, PlaySession, SessionError, decode, estimates_along

STATIC = Path(__file__).parent / "static"
SIZES = [5, 7, 9, 13, 19]
WATCH_SECONDS = 1.0  # how often a watched league's database and games in progress are looked at
GAMES_PER_CLIENT = 4
GAMES = 16
ANALYSES_PER_CLIENT = 2
ANALYSES = 4
UPLOAD_BYTES = 256 * 1024  # the largest SGF record of the person's own read (a long 19x19 game: 10 kB)
# The built-ins a league's own players are offered as, unless --allow-spec: gtp: runs a
# command, sb3: and torch: load a model file.
_LEAGUE_BUILTINS = BUILTIN_AGENTS.keys() - {"gtp"} - PATH_SPECS.keys()
_UNKNOWN = {"analysis": False, "ownership": False, "policy": False}  # a league's plug-in, unimported


class NotOffered(PermissionError):
    """A player the server does not offer (answered 403)."""


class Busy(RuntimeError):
    """A request past a cap (answered 429)."""


class TooLarge(ValueError):
    """An SGF record past ``UPLOAD_BYTES`` (answered 413)."""


_STATUS = (
    (SessionError, 400),
    (SgfError, 400),
    (OutsideRoot, 403),
    (NotOffered, 403),
    (leagues.NotFound, 404),
    (TooLarge, 413),
    (Busy, 429),
)


@functools.lru_cache(maxsize=64)
def capabilities(spec: str) -> dict[str, bool] | None:
    """What the player of ``spec`` can show (its protocols), from its factory's class: nothing
    is built. A factory that is no class shows nothing; None when the spec names no player."""
    try:
        factory = player_factory(spec)
    except (AgentSpecError, ValueError, OSError):
        return None
    if not inspect.isclass(factory):
        return dict(_UNKNOWN)
    return {
        "analysis": issubclass(factory, AnalysisAgent),
        "ownership": issubclass(factory, OwnershipAgent),
        "policy": issubclass(factory, PolicyAgent),
    }


class Offer:
    """The players the browser may choose: the server's (name -> spec), then the players of
    the leagues under ``root`` (see the module documentation), read afresh each time."""

    def __init__(self, root: Path, players: dict[str, str], allow_spec: bool):
        self.root = root
        self.own = dict(players)
        self.allow_spec = allow_spec

    def specs(self) -> dict[str, str]:
        """Name -> spec of every player offered; a league's player named as one offered
        already, for another spec, is ``name (league id)``, and a spec offered once is offered
        under its first name only."""
        offered = dict(self.own)
        for league_id, players in leagues.league_players(self.root):
            for name, spec in players.items():
                safe = self.allow_spec or builtin_name(spec) in _LEAGUE_BUILTINS
                if spec in offered.values() or not safe:
                    continue
                offered[name if name not in offered else f"{name} ({league_id})"] = spec
        return offered

    def describe(self) -> list[dict[str, Any]]:
        found = []
        rated = leagues.ratings(self.root)
        for name, spec in self.specs().items():
            # A league's plug-in (--allow-spec) is imported only once it is played.
            able = capabilities(spec) if name in self.own or builtin_name(spec) else _UNKNOWN
            if able is not None:
                found.append(
                    {"name": name, "spec": spec, **able, "strength": strength(spec, rated.get(spec))}
                )
        return found

    def spec(self, name: str) -> str:
        spec = self.specs().get(name)
        if spec is None:
            raise NotOffered(f"player {name!r} is not offered by this server")
        return spec


def strength(spec: str, rating: dict[str, Any] | None) -> str:
    """One line on how strong the player of ``spec`` is: its rating in a league (``rating``:
    ``leagues.ratings``'), else what the built-in it names plays, with its options."""
    if rating is not None:
        elo = "the anchor" if rating["anchor"] else f"Elo {rating['elo']:.0f}"
        return f"{elo} in league {rating['league']} ({rating['games']} games)"
    name = builtin_name(spec)
    if name is None:
        return "not rated: a plug-in"
    options = spec.partition(":")[2].strip()
    return f"not rated: {BUILTIN_AGENTS[name].summary}" + (f" ({options})" if options else "")


class Quota:
    """Places for work that costs time: ``per_client`` for each client, ``total`` in all."""

    def __init__(self, what: str, per_client: int, total: int):
        self.what, self.per_client, self.total = what, per_client, total
        self.held: Counter[str] = Counter()
        self._lock = threading.Lock()  # taken from threads and from the event loop

    @contextlib.contextmanager
    def place(self, client: str) -> Iterator[None]:
        """Hold a place for ``client`` while the block runs, else ``Busy`` saying why."""
        with self._lock:
            if self.held[client] >= self.per_client:
                raise Busy(f"too many {self.what} at once from your address ({self.per_client}): end one")
            if sum(self.held.values()) >= self.total:
                raise Busy(f"too many {self.what} at once on this server ({self.total}): try again later")
            self.held[client] += 1
        try:
            yield
        finally:
            with self._lock:
                self.held[client] -= 1
                if not self.held[client]:
                    del self.held[client]


class AnalysisAsked(BaseModel):
    player: str


class RecordAnalysisAsked(BaseModel):
    player: str
    sgf: str


def create_app(
    root: Path, players: dict[str, str], allow_spec: bool = False, address: Address | None = None
) -> FastAPI:
    """The web board over the leagues under ``root``, offering ``players`` (name -> spec)
    and, with ``allow_spec``, any spec the browser gives; it answers requests for ``address``
    only (by default ``goarena serve``'s, 127.0.0.1:8000)."""
    root = Path(root).resolve()
    offer = Offer(root, players, allow_spec)
    games = Quota("games", GAMES_PER_CLIENT, GAMES)
    analyses = Quota("analyses", ANALYSES_PER_CLIENT, ANALYSES)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Threads enough for every game the caps allow (a move, a build, a count each), so
        # that games never keep the pages waiting for a thread.
        threads = ThreadPoolExecutor(3 * GAMES + 8, thread_name_prefix="web")
        asyncio.get_running_loop().set_default_executor(threads)
        try:
            yield
        finally:
            threads.shutdown(wait=False, cancel_futures=True)

    app = FastAPI(title="goarena", docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan)
    app.add_middleware(Guard, address=address or Address())
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

    @app.post("/api/leagues/{league_id:path}/games/{game_id}/analysis")
    def game_analysis(league_id: str, game_id: str, asked: AnalysisAsked, request: Request) -> dict[str, Any]:
        spec = offer.spec(asked.player)
        _, record, _ = leagues.load_game(root, league_id, game_id)  # 404 before any work
        with analyses.place(_client(request)):
            return _estimates(leagues.start_of(record), record.moves, spec)

    @app.get("/api/leagues/{league_id:path}/games/{game_id}/sgf")
    def game_sgf(league_id: str, game_id: str) -> Response:
        stored, _, text = leagues.load_game(root, league_id, game_id)
        safe = "".join(c if c.isascii() and (c.isalnum() or c in "._-") else "-" for c in league_id)
        name = f"{safe.strip('.-') or 'league'}-game-{stored.id}.sgf"  # no quote or line break in the header
        disposition = f'attachment; filename="{name}"'
        return Response(text, media_type="application/x-go-sgf", headers={"content-disposition": disposition})

    @app.post("/api/sgf")
    async def open_sgf(request: Request) -> dict[str, Any]:
        text = await _upload(request)
        record = await asyncio.to_thread(read_record, text)
        return await asyncio.to_thread(leagues.replay_record, record, text)

    @app.post("/api/sgf/analysis")
    async def record_analysis(request: Request) -> dict[str, Any]:
        body = await _body(request, 2 * UPLOAD_BYTES)  # JSON escapes a record's text
        try:
            asked = RecordAnalysisAsked.model_validate_json(body)
        except ValidationError as error:
            wanted = '{"player": NAME, "sgf": TEXT}'
            raise SessionError(f"bad request: give {wanted} ({error.error_count()} errors)") from None
        spec = await asyncio.to_thread(offer.spec, asked.player)
        record = await asyncio.to_thread(read_record, asked.sgf)
        with analyses.place(_client(request)):
            return await asyncio.to_thread(_estimates, leagues.start_of(record), record.moves, spec)

    @app.get("/api/leagues/{league_id:path}/games/{game_id}")
    def game_replay(league_id: str, game_id: str) -> dict[str, Any]:
        return leagues.replay(root, league_id, game_id)

    @app.get("/api/leagues/{league_id:path}")
    def league(league_id: str) -> dict[str, Any]:
        return leagues.league_view(root, league_id)

    @app.websocket("/ws/play")
    async def play(websocket: WebSocket) -> None:
        await websocket.accept()
        try:
            with games.place(_client(websocket)):
                await _play(websocket, offer)
        except Busy as error:
            with contextlib.suppress(WebSocketDisconnect, RuntimeError):
                await websocket.send_json({"type": "error", "message": str(error)})
                await websocket.close()

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


async def _play(websocket: WebSocket, offer: Offer) -> None:
    """One live game per connection, until the browser leaves; then its player is stopped
    (or its process killed) before this returns."""
    outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    session = PlaySession(offer.specs, offer.allow_spec, outbox.put_nowait)
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


def read_record(text: str) -> SgfRecord:
    """A person's own SGF record, read by ``go_env.sgf`` (``SgfError`` saying what is wrong,
    ``TooLarge`` past ``UPLOAD_BYTES``)."""
    if len(text.encode("utf-8", errors="replace")) > UPLOAD_BYTES:
        raise TooLarge(f"the SGF record is larger than {UPLOAD_BYTES // 1024} kB")
    return read_sgf(text, max_bytes=UPLOAD_BYTES)


async def _body(request: Request, limit: int) -> bytes:
    """A request's body, read no further than ``limit`` bytes (past it, ``TooLarge``)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise TooLarge(f"the SGF record is larger than {UPLOAD_BYTES // 1024} kB")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise TooLarge(f"the SGF record is larger than {UPLOAD_BYTES // 1024} kB")
    return bytes(body)


async def _upload(request: Request) -> str:
    """The body of an SGF upload as text, read no further than ``UPLOAD_BYTES``."""
    body = await _body(request, UPLOAD_BYTES)
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return body.decode("latin-1")  # SGF's own default character set


def _client(connection: Request | WebSocket) -> str:
    """Who asks: the client's address (a quota's key)."""
    return connection.client.host if connection.client is not None else ""


def _estimates(start: Game, moves: tuple[int, ...], spec: str) -> dict[str, list[float | None]]:
    """``{"winrates", "scores"}``: Black's win rate and lead along a game by the player of
    ``spec`` (kept: it is slow)."""
    found = _estimates_kept(
        start.size,
        start.rules,
        tuple(start.setup_black),
        tuple(start.setup_white),
        start.first_to_play,
        start.handicap,
        moves,
        spec,
    )
    return {"winrates": [w for w, _ in found], "scores": [s for _, s in found]}


@functools.lru_cache(maxsize=256)
def _estimates_kept(
    size: int,
    rules: Rules,
    black: tuple[int, ...],
    white: tuple[int, ...],
    first: int,
    handicap: int,
    moves: tuple[int, ...],
    spec: str,
) -> list[tuple[float | None, float | None]]:
    start = Game(size, rules)
    if black or white or first != BLACK:
        start.setup(list(black), list(white), first)
    start.handicap = handicap
    found = estimates_along(start, moves, spec)
    rounded = [(None if w is None else round(w, 4), None if s is None else round(s, 2)) for w, s in found]
    return rounded


async def _write(websocket: WebSocket, outbox: asyncio.Queue[dict[str, Any]]) -> None:
    """Send the session's messages in order, from one task (a WebSocket has one writer)."""
    with contextlib.suppress(WebSocketDisconnect, RuntimeError):
        while True:
            await websocket.send_json(await outbox.get())


def _answer_with(status: int) -> Any:
    async def answer(request: Request, error: Exception) -> JSONResponse:
        return JSONResponse({"error": str(error)}, status_code=status)

    return answer
