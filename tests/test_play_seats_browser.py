"""Seats changing hands in the page (docs/PLAY.md, "Seats change hands"), in headless Chromium: three people in
one room, one leaves the game and the other two see her seat card say "se fue"; the host then makes a new link
for that seat, and whoever opens it plays it. Every wait is bounded (a safety net, not an assertion).
"""

from __future__ import annotations

import json
from typing import Any

from tests.play_fixtures import TIMEOUT_MS, LiveServer, needs_chromium
from tests.test_play_presence_browser import open_seat, three_humans

pytestmark = needs_chromium
pytest_plugins = ["tests.play_fixtures"]


def test_three_people_one_leaves_the_others_see_she_left_and_the_host_hands_her_seat_on(
    browser: Any, live_server: LiveServer
) -> None:
    room = three_humans(live_server)
    contexts = [browser.new_context(viewport={"width": 1100, "height": 720}) for _ in range(3)]
    # the first browser created the room: it remembers the host token (my_seats.js) before the page loads
    held = [{"room": room["room"], "seat": 0, "token": room["seats"][0]["token"], "host_token": room["host_token"]}]
    contexts[0].add_init_script(f"localStorage.setItem('dw.seats', {json.dumps(json.dumps(held))})")
    try:
        pages = [open_seat(c, live_server, room, seat) for seat, c in enumerate(contexts)]
        host, other, leaver = pages
        leaver.click("[data-testid=leave-game]")
        leaver.click("[data-testid=leave-confirm]")
        leaver.wait_for_selector("[data-testid=spectating]")
        assert "token" not in leaver.url
        for pg in (host, other):
            pg.wait_for_selector("[data-testid=presence-2][data-presence=left]")
            assert pg.inner_text("[data-testid=presence-2]") == "se fue"
            assert "Equilibrada" in pg.inner_text("[data-testid=player-cards] [data-player='2']")  # the takeover AI
        # her browser forgot the seat; only the host has seat menus
        assert leaver.evaluate("JSON.parse(localStorage.getItem('dw.seats') || '[]').length") == 0
        assert other.query_selector("[data-testid=seat-menu-2]") is None
        host.click("[data-testid=seat-menu-2] summary")
        host.click("[data-testid=seat-new-link-2]")
        link = host.get_attribute("[data-testid=seat-link-2]", "value")
        assert link is not None and f"room={room['room']}&seat=2&token=" in link
        leaver.goto(link)
        leaver.wait_for_selector("[data-testid=pass]:not([hidden])", timeout=TIMEOUT_MS)
        host.wait_for_selector("[data-testid=presence-2][data-presence=here]")
    finally:
        for c in contexts:
            c.close()
