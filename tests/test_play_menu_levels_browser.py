"""The menu's difficulty levels in the browser (issue 46 item 3): offered first with their ratings, and a game
started with "Nivel 2" seats that level's strategy under that name."""

from __future__ import annotations

from typing import Any

import httpx

from policies.conquer import HeuristicSeat
from tests import board_play_helpers as board
from tests.play_fixtures import LiveServer, needs_chromium

pytestmark = needs_chromium
pytest_plugins = ["tests.play_fixtures"]


def test_conquer_menu_offers_levels_and_level_2_seats_its_strategy(page: Any, live_server: LiveServer) -> None:
    pg = page
    menu = httpx.get(live_server.url + "/api/menu", timeout=30).json()
    levels = next(g for g in menu["games"] if g["id"] == "conquer")["levels"]
    pg.goto(live_server.url + "/#conquer")
    pg.wait_for_selector("[data-testid=conquer-menu]")
    texts = pg.eval_on_selector_all("[data-testid=conquer-seat-kind-1] option", "os => os.map(o => o.textContent)")
    shown = texts[1 : 1 + len(levels)]
    for text, level in zip(shown, levels, strict=True):  # right after Humano, easiest first, with the rating
        assert text.startswith(f"Nivel {level['level']}"), texts
        rated = level["rating"]
        assert text == (f"Nivel {level['level']}" if rated is None else f"Nivel {level['level']} · {rated['rating']}")
    assert "reglas simples" in pg.inner_text("[data-testid=conquer-seat-card-1]")  # the heuristic AI, described
    second = levels[1]
    pg.select_option("[data-testid=conquer-seat-kind-1]", second["id"])
    card = pg.inner_text("[data-testid=conquer-seat-card-1]")
    assert second["description"]["es"] in card
    choices = {"conquer-seat-kind-0": "human", "conquer-seat-kind-1": second["id"], "conquer-size": "9x9"}
    room, _ = board.play_from_menu(pg, live_server, choices)
    seat = live_server.rooms[room].seats[1]
    assert seat.strategy == second["id"] and isinstance(seat.policy, HeuristicSeat)
    assert "Nivel 2" in pg.inner_text("[data-testid=seat-card-1]")  # the name picked is the name shown
