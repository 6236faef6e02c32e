"""Frontera's map on a phone and a desktop in Chromium (play/static/js/board/frontera_camera.js, board/frontera.js).

On the large map (80 territories) at 390×844 and 844×390 with touch: no side scroll, the panels never overlap the
map, the army counts stay readable, the zoom reaches a size where every territory is a 32 px tap target, and a pan at
that zoom reaches each edge of the map (so every territory can be brought on screen). With touch: a tap on a
territory too small to tap zooms in on it instead of playing; a pinch zooms; a tap then places on the territory under
the finger (checked on the server's game); a drag pans and places nothing. On a desktop: the wheel zooms about the
pointer, a click still plays, a double click on the water zooms in, the keys pan and the fit button shows it all.

Every wait is a condition with a generous safety net; gestures are Chromium's own touch events (CDP), sent while
the page's clock stands still where a slow one could otherwise last as long as a long press.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests import board_play_helpers as board
from tests.play_fixtures import TIMEOUT_MS, LiveServer, needs_chromium, wait_until

pytestmark = needs_chromium
pytest_plugins = ["tests.play_fixtures"]

PHONES = {"portrait": {"width": 390, "height": 844}, "landscape": {"width": 844, "height": 390}}
#: the smallest tap target (CSS px, issue 46)
TAP = 32

#: boxes [left, top, right, bottom]: the map's SVG, the side panels, every territory, the army counts' circles
BOXES_JS = """() => {
  const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const all = (sel) => [...document.querySelectorAll(sel)].map(box);
  return { board: box(document.querySelector('[data-testid=frontera-board]')),
           side: box(document.querySelector('.frontera-side')),
           buttons: box(document.querySelector('[data-testid=fr-map-buttons]')),
           territories: all('[data-testid=territory]'),
           counts: all('[data-testid=army] circle'),
           zoom: Number(document.querySelector('[data-testid=frontera-board]').dataset.zoom),
           viewBox: document.querySelector('[data-testid=frontera-board]').getAttribute('viewBox') };
}"""


#: resolves once frontera.css applies (it loads with the first Frontera screen) and the map's box has kept one size
#: for three frames
SETTLED_JS = """() => new Promise((done) => {
  let last = ''; let same = 0;
  const tick = () => {
    const b = document.querySelector('[data-testid=frontera-board]');
    const styled = b && getComputedStyle(b).touchAction === 'none';  // frontera.css's (layout.css alone is a grid too)
    const r = styled ? b.getBoundingClientRect() : { width: 0, height: 0 };
    const now = `${r.width}x${r.height}`;
    same = now === last && r.height > 100 ? same + 1 : 0;
    last = now;
    if (same >= 3) done(); else requestAnimationFrame(tick);
  };
  tick();
})"""


def _overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5


def _union(boxes: list[list[float]]) -> list[float]:
    return [min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes)]


@pytest.fixture
def phone(browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A touch phone page (portrait unless the test's parameter names another)."""
    size = PHONES[getattr(request, "param", "portrait")]
    context = browser.new_context(viewport=size, has_touch=True, is_mobile=True)
    context.set_default_timeout(TIMEOUT_MS)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    yield pg
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def large_game(server: LiveServer, pg: Any) -> Any:
    """Open a 3-player large-map room (the human in seat 0) at its deployment; return the room's session."""
    seats = [{"type": "human"}, {"type": "ai", "strategy": "aggressor"}, {"type": "ai", "strategy": "expansionist"}]
    answer = httpx.post(
        server.url + "/api/rooms",
        json={
            "game": "frontera",
            "options": {"map": "large", "players": 3},
            "seats": seats,
            "ai_speed": "instant",
            "seed": 5,
        },
        headers={"origin": server.url},
        timeout=30,
    )
    assert answer.status_code == 201, answer.text
    room = answer.json()
    pg.goto(server.url + room["seats"][0]["link"])
    board.wait_state(pg, "d.phase === 'setup'")
    pg.evaluate(SETTLED_JS)
    return server.rooms[room["room"]].session


def centre(pg: Any, t: int) -> tuple[float, float]:
    """Return the client point of territory ``t``'s capital cell."""
    b = pg.locator(f'[data-testid=territory][data-t="{t}"] polygon[data-capital]').bounding_box()
    return b["x"] + b["width"] / 2, b["y"] + b["height"] / 2


def size(pg: Any, t: int) -> tuple[float, float]:
    """Return territory ``t``'s width and height on screen (CSS px)."""
    b = pg.locator(f'[data-testid=territory][data-t="{t}"]').bounding_box()
    return b["width"], b["height"]


def nearest(pg: Any, territories: list[int]) -> int:
    """Return the territory whose capital is nearest the map's middle on screen."""
    b = pg.evaluate(BOXES_JS)["board"]
    mx, my = (b[0] + b[2]) / 2, (b[1] + b[3]) / 2
    return min(territories, key=lambda t: abs(centre(pg, t)[0] - mx) + abs(centre(pg, t)[1] - my))


