"""Turn clocks (docs/PLAY.md, "Turn clocks"): a room's creator picks none, 60 s, 1 h or 24 h a turn; the clock
starts once every person has opened their seat (the waiting room), then the server applies the game's timeout
action when a deadline passes, with nobody connected and across restarts, exactly once; a room with a clock does
not expire while its game runs.

The clock is injected (a FakeClock the test moves) and the test calls the check itself: no sleeps. A
"restart" is a second RoomManager on the same database file, the first abandoned as a killed one would be.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from play import storage
from play.games import InputError
from play.records import RecordStore
from play.rooms import RoomManager
from play.storage import SCHEMA_VERSION, SqliteRoomStore
from play.strategies import Catalogue
from tests.play_storage_helpers import WAIT_S, FakeClock, create, join, room_body, stored_rooms


def manager_at(db: Path, clock: FakeClock) -> RoomManager:
    return RoomManager(Catalogue([]), RecordStore(db.parent / "r"), ai_workers=1, store=SqliteRoomStore(db), now=clock)


def clocked(seats: str, clock: Any, game: str = "domain_wheel") -> dict[str, Any]:
    return {**room_body(seats, game), "clock": clock}


async def arrive_and_go(manager: RoomManager, room: dict[str, Any]) -> None:
    """Open every person's seat once, then close them all: the clock runs from then on, with nobody connected."""
    for seat, entry in enumerate(room["seats"]):
        if entry["type"] == "human":
            client, _ = await join(manager, room, seat)
            await client.leave()


def test_the_clock_waits_until_every_person_has_opened_their_seat_and_remembers_who_did(tmp_path: Path) -> None:
    db, clock = tmp_path / "rooms.sqlite3", FakeClock()

    async def first() -> dict[str, Any]:
        manager = manager_at(db, clock)
        room = await create(manager, clocked("hha", 60))
        live = manager.rooms[room["room"]]
        assert room["summary"]["deadline"] is None and live.status() == "waiting"
        await join(manager, room, 0)
        clock.t += 3600  # one person waits an hour for the other: nothing runs out meanwhile
        assert await manager.check_clocks() == [] and live.session.ply == 0 and live.deadline is None
        _, welcome = await join(manager, room, 1)
        assert live.status() == "playing" and live.deadline == clock.t + 60
        assert welcome["room"]["deadline"] == clock.t + 60
        return room

    room = asyncio.run(first())
    (stored,) = SqliteRoomStore(db).unfinished()
    assert stored.deadline == clock.t + 60 and [s["joined"] for s in stored.seats] == [True, True, False]

    async def restart() -> None:
        manager = manager_at(db, clock)
        assert manager.restore() == [room["room"]]
        live = manager.rooms[room["room"]]
        assert live.status() == "playing" and live.deadline == clock.t + 60  # nobody need come back for it
        clock.t += 61
        assert await manager.check_clocks() == [room["room"]] and live.session.ply == 1

    asyncio.run(restart())


@pytest.mark.parametrize("bad", [30, "60", 60.0, True, [60], "1h"])
def test_a_clock_other_than_the_offered_ones_is_refused_naming_them(tmp_path: Path, bad: Any) -> None:
    async def scenario() -> None:
        manager = manager_at(tmp_path / "rooms.sqlite3", FakeClock())
        with pytest.raises(InputError) as refused:
            await create(manager, clocked("hhh", bad))
        assert refused.value.code == "bad_message" and "clock" in str(refused.value)
        assert refused.value.allowed == ["none", 60, 3600, 86400]
        assert manager.rooms == {}

    asyncio.run(scenario())
    assert stored_rooms(tmp_path / "rooms.sqlite3") == []


def test_the_clock_starts_when_the_host_gives_the_awaited_persons_seat_to_an_ai(tmp_path: Path) -> None:
    db, clock = tmp_path / "rooms.sqlite3", FakeClock()

    async def scenario() -> None:
        manager = manager_at(db, clock)
        room = await create(manager, clocked("hha", 60))
        live = manager.rooms[room["room"]]
        await join(manager, room, 0)
        host, _ = await join(manager, room, None, host=room["host_token"])
        clock.t += 600  # the friend never comes
        assert live.deadline is None
        done = await host.ask({"type": "replace_seat", "seat": 1, "by": "ai", "strategy": "random"}, "ai")
        assert done["type"] == "room" and live.status() == "playing" and live.deadline == clock.t + 60
        assert done["room"]["deadline"] == clock.t + 60

    asyncio.run(scenario())
    (stored,) = SqliteRoomStore(db).unfinished()
    assert stored.deadline == clock.t + 60 and stored.seats[1]["type"] == "ai"


def test_a_clock_that_runs_out_with_nobody_connected_passes_once(tmp_path: Path) -> None:
    async def scenario() -> float | None:
        clock = FakeClock()
        manager = manager_at(tmp_path / "rooms.sqlite3", clock)
        room = await create(manager, clocked("hhh", 60))
        live = manager.rooms[room["room"]]
        await arrive_and_go(manager, room)
        assert room["summary"]["clock"] == 60 and live.deadline == clock.t + 60
        clock.t += 59.9
        assert await manager.check_clocks() == []
        clock.t += 0.2
        assert await manager.check_clocks() == [room["room"]]
        assert await manager.check_clocks() == []  # the next seat's turn has a fresh minute
        assert live.session.ply == 1 and live.session.turn == 1
        assert live.deadline == clock.t + 60
        assert live.events[-1]["timeout"] is True and live.events[-1]["entry"]["action"] == "pass"
        return live.deadline

    deadline = asyncio.run(scenario())
    (stored,) = SqliteRoomStore(tmp_path / "rooms.sqlite3").unfinished()
    assert [(m.ply, m.seat) for m in stored.moves] == [(0, 0)]
    assert stored.deadline == deadline


