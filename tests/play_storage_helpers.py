"""In-process harness for the durable-rooms tests: a RoomManager on a real SQLite file, scripted clients.

A :class:`Client` is a :class:`play.room.Connection` whose socket is a list: every message the room sends
is decoded into ``inbox`` and an event wakes whoever waits. Waits poll a condition under a generous overall
timeout (a safety net, never the thing asserted). Games use Domain Wheel's small map so a cycle is quick.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from play.records import RecordStore
from play.room import Room
from play.rooms import RoomManager, replay_room
from play.storage import RoomStore, SqliteRoomStore, StoredMove, StoredRoom
from play.strategies import Catalogue

SMALL = {"land_radius": 1, "map_radius": 2}
#: the overall safety net of one wait (seconds); a healthy wait ends in milliseconds
WAIT_S = 60.0


def manager_on(db: Path, records: Path, store: RoomStore | None = None) -> RoomManager:
    """Return a RoomManager storing its rooms in ``db`` (not started)."""
    return RoomManager(Catalogue([]), RecordStore(records), ai_workers=1, store=store or SqliteRoomStore(db))


def room_body(seats: str = "haa", game: str = "domain_wheel", **options: Any) -> dict[str, Any]:
    """Return a POST /api/rooms body: ``seats`` spells each seat, h (human) or a (random AI) at instant speed."""
    kinds = [{"type": "human"} if k == "h" else {"type": "ai", "strategy": "random"} for k in seats]
    opts = {**SMALL, **options} if game == "domain_wheel" else options
    return {"game": game, "options": opts, "seats": kinds, "ai_speed": "instant", "seed": 7}


async def create(manager: RoomManager, body: dict[str, Any]) -> dict[str, Any]:
    from play import games

    return await manager.create(body, games.get)


class Client:
    """One scripted client: a Connection whose messages land in ``inbox``."""

    def __init__(self, manager: RoomManager) -> None:
        from play.room import Connection

        self.manager = manager
        self.inbox: list[dict[str, Any]] = []
        self.arrived = asyncio.Event()
        self.conn = Connection(self._receive, self._close)

    async def _receive(self, text: str) -> None:
        self.inbox.append(json.loads(text))
        self.arrived.set()

    async def _close(self, code: int) -> None:
        self.arrived.set()

    async def say(self, message: dict[str, Any]) -> None:
        await self.manager.handle_text(self.conn, json.dumps(message))

    async def wait_for(self, pred: Callable[[dict[str, Any]], bool], start: int = 0) -> dict[str, Any]:
        """Return the first message from ``inbox[start:]`` that satisfies ``pred`` (waits for it)."""
        seen = start
        loop = asyncio.get_running_loop()
        deadline = loop.time() + WAIT_S
        while True:
            for message in self.inbox[seen:]:
                if pred(message):
                    return message
            seen = len(self.inbox)
            self.arrived.clear()
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise AssertionError(f"no matching message; the last ones: {[m.get('type') for m in self.inbox[-5:]]}")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.arrived.wait(), remaining)

    async def ask(self, message: dict[str, Any], re: str) -> dict[str, Any]:
        """Send ``message`` with id ``re``; return the answer to it."""
        start = len(self.inbox)
        await self.say({**message, "id": re})
        return await self.wait_for(lambda m: m.get("re") == re, start)

    async def leave(self) -> None:
        """Drop the connection as a broken socket would (the room keeps the seat)."""
        await self.manager.leave(self.conn)
        await self.conn.finish()


def legal_input(room: Room, seat: int, rng: random.Random) -> dict[str, Any]:
    """Return a legal Domain Wheel input for ``seat`` on its turn: a random move, or a pass."""
    state = room.state()
    for src in rng.sample(state["movable"], len(state["movable"])):
        destinations = room.session.select(seat, {"cell": src})["destinations"]
        if destinations:
            return {"type": "move", "from": src, "to": rng.choice(destinations)["to"]}
    return {"type": "pass"}


def stored_rooms(db: Path) -> list[StoredRoom]:
    """Return every room of a database, finished ones too, with its moves (read directly, for checks)."""
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT id, game, options, position, seats, ai_speed, seed, created, version FROM rooms")
        rooms = [
            StoredRoom(
                r[0], r[1], json.loads(r[2]), None if r[3] is None else json.loads(r[3]), json.loads(r[4]), *r[5:]
            )
            for r in rows.fetchall()
        ]
        for room in rooms:
            moves = con.execute(
                "SELECT ply, seat, action, move_id, version FROM moves WHERE room = ? ORDER BY ply", (room.id,)
            ).fetchall()
            room.moves = [StoredMove(p, s, json.loads(a), m, v) for p, s, a, m, v in moves]
    return rooms


def notations(room: StoredRoom) -> list[str]:
    """Return each stored move's notation, replaying the room's moves through its game (one per ply)."""
    from play import games

    adapter = games.get(room.game)
    _, session = replay_room(adapter, room, ["random"] * len(room.seats), [])
    return [session.apply(move.action)["notation"] for move in room.moves]


async def join(manager: Any, room: dict[str, Any], seat: int | None = 0, **fields: Any) -> tuple[Client, dict]:
    """Connect a client to ``room`` in ``seat`` (None: a spectator) and return it with its welcome."""
    client = Client(manager)
    hello: dict[str, Any] = {"type": "hello", "room": room["room"], **fields}
    if seat is not None:
        hello["token"] = room["seats"][seat]["token"]
    welcome = await client.ask(hello, "hello")
    assert welcome["type"] == "welcome", welcome
    return client, welcome


class FakeClock:
    """A wall clock the test moves by hand."""

    def __init__(self, t: float = 1_800_000_000.0) -> None:
        self.t = t

    def __call__(self) -> float:
        return self.t