def zoom(pg: Any) -> float:
    return float(pg.get_attribute("[data-testid=frontera-board]", "data-zoom"))


def touch(cdp: Any, kind: str, *points: tuple[float, float]) -> None:
    cdp.send(
        "Input.dispatchTouchEvent",
        {"type": kind, "touchPoints": [{"x": x, "y": y, "id": i} for i, (x, y) in enumerate(points)]},
    )


def drag(cdp: Any, start: tuple[float, float], by: tuple[float, float], steps: int = 6) -> None:
    """One finger from ``start`` moved by ``by`` CSS px in ``steps``, then lifted."""
    touch(cdp, "touchStart", start)
    for i in range(1, steps + 1):
        touch(cdp, "touchMove", (start[0] + by[0] * i / steps, start[1] + by[1] * i / steps))
    touch(cdp, "touchEnd")


def placed(session: Any, t: int) -> int:
    return int(session.game.state.placed[0, t])


def own(session: Any) -> list[int]:
    st = session.game.state
    return [t for t in range(len(st.owner)) if st.owner[t] == 0]


@pytest.mark.parametrize("phone", ["portrait", "landscape"], indirect=True)
def test_on_a_phone_the_large_map_fits_beside_the_panels_with_readable_counts_and_every_territory_tappable(
    phone: Any, live_server: LiveServer
) -> None:
    pg = phone
    large_game(live_server, pg)
    width = pg.viewport_size["width"]
    assert pg.evaluate("document.documentElement.scrollWidth") <= width  # no side scroll
    boxes = pg.evaluate(BOXES_JS)
    assert not _overlap(boxes["board"], boxes["side"])  # the panels never cover the map's area
    assert boxes["zoom"] == 1 and not any(_overlap(boxes["buttons"], t) for t in boxes["territories"])
    whole = _union(boxes["territories"])
    assert all(whole[i] >= boxes["board"][i] - 0.5 for i in (0, 1)) and all(
        whole[i] <= boxes["board"][i] + 0.5 for i in (2, 3)
    )  # fitted: the whole map on screen
    assert min(c[3] - c[1] for c in boxes["counts"]) >= 20  # army digits of 11 px even at the whole map's scale
    cdp = pg.context.new_cdp_session(pg)
    mid = ((boxes["board"][0] + boxes["board"][2]) / 2, (boxes["board"][1] + boxes["board"][3]) / 2)
    while min(min(t[2] - t[0], t[3] - t[1]) for t in pg.evaluate(BOXES_JS)["territories"]) < TAP:
        before = zoom(pg)
        touch(cdp, "touchStart", (mid[0] - 20, mid[1]), (mid[0] + 20, mid[1]))
        touch(cdp, "touchMove", (mid[0] - 60, mid[1]), (mid[0] + 60, mid[1]))
        touch(cdp, "touchEnd")
        assert zoom(pg) > before, "a pinch must zoom in until every territory is a 32 px tap target"
    names = pg.eval_on_selector_all(
        "[data-testid=territory-name]", "ns => ns.map(n => n.getBoundingClientRect().height)"
    )  # tappable, the territories are named in letters of at least 8 px
    assert len(names) == 80 and min(names) >= 8
    board_box = pg.evaluate(BOXES_JS)["board"]
    for by, edge in (((3000, 3000), (0, 1)), ((-3000, -3000), (2, 3))):  # to the top-left end, then the bottom-right
        drag(cdp, mid, by)
        seen = _union(pg.evaluate(BOXES_JS)["territories"])
        for i in edge:  # the map's edge reaches the board's edge: no farther, not short of it
            assert abs(seen[i] - board_box[i]) <= 20, (i, seen, board_box)


