"""Conquer's 19 x 19 board on a phone held both ways (issue 46 item 1), in Chromium with touch, by bounding boxes.

On a 390 x 844 or 844 x 390 screen the board's points are about 20 px apart, under the 32 px a finger needs: a tap
there zooms in about the tapped point and places nothing; every point a finger then taps is a target of at least
32 px, and the dot lands on the point tapped. Two fingers twisting (real touch events, through CDP) turn the board a
quarter; the page never scrolls sideways, every control is a tap target, and axe finds nothing serious.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.axe import axe_violations
from tests.play_fixtures import TIMEOUT_MS, LiveServer, needs_chromium
from tests.test_play_layout import SMALL_TARGETS_JS, TAP, VIEWPORTS, no_horizontal_scroll

pytestmark = needs_chromium
pytest_plugins = ["tests.play_fixtures"]

BOARD = "svg.conquer-board"

#: [x, y, width, height] of every legal point's target that shows at least half inside the board's box
TARGETS_JS = """() => {
  const b = document.querySelector('svg.conquer-board').getBoundingClientRect();
  const spots = [...document.querySelectorAll('[data-testid=legal-point]')];
  return spots.map((e) => [e.dataset.xy, e.getBoundingClientRect()])
    .filter(([, r]) => r.left + r.width / 2 > b.left && r.right - r.width / 2 < b.right
      && r.top + r.height / 2 > b.top && r.bottom - r.height / 2 < b.bottom)
    .map(([xy, r]) => [xy, r.width, r.height]);
}"""


@pytest.fixture(params=["phone-portrait", "phone-landscape"])
def phone(request: pytest.FixtureRequest, browser: Any) -> Iterator[Any]:
    """A touch page of one phone viewport; JavaScript errors on it fail the test."""
    context = browser.new_context(**VIEWPORTS[request.param])
    context.set_default_timeout(TIMEOUT_MS)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    yield pg
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def box_centre(pg: Any, selector: str) -> tuple[float, float, float]:
    """Return the centre and the smaller side of an element's box."""
    box = pg.locator(selector).bounding_box()
    assert box, f"{selector} is not drawn"
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, min(box["width"], box["height"])


def twist(pg: Any, degrees: float) -> None:
    """Two fingers 120 px apart about the board's centre turn by ``degrees`` (CDP touch events), then lift."""
    cdp = pg.context.new_cdp_session(pg)
    x, y, _ = box_centre(pg, BOARD)

    def fingers(a: float) -> list[dict[str, float]]:
        c, s = 60 * math.cos(math.radians(a)), 60 * math.sin(math.radians(a))
        return [{"x": x - c, "y": y - s, "id": 1}, {"x": x + c, "y": y + s, "id": 2}]

    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": fingers(0)})
    for step in range(1, 7):
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": fingers(degrees * step / 6)})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def test_conquer_19x19_on_a_phone_every_tapped_point_is_32px_and_the_dot_lands_there(
    phone: Any, live_server: LiveServer
) -> None:
    pg = phone
    body = {"game": "conquer", "options": {"width": 19, "height": 19}, "ai_speed": "instant",
            "seats": [{"type": "human"}, {"type": "ai", "strategy": "random"}]}  # fmt: skip
    answer = httpx.post(live_server.url + "/api/rooms", json=body, headers={"origin": live_server.url}, timeout=60)
    assert answer.status_code == 201, answer.text
    pg.goto(live_server.url + answer.json()["seats"][0]["link"])
    pg.wait_for_selector(f"{BOARD}[data-interactive=true]")
    pg.wait_for_function("document.querySelector('link[data-conquer-css]')?.sheet != null")  # laid out for good
    no_horizontal_scroll(pg, "Conquer 19 x 19")
    assert pg.evaluate(SMALL_TARGETS_JS, TAP) == [], "controls under 32 px"
    assert pg.is_visible(".touch-hint") and not pg.is_visible(".keys-hint"), "a phone gets gestures, not keys"

    twist(pg, 60)  # past half a quarter: the grid turns a quarter, clockwise as the fingers did
    assert pg.get_attribute(BOARD, "data-angle") == "90"
    sizes = [min(w, h) for _, w, h in pg.evaluate(TARGETS_JS)]
    assert len(sizes) == 361 and max(sizes) < TAP, "the whole board shows, its points too close for a finger"

    x, y, _ = box_centre(pg, "[data-testid=legal-point][data-xy='3,15']")
    pg.touchscreen.tap(x, y)  # too small to place: zooms in about (3, 15), which stays under the finger
    pg.wait_for_function(f"Number(document.querySelector('{BOARD}').dataset.zoom) > 1.5")
    x2, y2, side = box_centre(pg, "[data-testid=legal-point][data-xy='3,15']")
    assert abs(x2 - x) < 2 and abs(y2 - y) < 2 and side >= TAP
    shown = pg.evaluate(TARGETS_JS)
    assert len(shown) >= 9 and all(min(w, h) >= TAP for _, w, h in shown), shown

    bx, by, side = box_centre(pg, "[data-testid=legal-point][data-xy='4,15']")  # a neighbour, now a finger wide
    assert side >= TAP
    pg.touchscreen.tap(bx, by)
    pg.wait_for_selector("[data-testid=dot][data-xy='4,15'][data-colour='1']")
    assert pg.locator("[data-testid=dot][data-xy='3,15']").count() == 0, "the zooming tap placed a dot"
    log = live_server.rooms[answer.json()["room"]].session.view()["log"]
    assert (log[0]["seat"], log[0]["point"]) == (0, [4, 15])

    assert axe_violations(pg) == []
    pg.click("[data-testid=board-overview]")  # the whole board, upright, again
    assert pg.get_attribute(BOARD, "data-zoom") == "1.000" and pg.get_attribute(BOARD, "data-angle") == "0"


