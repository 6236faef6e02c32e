"""Helpers the play tests of the two-player board games share (Alveole, Conquer): set a menu and press Play,
watch an AI game to its end and open its record in the replay viewer, and check that a session's record replays.

The menu helper serves Domain Wheel's browser tests too: every game's menu is a page of named inputs and a Play button.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import parse_qs

import httpx
import pytest

from play.games import InputError
from tests.play_fixtures import TIMEOUT_MS, LiveServer, wait_until

GAME = "[data-testid=game-screen]"


def wait_state(pg: Any, condition: str) -> None:
    """Wait until the game screen's data attributes (``d.ply``, ``d.turn``, ``d.over``) satisfy ``condition``."""
    pg.wait_for_function(
        f"(() => {{ const d = document.querySelector('{GAME}')?.dataset; return d && ({condition}); }})()",
        timeout=TIMEOUT_MS,
    )


def set_menu(pg: Any, fills: Mapping[str, str] | None = None, selects: Mapping[str, str] | None = None) -> None:
    """Type ``fills`` into, then choose ``selects`` in, the menu's inputs named by test id."""
    for testid, text in (fills or {}).items():
        pg.fill(f"[data-testid={testid}]", text)
    for testid, value in (selects or {}).items():
        pg.select_option(f"[data-testid={testid}]", value)


def play_from_menu(pg: Any, server: LiveServer, selects: Mapping[str, str]) -> tuple[str, Any]:
    """Choose ``selects`` on the open menu, press Play; return the room id and its live engine once the board shows."""
    set_menu(pg, selects={**selects, "menu-ai-speed": "instant"})
    pg.click("[data-testid=play]")
    pg.wait_for_selector(f"{GAME}[data-ply]")
    room = parse_qs(pg.url.split("#", 1)[1])["room"][0]
    return room, server.rooms[room].session.game


def spectate_ai_game(pg: Any, server: LiveServer, body: Mapping[str, Any], clickable: str) -> Any:
    """Create an AI-only room (``body`` as POST /api/rooms takes it), watch it to the end and wait for its record.

    Nothing matching ``clickable`` may show for the spectator once the game is over. Returns the room.
    """
    answer = httpx.post(server.url + "/api/rooms", json=dict(body), headers={"origin": server.url}, timeout=30)
    assert answer.status_code == 201, answer.text
    room = server.rooms[answer.json()["room"]]
    pg.goto(server.url + answer.json()["spectate"])  # the AIs play while someone watches
    wait_state(pg, "d.over === 'true'")
    assert pg.locator(clickable).count() == 0  # a spectator plays nothing
    wait_until(lambda: room.record_id, "saving the AI game's record")
    return room


def open_replay(pg: Any, server: LiveServer, room: Any, game: str) -> None:
    """Open the room's saved record in the replay viewer and wait for its first position."""
    pg.goto(server.url + "/#replays")
    pg.click(f"[data-testid=replay-item][data-id='{room.record_id}']")
    pg.wait_for_selector(f"[data-testid=replay][data-game={game}][data-ply='0']")


def play_ai_game(adapter: Any, session: Any, strategies: tuple[str, str] = ("heuristic", "random")) -> None:
    """Play ``session`` to its end with the adapter's AI seats (seeded 1 and 2)."""
    seats = [adapter.make_policy(name, seed) for seed, name in enumerate(strategies, start=1)]
    while not session.over:
        seat = session.turn
        assert seat is not None
        session.apply(session.ai_action(seats[seat], session.ai_snapshot(), seat))


def assert_record_replays(adapter: Any, session: Any, key: str, start_key: str, start: Any) -> None:
    """Check a finished session's record: its summary, its replay's ``key`` at the end (the session's) and its
    ``start_key`` at ply 0 (``start``), and the refusals: a ply past the end, a cut record, an action after the end."""
    view = session.view()
    record = session.record()
    summary = adapter.record_summary(record)
    assert summary["plies"] == session.ply and summary["result"]["winners"] == view["winners"]
    cursor = adapter.replay_start(record)
    assert adapter.replay_view(cursor, session.ply)[key] == view[key]
    assert adapter.replay_view(cursor, 0)[start_key] == start
    with pytest.raises(InputError, match="ply must be an integer"):
        adapter.replay_view(cursor, session.ply + 1)
    with pytest.raises(InputError) as info:
        adapter.replay_start({**record, "actions": record["actions"][:-1]})
    assert info.value.code == "bad_record"
    with pytest.raises(InputError, match="the game is over"):
        session.apply(0)


def human_turns(pg: Any, limit: int) -> Iterator[int]:
    """Yield the ply at each turn of seat 0 (the test's human) until the game is over, at most ``limit`` times."""
    for _ in range(limit):
        wait_state(pg, "d.over === 'true' || d.turn === '0'")
        if pg.get_attribute(GAME, "data-over") == "true":
            return
        yield int(pg.get_attribute(GAME, "data-ply"))


def shown(pg: Any, testid: str, key: str) -> set[str]:
    """Return the ``data-KEY`` values of the elements with test id ``testid`` (e.g. the clickable cells)."""
    return set(pg.eval_on_selector_all(f"[data-testid={testid}]", f"es => es.map(e => e.dataset.{key})"))
