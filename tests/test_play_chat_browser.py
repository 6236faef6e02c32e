"""The room chat in the page (docs/PLAY.md, "Chat"; play/static/js/ui/chat.js), in headless Chromium: script
payloads sent by one player reach the other as literal text (no dialog, no new element); on a phone's width the
chat fits with no sideways scroll, a spectator reads it without a field, and the counter and send button keep
a line within the bound. Every wait is bounded (a safety net, not an assertion).
"""

from __future__ import annotations

from typing import Any

import httpx

from tests.play_fixtures import TIMEOUT_MS, LiveServer, needs_chromium
from tests.test_play_browser import SMALL

pytestmark = needs_chromium
pytest_plugins = ["tests.play_fixtures"]

PAYLOADS = ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>", '"><svg onload=alert(1)>']
PHONE = {"width": 390, "height": 844}


def new_room(server: LiveServer, body: dict[str, Any]) -> dict[str, Any]:
    answer = httpx.post(server.url + "/api/rooms", json={"ai_speed": "instant", **body}, timeout=60)
    answer.raise_for_status()
    return dict(answer.json())


def open_page(context: Any, url: str, dialogs: list[str]) -> Any:
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.goto(url)
    page.wait_for_selector("[data-testid=chat]", state="attached")
    return page


def chat_texts(page: Any) -> list[str]:
    return list(page.eval_on_selector_all("[data-testid=chat-text]", "es => es.map(e => e.textContent)"))


def no_sideways_scroll(page: Any) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


def test_rule_44_6_script_payloads_reach_the_other_player_as_literal_text(
    browser: Any, live_server: LiveServer
) -> None:
    room = new_room(
        live_server,
        {
            "options": SMALL,
            "seats": [{"type": "human", "name": "Ana"}, {"type": "human"}, {"type": "ai", "strategy": "random"}],
        },
    )
    dialogs: list[str] = []
    contexts = [browser.new_context(viewport={"width": 1280, "height": 800}) for _ in range(2)]
    try:
        ana, bob = (open_page(c, live_server.url + room["seats"][s]["link"], dialogs) for s, c in enumerate(contexts))
        lines = [*PAYLOADS, "buena suerte"]
        for n, line in enumerate(lines):
            ana.fill("[data-testid=chat-input]", line)
            if n % 2:
                ana.click("[data-testid=chat-send]")
            else:
                ana.press("[data-testid=chat-input]", "Enter")
            ana.wait_for_function("n => document.querySelectorAll('[data-testid=chat-line]').length === n", arg=n + 1)
            assert ana.input_value("[data-testid=chat-input]") == "", "a line the room has leaves the field"
        bob.wait_for_function("n => document.querySelectorAll('[data-testid=chat-line]').length === n", arg=len(lines))
        for page in (ana, bob):
            assert chat_texts(page) == lines
            assert page.inner_text("[data-testid=chat-line] >> nth=0").startswith("Ana: ")
            assert page.locator("img[src=x]").count() == 0
            assert page.locator("svg[onload]").count() == 0
            assert page.locator("[data-testid=chat-lines] script").count() == 0
        assert dialogs == []
    finally:
        for c in contexts:
            c.close()


def test_rule_44_6_on_a_phone_the_chat_fits_spectators_read_it_and_the_bound_is_shown(
    browser: Any, live_server: LiveServer
) -> None:
    conquer = new_room(
        live_server,
        {"game": "conquer", "options": {"width": 9, "height": 9}, "seats": [{"type": "human"}, {"type": "human"}]},
    )
    wheel = new_room(live_server, {"options": SMALL, "seats": [{"type": "human"}] * 3})
    dialogs: list[str] = []
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    try:
        player = open_page(context, live_server.url + conquer["seats"][0]["link"], dialogs)
        watcher = open_page(context, live_server.url + conquer["spectate"], dialogs)
        player.fill("[data-testid=chat-input]", "hola desde el teléfono")
        player.press("[data-testid=chat-input]", "Enter")
        watcher.wait_for_function("document.querySelectorAll('[data-testid=chat-line]').length === 1")
        assert chat_texts(watcher) == ["hola desde el teléfono"]
        assert watcher.locator("[data-testid=chat-input]").count() == 0
        assert watcher.is_visible("[data-testid=chat-readonly]")
        # Domain Wheel's column floats over the board: on a phone its button opens it
        wheel_page = open_page(context, live_server.url + wheel["seats"][0]["link"], dialogs)
        assert not wheel_page.is_visible("[data-testid=chat-input]")
        wheel_page.click("[data-testid=chat-toggle]")
        field = wheel_page.locator("[data-testid=chat-input]")
        assert field.is_visible()
        box, send = field.bounding_box(), wheel_page.locator("[data-testid=chat-send]").bounding_box()
        assert box["x"] >= 0 and send["x"] + send["width"] <= PHONE["width"]
        field.fill("x" * 260)
        assert wheel_page.inner_text("[data-testid=chat-counter]") == "Quedan 40 caracteres"
        assert wheel_page.is_enabled("[data-testid=chat-send]")
        field.fill("x" * 301)
        assert not wheel_page.is_enabled("[data-testid=chat-send]")
        for page in (player, watcher, wheel_page):
            page.locator("[data-testid=chat]").scroll_into_view_if_needed()
            assert no_sideways_scroll(page), page.url
        assert dialogs == []
    finally:
        context.close()
