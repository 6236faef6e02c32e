"""The play server's ASGI app: the page and its assets, the JSON API and the websocket (docs/PLAY.md).

:func:`create_app` builds a Starlette app around one :class:`play.rooms.RoomManager`; ``dw play``
serves it with uvicorn. Every refusal is a JSON error naming what was wrong; assets are served only
from inside ``play/static`` (no traversal, no symlink leaving the folder).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import importlib
import json
import logging
import mimetypes
import threading
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from starlette.applications import Starlette
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from gamecore.errors import brief
from play import games, levels, protocol
from play.games import JSON, InputError
from play.hosts import HostCheck
from play.limits import ClientLimits, Clock, LimitSettings
from play.my_games import MyGames, parse_request
from play.records import RecordStore, default_records_dir
from play.room import Connection
from play.rooms import DEFAULT_IDLE_EXPIRY, DEFAULT_MAX_ROOMS, NAME_LENGTH, RoomManager
from play.storage import MemoryRoomStore, SqliteRoomStore
from play.strategies import Catalogue

log = logging.getLogger("play.server")
STATIC_DIR = Path(__file__).resolve().parent / "static"
#: the largest HTTP request body accepted (bytes)
MAX_BODY_BYTES = 16 * 1024
#: the largest websocket frame the transport accepts at all; protocol.MAX_MESSAGE_BYTES is the app's limit
WS_MAX_SIZE = 64 * 1024
_STATUS = {
    "not_found": 404,
    "no_such_room": 404,
    "method_not_allowed": 405,
    "too_large": 413,
    "room_full": 503,
    "bad_token": 403,
    "bad_origin": 403,
    "bad_host": 403,
    "rate_limited": 429,
    "game_over": 409,
}
_PLACEHOLDER = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Domain Wheel</title></head>
<body><h1>Domain Wheel</h1><p>The page (play/static/index.html) is not installed; the API is at /api/menu.</p>
</body></html>"""

mimetypes.add_type("text/javascript", ".js")
mimetypes.add_type("text/javascript", ".mjs")
mimetypes.add_type("text/css", ".css")
mimetypes.add_type("application/json", ".json")
mimetypes.add_type("image/svg+xml", ".svg")


@dataclass
class ServerConfig:
    """What ``dw play`` passes to the app."""

    strategies: list[Path] = field(default_factory=list)
    records: Path | None = None
    replays: list[Path] = field(default_factory=list)
    max_rooms: int = DEFAULT_MAX_ROOMS
    idle_expiry: float = DEFAULT_IDLE_EXPIRY
    static_dir: Path = STATIC_DIR
    ai_workers: int = 4
    #: Host names served besides loopback and the bound address (``dw play --allow-host``)
    allow_hosts: list[str] = field(default_factory=list)
    limits: LimitSettings = field(default_factory=LimitSettings)
    #: the limits' clock (tests inject their own instead of sleeping)
    clock: Clock = time.monotonic
    #: the room database (play/storage.py); None keeps rooms in memory only
    db: Path | None = None
    #: the turn clocks' wall clock (seconds since the epoch; tests inject their own)
    now: Clock = time.time


def error_response(exc: InputError, status: int | None = None) -> JSONResponse:
    """Return the JSON error response of a refusal (its status from the code's table, 400 unless listed)."""
    return JSONResponse({"error": exc.to_json()}, status_code=status or _STATUS.get(exc.code, 400))


async def read_json(request: Request) -> Any:
    """Return the request's JSON body (at most MAX_BODY_BYTES); InputError otherwise."""
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY_BYTES):
        raise InputError("too_large", f"request body of {length} bytes exceeds the limit of {MAX_BODY_BYTES}")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY_BYTES:
            raise InputError("too_large", f"request body exceeds the limit of {MAX_BODY_BYTES} bytes")
        chunks.append(chunk)
    return protocol.decode_json(b"".join(chunks) or b"null", MAX_BODY_BYTES, "the body")


