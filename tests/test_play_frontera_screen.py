"""Frontera's screen as the rules page describes it (docs/FRONTERA.md "Browser game"), in headless Chromium against
the real play server:

- chat and the board's events read in one column, in order ("Charla"): a line said between two placements sits
  between their log entries, and a reload (the server's stamp of each line's ply) keeps it there;
- a change of language reaches the controls built once (the phase buttons, the forces panel's title and foot), a
  game without cards has no cards panel, and a room made with several people's seats shows its invite links, open
  the first time only, and says it waits for everyone before its turn clock starts, until the last one arrives;
- the map's colours ("Refuerzos", "Mirar jugar"): a region held whole has its outline and its name in the holder's
  colour, another seat's attack is an arrow in the attacker's colour, and the defender beats red.

Every wait polls a condition under a generous overall timeout (a safety net, never what is asserted).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.play_fixtures import LiveServer, needs_chromium, wait_until
from tests.test_play_frontera_browser import AGGRESSOR, HUMAN, create_room, synced, territory

pytestmark = needs_chromium
pytest_plugins = ["tests.play_fixtures"]
I18N = Path(__file__).resolve().parents[1] / "play" / "static" / "i18n"

COLUMN = """() => [...document.querySelectorAll('[data-testid=move-log] > li')]
  .map((li) => [li.dataset.testid, li.textContent])"""


def texts(code: str) -> dict[str, str]:
    return dict(json.loads((I18N / f"{code}.json").read_text(encoding="utf-8")))


def column(pg: Any) -> list[tuple[str, str]]:
    return [(kind, text) for kind, text in pg.evaluate(COLUMN)]


def test_chat_and_the_boards_events_read_in_one_column_in_order_and_keep_it_after_a_reload(
    page: Any, live_server: LiveServer
) -> None:
    pg = page
    room, session = create_room(live_server, [HUMAN, AGGRESSOR])
    game = session.game
    pg.goto(live_server.url + room["seats"][0]["link"])
    synced(pg, session)
    assert pg.locator("[data-testid=chat-lines]").count() == 0  # no second list: the lines join the log
    mine = [t for t in range(game.ctx.n) if game.state.owner[t] == 0]
    territory(pg, mine[0]).click()
    wait_until(lambda: game.state.placed[0, mine[0]] == 1, "the first placement")
    synced(pg, session)
    pg.fill("[data-testid=chat-input]", "¿alguien más?")
    pg.press("[data-testid=chat-input]", "Enter")
    pg.wait_for_selector("[data-testid=move-log] [data-testid=chat-line]")
    territory(pg, mine[1]).click()
    wait_until(lambda: game.state.placed[0, mine[1]] == 1, "the second placement")
    synced(pg, session)
    before = column(pg)
    kinds = [kind for kind, _ in before]
    assert kinds[-3:] == ["log-entry", "chat-line", "log-entry"], before
    assert "¿alguien más?" in before[-2][1]
    pg.reload()
    synced(pg, session)
    pg.wait_for_selector("[data-testid=move-log] [data-testid=chat-line]")
    assert column(pg) == before


def test_a_language_change_reaches_the_built_once_controls_no_cards_no_panel_and_the_invites_show_once(
    page: Any, live_server: LiveServer
) -> None:
    pg = page
    room, session = create_room(live_server, [HUMAN, HUMAN, AGGRESSOR], options={"cards": False}, clock=60)
    live = live_server.rooms[room["room"]]
    # what the menu keeps in the tab for a room it made (main.js): the invite links of the people's seats
    saved = {
        "invites": [{"seat": s["seat"], "name": "", "url": live_server.url + s["link"]} for s in room["seats"][:2]],
        "spectator_url": live_server.url + room["spectate"],
    }
    pg.goto(live_server.url)
    # the menu is up: the seat link below is a hash change the page routes (main.js routes only once its texts
    # are loaded; before that fix, a link followed while they loaded was routed twice, untranslated the first time)
    pg.wait_for_selector("[data-testid=menu] [data-testid=play]")
    pg.evaluate("([id, saved]) => sessionStorage.setItem(`dw.room.${id}`, saved)", [room["room"], json.dumps(saved)])
    pg.goto(live_server.url + room["seats"][0]["link"])
    synced(pg, session)
    assert pg.eval_on_selector("[data-testid=invites-box]", "d => d.open")
    assert pg.get_attribute("[data-testid=invite-1]", "value") == saved["invites"][1]["url"]
    assert pg.locator("[data-testid=fr-cards]").is_hidden()
    es, en = texts("es"), texts("en")
    ready = pg.locator("[data-testid=fr-ready]")
    menu = pg.locator("[data-testid=fr-forces] [data-testid=leave]")
    assert (ready.inner_text(), menu.inner_text()) == (es["frontera.ready"], es["frontera.to_menu"])
    pg.click("[data-testid=lang-switch]")
    wait_until(lambda: ready.inner_text() == en["frontera.ready"], "the ready button in English")
    assert menu.inner_text() == en["frontera.to_menu"]
    assert pg.inner_text("[data-testid=fr-forces] > summary") == en["frontera.forces_title"]
    assert pg.inner_text(".keys-hint") == en["frontera.keys_hint"]
    pg.click("[data-testid=lang-switch]")  # the next tests in Spanish
    pg.reload()
    synced(pg, session)
    assert not pg.eval_on_selector("[data-testid=invites-box]", "d => d.open")  # open the first time only
    # the waiting room: the second person has not come, so the clock has not started
    assert pg.inner_text("[data-testid=fr-waiting]") == es["frontera.waiting"] and live.deadline is None
    friend = pg.context.new_page()
    friend.goto(live_server.url + room["seats"][1]["link"])
    wait_until(lambda: live.deadline is not None, "the turn clock's start")
    pg.wait_for_selector("[data-testid=fr-waiting]", state="detached")
    friend.close()


DRAW = """async ([layout, st, marks]) => {
  const { FronteraBoard } = await import('/static/js/board/frontera.js');
  if (!document.querySelector('link[data-frontera-css]')) {
    const link = Object.assign(document.createElement('link'), { rel: 'stylesheet', href: '/static/css/frontera.css' });
    link.dataset.fronteraCss = '';
    document.head.append(link);
    await new Promise((ok) => link.addEventListener('load', ok));
  }
  const root = document.createElement('div');
  root.style.cssText = 'width: 800px; height: 600px';
  document.body.replaceChildren(root);
  const map = new FronteraBoard(root, layout, { label: 'map', onTerritory: () => {} });
  map.draw(st, marks);
  const colour = (sel, prop) => getComputedStyle(document.querySelector(sel))[prop];
  const region = document.querySelectorAll('[data-testid=region-name]')[0];
  return {
    outline: colour('[data-testid=region-outline]', 'stroke'),
    name: getComputedStyle(region).fill,
    otherName: getComputedStyle(document.querySelectorAll('[data-testid=region-name]')[1]).fill,
    arrow: colour('[data-testid=attack-arrow]', 'stroke'),
    head: document.querySelector('[data-testid=attack-arrow]').getAttribute('marker-end'),
    headFill: colour('#fr-head-p2 path', 'fill'),
    pulse: getComputedStyle(document.querySelector('.fr-territory.defending polygon')).animationName,
  };
}"""


def test_a_region_held_whole_and_another_seats_attack_are_drawn_in_their_seats_colours(
    page: Any, live_server: LiveServer
) -> None:
    pg = page
    room, session = create_room(live_server, [HUMAN, AGGRESSOR, AGGRESSOR])
    live = live_server.rooms[room["room"]]
    layout = live.adapter.layout(live.options)
    n, regions = len(layout["territories"]), len(layout["regions"])
    first = layout["regions"][0]["territories"]
    owner = [1 if t in first else 2 for t in range(n)]
    target, source = next(
        (t, u)
        for t in range(n)
        if t not in first
        for u in layout["territories"][t]["land"] + layout["territories"][t]["sea"]
        if u in first
    )
    st = {"owner": owner, "armies": [3] * n, "region_owner": [1] + [-1] * (regions - 1)}
    pg.goto(live_server.url)
    seen = pg.evaluate(DRAW, [layout, st, {"arrow": [source, target], "arrowSeat": 2}])
    blue, green = "rgb(42, 90, 210)", "rgb(46, 139, 58)"
    assert (seen["outline"], seen["name"]) == (blue, blue)  # region 0, held by seat 1 (blue)
    assert seen["otherName"] != blue
    assert (seen["arrow"], seen["head"], seen["headFill"]) == (green, "url(#fr-head-p2)", green)  # seat 2 attacks
    assert seen["pulse"] == "fr-pulse"
