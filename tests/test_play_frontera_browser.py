"""Frontera in Chromium (play/static/js/board/frontera.js, ui/frontera.js) against the real play server.

A whole 3-player game on the small map from the menu: the human seat deploys, attacks once (the targets lit are
the engine's, the dice shown are the roll's), adjusts a conquest if it makes one, regroups and ends its turn
through the page; in its later turns it places its reinforcements and ends the turn, until the two scripted AIs
finish the game and the page shows the winner. Then a fogged game on a phone-sized page whose websocket frames
(read from the page's own socket) never carry the owner or armies of a territory the seat cannot see (R-13.4).
The test picks territories from the room's live engine; every wait is a condition with a generous safety net.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from frontera_env.view import UNKNOWN
from tests import board_play_helpers as board
from tests.play_fixtures import LiveServer, needs_chromium, wait_until

pytestmark = needs_chromium
pytest_plugins = ["tests.play_fixtures"]
MAX_TURNS = 60


def territory(pg: Any, t: int) -> Any:
    return pg.locator(f'[data-testid=territory][data-t="{t}"] polygon[data-capital]')


def front(game: Any, seat: int) -> list[int]:
    st = game.state
    return [
        t for t in range(game.ctx.n) if st.owner[t] == seat and any(st.owner[u] != seat for u in game.ctx.neighbours[t])
    ]


def my_turn(game: Any) -> bool:
    return bool(game.over or (game.current == 0 and game.phase in ("reinforce", "forced")))


def reinforce(pg: Any, game: Any) -> None:
    """Trade when the hand is full (R-4.3), then place every reinforcement on the strongest frontier (Shift+click)."""
    if len(game.state.hand_of(0)) >= 5:
        pg.locator("[data-testid=fr-trade]").first.click()
        wait_until(lambda: len(game.state.hand_of(0)) < 5, "the forced trade")
    if game.state.pool:
        best = max(front(game, 0), key=lambda t: int(game.state.armies[t]))
        territory(pg, best).click(modifiers=["Shift"])
        wait_until(lambda: game.state.pool == 0, "the reinforcements' placement")


def first_turn(pg: Any, game: Any, session: Any) -> None:
    """Attack once by two clicks, adjust a conquest, regroup once and end the turn, all through the page."""
    st = game.state
    source = max(front(game, 0), key=lambda t: int(st.armies[t]))
    board.wait_state(pg, "d.phase === 'reinforce' || d.phase === 'attack'")
    territory(pg, source).click()
    lit = {int(x) for x in pg.eval_on_selector_all(".fr-territory.lit", "gs => gs.map(g => g.dataset.t)")}
    assert lit == {u for u in game.ctx.neighbours[source] if st.owner[u] != 0}  # enemy neighbours
    target = min(lit, key=lambda u: int(st.armies[u]))
    ply = session.ply
    territory(pg, target).click()
    wait_until(lambda: session.ply > ply, "the attack")
    roll = st.last_roll
    dice = sorted([int(d) for d in roll[4:7] if d] + [int(d) for d in roll[7:10] if d])
    pg.wait_for_selector("[data-testid=fr-dice]:not([hidden])")
    shown = pg.eval_on_selector_all("[data-testid=fr-die]", "ds => ds.map(d => Number(d.textContent))")
    assert sorted(shown) == dice
    if game.phase == "window":
        pg.wait_for_selector("[data-testid=fr-window]:not([hidden])")
        assert "Cupo" in pg.inner_text("[data-testid=fr-quota]")
        pg.click("[data-testid=fr-occupy]")
        wait_until(lambda: game.phase != "window", "the adjust window's close")
    pg.click("[data-testid=fr-end-attack]")
    wait_until(lambda: game.phase == "regroup", "the regroup phase")
    board.wait_state(pg, "d.phase === 'regroup'")
    src = max((t for t in range(game.ctx.n) if st.owner[t] == 0), key=lambda t: int(st.armies[t]))
    territory(pg, src).click()
    lit = [int(x) for x in pg.eval_on_selector_all(".fr-territory.lit", "gs => gs.map(g => g.dataset.t)")]
    if lit:
        before = int(st.moves_left)
        territory(pg, lit[0]).click()
        wait_until(lambda: st.moves_left == before - 1, "the regroup move")
    pg.click("[data-testid=fr-end-turn]")


def test_a_whole_three_player_game_against_two_scripted_ais_through_the_page(
    page: Any, live_server: LiveServer
) -> None:
    pg = page
    pg.goto(live_server.url + "/#frontera")
    pg.wait_for_selector("[data-testid=frontera-menu]")
    assert "70 %" in pg.inner_text("[data-testid=frontera-rules]")
    choices = {
        "frontera-players": "3",
        "frontera-map": "small",
        "frontera-seat-kind-0": "human",
        "frontera-seat-kind-1": "expansionist",
        "frontera-seat-kind-2": "continental",
    }
    room, game = board.play_from_menu(pg, live_server, choices)
    session = live_server.rooms[room].session
    assert game.state.players == 3 and game.ctx.n == 35
    assert pg.locator("[data-testid=region-name]").count() == 6 and pg.locator("[data-testid=sea-link]").count() > 0
    mine = front(game, 0)[0]
    territory(pg, mine).click()
    wait_until(lambda: session.game.state.placed[0, mine] == 1, "one provisional army")
    territory(pg, mine).click(button="right")  # take it back
    wait_until(lambda: session.game.state.placed[0, mine] == 0, "the army taken back")
    territory(pg, mine).click(modifiers=["Shift"])  # all at once
    wait_until(lambda: game.state.deploy_left[0] == 0, "the whole deployment")
    pg.click("[data-testid=fr-ready]")
    wait_until(lambda: my_turn(game), "the human's first turn")
    reinforce(pg, game)
    first_turn(pg, game, session)
    for _ in range(MAX_TURNS):
        wait_until(lambda: game.state.current != 0 or game.over, "the end of the human's turn")
        wait_until(lambda: my_turn(game), "the human's next turn")
        if game.over:
            break
        reinforce(pg, game)
        board.wait_state(pg, "d.phase === 'reinforce' || d.phase === 'attack'")
        pg.click("[data-testid=fr-end-turn]")
    assert game.over, f"the game did not end within {MAX_TURNS} of the human's turns"
    pg.wait_for_selector("[data-testid=game-over-panel]:not([hidden])")
    assert pg.inner_text("[data-testid=game-over-reason]").startswith("¡Gana")
    wait_until(lambda: live_server.rooms[room].record_id, "the saved record")


def hidden_leaks(frame: dict[str, Any], layout: dict[str, Any]) -> list[str]:
    """Return what a frame shows of territories outside its seat's sight: owner or armies (R-13.4)."""
    views = [frame["state"]] if frame.get("type") in ("welcome", "state") else []
    leaks = []
    for view in views:
        st, seat = view["state"], view["seat"]
        mine = {t for t, o in enumerate(st["owner"]) if o == seat}
        near = mine | {u for t in mine for u in layout["territories"][t]["land"] + layout["territories"][t]["sea"]}
        leaks += [
            f"ply {view['ply']}: territory {t}"
            for t in range(len(st["owner"]))
            if t not in near and (st["owner"][t] != UNKNOWN or st["armies"][t] != 0)
        ]
        # another seat's provisional placements and traded cards are its own
        leaks += [
            f"log entry {e}"
            for e in view["log"]
            if e["seat"] != seat and (e["kind"] in ("place", "take_back") or "cards" in e)
        ]
    return leaks