def static_path(root: Path, relative: str) -> Path:
    """Return the file under ``root`` that ``relative`` names; InputError ``not_found`` for anything else."""
    base = root.resolve()
    parts = relative.split("/")
    if not relative or any(p in ("", ".", "..") or "\\" in p or "\x00" in p or p.startswith(".") for p in parts):
        raise InputError("not_found", f"no asset {protocol.brief(relative)}")
    try:
        real = base.joinpath(*parts).resolve(strict=True)
    except (OSError, RuntimeError):
        raise InputError("not_found", f"no asset {protocol.brief(relative)}") from None
    if not real.is_relative_to(base) or not real.is_file():
        raise InputError("not_found", f"no asset {protocol.brief(relative)}")
    return real


def same_origin(headers: Any) -> bool:
    """Return False for a browser request sent by a page of another site (its Origin names another host).

    Requests without an Origin (scripts, the bench, curl) pass; browsers always send one on websockets and
    POSTs, so another site open in the player's browser cannot create rooms or join this server's sockets.
    """
    origin = headers.get("origin")
    if origin is None:
        return True
    return bool(urlsplit(origin).netloc) and urlsplit(origin).netloc == headers.get("host")


def create_app(config: ServerConfig | None = None) -> Starlette:
    """Return the ASGI app (rooms live in ``app.state.manager``)."""
    cfg = config or ServerConfig()
    catalogue = Catalogue(cfg.strategies)
    store = RecordStore(cfg.records or default_records_dir(), cfg.replays)
    rooms_db = MemoryRoomStore() if cfg.db is None else SqliteRoomStore(cfg.db)
    manager = RoomManager(
        catalogue,
        store,
        max_rooms=cfg.max_rooms,
        idle_expiry=cfg.idle_expiry,
        ai_workers=cfg.ai_workers,
        store=rooms_db,
        now=cfg.now,
    )
    limits = ClientLimits(cfg.limits, cfg.clock)
    my_games = MyGames(manager)
    store_lock = threading.Lock()  # the store's caches and a replay cursor serve one worker thread at a time

    async def off_loop(work: Any, *args: Any) -> Any:
        """Return ``work(*args)`` run in a worker thread: a long record never stalls every room's event loop."""

        def locked() -> Any:
            with store_lock:
                return work(*args)

        return await asyncio.to_thread(locked)

    def api(handler: Any) -> Any:
        @functools.wraps(handler)
        async def wrapped(request: Request) -> Response:
            try:
                result = await handler(request)
            except InputError as exc:
                return error_response(exc)
            except Exception:  # a server bug: a JSON error, logged, and the server keeps serving
                log.exception("internal error on %s %s", request.method, request.url.path)
                return error_response(InputError("internal", "the server failed on this request"), 500)
            return result if isinstance(result, Response) else JSONResponse(result)

        return wrapped

    async def index(request: Request) -> Response:
        page = cfg.static_dir / "index.html"
        if page.is_file():
            return FileResponse(page, media_type="text/html", headers={"Cache-Control": "no-cache"})
        return HTMLResponse(_PLACEHOLDER)

    @api
    async def static(request: Request) -> Response:
        path = static_path(cfg.static_dir, request.path_params["path"])
        media = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        return FileResponse(path, media_type=media, headers={"Cache-Control": "no-cache"})

    @api
    async def menu(request: Request) -> JSON:
        return {
            "games": [
                {
                    **a.menu(),
                    "levels": levels.levels_json(a.game_id),
                    "advanced": levels.advanced_json(catalogue.entries(a.game_id)),
                }
                for a in games.available()
            ],
            "strategies": [s.to_json() for s in catalogue.entries()],
            "strategies_by_game": {
                a.game_id: [s.to_json() for s in catalogue.entries(a.game_id)] for a in games.available()
            },
            "ai_speeds": protocol.AI_SPEEDS,
            "default_names": [s["display_name"] for s in games.get(games.DEFAULT_GAME).menu()["seats"]],
            "limits": {
                "max_rooms": manager.max_rooms,
                "rooms": len(manager.rooms),
                "name_length": NAME_LENGTH,
                "message_bytes": protocol.MAX_MESSAGE_BYTES,
                "idle_expiry_s": manager.idle_expiry,
            },
        }

    @api
    async def strategies(request: Request) -> JSON:
        game = games.get(request.query_params.get("game", games.DEFAULT_GAME))  # InputError naming the games
        return {"strategies": [s.to_json() for s in catalogue.entries(game.game_id)]}

    @api
    async def layout(request: Request) -> JSON:
        query = dict(request.query_params)
        adapter = games.get(query.pop("game", games.DEFAULT_GAME))
        options: JSON = {}
        for key, value in query.items():
            low = value.lower()
            options[key] = low == "true" if low in ("true", "false") else int(value) if _is_int(value) else value
        return adapter.layout(adapter.parse_options(options))

    @api
    async def rooms(request: Request) -> Response | JSON:
        if request.method == "POST":
            if not same_origin(request.headers):
                raise InputError("bad_origin", f"requests from {brief(request.headers.get('origin'))} are not accepted")
            client = peer(request)
            limits.check_room(client, manager.rooms)
            body = await read_json(request)
            created = await manager.create(body, games.get)
            limits.created(client, created["room"])
            return JSONResponse(created, status_code=201)
        return {"rooms": [r.summary() for r in manager.rooms.values()]}

    @api
    async def room(request: Request) -> JSON:
        found = manager.rooms.get(request.path_params["room"])
        if found is None:
            raise InputError("no_such_room", f"no room {protocol.brief(request.path_params['room'])}")
        return found.summary()

    @api
    async def my_games_route(request: Request) -> JSON:
        if not same_origin(request.headers):
            raise InputError("bad_origin", f"requests from {brief(request.headers.get('origin'))} are not accepted")
        limits.check_lookup(peer(request))
        return await my_games.answer(parse_request(await read_json(request)))

    @api
    async def tutorial(request: Request) -> JSON:
        data = games.get(request.query_params.get("game", games.DEFAULT_GAME)).tutorial()
        return {**data, "steps": [_light_step(s) for s in data["steps"]]}

    @api
    async def tutorial_step(request: Request) -> JSON:
        sid = request.path_params["step"]
        steps = games.get(request.query_params.get("game", games.DEFAULT_GAME)).tutorial()["steps"]
        for step in steps:
            if step["id"] == sid:
                found: JSON = step
                return found
        ids = [s["id"] for s in steps]
        raise InputError("not_found", f"no tutorial step {protocol.brief(sid)}", allowed=ids)

    @api
    async def records(request: Request) -> JSON:
        listing: JSON = await off_loop(store.listing)
        return listing

    @api
    async def record(request: Request) -> JSON:
        rid = request.path_params["rid"]
        if "/ply/" in rid:
            rid, _, ply_text = rid.rpartition("/ply/")
            if not _is_int(ply_text):
                raise InputError("bad_ply", f"ply must be an integer, got {protocol.brief(ply_text)}")
            view: JSON = await off_loop(_replay_view, store, rid, int(ply_text))
            return view
        summary: JSON = await off_loop(_record_summary, store, rid)
        return summary

    async def websocket(ws: WebSocket) -> None:
        await ws.accept()
        if not same_origin(ws.headers):
            refusal = f"connections from pages of {brief(ws.headers.get('origin'))} are not accepted"
            await ws.send_text(json.dumps(protocol.error(InputError("bad_origin", refusal))))
            await ws.close(4403)
            return

        async def close(code: int) -> None:
            await ws.close(code)

        conn = Connection(ws.send_text, close)
        client = conn.client = peer(ws)
        try:
            while not conn.closed:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                if text is None:
                    await conn.send(
                        protocol.error(InputError("bad_json", "binary frames are not accepted; send JSON text"))
                    )
                    continue
                try:
                    limits.check_message(client)
                except InputError as exc:  # refused unread: a flood costs its sender, not the rooms
                    await conn.send(protocol.error(exc))
                    continue
                await manager.handle_text(conn, text)
        except WebSocketDisconnect:
            pass
        finally:
            await manager.leave(conn)
            await conn.finish()

    async def not_found(request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status_code", 404)
        code = "method_not_allowed" if status == 405 else "not_found"
        return error_response(InputError(code, f"{request.method} {request.url.path}: no such route"), status)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        manager.start(games.available())  # the engines' kernels, on the AI workers
        # the seat loaders too, beside them: the first network seat would otherwise wait seconds for torch's import
        app.state.warm_up = asyncio.get_running_loop().run_in_executor(None, warm_seat_loaders, catalogue)
        yield
        await manager.shutdown()

    routes = [
        Route("/", index),
        Route("/static/{path:path}", static),
        Route("/api/menu", menu),
        Route("/api/strategies", strategies),
        Route("/api/layout", layout),
        Route("/api/rooms", rooms, methods=["GET", "POST"]),
        Route("/api/rooms/{room}", room),
        Route("/api/my-games", my_games_route, methods=["POST"]),
        Route("/api/tutorial", tutorial),
        Route("/api/tutorial/{step}", tutorial_step),
        Route("/api/records", records),
        Route("/api/records/{rid:path}", record),
        WebSocketRoute("/ws", websocket),
    ]
    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers={HTTPException: not_found})
    app.state.manager = manager
    app.state.config = cfg
    app.state.limits = limits
    app.add_middleware(HostGuard, check=HostCheck(cfg.allow_hosts))
    return app


