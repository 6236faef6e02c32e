"""Frontera in Chromium (play/static/js/board/frontera.js, ui/frontera.js) against the real play server.

- A whole 3-player game on the small map against two scripted aggressors (room seed 9: the game ends after
  six of the human's turns, with one forced trade), played through the page: deployment with undo and Shift,
  "Estoy listo", reinforcements, blitz attacks by two clicks with the dice shown, the adjust window, one regroup,
  "Terminar turno", the forced trade at five cards, until the page shows the winner.
- "Terminar turno" pressed while a room message redraws the page between press and release still ends the turn
  (a redraw used to move the button out of the page and back, and Chromium drops such a click).
- The hidden deployment (R-2.7, R-13.2) in two browser contexts: the second player's screen and websocket frames
  never show the first's placements before both are ready, and show them after.
- The turn clock (R-12) with the page's clock and the server's both moved by the test, never waited for: the
  clock turns red in its last minute, and at the deadline the automatic deployment and the pass appear.
- A fogged game on a phone-sized page whose websocket frames never carry the owner or armies of a territory the
  seat cannot see (R-13.4).

The tests pick territories from the room's live engine; every wait is a condition with a generous safety net.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from frontera_env.actions import Blitz, Regroup
from frontera_env.view import UNKNOWN
from tests import board_play_helpers as board
from tests.play_fixtures import TIMEOUT_MS, WAIT_S, LiveServer, needs_chromium, wait_until

pytestmark = needs_chromium
pytest_plugins = ["tests.play_fixtures"]
#: the whole game's seed and seats: it ends in six of the human's turns, one of them with a forced trade
WHOLE_GAME_SEED = 9
MAX_TURNS = 40
HOUR = 3600
SPANISH = Path(__file__).parents[1] / "play/static/i18n/es.json"


def spanish(key: str, **params: Any) -> str:
    """Return the page's Spanish text of i18n ``key`` (the page's default language) with ``params`` filled in."""
    text: str = json.loads(SPANISH.read_text(encoding="utf-8"))[key]
    for name, value in params.items():
        text = text.replace("{" + name + "}", str(value))
    return text


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


def lit(pg: Any) -> set[int]:
    return {int(x) for x in pg.eval_on_selector_all(".fr-territory.lit", "gs => gs.map(g => g.dataset.t)")}


def shown_armies(pg: Any, t: int) -> str:
    return str(pg.get_attribute(f'[data-testid=army][data-t="{t}"]', "data-armies"))


def create_room(server: LiveServer, seats: list[dict[str, Any]], **body: Any) -> tuple[dict[str, Any], Any]:
    """Create a Frontera room on the small map (``body`` adds to POST /api/rooms); return its answer and session."""
    options = {"map": "small", "players": len(seats), **body.pop("options", {})}
    answer = httpx.post(
        server.url + "/api/rooms",
        json={"game": "frontera", "options": options, "seats": seats, "ai_speed": "instant", **body},
        headers={"origin": server.url},
        timeout=30,
    )
    assert answer.status_code == 201, answer.text
    room = answer.json()
    return room, server.rooms[room["room"]].session


HUMAN = {"type": "human"}
AGGRESSOR = {"type": "ai", "strategy": "aggressor"}


def reinforce(pg: Any, session: Any) -> None:
    """Trade when the hand is full (R-4.3), then place every reinforcement on the strongest frontier (Shift+click)."""
    game = session.game
    synced(pg, session)
    if len(game.state.hand_of(0)) >= 5:
        assert pg.inner_text("[data-testid=fr-forced-trade]") == spanish("frontera.forced_trade")
        pg.locator("[data-testid=fr-trade]").first.click()
        wait_until(lambda: len(game.state.hand_of(0)) < 5, "the forced trade")
        synced(pg, session)
    if game.state.pool:
        best = max(front(game, 0), key=lambda t: int(game.state.armies[t]))
        territory(pg, best).click(modifiers=["Shift"])
        wait_until(lambda: game.state.pool == 0, "the reinforcements' placement")
    synced(pg, session)


def set_range(pg: Any, testid: str, value: int) -> None:
    """Move a range input to ``value`` as a player's drag does (its ``input`` event)."""
    pg.eval_on_selector(
        f"[data-testid={testid}]",
        "(r, v) => { r.value = String(v); r.dispatchEvent(new Event('input', { bubbles: true })); }",
        value,
    )