def test_a_fogged_game_on_a_phone_never_receives_a_hidden_territorys_owner_or_armies(
    page: Any, live_server: LiveServer
) -> None:
    pg = page
    pg.set_viewport_size({"width": 390, "height": 844})
    frames: list[dict[str, Any]] = []
    pg.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(json.loads(payload))))
    seats = [{"type": "human"}, {"type": "ai", "strategy": "expansionist"}, {"type": "ai", "strategy": "aggressor"}]
    body = {
        "game": "frontera",
        "options": {"map": "small", "players": 3, "fog": True},
        "seats": seats,
        "ai_speed": "instant",
        "seed": 4,
    }
    answer = httpx.post(live_server.url + "/api/rooms", json=body, headers={"origin": live_server.url}, timeout=30)
    assert answer.status_code == 201, answer.text
    room = answer.json()
    game = live_server.rooms[room["room"]].session.game
    pg.goto(live_server.url + room["seats"][0]["link"])
    board.wait_state(pg, "d.phase === 'setup'")
    fogged = [
        t
        for t, v in enumerate(game.state.owner)
        if not any(o == 0 for o in [v, *(game.state.owner[u] for u in game.ctx.neighbours[t])])
    ]
    assert fogged, "a fogged small map hides some territories from every seat"
    assert all(pg.locator(f'[data-testid=army][data-t="{t}"]').is_hidden() for t in fogged)
    assert pg.evaluate("document.documentElement.scrollWidth") <= 390  # usable upright on a phone, no side scroll
    territory(pg, front(game, 0)[0]).click(modifiers=["Shift"])
    pg.click("[data-testid=fr-ready]")
    wait_until(lambda: my_turn(game), "the human's first turn")
    reinforce(pg, game)
    board.wait_state(pg, "d.phase === 'reinforce' || d.phase === 'attack'")
    pg.click("[data-testid=fr-end-turn]")
    wait_until(lambda: my_turn(game) and game.state.turn_index > 3, "the human's second turn")
    board.wait_state(pg, f"Number(d.ply) >= {live_server.rooms[room['room']].session.ply}")
    layout = next(f["layout"] for f in frames if f.get("type") == "welcome")
    states = [f for f in frames if f.get("type") in ("welcome", "state")]
    assert len(states) > 10 and all(f["state"]["seat"] == 0 for f in states)
    assert [leak for f in frames for leak in hidden_leaks(f, layout)] == []
