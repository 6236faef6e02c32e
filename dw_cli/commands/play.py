"""``dw play``: the browser game. A local server (play/server.py) that the browser opens; docs/PLAY.md."""

from __future__ import annotations

import argparse
import math
import threading
import webbrowser
from pathlib import Path
from typing import Any

from dw_cli.commands.arguments import seconds_limit


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("play", help="play in the browser: a local game server with AI seats and invite links")
    p.add_argument("--port", type=int, default=8000, help="TCP port (default 8000; 0 picks a free one)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this computer only)")
    p.add_argument(
        "--strategies",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="a folder of checkpoints (.pt) and strategy packages to offer as AI seats (repeatable)",
    )
    p.add_argument("--records", type=Path, default=None, metavar="DIR", help="where finished games are saved")
    p.add_argument(
        "--db", type=Path, default=None, metavar="PATH", help="the room database (default: the user's data folder)"
    )
    p.add_argument(
        "--replays", type=Path, action="append", default=[], metavar="DIR", help="more game records to replay"
    )
    p.add_argument("--idle-expiry", type=float, default=1800.0, metavar="SECONDS", help="drop unwatched rooms after")
    p.add_argument("--max-rooms", type=int, default=200, help="rooms held at once (default 200)")
    p.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name the server answers to besides loopback and its address (repeatable; e.g. a public name)",
    )
    p.add_argument(
        "--ai-time-limit",
        type=seconds_limit("the AI time limit"),
        default=5.0,
        metavar="SECONDS",
        help="the most seconds one AI decision may take (0 < S <= 600, default 5); an AI that overruns or fails "
        "plays the game's fallback action and the room is told",
    )
    p.add_argument("--no-browser", action="store_true", help="do not open the browser")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port must be in 0..65535, got {args.port}")
    check_arguments(args)

    import uvicorn

    from play.records import default_records_dir
    from play.server import WS_MAX_SIZE, ServerConfig, create_app
    from play.storage import StorageError, default_db_path
    from policies import bounded

    bounded.set_time_limit(args.ai_time_limit)  # every room's AI decisions (play/ai_seat.py)
    records = args.records or default_records_dir()
    config = ServerConfig(
        strategies=list(args.strategies),
        records=records,
        replays=list(args.replays),
        max_rooms=args.max_rooms,
        idle_expiry=args.idle_expiry,
        allow_hosts=list(args.allow_host),
        db=args.db or default_db_path(),
    )
    try:
        app = create_app(config)
    except StorageError as exc:  # a --db that is no room database, or a newer one: one line, nothing changed
        raise ValueError(str(exc)) from None
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            host=args.host,
            port=args.port,
            ws_max_size=WS_MAX_SIZE,
            ws_per_message_deflate=False,  # local play: compressing every state costs more than it saves
            log_level="warning",
        )
    )

    def announce() -> None:
        while not server.started:
            if server.should_exit:
                return
            threading.Event().wait(0.05)
        port = server.servers[0].sockets[0].getsockname()[1] if server.servers else args.port
        url = f"http://{'127.0.0.1' if args.host in ('0.0.0.0', '') else args.host}:{port}/"
        print(f"dw play: serving {url} (records in {records}, rooms in {config.db}); Ctrl+C stops", flush=True)
        if not args.no_browser:
            webbrowser.open(url)

    if not is_loopback_bind(args.host):
        print(tls_hint(args.host), flush=True)
    threading.Thread(target=announce, daemon=True).start()
    server.run()
    return 0


def check_arguments(args: argparse.Namespace) -> None:
    """Return if ``dw play``'s arguments are usable; ValueError / FileNotFoundError naming the first that is not."""
    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port must be in 0..65535, got {args.port}")
    if not math.isfinite(args.idle_expiry) or args.idle_expiry <= 0:
        raise ValueError(f"--idle-expiry must be a positive finite number of seconds, got {args.idle_expiry}")
    if args.max_rooms < 1:
        raise ValueError(f"--max-rooms must be at least 1, got {args.max_rooms}")
    for folder in [*args.strategies, *args.replays]:
        if not folder.is_dir():
            raise FileNotFoundError(f"no such folder: {folder}")
    if args.records is not None and args.records.exists() and not args.records.is_dir():
        raise ValueError(f"--records must be a folder (games are saved in it), got the file {args.records}")
    for name in args.allow_host:
        if not name or len(name) > 253 or any(c in name for c in "/ @?#") or not name.isascii():
            raise ValueError(f"--allow-host takes a host name such as play.example.org, got {name!r}")


def is_loopback_bind(host: str) -> bool:
    """Return True if listening on ``host`` serves this computer only."""
    from play.hosts import host_name, is_loopback

    return is_loopback(host_name(host))


def tls_hint(host: str) -> str:
    """Return the warning printed when the server listens beyond this computer."""
    return (
        f"dw play: listening on {host}: other computers can reach this server over plain HTTP. To serve it "
        "publicly, put it behind a TLS reverse proxy (Caddy, nginx) that forwards to 127.0.0.1, and start "
        "dw play with --allow-host NAME for each public name it is reached by (other Host names get 403 bad_host)."
    )
