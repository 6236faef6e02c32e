"""Durable rooms (docs/PLAY.md, "Rooms that survive a restart"): the SQLite store, restoring rooms after a
restart, commit-before-broadcast, event versions with resync, and client move ids applied at most once.

Everything runs in-process on a real database file; a "restart" is a second RoomManager on the same file
while the first one is abandoned without any shutdown, as a killed process would leave it.
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from play import storage
from play.storage import SCHEMA_VERSION, SqliteRoomStore, StorageError, StoredMove, token_hash
from tests.play_storage_helpers import Client, create, join, legal_input, manager_on, room_body, stored_rooms


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "rooms.sqlite3"


def run(coro: Any) -> Any:
    return asyncio.run(coro)


async def freeze(live: Any) -> dict[str, Any]:
    """Stop the room's AI under its lock and return the state and version it stopped at (a kill's moment)."""
    async with live.lock:
        if live.ai_task is not None:
            live.ai_task.cancel()
        return {"state": live.state(), "version": live.version}


async def play_human(client: Client, manager: Any, room_id: str, rng: random.Random, moves: int) -> None:
    """Play ``moves`` moves of seat 0, waiting for the AIs' answers in between."""
    for n in range(moves):
        room = manager.rooms[room_id]
        await client.wait_for(lambda m, room=room: room.session.turn == 0 or room.session.over)
        if room.session.over:
            return
        answer = await client.ask(legal_input(room, 0, rng), f"m{n}-{rng.random()}")
        assert answer["type"] == "state", answer


# ---- the database ------------------------------------------------------------------------------------
def test_a_new_database_has_the_schema_version_and_tokens_only_as_hashes(db: Path, tmp_path: Path) -> None:
    async def scenario() -> dict[str, Any]:
        manager = manager_on(db, tmp_path / "r")
        manager.start()
        made = await create(manager, room_body("hha"))
        assert [s.token for s in manager.rooms[made["room"]].seats] == [None] * 3  # handed out, not kept
        return made

    room = run(scenario())
    assert SqliteRoomStore(db).schema_version == SCHEMA_VERSION
    with sqlite3.connect(db) as con:
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    raw = db.read_bytes() + (
        db.with_name(db.name + "-wal").read_bytes() if db.with_name(db.name + "-wal").exists() else b""
    )
    tokens = [s["token"] for s in room["seats"] if s["type"] == "human"]
    assert len(tokens) == 2
    for token in tokens:
        assert token.encode() not in raw
    seats = stored_rooms(db)[0].seats
    assert [s["token_hash"] for s in seats[:2]] == [token_hash(t) for t in tokens]


def test_a_newer_schema_or_another_file_is_refused_by_name(db: Path, tmp_path: Path) -> None:
    with sqlite3.connect(db) as con:
        con.execute(f"PRAGMA user_version={SCHEMA_VERSION + 5}")
    before = db.read_bytes()
    with pytest.raises(StorageError, match=f"schema version {SCHEMA_VERSION + 5} is newer than this program's"):
        SqliteRoomStore(db)
    assert db.read_bytes() == before  # not even switched to WAL
    junk = tmp_path / "notes.txt"
    junk.write_bytes(b"these are my notes, not a database" * 100)
    with pytest.raises(StorageError, match="notes.txt: not a usable room database"):
        SqliteRoomStore(junk)
    assert junk.read_bytes().startswith(b"these are my notes")