def test_a_clock_that_ran_out_while_the_server_was_down_is_applied_once_at_the_next_start(tmp_path: Path) -> None:
    db, clock = tmp_path / "rooms.sqlite3", FakeClock()

    async def first() -> str:
        manager = manager_at(db, clock)
        room = await create(manager, clocked("hhh", 3600))
        await arrive_and_go(manager, room)
        return str(room["room"])

    async def restart() -> tuple[int, int | None, float | None]:
        manager = manager_at(db, clock)
        manager.start()
        live = manager.rooms[room_id]
        await manager.shutdown()
        return live.session.ply, live.session.turn, live.deadline

    room_id = asyncio.run(first())
    clock.t += 3 * 3600  # down for three hours: one turn's deadline passed, applied once, when it comes back
    assert asyncio.run(restart()) == (1, 1, clock.t + 3600)
    assert asyncio.run(restart()) == (1, 1, clock.t + 3600)  # a second start does not apply it again
    clock.t += 3601
    assert asyncio.run(restart())[:2] == (2, 2)
    assert [m.seat for m in stored_rooms(db)[0].moves] == [0, 1]


def test_a_room_with_a_clock_does_not_expire_while_its_game_runs_one_without_does(tmp_path: Path) -> None:
    async def scenario() -> tuple[str, str]:
        manager = manager_at(tmp_path / "rooms.sqlite3", FakeClock())
        with_clock = await create(manager, clocked("hhh", 86400))
        without = await create(manager, clocked("hhh", "none"))
        manager.idle_expiry = 0.0
        assert await manager.sweep() == [without["room"]]
        assert list(manager.rooms) == [with_clock["room"]]

        return with_clock["room"], without["room"]

    kept, abandoned = asyncio.run(scenario())
    with sqlite3.connect(tmp_path / "rooms.sqlite3") as con:
        assert dict(con.execute("SELECT id, status FROM rooms").fetchall()) == {kept: "open", abandoned: "expired"}


def test_an_ai_seat_of_a_clocked_room_plays_with_nobody_connected(tmp_path: Path) -> None:
    async def scenario() -> None:
        manager = manager_at(tmp_path / "rooms.sqlite3", FakeClock())
        manager.start()
        room = await create(manager, clocked("aha", 60))
        live = manager.rooms[room["room"]]
        loop = asyncio.get_running_loop()
        give_up = loop.time() + WAIT_S  # a safety net: the AI's move is what ends this wait
        while live.session.ply < 1 and loop.time() < give_up:
            await asyncio.sleep(0.01)
        assert live.session.ply == 1 and live.session.turn == 1
        assert live.deadline is None  # its person has not come yet: the AI's move starts no clock
        await manager.shutdown()

    asyncio.run(scenario())


def test_a_database_of_the_first_schema_migrates_and_its_rooms_have_no_clock(tmp_path: Path) -> None:
    db = tmp_path / "rooms.sqlite3"
    with sqlite3.connect(db) as con:
        con.executescript(storage.MIGRATIONS[0])
        con.execute(
            "INSERT INTO rooms (id, game, options, seats, ai_speed, seed, created) VALUES (?, ?, ?, ?, ?, ?, ?)",
            ("old", "domain_wheel", json.dumps({"land_radius": 1, "map_radius": 2}), json.dumps([]), "normal", 1, 0.0),
        )
        con.execute("PRAGMA user_version=1")
    store = SqliteRoomStore(db)
    assert store.schema_version == SCHEMA_VERSION == 3
    (room,) = store.unfinished()
    assert (room.id, room.clock, room.deadline) == ("old", None, None)


def test_a_database_of_the_second_schema_gains_the_chat_table_and_keeps_its_rooms(tmp_path: Path) -> None:
    db = tmp_path / "rooms.sqlite3"
    with sqlite3.connect(db) as con:
        con.executescript(storage.MIGRATIONS[0] + storage.MIGRATIONS[1])
        con.execute(
            "INSERT INTO rooms (id, game, options, seats, ai_speed, seed, created, clock)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                "old",
                "domain_wheel",
                json.dumps({"land_radius": 1, "map_radius": 2}),
                json.dumps([]),
                "normal",
                1,
                0.0,
                60,
            ),
        )
        con.execute("PRAGMA user_version=2")
    store = SqliteRoomStore(db)
    assert store.schema_version == 3
    (room,) = store.unfinished()
    assert (room.id, room.clock) == ("old", 60)
    store.close()
    with sqlite3.connect(db) as con:
        columns = {row[1] for row in con.execute("PRAGMA table_info(rooms)")}
        assert {"host_hash", "rematch"} <= columns
        assert con.execute("SELECT count(*) FROM chat").fetchone() == (0,)
