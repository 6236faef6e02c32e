"""Nothing lost under faults (docs/PLAY.md, "Rooms that survive a restart"): bounded loops that stop by
themselves.

* The kill loop: a forked server process (a RoomManager on a real SQLite file, its scripted client in the
  same process) plays live games and reports through a pipe every state it shows its client, every move
  it sends and every acknowledgement; the test SIGKILLs it after a random number of reports (mid-commit
  included), 50 times, restarting it on the same database each time. At the end every state a client saw
  is in the stored games, move for move, and no client move id was applied twice.
* The chaos client: in-process, clients that drop their connection at random points (after sending a move
  before its answer, before the move reached the server, while AI moves stream in) 1,000 times and
  reconnect with the version they hold; every time they converge to the server's state and version.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import select
import signal
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from play import games
from play import room as room_module
from play.storage import MemoryRoomStore
from tests.play_storage_helpers import Client, create, legal_input, manager_on, notations, room_body, stored_rooms

KILLS = 50
ROOMS = 2
#: the most reports a cycle waits for before its kill (the kill point is uniform below it)
MAX_REPORTS = 40
#: overall safety net for one cycle's reads (seconds); a healthy cycle takes well under one
CYCLE_S = 60.0


# ---- the kill loop -------------------------------------------------------------------------------------
def _report(fd: int, *fields: Any) -> None:
    os.write(fd, (json.dumps(fields) + "\n").encode())


async def _serve_and_play(db: Path, records: Path, rooms: dict[str, str], pending: dict[str, Any], fd: int) -> None:
    """The child: restore, reconnect to every room, resend pending moves, then play until killed."""
    manager = manager_on(db, records)
    manager.start()
    rooms = {rid: token for rid, token in rooms.items() if rid in manager.rooms}
    while len(rooms) < ROOMS:
        made = await create(manager, room_body("haa", max_rounds=12))
        rooms[made["room"]] = made["seats"][0]["token"]
        _report(fd, "room", made["room"], made["seats"][0]["token"])
    await asyncio.gather(*(_play_room(manager, rid, token, pending.get(rid), fd) for rid, token in rooms.items()))


async def _play_room(manager: Any, room_id: str, token: str, pending: Any, fd: int) -> None:
    client = Client(manager)
    original = client._receive

    async def receive(text: str) -> None:
        message = json.loads(text)
        state = message.get("state")
        if message.get("type") in ("state", "welcome") and state is not None and state["last"] is not None:
            _report(fd, "seen", room_id, state["ply"], state["last"]["notation"])
        await original(text)

    client.conn._send_text = receive
    await client.ask({"type": "hello", "room": room_id, "token": token}, "hello")
    room = manager.rooms[room_id]
    rng = random.Random(os.getpid())
    if pending is not None:
        answer = await client.ask(pending, "resend")
        assert answer["type"] == "state" or answer["code"] in ("stale", "not_your_turn", "game_over"), answer
        if answer["type"] == "state":
            _report(fd, "ack", room_id, pending["move_id"], answer["state"]["ply"])
    n = 0
    while not room.session.over:
        await client.wait_for(lambda m: room.session.turn == 0 or room.session.over)
        if room.session.over:
            break
        n += 1
        move = {**legal_input(room, 0, rng), "ply": room.session.ply, "move_id": f"{os.getpid()}-{n}"}
        _report(fd, "sent", room_id, move)
        answer = await client.ask(move, f"m{n}")
        assert answer["type"] == "state", answer
        _report(fd, "ack", room_id, move["move_id"], answer["state"]["ply"])
    _report(fd, "over", room_id)


def _child(db: Path, records: Path, rooms: dict[str, str], pending: dict[str, Any], fd: int) -> None:
    code = 0
    try:
        asyncio.run(_serve_and_play(db, records, rooms, pending, fd))
    except BaseException:  # noqa: BLE001 - the parent sees a report and the exit status
        import traceback

        _report(fd, "crash", traceback.format_exc()[-2000:])
        code = 1
    os._exit(code)


class Observer:
    """The parent's view of the reports: rooms and tokens, states seen, moves sent and acknowledged."""

    def __init__(self) -> None:
        self.rooms: dict[str, str] = {}
        self.seen: dict[str, dict[int, str]] = {}
        self.pending: dict[str, Any] = {}
        self.acked: dict[str, int] = {}
        self.conflicts: list[Any] = []
        self.buffer = b""

    def feed(self, data: bytes) -> int:
        """Take raw pipe bytes; return how many complete reports they finished."""
        self.buffer += data
        *lines, self.buffer = self.buffer.split(b"\n")
        for line in lines:
            self.take(json.loads(line))
        return len(lines)

    def take(self, report: list[Any]) -> None:
        kind, *rest = report
        if kind == "crash":
            raise AssertionError(f"the server process failed:\n{rest[0]}")
        if kind == "room":
            self.rooms[rest[0]] = rest[1]
        elif kind == "over":
            self.rooms.pop(rest[0], None)
            self.pending.pop(rest[0], None)
        elif kind == "seen":
            room, ply, notation = rest
            if self.seen.setdefault(room, {}).setdefault(ply, notation) != notation:
                self.conflicts.append((room, ply, self.seen[room][ply], notation))
        elif kind == "sent":
            self.pending[rest[0]] = rest[1]
        elif kind == "ack":
            room, move_id, ply = rest
            self.acked[room] = max(self.acked.get(room, 0), ply)
            if self.pending.get(room, {}).get("move_id") == move_id:
                del self.pending[room]