def test_dw_play_refuses_a_db_that_is_no_room_database(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from dw_cli.main import main

    junk = tmp_path / "notes.txt"
    junk.write_text("not a database\n" * 200)
    assert main(["play", "--no-browser", "--records", str(tmp_path), "--db", str(junk)]) == 2
    err = capsys.readouterr().err
    assert "notes.txt: not a usable room database" in err and "Traceback" not in err
    assert junk.read_text().startswith("not a database")


def test_a_later_migration_steps_an_old_database_forward_keeping_its_rooms(
    db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def scenario() -> None:
        manager = manager_on(db, tmp_path / "r")
        manager.start()
        await create(manager, room_body("haa"))

    run(scenario())
    step = "ALTER TABLE rooms ADD COLUMN clocks TEXT; CREATE TABLE notes (room TEXT, line TEXT)"
    monkeypatch.setattr(storage, "MIGRATIONS", (*storage.MIGRATIONS, step))
    monkeypatch.setattr(storage, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    store = SqliteRoomStore(db)
    assert store.schema_version == SCHEMA_VERSION + 1
    assert len(store.unfinished()) == 1
    with sqlite3.connect(db) as con:
        assert "clocks" in [row[1] for row in con.execute("PRAGMA table_info(rooms)")]


# ---- restarts ------------------------------------------------------------------------------------------
def test_a_room_survives_a_restart_with_its_moves_seats_and_ai(db: Path, tmp_path: Path) -> None:
    rng = random.Random(1)

    async def first() -> tuple[dict[str, Any], dict[str, Any]]:
        manager = manager_on(db, tmp_path / "r")
        manager.start()
        room = await create(manager, room_body("haa", max_rounds=40))
        client, _ = await join(manager, room)
        await play_human(client, manager, room["room"], rng, 4)
        return room, await freeze(manager.rooms[room["room"]])  # abandoned: no shutdown, like a kill

    room, before = run(first())

    async def second() -> None:
        manager = manager_on(db, tmp_path / "r")
        manager.start()
        restored = manager.rooms[room["room"]]
        assert restored.state() == before["state"]
        assert restored.version == before["version"] and restored.version >= 4
        assert [s.type for s in restored.seats] == ["human", "ai", "ai"]
        client, welcome = await join(manager, room)  # the old token still opens seat 0
        assert welcome["role"] == "player" and welcome["state"] == before["state"]
        ply = restored.session.ply
        await play_human(client, manager, room["room"], rng, 2)
        await client.wait_for(lambda m: restored.session.ply >= ply + 3 or restored.session.over)
        assert restored.session.ply >= ply + 3  # the restored AIs answered
        assert len(stored_rooms(db)[0].moves) == restored.session.ply

    run(second())


@pytest.mark.parametrize("game", ["alveole", "conquer"])
def test_every_game_restores_its_room(db: Path, tmp_path: Path, game: str) -> None:
    async def first() -> tuple[str, dict[str, Any]]:
        manager = manager_on(db, tmp_path / "r")
        manager.start()
        room = await create(manager, room_body("aa", game=game))
        watcher, _ = await join(manager, room, seat=None)  # AIs play while someone watches
        live = manager.rooms[room["room"]]
        await watcher.wait_for(lambda m: live.session.ply >= 6)
        return room["room"], (await freeze(live))["state"]

    room_id, state = run(first())

    async def second() -> None:
        manager = manager_on(db, tmp_path / "r")
        manager.restore()
        assert manager.rooms[room_id].state() == state

    run(second())


def test_finished_and_expired_rooms_are_not_restored_but_shut_down_ones_are(db: Path, tmp_path: Path) -> None:
    async def first() -> list[str]:
        manager = manager_on(db, tmp_path / "r")
        manager.start()
        assert manager._sweeper is not None
        manager._sweeper.cancel()  # only the sweep below expires, however long the game takes on a loaded machine
        manager.idle_expiry = 0.0
        ended = await create(manager, room_body("aaa", max_rounds=2))
        watcher, _ = await join(manager, ended, seat=None)
        await watcher.wait_for(lambda m: m.get("type") == "state" and m["state"]["over"])
        await watcher.wait_for(lambda m: bool(manager.rooms[ended["room"]].record_id))
        expired = await create(manager, room_body("haa"))
        await watcher.leave()
        assert set(await manager.sweep()) == {ended["room"], expired["room"]}
        kept = await create(manager, room_body("haa"))
        await manager.shutdown()
        return [ended["room"], expired["room"], kept["room"]]

    ended, expired, kept = run(first())
    statuses = {r.id: r for r in stored_rooms(db)}
    assert set(statuses) == {ended, expired, kept}

    async def restart() -> list[str]:
        return manager_on(db, tmp_path / "r").restore()

    assert run(restart()) == [kept]


def test_a_game_that_ended_just_before_a_kill_gets_its_record_at_the_next_start(db: Path, tmp_path: Path) -> None:
    async def first() -> str:
        manager = manager_on(db, tmp_path / "r")
        manager.start()
        room = await create(manager, room_body("aaa", max_rounds=2))
        watcher, _ = await join(manager, room, seat=None)
        await watcher.wait_for(lambda m: m.get("type") == "state" and m["state"]["over"])
        return str(room["room"])

    room_id = run(first())
    with sqlite3.connect(db) as con:  # as if killed after the last move's commit, before the record was saved
        con.execute("UPDATE rooms SET status = 'open', record_id = NULL WHERE id = ?", (room_id,))
    for saved in (tmp_path / "r").iterdir():
        saved.unlink()

    async def second() -> list[str]:
        return manager_on(db, tmp_path / "r").restore()

    assert run(second()) == []
    with sqlite3.connect(db) as con:
        status, record_id = con.execute("SELECT status, record_id FROM rooms WHERE id = ?", (room_id,)).fetchone()
    assert status == "over" and record_id
    assert len(list((tmp_path / "r").iterdir())) == 1


# ---- commit before broadcast -----------------------------------------------------------------------------
class FailingStore(SqliteRoomStore):
    """A store whose disk refuses writes once ``full`` is set."""

    full = False

    def append_move(self, room_id: str, move: StoredMove) -> None:
        if self.full:
            raise StorageError("room database: disk full")
        super().append_move(room_id, move)


def test_a_move_the_store_refuses_is_not_played_and_nobody_hears_of_it(db: Path, tmp_path: Path) -> None:
    async def scenario() -> None:
        store = FailingStore(db)
        manager = manager_on(db, tmp_path / "r", store=store)
        manager.start()
        room = await create(manager, room_body("hhh"))
        player, _ = await join(manager, room, 0)
        watcher, _ = await join(manager, room, None)
        live = manager.rooms[room["room"]]
        assert (await player.ask(legal_input(live, 0, random.Random(2)), "a"))["type"] == "state"
        seat1, _ = await join(manager, room, 1)
        await watcher.wait_for(lambda m: m.get("type") == "room" and m["room"]["seats"][1]["connected"])
        before, version = live.state(), live.version  # after seat 1's arrival, itself a (presence) event
        seen = len(watcher.inbox)
        store.full = True
        refused = await seat1.ask(legal_input(live, 1, random.Random(3)), "c")
        assert refused["type"] == "error" and refused["code"] == "storage_failed", refused
        assert live.state() == before and live.version == version and live.session.ply == 1
        pong = await watcher.ask({"type": "ping"}, "p")  # everything queued before the ping has arrived
        assert pong["type"] == "pong"
        assert not [m for m in watcher.inbox[seen:] if m.get("type") == "state"]
        store.full = False
        assert (await seat1.ask(legal_input(live, 1, random.Random(3)), "d"))["type"] == "state"
        assert [m.ply for m in stored_rooms(db)[0].moves] == [0, 1]

    run(scenario())


# ---- move ids and resync -----------------------------------------------------------------------------
def test_a_move_resent_with_its_move_id_is_applied_once_even_after_a_restart(db: Path, tmp_path: Path) -> None:
    async def scenario() -> dict[str, Any]:
        manager = manager_on(db, tmp_path / "r")
        manager.start()
        room = await create(manager, room_body("hhh"))
        player, welcome = await join(manager, room, 0)
        live = manager.rooms[room["room"]]
        move = {**legal_input(live, 0, random.Random(4)), "move_id": "tap-1"}
        first = await player.ask(move, "1")
        again = await player.ask(move, "2")
        assert first["type"] == "state" and "duplicate" not in first
        assert again["type"] == "state" and again["duplicate"] == 0
        assert again["version"] == first["version"] == welcome["version"] + 1
        assert live.session.ply == 1
        return {"room": room, "move": move}

    sent = run(scenario())

    async def after_restart() -> None:
        manager = manager_on(db, tmp_path / "r")
        manager.start()
        player, _ = await join(manager, sent["room"], 0)
        answer = await player.ask(sent["move"], "3")
        assert answer["type"] == "state" and answer["duplicate"] == 0 and answer["state"]["ply"] == 1

    run(after_restart())
    assert [m.move_id for m in stored_rooms(db)[0].moves] == ["tap-1"]


def test_a_reconnecting_client_gets_exactly_the_events_it_missed(db: Path, tmp_path: Path) -> None:
    async def scenario() -> None:
        manager = manager_on(db, tmp_path / "r")
        manager.start()
        room = await create(manager, room_body("hhh"))
        live = manager.rooms[room["room"]]
        rng = random.Random(5)
        player, _ = await join(manager, room, 0)
        held = (await player.ask(legal_input(live, 0, rng), "0"))["version"]
        await player.leave()
        for seat in (1, 2):
            other, _ = await join(manager, room, seat)
            await other.ask(legal_input(live, seat, rng), str(seat))
        await other.say({"type": "set_speed", "speed": "fast"})
        await other.wait_for(lambda m: m.get("type") == "room" and m["room"]["ai_speed"] == "fast")
        back, welcome = await join(manager, room, 0, version=held)
        now = welcome["version"]
        assert welcome["resync"] == "events" and now == live.version
        assert [e["version"] for e in welcome["missed"]] == list(range(held + 1, now + 1))
        games = [(e["type"], e.get("seat")) for e in welcome["missed"] if e["type"] != "presence"]
        assert games == [("move", 1), ("move", 2), ("speed", None)]
        presence = [(e["seat"], e["presence"]) for e in welcome["missed"] if e["type"] == "presence"]
        assert presence == [(0, "away"), (1, "here"), (2, "here"), (0, "here")]
        _, current = await join(manager, room, None, version=now)
        assert current["resync"] == "events" and current["missed"] == []
        _, ahead = await join(manager, room, None, version=now + 5)
        assert ahead["resync"] == "snapshot" and "missed" not in ahead and ahead["state"] == live.state()

    run(scenario())
