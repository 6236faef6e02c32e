"""Fixtures for the browser tests: the play server in-process (uvicorn in a thread on 127.0.0.1, a free port)
and a headless Debian Chromium driven by Playwright for Python. Every wait is bounded.

The browser tests are skipped, with the reason, only when /usr/bin/chromium is missing (CI installs it).
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(), reason=f"the browser tests need Debian's chromium at {CHROMIUM} (apt-get install chromium)"
)
#: default Playwright timeout for one wait or action (ms); generous: CI machines and shared cores can be slow
TIMEOUT_MS = 40_000


#: the overall deadline of a condition wait (s): a safety net on a loaded machine, never what a test asserts
WAIT_S = 60.0


def wait_until(condition: Callable[[], Any], what: str, timeout: float = WAIT_S) -> Any:
    """Return ``condition()``'s first truthy value, polling it; AssertionError naming ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        assert time.monotonic() < deadline, f"{what} did not happen within {timeout:g} s"
        time.sleep(0.02)
    return value


def free_port() -> int:
    with contextlib.closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LiveServer:
    """The play app served by uvicorn in a daemon thread; ``app.state.manager.rooms`` holds the live rooms."""

    def __init__(
        self, records: Path, replays: list[Path] | None = None, db: Path | None = None, port: int | None = None
    ) -> None:
        import uvicorn

        from play.server import ServerConfig, create_app

        self.app = create_app(ServerConfig(records=records, replays=replays or [], ai_workers=2, db=db))
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning", ws="auto")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name="play-server", daemon=True)

    def start(self) -> LiveServer:
        self.thread.start()
        wait_until(lambda: self.server.started or not self.thread.is_alive(), "the play server's start")
        if not self.server.started:
            raise RuntimeError("the play server's thread ended before it served")
        return self

    def warm_up(self) -> LiveServer:
        """Compile the engine's kernels and build the tutorial once, so no page waits on a first-time cost."""
        import httpx

        from dw_env.engine import Game
        from play.games.domain_wheel_view import Viewer

        for options in ({"land_radius": 1, "map_radius": 2}, {}):
            game = Game.new(**options)
            game.destinations(game.movable_pieces()[0])
            Viewer(game.geometry).view(game)
        for path in ("/api/menu", "/api/tutorial", "/static/index.html"):
            httpx.get(self.url + path, timeout=120).raise_for_status()
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)

    @property
    def rooms(self) -> dict[str, Any]:
        return self.app.state.manager.rooms

    def game(self, room_id: str) -> Any:
        """Return the engine Game of a room (dw_env.engine.Game)."""
        return self.rooms[room_id].session.game


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = LiveServer(tmp_path_factory.mktemp("records")).start().warm_up()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"], headless=True)
        yield b
        b.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(TIMEOUT_MS)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    # shown by pytest when a test fails: what the page said
    pg.on("console", lambda msg: print(f"[browser {msg.type}] {msg.text}"))
    yield pg
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
