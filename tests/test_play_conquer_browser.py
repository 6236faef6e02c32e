"""The Conquer board in the browser (play/static/js/board/conquer.js, ui/conquer.js) against the real play server.

A human seat (driven by the test, which picks the heuristic seat's move on the room's engine) plays a whole
9 x 9 game against the server's random AI: the clickable points must be the engine's legal points, the pass
button must pass (and the AI's placement declines the offer, rule R-9.2), captures must show as rings, shaded
territory and dead dots, both methods' scores must be the engine's, and the end must show its reason.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from conquer_env.engine import ConquerGame
from policies.conquer import HeuristicSeat
from tests import board_play_helpers as board
from tests.play_fixtures import LiveServer, needs_chromium

pytestmark = needs_chromium
pytest_plugins = ["tests.play_fixtures"]


def xy(game: ConquerGame, action: int) -> str:
    return f"{action % game.width},{action // game.width}"


def test_conquer_menu_in_spanish_and_english(page: Any, live_server: LiveServer) -> None:
    pg = page
    pg.goto(live_server.url + "/")
    pg.click("[data-testid=menu-conquer]")
    pg.wait_for_selector("[data-testid=conquer-menu]")
    assert "anillo" in pg.inner_text("[data-testid=conquer-rules]")
    names = pg.eval_on_selector_all("[data-testid=conquer-seat-kind-1] option", "os => os.map(o => o.textContent)")
    assert names[0] == "Humano" and names[1].startswith("Nivel 1")  # the levels first, then the own AIs
    assert names.index("Aleatoria") + 1 == names.index("Heurística")
    assert pg.input_value("[data-testid=conquer-seat-kind-1]") == "heuristic", "the strongest own AI by default"
    sizes = pg.eval_on_selector_all("[data-testid=conquer-size] option", "os => os.map(o => o.value)")
    assert sizes == ["9x9", "15x15", "19x19", "39x32"]
    pg.click("[data-testid=lang-switch]")
    pg.wait_for_function("document.documentElement.lang === 'en'")
    pg.goto(live_server.url + "/#conquer")
    pg.wait_for_selector("[data-testid=conquer-menu]")
    assert "ring" in pg.inner_text("[data-testid=conquer-rules]")
    pg.click("[data-testid=lang-switch]")  # leave the next tests in Spanish
    pg.goto(live_server.url + "/#conquer")
    pg.wait_for_selector("[data-testid=conquer-menu]")
    choices = {"conquer-seat-kind-0": "human", "conquer-seat-kind-1": "random", "conquer-size": "19x19"}
    _, game = board.play_from_menu(pg, live_server, choices)  # rule 2.1: any W x H in 2..64, Go's 19 x 19 offered
    assert (game.width, game.height) == (19, 19)
    pg.wait_for_selector("[data-testid=legal-point][data-xy='18,18']")


def test_a_human_plays_a_whole_9x9_game_against_the_ai(page: Any, live_server: LiveServer) -> None:
    pg = page
    pg.goto(live_server.url + "/#conquer")
    pg.wait_for_selector("[data-testid=conquer-menu]")
    choices = {"conquer-seat-kind-0": "human", "conquer-seat-kind-1": "random", "conquer-size": "9x9"}
    room, game = board.play_from_menu(pg, live_server, choices)
    assert (game.width, game.height) == (9, 9)
    assert "Tu turno" in pg.inner_text("[data-testid=turn-banner]")
    chooser = HeuristicSeat(seed=0)
    passed = False
    for ply in board.human_turns(pg, 120):
        assert board.shown(pg, "legal-point", "xy") == {xy(game, int(p)) for p in game.legal_points()}
        for p in (0, 1):
            assert pg.get_attribute(f"[data-testid=score-dots-{p}]", "data-value") == str(game.dots_scores()[p])
            assert pg.get_attribute(f"[data-testid=score-territory-{p}]", "data-value") == str(
                game.territory_scores()[p]
            )
        assert pg.locator("[data-testid=territory]").count() == int(np.count_nonzero(game.owner))
        assert pg.locator("[data-testid=dead-dot]").count() == int(game.dead_mask(0).sum() + game.dead_mask(1).sum())
        if not passed and ply >= 6:  # a pass is an offer to stop; the random AI's placement declines it
            passed = True
            pg.click("[data-testid=pass]")
            board.wait_state(pg, f"Number(d.ply) >= {ply + 2} || d.over === 'true'")
            assert not game.over and game.passes == 0
            continue
        action = chooser.act(game.copy(), 0)
        if action == game.pass_action:
            pg.click("[data-testid=pass]")
        else:
            pg.click(f"[data-testid=legal-point][data-xy='{xy(game, action)}']")
        board.wait_state(pg, f"Number(d.ply) > {ply} && (d.over === 'true' || d.turn === '0')")
    assert game.over, "the game did not end within 120 human moves"
    board.wait_state(pg, "d.over === 'true'")
    reason = pg.inner_text("[data-testid=game-over-reason]")
    assert {"board_full": "lleno", "two_passes": "pasado"}[game.end_reason] in reason
    if game.winners:
        assert ["Rojo", "Azul"][game.winners[0]] in reason
    assert game.dots_scores()[0] > game.dots_scores()[1], "the heuristic's captures should lead on dots"
    view = live_server.rooms[room].session.view()
    assert pg.locator("[data-testid=ring-link]").count() == len(view["rings"]) > 0
    assert pg.locator("[data-testid=legal-point]").count() == 0  # nothing is clickable after the end
    record = live_server.rooms[room].session.record()
    assert record["format"] == "conquer-record-v1" and record["result"]["winners"] == game.winners
    assert pg.locator("[data-testid=log-entry].capture").count() >= 1


def test_a_finished_ai_game_replays_in_the_replay_viewer(page: Any, live_server: LiveServer) -> None:
    pg = page
    seats = [{"type": "ai", "strategy": "heuristic"}, {"type": "ai", "strategy": "random"}]
    body = {"game": "conquer", "options": {"width": 9, "height": 9}, "seats": seats, "ai_speed": "instant", "seed": 1}
    room = board.spectate_ai_game(pg, live_server, body, "[data-testid=legal-point]")
    game: ConquerGame = room.session.game
    board.open_replay(pg, live_server, room, "conquer")
    assert pg.locator(".cq-dot").count() == 0
    pg.keyboard.press("End")
    pg.wait_for_selector(f"[data-testid=replay][data-ply='{game.ply}']")
    assert pg.locator(".cq-dot").count() == int(np.count_nonzero(game.dots))
    assert pg.locator("[data-testid=territory]").count() == int(np.count_nonzero(game.owner))
    assert "Gana Heurística" in pg.inner_text("[data-testid=turn-banner]")
    pg.keyboard.press("ArrowLeft")
    pg.wait_for_selector(f"[data-testid=replay][data-ply='{game.ply - 1}']")
    assert pg.locator(".cq-dot").count() == int(np.count_nonzero(game.dots)) - 1
