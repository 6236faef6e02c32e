"""Take the Frontera browser game's screenshots for docs/FRONTERA.md ("Browser game") and the README.

Runs the play server in-process, plays seat 1 of a 3-player small-map game against two scripted AIs through
the page (Debian's Chromium via Playwright) and saves docs/images/frontera-{deployment,attack,adjust,regroup,
cards,fog}.png. Every territory it clicks is picked from the server's own game, every wait is bounded.

    PYTHONPATH=. python tools/frontera_screenshots.py [--out docs/images] [--show]
"""

from __future__ import annotations

import argparse
import contextlib
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
WAIT_S = 90.0


def wait_until(condition: Callable[[], Any], what: str) -> Any:
    """Return ``condition()``'s first truthy value; RuntimeError naming ``what`` after WAIT_S seconds."""
    deadline = time.monotonic() + WAIT_S
    while not (value := condition()):
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not happen within {WAIT_S:g} s")
        time.sleep(0.05)
    return value


@contextlib.contextmanager
def serve(records: Path) -> Iterator[tuple[str, Any]]:
    """Serve the play app on a free local port; yield its URL and the room manager."""
    import uvicorn

    from play.server import ServerConfig, create_app

    app = create_app(ServerConfig(records=records, ai_workers=2))
    with contextlib.closing(socket.socket()) as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    wait_until(lambda: server.started, "the server's start")
    try:
        yield f"http://127.0.0.1:{port}", app.state.manager
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def make_room(url: str, fog: bool, seed: int) -> dict[str, Any]:
    import httpx

    seats = [
        {"type": "human", "name": "Ana"},
        {"type": "ai", "strategy": "expansionist"},
        {"type": "ai", "strategy": "continental"},
    ]
    body = {
        "game": "frontera",
        "options": {"map": "small", "players": 3, "fog": fog},
        "seats": seats,
        "ai_speed": "fast",
        "seed": seed,
    }
    r = httpx.post(url + "/api/rooms", json=body, timeout=60)
    r.raise_for_status()
    data: dict[str, Any] = r.json()
    return data


def territory(page: Any, t: int) -> Any:
    return page.locator(f'[data-testid=territory][data-t="{t}"] polygon[data-capital]')


def shoot(page: Any, out: Path, name: str, panel: str | None = None) -> None:
    """Save the page as a small palette PNG, with ``panel`` (a test id) scrolled into the side column's view."""
    from PIL import Image

    if panel:
        page.get_by_test_id(panel).scroll_into_view_if_needed()
    page.wait_for_timeout(250)  # let the last redraw paint (a picture, not a test: nothing is asserted)
    path = out / f"frontera-{name}.png"
    page.screenshot(path=str(path))
    Image.open(path).convert("RGB").quantize(colors=96).save(path, optimize=True)


def play(url: str, manager: Any, page: Any, out: Path) -> None:
    room = make_room(url, fog=False, seed=21)
    game = manager.rooms[room["room"]].session.game
    page.goto(url + room["seats"][0]["link"])
    page.wait_for_selector("[data-testid=frontera-board]")
    mine = [t for t, o in enumerate(game.state.owner) if o == 0]
    front = [t for t in mine if any(game.state.owner[u] != 0 for u in game.ctx.neighbours[t])]
    for t in front[:3]:
        territory(page, t).click()
    shoot(page, out, "deployment", "fr-phase")
    territory(page, front[0]).click(modifiers=["Shift"])
    page.get_by_test_id("fr-ready").click()
    wait_until(lambda: game.phase != "setup" and game.current == 0, "seat 1's first turn")
    page.wait_for_selector("[data-phase=reinforce]")
    st = game.state
    source = max(front, key=lambda t: int(st.armies[t]))
    territory(page, source).click(modifiers=["Shift"])
    wait_until(lambda: game.state.pool == 0, "the deployment of the reinforcements")
    page.wait_for_function("document.querySelector('[data-testid=fr-pool]') === null")
    for _ in range(40):
        st = game.state
        if game.phase == "window" or st.armies[source] < 2:
            break
        targets = [u for u in game.ctx.neighbours[source] if st.owner[u] != 0]
        if not targets:
            break
        ply = manager.rooms[room["room"]].session.ply
        territory(page, source).click()
        territory(page, min(targets, key=lambda u: int(st.armies[u]))).click()
        wait_until(lambda ply=ply: manager.rooms[room["room"]].session.ply > ply, "an attack")
        page.wait_for_selector("[data-testid=fr-dice]:not([hidden])")
        if not (out / "frontera-attack.png").exists():
            shoot(page, out, "attack", "fr-dice")
    if game.phase == "window":
        page.wait_for_selector("[data-testid=fr-window]:not([hidden])")
        shoot(page, out, "adjust", "fr-window")
        page.get_by_test_id("fr-occupy").click()
        wait_until(lambda: game.phase != "window", "the occupation")
    page.get_by_test_id("fr-end-attack").click()
    wait_until(lambda: game.phase == "regroup", "the regroup phase")
    st = game.state
    big = max((t for t in range(game.ctx.n) if st.owner[t] == 0), key=lambda t: int(st.armies[t]))
    page.wait_for_selector("[data-phase=regroup]")
    territory(page, big).click()
    lit = page.eval_on_selector_all(".fr-territory.lit", "gs => gs.map(g => Number(g.dataset.t))")
    if lit:  # the destination too: the move panel asks how many go
        territory(page, lit[0]).click()
        page.wait_for_selector("[data-testid=fr-move-panel]")
    shoot(page, out, "regroup", "fr-phase")
    page.get_by_test_id("fr-end-turn").click()
    wait_until(lambda: game.over or (game.current == 0 and game.phase == "reinforce"), "seat 1's next turn")
    page.wait_for_selector("[data-testid=fr-card]")
    shoot(page, out, "cards", "fr-cards")


def fog(url: str, page: Any, out: Path) -> None:
    room = make_room(url, fog=True, seed=5)
    page.goto(url + room["seats"][0]["link"])
    page.wait_for_selector("[data-testid=frontera-board]")
    shoot(page, out, "fog", "fr-phase")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/images"))
    parser.add_argument("--show", action="store_true", help="run the browser with a window")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    args.out.mkdir(parents=True, exist_ok=True)
    for old in args.out.glob("frontera-*.png"):
        old.unlink()
    with tempfile.TemporaryDirectory() as tmp, serve(Path(tmp)) as (url, manager), sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"], headless=not args.show)
        page = browser.new_page(viewport={"width": 1100, "height": 720})
        page.set_default_timeout(WAIT_S * 1000)
        page.on("pageerror", lambda exc: print(f"page error: {exc}"))
        play(url, manager, page, args.out)
        fog(url, page, args.out)
        browser.close()
    for path in sorted(args.out.glob("frontera-*.png")):
        print(f"{path} {path.stat().st_size // 1024} KB")


if __name__ == "__main__":
    main()