#: the seat kinds whose loaders import heavy modules (torch, onnxruntime) on first use
LOADED_KINDS = frozenset({"checkpoint", "package", "search"})


def warm_seat_loaders(catalogue: Catalogue) -> list[str]:
    """Import the modules that load the catalogue's network, package and search seats; return their names.

    Called in the background at start, before any room asks for such a seat (torch alone takes 1-5 s to import);
    a catalogue of scripted seats only imports nothing. A loader that cannot be imported is logged and skipped:
    its seat reports the error when someone picks it.
    """
    from policies import files

    kinds = {s.kind for game in games.available() for s in catalogue.entries(game.game_id)}
    if not kinds & LOADED_KINDS:
        return []
    targets = [*files.LOADERS.values(), files.PACKAGE_LOADER, *(load for _, load in files.PREFIXED.values())]
    warmed = []
    for module in dict.fromkeys(target.partition(":")[0] for target in targets):
        try:
            importlib.import_module(module)
        except Exception as exc:  # noqa: BLE001 - a missing optional dependency must not stop the server
            log.warning("could not warm up the seat loader %s: %s", module, brief(exc))
            continue
        warmed.append(module)
    return warmed


class HostGuard:
    """ASGI middleware: every HTTP request and websocket handshake whose Host is not allowed gets 403 ``bad_host``."""

    def __init__(self, app: Any, check: HostCheck) -> None:
        self.app = app
        self.check = check

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        try:
            self.check.check(scope, headers)
        except InputError as exc:
            log.warning("refused a request for host %s", brief(headers.get("host")))
            if scope["type"] == "http":
                await error_response(exc)(scope, receive, send)
                return
            await _refuse_handshake(WebSocket(scope, receive, send), exc)
            return
        await self.app(scope, receive, send)


