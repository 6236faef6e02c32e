"""The browser game's layouts (issue 46, items 1 and 2) on a desktop and on a phone held both ways, by bounding boxes.

Each viewport is one test over one module-scoped server and browser: Domain Wheel's game screen on the standard map
(no panel over another or over the board; the whole map visible at the start; a piece's destinations at least 32 px
and on top of everything), every control a 32 px tap target, no horizontal scrolling on any menu, colour contrast by
axe (when installed: tests/axe.py) and by our own check of the states axe cannot see (hover, focus, the armed end
request). Set ``DW_SCREENSHOTS=1`` to (re)write the phone screenshots under docs/images/.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dw_env.engine import Game
from dw_env.record import Recorder
from tests.axe import axe_violations
from tests.play_fixtures import TIMEOUT_MS, LiveServer, needs_chromium

pytestmark = needs_chromium
pytest_plugins = ["tests.play_fixtures"]

IMAGES = Path(__file__).resolve().parents[1] / "docs" / "images"
GAME = "[data-testid=game-screen]"
#: the three viewports of the issue: a laptop, a phone upright and a phone on its side (touch, mobile)
VIEWPORTS: dict[str, dict[str, Any]] = {
    "desktop": {"viewport": {"width": 1440, "height": 900}},
    "phone-portrait": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True},
    "phone-landscape": {"viewport": {"width": 844, "height": 390}, "has_touch": True, "is_mobile": True},
}
#: the smallest tap target (CSS px) on any screen
TAP = 32
PANELS = (".cards", ".banner", ".log-panel", ".details", ".toolbar")

#: the boxes of the visible panels and of the board, and the map's cells' union: {name: [left, top, right, bottom]}
BOXES_JS = """(panels) => {
  const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const shown = (e) => e && !e.hidden && getComputedStyle(e).display !== 'none'
    && getComputedStyle(e).visibility !== 'hidden' && e.getBoundingClientRect().width > 0;
  const out = {};
  for (const sel of panels) { const e = document.querySelector(sel); if (shown(e)) out[sel] = box(e); }
  out.board = box(document.querySelector('.board-wrap'));
  const cells = [...document.querySelectorAll('.cell')].map(box);
  out.map = [Math.min(...cells.map(c => c[0])), Math.min(...cells.map(c => c[1])),
             Math.max(...cells.map(c => c[2])), Math.max(...cells.map(c => c[3]))];
  return out;
}"""

#: every visible control too small to tap: [description, width, height] (a checkbox counts with its label)
SMALL_TARGETS_JS = """(tap) => {
  const out = [];
  for (const e of document.querySelectorAll('button, select, input, summary, a[href]')) {
    const t = e.type === 'checkbox' && e.closest('label') ? e.closest('label') : e;
    const r = t.getBoundingClientRect();
    if (!r.width || getComputedStyle(t).visibility === 'hidden') continue;
    if (r.width < tap - 0.5 || r.height < tap - 0.5)
      out.push([(e.dataset.testid || e.tagName) + ' ' + (e.textContent || '').trim().slice(0, 20), r.width, r.height]);
  }
  return out;
}"""

#: the element a tap at each destination's and the selected piece's centre reaches, when it is not that one
COVERED_JS = """() => {
  const out = [];
  for (const e of document.querySelectorAll('[data-testid=destination], .piece.selected')) {
    const r = e.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!hit || !e.contains(hit)) out.push([e.dataset.qr || e.dataset.cell, hit ? hit.outerHTML.slice(0, 80) : null]);
  }
  return out;
}"""

#: WCAG contrast ratio of an element's text against the first opaque background behind it
CONTRAST_JS = """(sel) => {
  const rgb = (s) => s.match(/[\\d.]+/g).map(Number);
  const f = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  const lum = ([r, g, b]) => {
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const e = document.querySelector(sel);
  let bg = null;
  for (let n = e; n && !bg; n = n.parentElement) {
    const c = rgb(getComputedStyle(n).backgroundColor);
    if (c.length < 4 || c[3] === 1) bg = c.slice(0, 3);
  }
  const [a, b] = [lum(rgb(getComputedStyle(e).color)), lum(bg || [255, 255, 255])];
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}"""


def overlaps(a: list[float], b: list[float]) -> bool:
    """Whether two boxes [left, top, right, bottom] share more than a pixel's sliver."""
    return min(a[2], b[2]) - max(a[0], b[0]) > 1 and min(a[3], b[3]) - max(a[1], b[1]) > 1


def inside(a: list[float], b: list[float]) -> bool:
    return a[0] >= b[0] - 1 and a[1] >= b[1] - 1 and a[2] <= b[2] + 1 and a[3] <= b[3] + 1


@pytest.fixture(scope="module", params=list(VIEWPORTS))
def device(request: pytest.FixtureRequest, browser: Any) -> Iterator[tuple[str, Any]]:
    """A page of one viewport (its name, the page); JavaScript errors on it fail the test."""
    context = browser.new_context(**VIEWPORTS[request.param])
    context.set_default_timeout(TIMEOUT_MS)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    yield request.param, pg
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


#: the page's HTML elements that scroll sideways or reach past the window's right edge
SIDEWAYS_JS = """() => [...document.body.querySelectorAll('*')].filter((e) => !e.closest('svg')).flatMap((e) => {
  const css = getComputedStyle(e);
  if (css.display === 'none' || css.visibility === 'hidden') return [];
  const scrolls = ['auto', 'scroll'].includes(css.overflowX) && e.scrollWidth > e.clientWidth + 1;
  const r = e.getBoundingClientRect();
  const sticksOut = r.width > 0 && r.right > innerWidth + 1;
  return scrolls || sticksOut ? [(e.dataset.testid || e.className || e.tagName) + ' ' + Math.round(r.right)] : [];
})"""


def no_horizontal_scroll(pg: Any, where: str) -> None:
    """Neither the page nor any box in it scrolls sideways, and nothing reaches past the window's right edge."""
    width, inner = pg.evaluate("[document.documentElement.scrollWidth, innerWidth]")
    assert width <= inner, f"{where} scrolls sideways: {width} px of content in a {inner} px window"
    wide = pg.evaluate(SIDEWAYS_JS)
    assert wide == [], f"{where}: these boxes scroll sideways or leave the {inner} px window: {wide}"


def assert_panels_apart(pg: Any, where: str) -> dict[str, list[float]]:
    """No visible panel overlaps another or the board; return the boxes."""
    boxes = pg.evaluate(BOXES_JS, list(PANELS))
    shown = [k for k in boxes if k not in ("board", "map")]
    for i, a in enumerate(shown):
        assert not overlaps(boxes[a], boxes["board"]), f"{where}: {a} {boxes[a]} lies over the board {boxes['board']}"
        for b in shown[i + 1 :]:
            assert not overlaps(boxes[a], boxes[b]), f"{where}: {a} {boxes[a]} overlaps {b} {boxes[b]}"
    return boxes


def keep_screenshot(pg: Any, name: str, tmp_path: Path) -> None:
    """With DW_SCREENSHOTS=1, keep a 256-colour PNG of the page as docs/images/NAME.png."""
    if os.environ.get("DW_SCREENSHOTS") != "1":
        return
    from PIL import Image

    raw, out = tmp_path / f"{name}-raw.png", tmp_path / f"{name}.png"
    pg.screenshot(path=str(raw))
    with Image.open(raw) as image:
        image.convert("RGB").quantize(256, method=Image.Quantize.MEDIANCUT).save(out, optimize=True)
    IMAGES.mkdir(parents=True, exist_ok=True)
    shutil.copy(out, IMAGES / f"{name}.png")


def start_game(pg: Any, server: LiveServer, options: dict[str, int] | None = None) -> None:
    """Open a Domain Wheel game from the menu (the standard map unless `options` say otherwise), the human to move."""
    pg.goto(server.url + "/")
    pg.wait_for_selector("[data-testid=menu]")
    for key, value in (options or {}).items():
        pg.fill(f"[data-testid=opt-{key}]", str(value))
    for seat in (1, 2):
        pg.select_option(f"[data-testid=seat-kind-{seat}]", "balanced")
    pg.select_option("[data-testid=menu-ai-speed]", "instant")
    pg.click("[data-testid=play]")
    pg.wait_for_selector(f"{GAME}[data-ply='0'] .piece.movable")


def test_menus_fit_the_width_and_their_controls_are_tap_targets(
    device: tuple[str, Any],
    live_server: LiveServer,
) -> None:
    """Rule 11 on a phone: no menu (its strategy lists included) scrolls sideways; every control is >= 32 px."""
    name, pg = device
    for route, screen in (("/", "menu"), ("/#alveole", "alveole-menu"), ("/#conquer", "conquer-menu")):
        pg.goto(live_server.url + route)
        pg.wait_for_selector(f"[data-testid={screen}] [data-testid=play]")
        no_horizontal_scroll(pg, f"{name} {screen}")
        assert pg.evaluate(SMALL_TARGETS_JS, TAP) == [], f"{name} {screen}: controls under {TAP} px"


def test_domain_wheel_panels_leave_the_board_and_its_moves_free(
    device: tuple[str, Any], live_server: LiveServer, tmp_path: Path
) -> None:
    """The standard map: panels apart and off the board, the whole map shown, a piece's destinations tappable on top."""
    name, pg = device
    start_game(pg, live_server)
    boxes = assert_panels_apart(pg, f"{name} game")
    assert inside(boxes["map"], boxes["board"]), f"{name}: the map {boxes['map']} is not all on {boxes['board']}"
    no_horizontal_scroll(pg, f"{name} game")
    assert pg.evaluate(SMALL_TARGETS_JS, TAP) == [], f"{name} game: controls under {TAP} px"
    if name != "desktop":
        keep_screenshot(pg, name, tmp_path)  # docs/images/phone-portrait.png, phone-landscape.png

    king = pg.locator(".piece.king.movable").first
    if name == "desktop":
        king.click()
    else:  # the whole map's king is 12-17 px: a tap 13 px beside its centre, off the piece, still picks it
        b = king.bounding_box()
        pg.touchscreen.tap(b["x"] + b["width"] / 2 + 13, b["y"] + b["height"] / 2)
    pg.wait_for_selector(".piece.king.p0.selected")
    pg.wait_for_selector("[data-testid=destination]")
    pg.wait_for_function("document.querySelector('svg.hexmap').dataset.framing === 'done'")
    board = pg.evaluate(BOXES_JS, list(PANELS))["board"]
    for dest in pg.locator("[data-testid=destination]").all():
        b = dest.bounding_box()
        box = [b["x"], b["y"], b["x"] + b["width"], b["y"] + b["height"]]
        assert b["width"] >= TAP and b["height"] >= TAP * 0.85, f"{name}: destination {box} is too small to tap"
        assert inside(box, board), f"{name}: destination {box} is off the board {board}"
    assert pg.evaluate(COVERED_JS) == [], f"{name}: something lies over a destination or the selected piece"
    assert_panels_apart(pg, f"{name} game with a piece picked")

    # the land details (a tap or the pointer on a land) take their place without covering anything
    pg.hover(".piece.selected")
    pg.wait_for_selector("[data-testid=land-details]:not([hidden])")
    assert_panels_apart(pg, f"{name} game with the land details")

    # below 900 px the log and chat open over the board from the toolbar's Chat button, which stays free to close
    if name != "desktop":
        pg.click("[data-testid=chat-toggle]")
        assert pg.is_visible("[data-testid=log-panel]")
        pg.click("[data-testid=chat-toggle]")  # fails if the open sheet lies over the button
        assert pg.is_hidden("[data-testid=log-panel]")


def test_contrast_holds_in_every_state(device: tuple[str, Any], live_server: LiveServer) -> None:
    """WCAG AA: axe's colour-contrast rule on the game; our own ratio for hover, focus and the armed end request."""
    name, pg = device
    start_game(pg, live_server, options={"land_radius": 1, "map_radius": 2})
    assert axe_violations(pg, rules=["color-contrast"]) == []
    end = "[data-testid=end-request]"
    pg.evaluate(f"document.querySelector('{end}').disabled = false")  # armed looks only: the click is not sent twice
    pg.click(end)
    pg.wait_for_selector(f"{end}[data-armed=true]")
    pg.hover(end)  # the pointer still on it: the moment its question must be read
    assert pg.evaluate(CONTRAST_JS, end) >= 4.5
    pg.focus(end)
    assert pg.evaluate(CONTRAST_JS, end) >= 4.5
    for sel in ("[data-testid=overview]", "[data-testid=help-button]"):
        pg.hover(sel)
        assert pg.evaluate(CONTRAST_JS, sel) >= 4.5, f"{name}: {sel} while hovered"


def test_alveole_and_conquer_keep_their_side_panel_off_the_board(
    device: tuple[str, Any], live_server: LiveServer
) -> None:
    """The two-player games: board and side panel apart, nothing sideways, every control a tap target."""
    name, pg = device
    for game in ("alveole", "conquer"):
        pg.goto(f"{live_server.url}/#{game}")
        pg.wait_for_selector(f"[data-testid={game}-menu] [data-testid=play]")
        pg.select_option(f"[data-testid={game}-seat-kind-0]", "human")
        pg.select_option("[data-testid=menu-ai-speed]", "instant")
        pg.click("[data-testid=play]")
        pg.wait_for_selector(f"{GAME}[data-ply='0']")
        board, side = (pg.locator(sel).bounding_box() for sel in (".board-area", f".{game}-side"))
        assert board and side and board["height"] >= 150, f"{name} {game}: the board is {board}"
        a = [board["x"], board["y"], board["x"] + board["width"], board["y"] + board["height"]]
        b = [side["x"], side["y"], side["x"] + side["width"], side["y"] + side["height"]]
        assert not overlaps(a, b), f"{name} {game}: the side panel {b} lies over the board {a}"
        no_horizontal_scroll(pg, f"{name} {game}")
        assert pg.evaluate(SMALL_TARGETS_JS, TAP) == [], f"{name} {game}: controls under {TAP} px"


def test_camera_turns_by_keys_right_drag_and_two_fingers(page: Any, live_server: LiveServer) -> None:
    """Rule 11.10: Q/E turn the camera by 15 degrees, so do a right-button drag and two fingers twisting; a turned
    board still plays where it is clicked, and R shows the whole map unturned again."""
    pg = page
    start_game(pg, live_server, options={"land_radius": 1, "map_radius": 2})
    angle = lambda: int(pg.get_attribute("svg.hexmap", "data-angle"))  # noqa: E731
    for _ in range(6):
        pg.keyboard.press("e")
    assert angle() == 90
    pg.keyboard.press("q")
    assert angle() == 75
    pg.locator(".piece.movable").first.click()  # hit-testing follows the turn
    target = pg.locator("[data-testid=destination]").first
    cell = target.get_attribute("data-cell")
    target.click()
    pg.wait_for_function(f"[...document.querySelectorAll('.piece.p0')].some((p) => p.dataset.cell === '{cell}')")

    box = pg.locator("svg.hexmap").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    pg.mouse.move(x, y)
    pg.mouse.down(button="right")
    pg.mouse.move(x + 50, y, steps=5)  # 0.4 degrees a pixel
    pg.mouse.up(button="right")
    assert angle() == 95
    pg.evaluate(
        """([x, y]) => {
          const el = document.querySelector('svg.hexmap');
          const ev = (type, id, px, py) => el.dispatchEvent(new PointerEvent(type, {pointerId: id, pointerType: 'touch',
            clientX: px, clientY: py, bubbles: true, isPrimary: id === 1}));
          ev('pointerdown', 1, x - 50, y); ev('pointerdown', 2, x + 50, y);
          ev('pointermove', 2, x - 50 + 100 * Math.cos(Math.PI / 6), y + 100 * Math.sin(Math.PI / 6));
          ev('pointerup', 2, x, y); ev('pointerup', 1, x - 50, y);
        }""",
        [x, y],
    )
    assert angle() == 125  # the fingers' line turned by 30 degrees
    pg.keyboard.press("r")
    assert angle() == 0


def test_a_replay_keeps_its_move_log_apart_from_the_board(device: tuple[str, Any], live_server: LiveServer) -> None:
    """The replay viewer: its move log on screen at every size (a phone used to hide it), apart from the board."""
    name, pg = device
    rec = Recorder(Game.new(land_radius=1, map_radius=2, max_rounds=2), ["random", "random", "random"])
    while not rec.game.over:
        rec.play(rec.game.legal_moves()[0])
    rid = live_server.app.state.manager.records.save(rec.record.to_dict(), f"layout-{name}")
    pg.goto(f"{live_server.url}/#replays")
    pg.click(f"[data-testid=replay-item][data-id='{rid}']")
    pg.wait_for_selector("[data-testid=replay][data-ply='0']")
    pg.click("[data-testid=replay-last]")
    pg.wait_for_selector("[data-testid=replay] [data-testid=log-entry]")
    boxes = assert_panels_apart(pg, f"{name} replay")
    assert ".log-panel" in boxes, f"{name}: the replay's move log is not shown"
    no_horizontal_scroll(pg, f"{name} replay")