def blitz(pg: Any, session: Any, checks: bool, leave_open: bool = False) -> tuple[int, int] | None:
    """Blitz from the strongest edge over the weakest enemy beside it if it has two armies more; adjust a conquest.

    The garrison is always the window's upper bound. With ``leave_open`` the window is left open at that value for
    the caller's next action to close (R-6.2: any other action closes it keeping the value set); return the
    conquered territory and that value if it was left open.
    """
    game, st = session.game, session.game.state
    moves = [a for a in game.legal_actions() if isinstance(a, Blitz)]
    if not moves:
        return None
    move = max(moves, key=lambda a: int(st.armies[a.source]) - int(st.armies[a.target]))
    if st.armies[move.source] <= st.armies[move.target] + 1:
        return None
    if checks:  # a right click outside the deployment does nothing: it neither selects nor attacks
        ply = session.ply
        territory(pg, move.source).click(button="right")
        territory(pg, move.target).click(button="right")
        assert session.ply == ply and pg.locator(".fr-territory.selected").count() == 0
    pg.check("[data-testid=fr-blitz]")
    territory(pg, move.source).click()
    if checks:  # the lit targets are the enemy neighbours
        assert lit(pg) == {u for u in game.ctx.neighbours[move.source] if st.owner[u] != 0}
    ply = session.ply
    territory(pg, move.target).click()
    wait_until(lambda: session.ply > ply, "the attack")
    synced(pg, session)
    if checks:  # the last roll's dice, both sides', sorted and paired
        roll = st.last_roll
        dice = sorted([int(d) for d in roll[4:7] if d] + [int(d) for d in roll[7:10] if d])
        shown = pg.eval_on_selector_all("[data-testid=fr-die]", "ds => ds.map(d => Number(d.textContent))")
        assert sorted(shown) == dice
    if game.phase == "window":  # the slider opens on the armies that crossed (a), and goes up to hi
        _, target, crossed, _, hi = (int(x) for x in st.window)
        assert pg.inner_text("[data-testid=fr-quota]").startswith(spanish("frontera.window_help").split("{")[0])
        assert pg.get_attribute("[data-testid=fr-occupy-count]", "value") == str(crossed)
        assert pg.inner_text("[data-testid=fr-occupy-value]") == str(crossed)
        set_range(pg, "fr-occupy-count", hi)
        assert pg.inner_text("[data-testid=fr-occupy-value]") == str(hi)
        if leave_open:
            assert pg.is_visible("[data-testid=fr-end-attack]")  # the window does not hold the turn up
            return target, hi
        pg.click("[data-testid=fr-occupy]")
        wait_until(lambda: game.phase != "window", "the adjust window's close")
        synced(pg, session)
    return None


def regroup(pg: Any, session: Any) -> bool:
    """Move all but one army of the strongest inner territory to the first frontier it reaches; return if it did."""
    game, st = session.game, session.game.state
    edge = front(game, 0)
    inner = [t for t in range(game.ctx.n) if st.owner[t] == 0 and st.armies[t] >= 2 and t not in edge]
    moves = [a for a in game.legal_actions() if isinstance(a, Regroup) and a.source in inner and a.dest in edge]
    if not moves:
        return False
    src = max(inner, key=lambda t: (int(st.armies[t]), -t))
    dests = sorted({a.dest for a in moves if a.source == src})
    if not dests:
        return False
    territory(pg, src).click()
    assert lit(pg) >= set(dests)  # every own territory it reaches through own ones
    left = int(st.moves_left)
    territory(pg, dests[0]).click()  # the origin, the destination, then how many go (the rules page, "Reagrupe")
    pg.wait_for_selector("[data-testid=fr-move-panel]")
    assert pg.get_attribute("[data-testid=fr-move-count]", "max") == str(int(st.armies[src]) - 1)
    assert st.moves_left == left and lit(pg) == {dests[0]}
    pg.click("[data-testid=fr-move]")  # all but one, the panel's default
    wait_until(lambda: st.moves_left == left - 1, "the regroup move")
    synced(pg, session)
    return True