def test_on_a_phone_a_pinch_then_a_tap_places_on_the_intended_territory_and_a_drag_pans_without_placing(
    phone: Any, live_server: LiveServer
) -> None:
    pg = phone
    pg.clock.install()  # the page's clock, held still while the test's fingers touch the map (below)
    session = large_game(live_server, pg)
    cdp = pg.context.new_cdp_session(pg)
    # the log filled by the AIs' deployment never scrolls the panels under the map away from the phase's buttons
    pg.wait_for_function("document.querySelectorAll('[data-testid=fr-ready-list] li[data-ready=true]').length === 2")
    ready = pg.locator("[data-testid=fr-ready]").bounding_box()
    side = pg.evaluate(BOXES_JS)["side"]
    assert side[1] <= ready["y"] and ready["y"] + ready["height"] <= min(side[3], pg.viewport_size["height"])
    # the chat's hidden live region is laid out inside the column: placed by the page instead, far below the
    # screen, a scroll into view of the column's lines would move the whole page and the map off the screen
    assert pg.evaluate(
        "!!document.querySelector('[data-testid=chat-announce]').offsetParent.closest('.frontera-side')"
    ), "the live region escapes the side column"
    assert pg.evaluate(BOXES_JS)["board"][1] >= 0
    b = pg.evaluate(BOXES_JS)["board"]
    inner = [u for u in own(session) if all(b[i] + 60 < centre(pg, u)[i] < b[i + 2] - 60 for i in (0, 1))]
    assert inner, f"none of the player's territories lies inside the board {b}"
    t = min(inner, key=lambda u: min(size(pg, u)))
    # at the whole map's scale a territory is under 32 px: the tap zooms in on it (and places nothing: see the end)
    assert min(size(pg, t)) < TAP
    # a finger held 550 ms on a territory places all its armies (a long press); each touch here is a message of its
    # own, and on a loaded machine the next one can come later than that: with the page's clock paused, every
    # gesture below takes no time on the page, as a real finger's quick tap or drag does
    pg.clock.pause_at(pg.evaluate("Date.now()") + 1)
    pg.touchscreen.tap(*centre(pg, t))
    pg.wait_for_function("Number(document.querySelector('[data-testid=frontera-board]').dataset.zoom) > 1")
    assert min(size(pg, t)) >= TAP
    before = zoom(pg)
    x, y = centre(pg, t)
    touch(cdp, "touchStart", (x - 15, y), (x + 15, y))  # a pinch about the territory: it stays under the fingers
    touch(cdp, "touchMove", (x - 40, y), (x + 40, y))
    touch(cdp, "touchEnd")
    assert zoom(pg) > before
    pg.touchscreen.tap(*centre(pg, t))
    wait_until(lambda: placed(session, t) == 1, "the tap's placement")
    # a phone's browser ends a long press with contextmenu: that takes nothing back (only a mouse's right button
    # does); inputs arrive in order, so the next tap's placement makes two only if nothing was taken back before it
    group = pg.locator(f'[data-testid=territory][data-t="{t}"]')
    group.dispatch_event("pointerdown", {"pointerType": "touch", "isPrimary": True, "bubbles": True})
    group.dispatch_event("contextmenu", {"bubbles": True})
    group.dispatch_event("pointerup", {"pointerType": "touch", "isPrimary": True, "bubbles": True})
    pg.touchscreen.tap(*centre(pg, t))
    wait_until(lambda: placed(session, t) == 2, "the second tap's placement, nothing taken back before it")
    view = pg.get_attribute("[data-testid=frontera-board]", "viewBox")
    drag(cdp, centre(pg, t), (-60, -40))  # a drag that starts on the territory moves the map
    assert pg.get_attribute("[data-testid=frontera-board]", "viewBox") != view
    pg.clock.resume()  # the page draws its views at animation frames, which run on its clock
    board.wait_state(pg, f"Number(d.ply) >= {session.ply}")  # the page shows the placement before its undo
    # a mouse click: a tap just after a finger's drag only stops the drag's fling (Chromium drops its click)
    pg.click("[data-testid=fr-undo]")
    wait_until(lambda: placed(session, t) == 1, "the first undo")
    board.wait_state(pg, f"Number(d.ply) >= {session.ply}")
    pg.click("[data-testid=fr-undo]")
    # two armies back leave none only if neither the zooming tap nor the drag placed one (inputs arrive in order)
    wait_until(lambda: placed(session, t) == 0, "the undo of both placements")


def test_on_a_desktop_the_wheel_zooms_about_the_pointer_a_click_still_plays_and_keys_and_fit_move_the_map(
    page: Any, live_server: LiveServer
) -> None:
    pg = page
    session = large_game(live_server, pg)
    t = nearest(pg, own(session))
    x, y = centre(pg, t)
    pg.mouse.move(x, y)
    pg.mouse.wheel(0, -400)
    pg.wait_for_function("Number(document.querySelector('[data-testid=frontera-board]').dataset.zoom) > 1.5")
    nx, ny = centre(pg, t)
    assert abs(nx - x) < 12 and abs(ny - y) < 12  # the point under the pointer stays under it
    pg.mouse.click(nx, ny)  # a click (no drag) still plays
    wait_until(lambda: placed(session, t) == 1, "the click's placement")
    before = pg.get_attribute("[data-testid=frontera-board]", "viewBox")
    pg.mouse.down()  # a drag that starts and ends on the territory (it moves with the pointer) pans, never places
    for i in range(1, 6):
        pg.mouse.move(nx + 8 * i, ny + 5 * i)
    pg.mouse.up()
    assert pg.get_attribute("[data-testid=frontera-board]", "viewBox") != before
    board.wait_state(pg, f"Number(d.ply) >= {session.ply}")
    pg.mouse.click(*centre(pg, t), button="right")  # takes one army back: none left only if the drag placed none
    wait_until(lambda: placed(session, t) == 0, "the right click's take-back")
    view = pg.get_attribute("[data-testid=frontera-board]", "viewBox")
    pg.keyboard.press("d")
    assert pg.get_attribute("[data-testid=frontera-board]", "viewBox") != view
    pg.click("[data-testid=fr-fit]")
    assert zoom(pg) == 1
    b = pg.evaluate(BOXES_JS)["board"]
    pg.mouse.dblclick(b[0] + 3, b[1] + 3)  # the water in the board's corner
    assert zoom(pg) > 1.5
