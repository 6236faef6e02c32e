"""The Alveole board in the browser (play/static/js/board/alveole.js, ui/alveole.js) against the real play server.

A human seat (driven by the test, which picks the heuristic seat's move on the room's engine so games stay
short) plays a whole game against the server's random AI: the page's movable pieces and destinations must
be the engine's, captures show in the log, and the end shows the reason and highlights the winning group.
"""

from __future__ import annotations

from typing import Any

import httpx

from alveole_env.engine import AlveoleGame
from alveole_env.geometry import CELLS
from policies.alveole import HeuristicSeat
from tests import board_play_helpers as board
from tests.play_fixtures import LiveServer, needs_chromium

pytestmark = needs_chromium
pytest_plugins = ["tests.play_fixtures"]


def qr(cell: int) -> str:
    return "{},{}".format(*CELLS[cell])


def open_alveole_room(pg: Any, server: LiveServer, rival: str = "random") -> tuple[str, AlveoleGame]:
    pg.goto(server.url + "/")
    pg.click("[data-testid=menu-alveole]")
    pg.wait_for_selector("[data-testid=alveole-menu]")
    return board.play_from_menu(pg, server, {"alveole-seat-kind-0": "human", "alveole-seat-kind-1": rival})


def test_alveole_menu_offers_the_servers_seats_in_spanish_and_english(page: Any, live_server: LiveServer) -> None:
    pg = page
    pg.goto(live_server.url + "/#alveole")
    pg.wait_for_selector("[data-testid=alveole-menu]")
    names = pg.eval_on_selector_all("[data-testid=alveole-seat-kind-1] option", "os => os.map(o => o.textContent)")
    assert names[0] == "Humano" and names[1].startswith("Nivel 1") and "Aleatoria" in names  # levels first
    assert "seis direcciones" in pg.inner_text("[data-testid=alveole-rules]")
    pg.click("[data-testid=lang-switch]")
    pg.wait_for_function("document.documentElement.lang === 'en'")
    pg.goto(live_server.url + "/#alveole")
    pg.wait_for_selector("[data-testid=alveole-menu]")
    assert "six directions" in pg.inner_text("[data-testid=alveole-rules]")
    menu = httpx.get(live_server.url + "/api/menu", timeout=30).json()
    alveole = next(g for g in menu["games"] if g["id"] == "alveole")
    assert [s["id"] for s in alveole["strategies"]] == ["random", "heuristic"]
    pg.click("[data-testid=lang-switch]")  # leave the next tests in Spanish


def test_a_human_plays_a_whole_game_against_the_ai(page: Any, live_server: LiveServer) -> None:
    pg = page
    room, game = open_alveole_room(pg, live_server)
    assert "Tu turno" in pg.inner_text("[data-testid=turn-banner]")
    assert pg.locator("[data-testid=alveole-board] .alv-cell").count() == 61
    assert pg.locator(".alv-piece.p0").count() == pg.locator(".alv-piece.p1").count() == 9
    chooser = HeuristicSeat(seed=0)
    checked_all = False
    for ply in board.human_turns(pg, 150):
        assert board.shown(pg, "movable-piece", "qr") == {qr(m.src) for m in game.legal_moves()}
        if not checked_all:  # once: every movable piece's destinations are the engine's
            checked_all = True
            for cell in sorted({m.src for m in game.legal_moves()}):
                pg.click(f"[data-testid=movable-piece][data-qr='{qr(cell)}']")
                pg.wait_for_selector(f"[data-testid=alveole-board][data-selected='{qr(cell)}']")
                dests = pg.eval_on_selector_all(
                    "[data-testid=destination]", "ds => ds.map(d => [d.dataset.qr, d.dataset.kind])"
                )
                expected = {qr(d): ("capture" if m.capture else "move") for d, m in game.destinations(cell).items()}
                assert dict(dests) == expected
        action = chooser.act(game.copy(), 0)
        move = next(m for m in game.legal_moves() if m.action == action)
        if pg.get_attribute("[data-testid=alveole-board]", "data-selected") != qr(move.src):
            pg.click(f"[data-testid=movable-piece][data-qr='{qr(move.src)}']")
            pg.wait_for_selector(f"[data-testid=alveole-board][data-selected='{qr(move.src)}']")
        pg.click(f"[data-testid=destination][data-qr='{qr(move.dst)}']")
        board.wait_state(pg, f"Number(d.ply) > {ply} && (d.over === 'true' || d.turn === '0')")
    assert game.over, "the game did not end within 150 human moves"
    board.wait_state(pg, "d.over === 'true'")
    reason = pg.inner_text("[data-testid=game-over-reason]")
    assert reason.strip()
    winner = game.winners[0]
    name = ["Negras", "Blancas"][winner]
    assert name in reason
    group = game.groups(winner)[0]
    winning = set(pg.eval_on_selector_all("[data-testid=winning-piece]", "ps => ps.map(p => p.dataset.qr)"))
    assert winning == {qr(c) for c in group}
    log = pg.locator("[data-testid=log-entry]")
    assert log.count() == min(game.ply, 40)
    record = live_server.rooms[room].session.record()
    assert record["format"] == "alveole-record-v1" and record["result"]["winners"] == [winner]
    captures = [e for e in live_server.rooms[room].session.log if e["capture"]]
    if captures:
        assert pg.locator("[data-testid=log-entry].capture").count() >= 1
    assert pg.locator("[data-testid=movable-piece]").count() == 0  # nothing is clickable after the end


def test_a_finished_game_replays_in_the_replay_viewer(page: Any, live_server: LiveServer) -> None:
    pg = page
    seats = [{"type": "ai", "strategy": "random"}] * 2
    body = {"game": "alveole", "options": {"max_plies": 30}, "seats": seats, "ai_speed": "instant"}
    room = board.spectate_ai_game(pg, live_server, body, "[data-testid=movable-piece]")
    game = room.session.game
    board.open_replay(pg, live_server, room, "alveole")
    assert pg.locator(".alv-piece").count() == 18
    pg.keyboard.press("End")
    pg.wait_for_selector(f"[data-testid=replay][data-ply='{game.ply}']")
    assert pg.locator(".alv-piece").count() == game.num_pieces(0) + game.num_pieces(1)
    winning = set(pg.eval_on_selector_all("[data-testid=winning-piece]", "ps => ps.map(p => p.dataset.qr)"))
    assert winning == ({qr(c) for c in game.groups(game.winners[0])[0]} if game.winners else set())
    if game.truncated:
        assert "sin ganador" in pg.inner_text("[data-testid=turn-banner]")
    pg.keyboard.press("ArrowLeft")
    pg.wait_for_selector(f"[data-testid=replay][data-ply='{game.ply - 1}']")
    assert pg.locator("[data-testid=winning-piece]").count() == 0