def test_a_whole_three_player_game_against_two_scripted_ais_through_the_page(
    page: Any, live_server: LiveServer
) -> None:
    pg = page
    room, session = create_room(live_server, [HUMAN, AGGRESSOR, AGGRESSOR], seed=WHOLE_GAME_SEED)
    game = session.game
    pg.goto(live_server.url + room["seats"][0]["link"])
    board.wait_state(pg, "d.phase === 'setup'")
    assert pg.locator("[data-testid=region-name]").count() == 6 and pg.locator("[data-testid=sea-link]").count() > 0
    mine = front(game, 0)[0]
    territory(pg, mine).click()
    wait_until(lambda: game.state.placed[0, mine] == 1, "one provisional army")
    territory(pg, mine).click(button="right")  # take it back
    wait_until(lambda: game.state.placed[0, mine] == 0, "the army taken back")
    territory(pg, mine).click(modifiers=["Shift"])  # all at once
    wait_until(lambda: game.state.deploy_left[0] == 0, "the whole deployment")
    pg.click("[data-testid=fr-ready]")
    turns = trades = windows_closed_by_others = 0
    regrouped = False
    while turns < MAX_TURNS:
        wait_until(lambda: my_turn(game), "the human's turn")
        if game.over:
            break
        turns += 1
        trades += len(game.state.hand_of(0)) >= 5
        reinforce(pg, session)
        left_open = blitz(pg, session, checks=turns == 1, leave_open=not regrouped and not windows_closed_by_others)
        if game.over:
            break
        if not regrouped:
            pg.click("[data-testid=fr-end-attack]")  # closes an open window at the slider's value first
            wait_until(lambda: game.phase == "regroup", "the regroup phase")
            if left_open:
                target, garrison = left_open
                assert game.state.armies[target] == garrison
                windows_closed_by_others += 1
            synced(pg, session)
            regrouped = regroup(pg, session)
        turn = int(game.state.turn_index)
        pg.click("[data-testid=fr-end-turn]")  # from the attack phase: it stops attacking, then ends the turn
        # the turn count, not whose turn it is: instant AIs can hand the turn back before a poll sees another seat's
        wait_until(lambda t=turn: game.state.turn_index > t or game.over, "the end of the human's turn")
    assert game.over, f"the game did not end within {MAX_TURNS} of the human's turns"
    # the seed's game: it met each screen of a turn, and one adjust window closed by ending the attack
    assert (turns, trades, regrouped, windows_closed_by_others) == (6, 1, True, 1)
    pg.wait_for_selector("[data-testid=game-over-panel]:not([hidden])")
    name = live_server.rooms[room["room"]].seats[game.winner].name
    assert pg.inner_text("[data-testid=game-over-reason]") == spanish("frontera.end.winner", name=name)
    wait_until(lambda: live_server.rooms[room["room"]].record_id, "the saved record")


def test_end_turn_pressed_while_a_room_message_redraws_the_page_still_ends_the_turn(
    page: Any, live_server: LiveServer
) -> None:
    pg = page
    room, session = create_room(live_server, [HUMAN, AGGRESSOR], seed=3)
    game = session.game
    pg.goto(live_server.url + room["seats"][0]["link"])
    board.wait_state(pg, "d.phase === 'setup'")
    territory(pg, front(game, 0)[0]).click(modifiers=["Shift"])
    pg.click("[data-testid=fr-ready]")
    wait_until(lambda: my_turn(game), "the human's first turn")
    reinforce(pg, session)
    button = pg.locator("[data-testid=fr-end-turn]")
    button.wait_for(state="visible")
    box = button.bounding_box()
    assert box is not None
    pg.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    pg.mouse.down()
    # a room message between press and release (here the AI speed; in a game a presence change or a rematch offer)
    pg.eval_on_selector("[data-testid=seat-card-0]", "c => (c.dataset.before = '1')")
    pg.select_option("[data-testid=ai-speed]", "fast")
    pg.wait_for_selector("[data-testid=seat-card-0]:not([data-before])")  # the page drew the room's message
    turn = int(game.state.turn_index)
    pg.mouse.up()
    wait_until(lambda: game.state.turn_index > turn or game.over, "the end of the human's turn")


@pytest.fixture
def two_people(browser: Any) -> Iterator[tuple[Any, Any]]:
    """Two pages in two browser contexts (two people, no shared storage)."""
    contexts = [browser.new_context(viewport={"width": 1280, "height": 800}) for _ in range(2)]
    pages = []
    for ctx in contexts:
        ctx.set_default_timeout(TIMEOUT_MS)
        pages.append(ctx.new_page())
    yield pages[0], pages[1]
    for ctx in contexts:
        ctx.close()


