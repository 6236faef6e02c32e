"""Presence in the page (docs/PLAY.md, "Presence"), in headless Chromium: three people in one room, one closes
her browser and the other two see her seat card say she is away; a seat opened in a second tab covers the first
tab's board with a banner and disables its pass button. Every wait is bounded (a safety net, not an assertion).
"""

from __future__ import annotations

from typing import Any

import httpx

from tests.play_fixtures import TIMEOUT_MS, LiveServer, needs_chromium
from tests.test_play_browser import SMALL

pytestmark = needs_chromium
pytest_plugins = ["tests.play_fixtures"]


def three_humans(server: LiveServer) -> dict[str, Any]:
    body = {"options": SMALL, "seats": [{"type": "human"}] * 3, "ai_speed": "instant"}
    answer = httpx.post(server.url + "/api/rooms", json=body, timeout=60)
    answer.raise_for_status()
    return dict(answer.json())


def open_seat(context: Any, server: LiveServer, room: dict[str, Any], seat: int) -> Any:
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(server.url + room["seats"][seat]["link"])
    page.wait_for_selector(f"[data-testid=presence-{seat}][data-presence=here]")
    return page


def test_three_people_one_leaves_and_the_other_two_see_her_away(browser: Any, live_server: LiveServer) -> None:
    room = three_humans(live_server)
    contexts = [browser.new_context(viewport={"width": 1100, "height": 720}) for _ in range(3)]
    try:
        pages = [open_seat(c, live_server, room, seat) for seat, c in enumerate(contexts)]
        for pg in pages[:2]:
            pg.wait_for_selector("[data-testid=presence-2][data-presence=here]")
        contexts[2].close()
        for pg in pages[:2]:
            pg.wait_for_selector("[data-testid=presence-2][data-presence=away]")
            assert pg.inner_text("[data-testid=presence-2]").startswith("ausente desde ")
            assert pg.get_attribute("[data-testid=presence-1]", "data-presence") == "here"
    finally:
        for c in contexts[:2]:
            c.close()


def test_a_seat_opened_in_another_tab_banners_the_old_tab_and_disables_its_pass(
    browser: Any, live_server: LiveServer
) -> None:
    room = three_humans(live_server)
    context = browser.new_context(viewport={"width": 1100, "height": 720})
    try:
        old = open_seat(context, live_server, room, 0)
        assert old.is_enabled("[data-testid=pass]")
        new = open_seat(context, live_server, room, 0)
        old.wait_for_selector("[data-testid=replaced-banner]")
        assert "otra pestaña" in old.inner_text("[data-testid=replaced-banner]")
        assert old.get_attribute("[data-testid=game-screen]", "data-conn") == "replaced"
        assert not old.is_enabled("[data-testid=pass]")
        assert new.is_enabled("[data-testid=pass]")
    finally:
        context.close()
