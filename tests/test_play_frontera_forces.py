"""Frontera's forces panel beyond its regions (the rules page's "Controles": Avisos, Volver al menú, Otras partidas,
Abandonar; docs/FRONTERA.md "Browser game"), in headless Chromium against the real play server:

- the panel lists the player's other games (not this one), marks the one where it is their turn once it comes, rings
  the bell once for that turn (``AudioContext`` wrapped to count the bell's tones, since headless Chromium plays
  nothing) and a click jumps to that game;
- its foot holds the notifications switch (the same setting as the menu's), the way back to the menu, where the
  Frontera game is listed under "Tus partidas", and abandoning the game, which asks once, then takes the seat out
  of the game by R-11 (the page watches on, the browser forgets the seat).

The other game's move is played by a scripted websocket client. Every wait polls a condition under a generous
overall timeout (a safety net, never what is asserted).
"""

from __future__ import annotations

from typing import Any

from frontera_env.state import ABANDONED
from tests.play_fixtures import TIMEOUT_MS, LiveServer, needs_chromium, wait_until
from tests.test_play_frontera_browser import AGGRESSOR, HUMAN, create_room
from tests.test_play_my_games_browser import new_room, open_seat, pass_turn

pytestmark = needs_chromium
pytest_plugins = ["tests.play_fixtures"]

#: the bell is three partials (play/static/js/ui/bell.js): count the oscillators the page makes
RECORD_BELL = """
window.__tones = 0;
const RealContext = window.AudioContext;
if (RealContext) {
  window.AudioContext = class extends RealContext {
    createOscillator() { window.__tones += 1; return super.createOscillator(); }
  };
}
"""
BELL_TONES = 3


def frontera_page(browser: Any, live_server: LiveServer) -> Any:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    context.set_default_timeout(TIMEOUT_MS)
    context.grant_permissions(["notifications"], origin=live_server.url)
    context.add_init_script(RECORD_BELL)
    return context


def test_the_forces_panel_lists_your_other_games_rings_when_your_turn_comes_there_and_jumps_to_it(
    browser: Any, live_server: LiveServer
) -> None:
    context = frontera_page(browser, live_server)
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        polls: list[int] = []
        page.on("response", lambda r: polls.append(r.status) if r.url.endswith("/api/my-games") else None)
        conquer = new_room(live_server, "conquer", ["Dora", "Eva"])  # Dora moves first
        frontera, _ = create_room(live_server, [HUMAN, AGGRESSOR, AGGRESSOR], seed=3)
        open_seat(page, live_server, conquer, 1)  # this browser now holds Eva's seat
        page.goto(live_server.url + frontera["seats"][0]["link"])
        page.wait_for_selector("[data-testid=game-screen][data-game=frontera]")
        row = f"[data-testid=fr-forces] [data-testid=other-game-{conquer['room']}]"
        page.wait_for_selector(row)
        assert page.get_attribute(row, "data-your-turn") == "false"
        assert page.inner_text(f"[data-testid=other-turn-{conquer['room']}]") == "Turno de Dora"
        assert page.query_selector(f"[data-testid=other-game-{frontera['room']}]") is None, "this game is not 'other'"
        assert page.inner_text("[data-testid=other-games-section] h3") == "Otras partidas"
        assert page.evaluate("window.__tones") == 0, "opening the page rang the bell"

        pass_turn(live_server, conquer, 0)  # Dora passes: Eva's (our) turn in the other game

        def marked() -> bool:
            # the tab "coming back" asks at once instead of at the next 20 s poll
            page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
            return page.get_attribute(row, "data-your-turn") == "true"

        wait_until(marked, "the other game marked as waiting for our move")
        assert page.inner_text(f"[data-testid=other-turn-{conquer['room']}]") == "Tu turno"
        wait_until(lambda: page.evaluate("window.__tones") > 0, "the bell")
        assert page.evaluate("window.__tones") == BELL_TONES
        seen = len(polls)
        wait_until(lambda: marked() and len(polls) > seen, "another poll of the same turn")
        assert page.evaluate("window.__tones") == BELL_TONES, "the same turn rang twice"
        page.click(f"[data-testid=other-open-{conquer['room']}]")
        page.wait_for_selector("[data-testid=game-screen][data-game=conquer]")
        assert f"room={conquer['room']}" in page.url and "seat=1" in page.url
        assert set(polls) == {200} and not errors, errors
    finally:
        context.close()


def test_the_forces_panel_foot_switches_notifications_goes_back_to_the_menu_and_leaves_the_game(
    browser: Any, live_server: LiveServer
) -> None:
    context = frontera_page(browser, live_server)
    try:
        page = context.new_page()
        frontera, session = create_room(live_server, [HUMAN, AGGRESSOR, AGGRESSOR], seed=3)
        page.goto(live_server.url + frontera["seats"][0]["link"])
        page.wait_for_selector("[data-testid=game-screen][data-game=frontera]")
        foot = "[data-testid=fr-forces] .fr-forces-foot"
        # the way out is in the panel's foot only, not in the shared row as well
        assert page.locator("[data-testid=leave]").count() == 1
        assert page.locator(f"{foot} [data-testid=leave]").inner_text() == "Ir al menú principal"
        assert page.locator("[data-testid=leave-game]").count() == 1
        assert page.locator(f"{foot} [data-testid=leave-game]").count() == 1
        page.check(f"{foot} [data-testid=fr-notify]")
        wait_until(lambda: page.evaluate("localStorage.getItem('dw.mine.notify')") == "1", "notifications switched on")

        page.click(f"{foot} [data-testid=leave]")
        page.wait_for_selector(f"[data-testid=mine-game-{frontera['room']}]")
        assert page.is_checked("[data-testid=mine-notify]"), "the menu's switch is the same setting"
        assert live_server.rooms[frontera["room"]].session is session, "going to the menu ended nothing"

        page.click(f"[data-testid=mine-open-{frontera['room']}]")
        page.wait_for_selector("[data-testid=game-screen][data-game=frontera]")
        assert page.inner_text(f"{foot} [data-testid=leave-game]") == "Abandonar la partida"
        page.click(f"{foot} [data-testid=leave-game]")
        assert "Tus territorios quedan sin dueño" in page.inner_text(f"{foot} .leave-game")  # it asks once
        page.click("[data-testid=leave-confirm]")
        page.wait_for_function("!location.hash.includes('token')")  # the page reopens the room as a spectator
        assert page.evaluate("JSON.parse(localStorage.getItem('dw.seats') || '[]').length") == 0
        wait_until(lambda: session.game.state.status[0] == ABANDONED, "seat 0 given up on the server (R-11.1)")
    finally:
        context.close()