def test_rule_2_7_a_second_browser_never_sees_the_first_ones_placements_before_both_are_ready(
    two_people: tuple[Any, Any], live_server: LiveServer
) -> None:
    first, second = two_people
    frames: list[dict[str, Any]] = []
    second.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(json.loads(payload))))
    room, session = create_room(live_server, [HUMAN, HUMAN], seed=5)
    game = session.game
    for seat, pg in enumerate((first, second)):
        pg.goto(live_server.url + room["seats"][seat]["link"])
        board.wait_state(pg, "d.phase === 'setup'")
    t0, t1 = front(game, 0)[0], front(game, 1)[0]
    base = int(game.state.armies[t0])
    left = int(game.state.deploy_left[0])
    territory(first, t0).click(modifiers=["Shift"])
    wait_until(lambda: game.state.deploy_left[0] == 0, "the first player's placements")
    territory(second, t1).click()  # the second player acts after them: its page holds every later state
    wait_until(lambda: game.state.placed[1, t1] == 1, "the second player's first army")
    synced(second, session)
    assert shown_armies(second, t0) == str(base)
    first.click("[data-testid=fr-ready]")
    wait_until(lambda: 0 not in session.acting(), "the first player's Estoy listo")
    synced(second, session)
    assert second.get_attribute("[data-testid=fr-ready-list] li:nth-child(1)", "data-ready") == "true"
    assert shown_armies(second, t0) == str(base)
    territory(second, t1).click(modifiers=["Shift"])
    wait_until(lambda: game.state.deploy_left[1] == 0, "the second player's placements")
    second.click("[data-testid=fr-ready]")
    board.wait_state(second, "d.phase !== 'setup'")
    assert shown_armies(second, t0) == str(base + left)
    views = [f["state"] for f in frames if f.get("type") in ("welcome", "state")]
    during = [v for v in views if v["state"]["phase"] == "setup"]
    assert len(during) >= 3 and {v["state"]["armies"][t0] for v in during} == {base}
    assert all("territory" not in e for v in during for e in v["log"] if e["seat"] == 0)
    assert views[-1]["state"]["armies"][t0] == base + left


def run_on_server(room: Any, coroutine: Any) -> Any:
    """Run ``coroutine`` on the play server's event loop (the room's AI task runs there); return its result."""
    return asyncio.run_coroutine_threadsafe(coroutine, room.ai_task.get_loop()).result(timeout=WAIT_S)


def test_rule_12_the_clock_turns_red_in_its_last_minute_then_deploys_and_passes_for_the_player(
    page: Any, live_server: LiveServer
) -> None:
    pg = page
    manager = live_server.app.state.manager
    shift = [0.0]
    real_now = manager.now
    manager.now = lambda: time.time() + shift[0]  # the server's wall clock, moved by the test
    try:
        pg.clock.install()  # the page's clock, moved by the test the same way
        # seed 3: the human plays first after the deployment, so nothing moves on the screen until its turn's end
        room, session = create_room(live_server, [HUMAN, AGGRESSOR, AGGRESSOR], seed=3, clock=HOUR)
        live, game = live_server.rooms[room["room"]], session.game
        pg.goto(live_server.url + room["seats"][0]["link"])
        board.wait_state(pg, "d.phase === 'setup'")
        clock = pg.locator("[data-testid=clock-0]")
        clock.wait_for(state="visible")
        assert "urgent" not in str(clock.get_attribute("class"))
        wait_until(lambda: session.acting() == [0], "the AIs' deployment")
        own = sum(int(a) for a, o in zip(game.state.armies, game.state.owner, strict=True) if o == 0)
        left = int(game.state.deploy_left[0])
        pg.clock.fast_forward((HOUR - 30) * 1000)  # ms: thirty seconds before the deadline
        pg.wait_for_selector("[data-testid=clock-0].urgent")
        shift[0] = HOUR + 1
        run_on_server(live, manager.check_clocks())  # (or the server's own clock task, whichever comes first)
        wait_until(lambda: game.phase != "setup", "the deployment's timeout")
        assert game.state.deploy_left[0] == 0
        log = pg.locator("[data-testid=log-entry]")
        log.filter(has_text=spanish("frontera.log.deployment_timeout")).wait_for()
        synced(pg, session)
        mine = [t for t in range(game.ctx.n) if game.state.owner[t] == 0]
        assert sum(int(shown_armies(pg, t)) for t in mine) == own + left  # every army left is placed
        assert my_turn(game) and "urgent" not in str(clock.get_attribute("class"))  # the turn's own hour
        pg.clock.fast_forward(HOUR * 1000)
        pg.wait_for_selector("[data-testid=clock-0].urgent")
        turn = int(game.state.turn_index)
        shift[0] = 2 * HOUR + 2
        run_on_server(live, manager.check_clocks())
        wait_until(lambda: game.state.turn_index > turn, "the turn's timeout")
        name = live.seats[0].name
        log.filter(has_text=spanish("frontera.log.timeout", who=name)).wait_for()
    finally:
        manager.now = real_now


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
    seats = [HUMAN, {"type": "ai", "strategy": "expansionist"}, AGGRESSOR]
    room, session = create_room(live_server, seats, options={"fog": True}, seed=4)
    game = session.game
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
    reinforce(pg, session)
    pg.click("[data-testid=fr-end-turn]")
    wait_until(lambda: my_turn(game) and game.state.turn_index > 3, "the human's second turn")
    synced(pg, session)
    layout = next(f["layout"] for f in frames if f.get("type") == "welcome")
    states = [f for f in frames if f.get("type") in ("welcome", "state")]
    assert len(states) > 10 and all(f["state"]["seat"] == 0 for f in states)
    assert [leak for f in frames for leak in hidden_leaks(f, layout)] == []


