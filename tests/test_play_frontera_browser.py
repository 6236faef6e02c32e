"""Frontera in Chromium (play/static/js/board/frontera.js, ui/frontera.js) against the real play server.

A fogged 3-player game against two scripted AIs on a phone-sized page, played through the page (deployment
with Shift, "Estoy listo", reinforcements, end of turn), whose websocket frames (read from the page's own
socket) never carry the owner or armies of a territory the seat cannot see (R-13.4).
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


def territory(pg: Any, t: int) -> Any:
    return pg.locator(f'[data-testid=territory][data-t="{t}"] polygon[data-capital]')


def front(game: Any, seat: int) -> list[int]:
    st = game.state
    return [
        t for t in range(game.ctx.n) if st.owner[t] == seat and any(st.owner[u] != seat for u in game.ctx.neighbours[t])
    ]


def synced(pg: Any, session: Any) -> None:
    """Wait until the page shows the room's current ply (a click before that would act on an older view)."""
    board.wait_state(pg, f"Number(d.ply) >= {session.ply}")


def my_turn(game: Any) -> bool:
    return bool(game.over or (game.current == 0 and game.phase in ("reinforce", "forced")))


def reinforce(pg: Any, session: Any) -> None:
    """Trade when the hand is full (R-4.3), then place every reinforcement on the strongest frontier (Shift+click)."""
    game = session.game
    synced(pg, session)
    if len(game.state.hand_of(0)) >= 5:
        pg.locator("[data-testid=fr-trade]").first.click()
        wait_until(lambda: len(game.state.hand_of(0)) < 5, "the forced trade")
        synced(pg, session)
    if game.state.pool:
        best = max(front(game, 0), key=lambda t: int(game.state.armies[t]))
        territory(pg, best).click(modifiers=["Shift"])
        wait_until(lambda: game.state.pool == 0, "the reinforcements' placement")
    synced(pg, session)


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
    session = live_server.rooms[room["room"]].session
    reinforce(pg, session)
    pg.click("[data-testid=fr-end-turn]")
    wait_until(lambda: my_turn(game) and game.state.turn_index > 3, "the human's second turn")
    synced(pg, session)
    layout = next(f["layout"] for f in frames if f.get("type") == "welcome")
    states = [f for f in frames if f.get("type") in ("welcome", "state")]
    assert len(states) > 10 and all(f["state"]["seat"] == 0 for f in states)
    assert [leak for f in frames for leak in hidden_leaks(f, layout)] == []
