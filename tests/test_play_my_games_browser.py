"""'Tus partidas' in the page (docs/PLAY.md, "Tus partidas"; issue 44 item 5), in headless Chromium: the menu lists
the games this browser holds a seat in, with opponents and whose turn it is, opens one and forgets one; a turn that
comes in another game changes the tab title and raises one notification (permission granted to the context, and
``window.Notification`` wrapped to record calls, since headless Chromium shows none) whose click opens that game.

The other game's move is played by a scripted websocket client. Every wait polls a condition under a generous
overall timeout (a safety net, never what is asserted).
"""

from __future__ import annotations

import json
import re
from typing import Any

import httpx

from tests.play_fixtures import TIMEOUT_MS, LiveServer, needs_chromium, wait_until
from tests.test_play_browser import SMALL

pytestmark = needs_chromium
pytest_plugins = ["tests.play_fixtures"]

RECORD_NOTIFICATIONS = """
window.__notes = [];
const Real = window.Notification;
function Recording(title, options) {
  window.__notes.push({ title, body: options && options.body, tag: options && options.tag });
  let note;
  try { note = new Real(title, options); } catch (e) { note = { close() {} }; }
  window.__lastNote = note;
  return note;
}
Object.defineProperty(Recording, "permission", { get: () => Real.permission });
Recording.requestPermission = (...args) => Real.requestPermission(...args);
window.Notification = Recording;
"""

#: a remembered seat of a room the server never had: the menu must drop it with a note
GONE_SEAT = """{
  const seats = JSON.parse(localStorage.getItem("dw.seats") || "[]");
  seats.push({ room: "nothere0", seat: 0, token: "x", game: "domain_wheel", saved_at: Date.now() });
  localStorage.setItem("dw.seats", JSON.stringify(seats));
}"""


def new_room(server: LiveServer, game: str, names: list[str], **extra: Any) -> dict[str, Any]:
    seats = [{"type": "human", "name": n} for n in names]
    body: dict[str, Any] = {"game": game, "seats": seats, "ai_speed": "instant", **extra}
    if game == "domain_wheel":
        body["options"] = SMALL
    answer = httpx.post(server.url + "/api/rooms", json=body, timeout=60)
    answer.raise_for_status()
    return dict(answer.json())


def open_seat(page: Any, server: LiveServer, room: dict[str, Any], seat: int) -> None:
    page.goto(server.url + room["seats"][seat]["link"])
    page.wait_for_selector("[data-testid=game-screen]")


def arrive(server: LiveServer, room: dict[str, Any], seat: int) -> None:
    """Open seat ``seat`` once from a scripted websocket client and leave (a clocked room's clock waits for it)."""
    from websockets.sync.client import connect

    with connect(server.url.replace("http", "ws", 1) + "/ws", open_timeout=60) as ws:
        ws.send(json.dumps({"type": "hello", "room": room["room"], "token": room["seats"][seat]["token"]}))
        assert json.loads(ws.recv(timeout=60))["type"] == "welcome"


def pass_turn(server: LiveServer, room: dict[str, Any], seat: int) -> None:
    """Play seat ``seat``'s pass from a scripted websocket client, as its player in another browser would."""
    from websockets.sync.client import connect

    with connect(server.url.replace("http", "ws", 1) + "/ws", open_timeout=60) as ws:
        ws.send(json.dumps({"type": "hello", "room": room["room"], "token": room["seats"][seat]["token"]}))
        assert json.loads(ws.recv(timeout=60))["type"] == "welcome"
        ws.send(json.dumps({"type": "pass", "id": 1}))
        while (answer := json.loads(ws.recv(timeout=60))).get("re") != 1:
            pass
        assert answer["type"] == "state", answer


