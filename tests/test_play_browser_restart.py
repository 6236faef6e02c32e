"""The page across a server restart (docs/PLAY.md, "Rooms that survive a restart"), in headless Chromium.

The play server runs in-process on a room database; it is stopped mid-game and started again on the same port.
On the same database the page says the game was restored and play goes on; on an empty one it says the room no
longer exists, offers the way back to the menu, and its board takes no clicks. Every wait is bounded.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.play_fixtures import LiveServer, needs_chromium
from tests.test_play_browser import GAME, SMALL, select_first_piece, start_from_menu, wait_state

pytestmark = needs_chromium
pytest_plugins = ["tests.play_fixtures"]
STATUS = "[data-testid=conn-status]"


def move_once(pg: Any, ply: int) -> None:
    """Move the first movable piece to its first destination; wait for the AIs' answers (instant speed)."""
    select_first_piece(pg)
    pg.locator("[data-testid=destination]").first.click()
    wait_state(pg, f"d.ply === '{ply + 3}' && d.turn === '0'")


def test_a_server_restart_mid_game_restores_the_game_and_play_goes_on(page: Any, tmp_path: Path) -> None:
    pg, db = page, tmp_path / "rooms.sqlite3"
    first = LiveServer(tmp_path / "records", db=db).start().warm_up()
    try:
        room = start_from_menu(pg, first, SMALL)
        move_once(pg, 0)
    finally:
        first.stop()
    pg.wait_for_function(f"document.querySelector('{STATUS}').dataset.state === 'reconnecting'")
    assert pg.get_attribute(GAME, "data-conn") == "reconnecting"  # no live-looking board while the line is down
    second = LiveServer(tmp_path / "records", db=db, port=first.port).start()
    try:
        pg.wait_for_function(f"document.querySelector('{STATUS}').dataset.state === 'restored'")
        assert pg.inner_text(STATUS) == "El servidor se reinició: partida restaurada"
        assert pg.get_attribute(GAME, "data-conn") == "live"
        assert second.rooms[room].session.ply == 3
        move_once(pg, 3)
        assert second.rooms[room].session.ply == 6
    finally:
        second.stop()
    empty = LiveServer(tmp_path / "records", db=tmp_path / "other.sqlite3", port=first.port).start()
    try:
        pg.wait_for_function(f"document.querySelector('{STATUS}').dataset.state === 'gone'")
        assert "Esta sala ya no existe" in pg.inner_text(STATUS)
        assert pg.get_attribute(GAME, "data-conn") == "gone"
        pg.click("[data-testid=back-to-menu]")
        pg.wait_for_selector("[data-testid=menu]")
    finally:
        empty.stop()
