"""Presence (docs/PLAY.md, "Presence"): each seat is here or away (since when), every change is a room
event with a version, and a seat opened in another tab leaves the old tab watching with its inputs refused.

In-process on a real database file with scripted clients (tests/play_storage_helpers.py); the presence
times come from an injected clock, so nothing here depends on timing.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from play.records import RecordStore
from play.rooms import RoomManager
from play.storage import SqliteRoomStore
from play.strategies import Catalogue
from tests.play_storage_helpers import FakeClock, create, join, room_body


def manager_at(tmp_path: Path, clock: FakeClock) -> RoomManager:
    store = SqliteRoomStore(tmp_path / "rooms.sqlite3")
    return RoomManager(Catalogue([]), RecordStore(tmp_path / "r"), ai_workers=1, store=store, now=clock)


def test_three_players_one_leaves_the_other_two_see_her_away_since_then(tmp_path: Path) -> None:
    async def scenario() -> None:
        clock = FakeClock()
        manager = manager_at(tmp_path, clock)
        room = await create(manager, room_body("hhh"))
        assert [s["presence"] for s in manager.rooms[room["room"]].summary()["seats"]] == ["away"] * 3
        players = [(await join(manager, room, seat))[0] for seat in range(3)]
        version = manager.rooms[room["room"]].version
        clock.t += 90.0
        starts = [len(p.inbox) for p in players]
        await players[2].leave()
        for player, start in zip(players[:2], starts[:2], strict=True):
            news = await player.wait_for(lambda m: m.get("type") == "room", start)
            seats = news["room"]["seats"]
            assert [s["presence"] for s in seats] == ["here", "here", "away"]
            assert seats[2]["away_since"] == clock.t and seats[2]["connected"] is False
            assert news["version"] == version + 1
        # a tab that reconnects with the version it held hears of the departure as an event
        late, welcome = await join(manager, room, None, version=version)
        assert welcome["resync"] == "events"
        assert welcome["missed"] == [
            {"version": version + 1, "type": "presence", "seat": 2, "presence": "away", "away_since": clock.t}
        ]

    asyncio.run(scenario())


def test_a_seat_opened_in_another_tab_leaves_the_old_tab_watching_with_its_inputs_refused(tmp_path: Path) -> None:
    async def scenario() -> None:
        manager = manager_at(tmp_path, FakeClock())
        room = await create(manager, room_body("hhh"))
        old, _ = await join(manager, room, 0)
        new, _ = await join(manager, room, 0)
        told = await old.wait_for(lambda m: m.get("type") in ("replaced", "bye"))
        assert told["type"] == "replaced" and told["seat"] == 0
        refused = await old.ask({"type": "pass", "ply": 0}, "p")
        assert refused["type"] == "error" and refused["code"] == "replaced", refused
        assert "another tab" in refused["message"]
        live = manager.rooms[room["room"]]
        assert live.session.ply == 0
        assert (await old.ask({"type": "set_speed", "speed": "fast"}, "s"))["code"] == "replaced"
        assert live.speed == "instant"
        # the old tab still watches: the new tab's move reaches it
        start = len(old.inbox)
        assert (await new.ask({"type": "pass", "ply": 0}, "n"))["type"] == "state"
        seen = await old.wait_for(lambda m: m.get("type") == "state", start)
        assert seen["state"]["ply"] == 1
        # closing the old tab changes nobody's presence: the seat is still here, in the new tab
        await old.leave()
        assert live.summary()["seats"][0]["presence"] == "here"

    asyncio.run(scenario())