async def _refuse_handshake(ws: WebSocket, exc: InputError) -> None:
    """Refuse a websocket handshake: a 403 JSON answer where the server can send one, else an error and 4403."""
    if "websocket.http.response" in ws.scope.get("extensions", {}):
        await ws.send_denial_response(error_response(exc))
        return
    await ws.accept()
    await ws.send_text(json.dumps(protocol.error(exc)))
    await ws.close(4403)


def peer(connection: Request | WebSocket) -> str:
    """Return the client's address, the key of its limits."""
    return connection.client.host if connection.client else "unknown"


def _replay_view(store: RecordStore, rid: str, ply: int) -> JSON:
    adapter, _, cursor = store.open(rid)
    view: JSON = adapter.replay_view(cursor, ply)
    return view


def _record_summary(store: RecordStore, rid: str) -> JSON:
    adapter, summary, _ = store.open(rid)
    summary["layout"] = adapter.layout(adapter.parse_options(summary.get("options") or {}))
    return summary


def _is_int(text: str) -> bool:
    return text.lstrip("-").isdigit() and len(text) < 12


def _light_step(step: JSON) -> JSON:
    """Return a tutorial step without the per-action views (GET /api/tutorial/{id} has them)."""
    actions = [{k: v for k, v in a.items() if k not in ("view", "log")} for a in step["actions"]]
    return {**step, "actions": actions}