def test_issue44_5_tus_partidas_lists_two_games_opens_one_and_forgets_one(page: Any, live_server: LiveServer) -> None:
    wheel = new_room(live_server, "domain_wheel", ["Ana", "Bruno", "Carla"])
    conquer = new_room(live_server, "conquer", ["Dora", "Eva"], clock=3600)
    arrive(live_server, conquer, 0)  # Dora has opened her link: the clock runs once Eva opens hers
    open_seat(page, live_server, wheel, 0)
    open_seat(page, live_server, conquer, 1)
    page.evaluate(GONE_SEAT)
    page.goto(live_server.url + "/")
    mine = f"[data-testid=mine-game-{wheel['room']}]"
    theirs = f"[data-testid=mine-game-{conquer['room']}]"
    page.wait_for_selector(mine)
    page.wait_for_selector(theirs)
    assert page.get_attribute(mine, "data-your-turn") == "true"
    assert "Domain Wheel" in page.inner_text(mine) and "contra Bruno, Carla" in page.inner_text(mine)
    assert page.inner_text(f"[data-testid=mine-turn-{wheel['room']}]") == "Tu turno"
    assert page.get_attribute(theirs, "data-your-turn") == "false"
    assert "contra Dora" in page.inner_text(theirs)
    assert page.inner_text(f"[data-testid=mine-turn-{conquer['room']}]") == "Turno de Dora"
    countdown = f"{theirs} .turn-clock"
    assert float(page.get_attribute(countdown, "data-deadline")) == live_server.rooms[conquer["room"]].deadline
    first = page.inner_text(countdown)
    assert re.fullmatch(r"⏱ \d{1,2}:\d\d", first), first
    wait_until(lambda: page.inner_text(countdown) != first, "the countdown ticking")
    assert page.inner_text("[data-testid=mine-status]").endswith("ya no es tuyo: 1.")
    assert "nothere0" not in page.evaluate("localStorage.getItem('dw.seats')")
    wait_until(lambda: page.title() == "(1) Tu turno · Domain Wheel", "the title counting the game waiting for you")
    page.click(f"[data-testid=mine-forget-{wheel['room']}]")
    assert page.query_selector(mine) is None
    page.click(f"[data-testid=mine-open-{conquer['room']}]")
    page.wait_for_selector("[data-testid=game-screen][data-game=conquer]")
    assert f"room={conquer['room']}" in page.url and "seat=1" in page.url
    page.goto(live_server.url + "/")  # the forgotten game stays forgotten
    page.wait_for_selector(theirs)
    assert page.query_selector(mine) is None


def test_issue44_5_your_turn_in_another_game_changes_the_title_and_notifies_once(
    browser: Any, live_server: LiveServer
) -> None:
    context = browser.new_context(viewport={"width": 1100, "height": 720})
    context.set_default_timeout(TIMEOUT_MS)
    context.grant_permissions(["notifications"], origin=live_server.url)
    context.add_init_script(RECORD_NOTIFICATIONS)
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        polls: list[int] = []
        page.on("response", lambda r: polls.append(r.status) if r.url.endswith("/api/my-games") else None)
        wheel = new_room(live_server, "domain_wheel", ["Ana", "Bruno", "Carla"])
        conquer = new_room(live_server, "conquer", ["Dora", "Eva"])
        open_seat(page, live_server, conquer, 1)
        page.goto(live_server.url + "/")
        page.wait_for_selector(f"[data-testid=mine-game-{conquer['room']}]")
        page.check("[data-testid=mine-notify]")
        wait_until(lambda: page.evaluate("localStorage.getItem('dw.mine.notify')") == "1", "notifications switched on")
        open_seat(page, live_server, wheel, 1)  # on screen: a game where it is Ana's turn, not ours
        assert page.title() == "Domain Wheel"
        pass_turn(live_server, conquer, 0)  # Dora passes: Eva's (our) turn in the other game

        def notified() -> int:
            # the tab "coming back" asks at once instead of at the next 20 s poll
            return int(page.evaluate("document.dispatchEvent(new Event('visibilitychange')); window.__notes.length"))

        wait_until(notified, "the notification of our turn in the other game")
        assert page.title() == "(1) Tu turno · Conquer"
        (note,) = page.evaluate("window.__notes")
        assert note["title"] == "Tu turno en Conquer" and "contra Dora" in note["body"]
        seen = len(polls)
        wait_until(lambda: notified() and len(polls) > seen, "another poll of the same turn")
        assert page.evaluate("window.__notes.length") == 1, "the same turn was announced twice"
        page.evaluate("window.__lastNote.onclick()")
        page.wait_for_selector("[data-testid=game-screen][data-game=conquer]")
        assert f"room={conquer['room']}" in page.url
        wait_until(lambda: page.title() == "Domain Wheel", "the title back once the game is on screen")
        assert set(polls) == {200} and not errors, errors
    finally:
        context.close()