def _one_cycle(db: Path, records: Path, observer: Observer, stop_after: int) -> None:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the server process
        os.close(read)
        _child(db, records, dict(observer.rooms), dict(observer.pending), write)
    os.close(write)
    try:
        reports = 0
        while reports < stop_after:
            ready, _, _ = select.select([read], [], [], CYCLE_S)
            assert ready, "the server process stopped reporting"
            data = os.read(read, 65536)
            if not data:
                break
            reports += observer.feed(data)
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    while data := os.read(read, 65536):  # what it reported before dying was shown to its client
        observer.feed(data)
    os.close(read)


def test_fifty_sigkills_lose_no_acknowledged_move_and_apply_none_twice(tmp_path: Path) -> None:
    games.get("domain_wheel").warm_up()  # compiled once here, not in every child
    from policies.registry import make

    make("random", seed=0)
    db, records = tmp_path / "rooms.sqlite3", tmp_path / "records"
    manager_on(tmp_path / "warm.sqlite3", records)  # the strategy catalogue's imports, once here too
    observer = Observer()
    rng = random.Random(45)
    for _ in range(KILLS):
        _one_cycle(db, records, observer, rng.randint(1, MAX_REPORTS))
    assert not observer.conflicts, observer.conflicts[:3]
    stored = {room.id: room for room in stored_rooms(db)}
    checked = 0
    for room_id, seen in observer.seen.items():
        played = notations(stored[room_id])
        assert len(played) >= max(seen), (room_id, len(played), max(seen))
        for ply, notation in seen.items():
            assert played[ply - 1] == notation, (room_id, ply)
            checked += 1
        move_ids = [m.move_id for m in stored[room_id].moves if m.move_id is not None]
        assert len(move_ids) == len(set(move_ids))
        assert len(played) >= observer.acked.get(room_id, 0)
    assert checked >= KILLS  # the loop really played


# ---- the chaos client ------------------------------------------------------------------------------------
DROPS = 1000
CHAOS_CLIENTS = 4


