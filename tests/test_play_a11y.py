"""The browser game's accessibility and polish (issue 46, item 7): axe-core on every screen, keyboard play by
arrows, the screen reader's live announcements, the favicon, the seat loaders warmed at start.

axe-core comes from `.ci/run`'s npm step (tests/axe.py finds it; nothing is fetched at test time).
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from dw_env.engine import Game
from dw_env.record import Recorder
from play.server import warm_seat_loaders
from tests import board_play_helpers as board
from tests.axe import axe_violations
from tests.play_fixtures import LiveServer, needs_chromium, wait_until

pytestmark = needs_chromium
pytest_plugins = ["tests.play_fixtures"]

GAME = "[data-testid=game-screen]"
SMALL = {"land_radius": 1, "map_radius": 2}

#: every line the live region says from now on, kept in window.said (a MutationObserver: no polling, no timing)
LISTEN_JS = """() => {
  window.said = [];
  const el = document.querySelector('[data-testid=announcer]');
  new MutationObserver(() => window.said.push(el.textContent)).observe(el, {childList: true, characterData: true,
    subtree: true});
}"""


def start_small_game(pg: Any, server: LiveServer) -> None:
    pg.goto(server.url + "/")
    pg.wait_for_selector("[data-testid=menu]")
    for name, value in SMALL.items():
        pg.fill(f"[data-testid=opt-{name}]", str(value))
    pg.select_option("[data-testid=menu-ai-speed]", "instant")
    pg.click("[data-testid=play]")
    pg.wait_for_selector(f"{GAME}[data-ply='0'] .piece.movable")


def cursor_qr(pg: Any) -> tuple[int, int]:
    cell = pg.get_attribute("[data-testid=board-cursor]", "data-cell")
    q, r = pg.get_attribute(f".cell[data-cell='{cell}']", "data-qr").split(",")
    return int(q), int(r)


def test_axe_finds_nothing_serious_on_menu_game_tutorial_and_replays(page: Any, live_server: LiveServer) -> None:
    """No serious or critical axe violation on the menus, a game with a piece picked, the tutorial and a replay."""
    pg = page
    console_errors: list[str] = []
    pg.on("console", lambda msg: msg.type == "error" and console_errors.append(msg.text))
    found: dict[str, list[str]] = {}
    for route, ready in (
        ("/", "[data-testid=menu] [data-testid=play]"),
        ("/#alveole", "[data-testid=alveole-menu] [data-testid=play]"),
        ("/#conquer", "[data-testid=conquer-menu] [data-testid=play]"),
        ("/#tutorial", "[data-testid=tutorial-step][data-step='1']"),
    ):
        pg.goto(live_server.url + route)
        pg.wait_for_selector(ready)
        found[route] = axe_violations(pg)
    start_small_game(pg, live_server)
    pg.locator(".piece.movable").first.click()  # the game with everything on it: pieces, destinations, panels
    pg.wait_for_selector("[data-testid=destination]")
    found["game with a piece picked"] = axe_violations(pg)

    rec = Recorder(Game.new(land_radius=1, map_radius=2, max_rounds=3), ["random", "random", "random"])
    while not rec.game.over:
        rec.play(rec.game.legal_moves()[0])
    rid = live_server.app.state.manager.records.save(rec.record.to_dict(), "a11y")
    pg.goto(live_server.url + "/#replays")
    pg.wait_for_selector(f"[data-testid=replay-item][data-id='{rid}']")
    found["replays"] = axe_violations(pg)
    pg.click(f"[data-testid=replay-item][data-id='{rid}']")
    pg.wait_for_selector("[data-testid=replay][data-ply='0']")
    found["replay"] = axe_violations(pg)
    assert {k: v for k, v in found.items() if v} == {}
    # the favicon is there: a page load logs no error (a missing /favicon.ico used to)
    assert console_errors == []


def test_arrows_move_a_cursor_enter_plays_and_the_live_region_says_it(page: Any, live_server: LiveServer) -> None:
    """Keyboard play: → puts the cursor on your king, Enter picks it, arrows reach a destination, Enter moves there;
    the polite live region announces the move and the turns that follow."""
    pg = page
    start_small_game(pg, live_server)
    pg.keyboard.press("ArrowRight")  # the first arrow shows the cursor on your own king
    king = pg.get_attribute(".piece.king.p0", "data-cell")
    assert pg.get_attribute("[data-testid=board-cursor]", "data-cell") == king
    assert "rey" in pg.inner_text("[data-testid=announcer]").lower()
    pg.keyboard.press("Enter")
    pg.wait_for_selector(f".piece.selected[data-cell='{king}']")
    pg.wait_for_selector("[data-testid=destination]")
    q, r = (int(x) for x in pg.get_attribute("[data-testid=destination]", "data-qr").split(","))
    while cursor_qr(pg)[1] != r:  # rows first (up and down keep the column), then along the row
        pg.keyboard.press("ArrowUp" if cursor_qr(pg)[1] > r else "ArrowDown")
    while cursor_qr(pg)[0] != q:
        pg.keyboard.press("ArrowLeft" if cursor_qr(pg)[0] > q else "ArrowRight")
    pg.evaluate(LISTEN_JS)
    pg.keyboard.press("Enter")
    pg.wait_for_function("window.said.some((s) => s.includes('Tu turno'))")  # both AIs moved: your turn again
    said = pg.evaluate("window.said")
    first = pg.locator("[data-testid=log-entry]").last.inner_text()  # the log lists the newest first
    assert any(first.split(" ", 1)[1] in line for line in said), (first, said)
    assert any("Verde" in line for line in said), said  # the turns in between are announced too


def test_the_server_warms_the_loaders_of_the_seats_it_offers(live_server: LiveServer) -> None:
    """At start the server imports, in the background, the loaders of its network and search seats (torch's import
    would otherwise hold up the first room that seats one); a catalogue of scripted seats only imports nothing."""
    future = live_server.app.state.warm_up
    warmed = wait_until(lambda: future.done() and future.result(), "the seat loaders' warm-up")
    assert {"policies.domain_wheel.network_policy", "policies.search"} <= set(warmed)
    scripted_only = SimpleNamespace(entries=lambda game_id="domain_wheel": [SimpleNamespace(kind="scripted")])
    assert warm_seat_loaders(scripted_only) == []  # type: ignore[arg-type]


def test_arrows_and_enter_play_alveole_and_conquer(page: Any, live_server: LiveServer) -> None:
    """The two-player boards take the keyboard too: the first arrow shows the cursor (on a movable Alveole piece, at
    the Conquer board's centre), Enter picks the piece or places the dot there."""
    pg = page
    pg.goto(live_server.url + "/#conquer")
    pg.wait_for_selector("[data-testid=conquer-menu] [data-testid=play]")
    board.play_from_menu(
        pg, live_server, {"conquer-seat-kind-0": "human", "conquer-seat-kind-1": "random", "conquer-size": "9x9"}
    )
    pg.wait_for_selector("svg.conquer-board[data-interactive=true]")
    pg.keyboard.press("ArrowRight")  # the first arrow shows the cursor at the centre, (4, 4) on 9x9
    pg.keyboard.press("ArrowRight")
    assert pg.inner_text("[data-testid=announcer]") == "5,4"
    pg.keyboard.press("ArrowLeft")
    assert pg.inner_text("[data-testid=announcer]") == "4,4"
    pg.keyboard.press("Enter")
    pg.wait_for_selector("[data-testid=dot][data-xy='4,4'][data-colour='1']")

    pg.goto(live_server.url + "/#alveole")
    pg.wait_for_selector("[data-testid=alveole-menu] [data-testid=play]")
    board.play_from_menu(pg, live_server, {"alveole-seat-kind-0": "human", "alveole-seat-kind-1": "random"})
    pg.wait_for_selector("[data-testid=movable-piece]")
    pg.keyboard.press("ArrowDown")  # the first arrow shows the cursor on a movable piece
    start = pg.inner_text("[data-testid=announcer]")
    pg.keyboard.press("ArrowRight")
    assert pg.inner_text("[data-testid=announcer]") != start
    pg.keyboard.press("ArrowLeft")  # back along the row
    assert pg.inner_text("[data-testid=announcer]") == start
    pg.keyboard.press("Enter")
    pg.wait_for_selector(f"svg.alveole-board[data-selected='{start}']")
    assert pg.locator("[data-testid=destination]").count() > 0


def test_the_axe_version_is_the_one_ci_and_the_readme_install() -> None:
    """tests/axe.py, .ci/run and the README's test command pin the same axe-core, so no one tests another."""
    from tests.axe import AXE_VERSION

    root = Path(__file__).resolve().parents[1]
    assert f"AXE_VERSION={AXE_VERSION}\n" in (root / ".ci" / "run").read_text(encoding="utf-8")
    assert f"axe-core@{AXE_VERSION}" in (root / "README.md").read_text(encoding="utf-8")