def test_a_finished_fogged_game_replays_fog_free_from_its_shareable_link_and_plays_by_itself(
    page: Any, live_server: LiveServer
) -> None:
    pg = page
    seats = [{"type": "ai", "strategy": name} for name in ("aggressor", "expansionist", "aggressor")]
    options = {"map": "small", "players": 3, "fog": True}
    body = {"game": "frontera", "options": options, "seats": seats, "ai_speed": "instant", "seed": 1}
    room = board.spectate_ai_game(pg, live_server, body, ".fr-buttons button:visible")
    plies, winner = room.session.ply, room.session.game.winner
    colour = spanish(f"frontera.seat.{['red', 'blue', 'green'][winner]}")
    pg.goto(live_server.url + "/#replays")  # the list holds this module's other Frontera records too
    row = pg.locator("[data-testid=replay-row]").filter(has=pg.locator(f"[data-id='{room.record_id}']"))
    assert spanish("replay.winner", names=colour) in row.inner_text()
    board.open_replay(pg, live_server, room, "frontera")
    link = pg.url
    assert "#replay=" in link
    pg.click("[data-testid=replay-last]")
    pg.wait_for_selector(f"[data-testid=replay][data-ply='{plies}']")
    assert pg.inner_text("[data-testid=turn-banner]") == spanish("frontera.end.winner", name=colour)
    pg.click("[data-testid=replay-prev]")  # the last ply before the end: fogged for everyone while it was played
    pg.wait_for_selector(f"[data-testid=replay][data-ply='{plies - 1}']")
    owners = pg.eval_on_selector_all("[data-testid=territory]", "gs => gs.map(g => Number(g.dataset.owner))")
    assert owners and min(owners) >= 0 and pg.locator(".fr-territory.fog").count() == 0
    assert pg.locator("[data-testid=fr-card]").count() == 0 and pg.locator("[data-testid=log-entry]").count() == 40
    pg.click("[data-testid=replay-first]")
    pg.wait_for_selector("[data-testid=replay][data-ply='0']")
    pg.select_option("[data-testid=replay-speed]", "4")
    pg.click("[data-testid=replay-play]")
    pg.wait_for_function(
        "() => Number(document.querySelector('[data-testid=replay]').dataset.ply) >= 2", timeout=TIMEOUT_MS
    )
    pg.click("[data-testid=replay-play]")  # pause
    pg.wait_for_selector("[data-testid=replay][data-playing=false]")
    pg.goto(live_server.url + "/")  # the shared link opens the same record from anywhere
    pg.goto(link)
    pg.wait_for_selector("[data-testid=replay][data-game=frontera][data-ply='0']")