class ChaosClient:
    """Plays seat 0 of rooms against two AIs, dropping its connection at random points; checks convergence."""

    def __init__(self, manager: Any, rng: random.Random) -> None:
        self.manager = manager
        self.rng = rng
        self.room: dict[str, Any] | None = None
        self.version: int | None = None
        self.state: dict[str, Any] | None = None
        self.pending: dict[str, Any] | None = None
        self.moves = 0
        self.drops = 0
        self.pings = 0
        self.cursor = 0
        self.resyncs: Counter[str] = Counter()

    def take(self, message: dict[str, Any]) -> None:
        """Follow one message as the page does: a newer version replaces the state."""
        if message.get("type") == "state":
            assert message["version"] >= (self.version or 0)
            self.version, self.state = message["version"], message["state"]

    async def connect(self) -> Client:
        if self.room is None:
            self.room = await create(self.manager, room_body("haa", max_rounds=15))
            self.version = self.state = None
        client = Client(self.manager)
        hello = {"type": "hello", "room": self.room["room"], "token": self.room["seats"][0]["token"]}
        if self.version is not None:
            hello["version"] = self.version if self.rng.random() < 0.9 else 0  # now and then a stale one
        welcome = await client.ask(hello, "hello")
        assert welcome["type"] == "welcome", welcome
        if self.version is not None:
            self.resyncs[welcome["resync"]] += 1
            if welcome["resync"] == "events":
                missed = [e["version"] for e in welcome["missed"]]
                assert missed == list(range(hello["version"] + 1, welcome["version"] + 1))
        self.version, self.state = welcome["version"], welcome["state"]
        self.cursor = next(i for i, m in enumerate(client.inbox) if m is welcome) + 1
        return client

    async def converged(self, client: Client, live: Any) -> None:
        """Wait until the room rests (seat 0 to act or over); then the client holds the server's state.

        The room's lock is held while checking, so no action is between its commit and its broadcast; the
        pong comes after everything the room queued before it.
        """
        await client.wait_for(lambda m: live.session.turn == 0 or live.session.over)
        self.pings += 1
        async with live.lock:
            pong = await client.ask({"type": "ping"}, f"p{self.pings}")
            end = next(i for i, m in enumerate(client.inbox) if m is pong)
            for message in client.inbox[self.cursor : end]:
                self.take(message)
            self.cursor = end + 1
            assert (self.version, self.state) == (live.version, live.state())

    async def session(self) -> None:
        """One connection: resend, converge, play a few moves, then drop at a random point."""
        client = await self.connect()
        live = self.manager.rooms[self.room["room"]]
        if self.pending is not None:
            answer = await client.ask(self.pending, "resend")
            assert answer["type"] == "state", answer  # applied now, or once before (duplicate)
            self.pending = None
        await self.converged(client, live)
        for _ in range(self.rng.randint(0, 3)):
            if live.session.over:
                self.room = None
                break
            self.moves += 1
            move = {**legal_input(live, 0, self.rng), "ply": live.session.ply, "move_id": f"c{id(self)}-{self.moves}"}
            point = self.rng.random()
            if point < 0.2:  # the socket broke before the move reached the server
                self.pending = move
                break
            await client.say({**move, "id": "m"})
            if point < 0.4:  # it reached the server; the answer was lost with the socket
                self.pending = move
                break
            await self.converged(client, live)
        await client.leave()
        self.drops += 1

    async def run(self, drops: int) -> None:
        while self.drops < drops:
            await self.session()


def test_a_thousand_forced_disconnects_always_converge_to_the_server_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(room_module, "EVENT_MEMORY", 12)  # a client away longer gets the snapshot alone

    async def scenario() -> list[ChaosClient]:
        manager = manager_on(tmp_path / "db", tmp_path / "records", store=MemoryRoomStore())
        manager.start()
        clients = [ChaosClient(manager, random.Random(i)) for i in range(CHAOS_CLIENTS)]
        await asyncio.gather(*(c.run(DROPS // CHAOS_CLIENTS) for c in clients))
        for room in manager.rooms.values():  # every move of seat 0 came with its own client move id, once
            ids = [m.move_id for m in room.moves if m.seat == 0]
            assert None not in ids and len(ids) == len(set(ids))
        await manager.shutdown()
        return clients

    clients = asyncio.run(scenario())
    assert sum(c.drops for c in clients) >= DROPS
    resyncs = sum((c.resyncs for c in clients), Counter())
    assert resyncs["events"] > 0 and resyncs["snapshot"] > 0