#: the board's lines, the board element and the window, as [left, top, right, bottom] in CSS px
BOXES_JS = """() => {
  const box = (r) => [r.left, r.top, r.right, r.bottom];
  return {grid: box(document.querySelector('svg.conquer-board .cq-grid').getBoundingClientRect()),
    board: box(document.querySelector('svg.conquer-board').getBoundingClientRect()),
    window: [0, 0, window.innerWidth, window.innerHeight]};
}"""


@pytest.fixture(params=["desktop", "phone-portrait"])
def screen(request: pytest.FixtureRequest, browser: Any) -> Iterator[tuple[str, Any]]:
    """A page of one viewport (its name, the page); JavaScript errors on it fail the test."""
    context = browser.new_context(**VIEWPORTS[request.param])
    context.set_default_timeout(TIMEOUT_MS)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    yield request.param, pg
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def test_rule_11_10_a_39x32_board_turned_a_quarter_still_shows_whole_and_fills_the_screen(
    screen: tuple[str, Any], live_server: LiveServer
) -> None:
    """At the whole-board zoom a quarter turn (E on a desktop, two fingers on a phone) fits the turned board: its
    lines, now 31 wide and 38 high, lie inside the board's box and the window, and fill the tighter side to 85 %."""
    name, pg = screen
    body = {"game": "conquer", "options": {"width": 39, "height": 32}, "ai_speed": "instant",
            "seats": [{"type": "human"}, {"type": "ai", "strategy": "random"}]}  # fmt: skip
    answer = httpx.post(live_server.url + "/api/rooms", json=body, headers={"origin": live_server.url}, timeout=60)
    assert answer.status_code == 201, answer.text
    pg.goto(live_server.url + answer.json()["seats"][0]["link"])
    pg.wait_for_selector(f"{BOARD}[data-interactive=true]")
    pg.wait_for_function("document.querySelector('link[data-conquer-css]')?.sheet != null")  # laid out for good
    if name == "desktop":
        pg.keyboard.press("e")
    else:
        twist(pg, 60)
    assert pg.get_attribute(BOARD, "data-angle") == "90"
    assert abs(float(pg.get_attribute(BOARD, "data-zoom")) - 1) < 0.02, "the whole board (a twist pinches a little)"
    boxes = pg.evaluate(BOXES_JS)
    (gx0, gy0, gx1, gy1), (bx0, by0, bx1, by1) = boxes["grid"], boxes["board"]
    assert gy1 - gy0 > (gx1 - gx0) * 1.15, f"the board is not turned: {boxes}"
    for outer in ("board", "window"):
        ox0, oy0, ox1, oy1 = boxes[outer]
        inside = gx0 >= ox0 - 1 and gy0 >= oy0 - 1 and gx1 <= ox1 + 1 and gy1 <= oy1 + 1
        assert inside, f"the board overflows the {outer}: {boxes}"
    assert max((gx1 - gx0) / (bx1 - bx0), (gy1 - gy0) / (by1 - by0)) > 0.85, f"fitted too small: {boxes}"
