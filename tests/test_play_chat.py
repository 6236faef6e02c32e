"""The room chat (issue 44, item 6; docs/PLAY.md, "Chat"): bounds, rate limits, who may write, stored with the
room's version and restored after a restart, resent in ``missed``, and script payloads kept as plain data.

In-process on a real database file with scripted clients (tests/play_storage_helpers.py); the rate limits and
the lines' times come from an injected clock, so nothing here depends on timing. A "restart" is a second
RoomManager on the same database file.
"""

from __future__ import annotations

import asyncio
import json
import math
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from play import chat, protocol
from play.chat import CHAT_BURST, CHAT_LENGTH, CHAT_REFILL_S, check_text
from play.games import InputError
from play.records import RecordStore
from play.room import CHAT_MEMORY
from play.rooms import RoomManager
from play.storage import SqliteRoomStore, StorageError
from play.strategies import Catalogue
from tests.play_storage_helpers import Client, FakeClock, create, join, room_body

#: an emoji joined by zero-width joiners: format characters that are text, not control
FAMILY = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
PAYLOADS = ["<script>alert(1)</script>", "<img src=x onerror=alert(1)>", '"><svg onload=alert(1)>']


def manager_at(db: Path, clock: FakeClock) -> RoomManager:
    return RoomManager(Catalogue([]), RecordStore(db.parent / "r"), ai_workers=1, store=SqliteRoomStore(db), now=clock)


def chat_rows(db: Path) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as con:
        return con.execute("SELECT room, version, seat, name, text, at FROM chat ORDER BY room, version").fetchall()


def stored_version(db: Path, room: str) -> int:
    with sqlite3.connect(db) as con:
        return int(con.execute("SELECT version FROM rooms WHERE id = ?", (room,)).fetchone()[0])


@pytest.mark.parametrize(
    ("sent", "kept"),
    [
        ("  hola  ", "hola"),
        ("line one\nline two\r\n\tend", "line one line two  end"),
        ("x" * CHAT_LENGTH, "x" * CHAT_LENGTH),
        ("  " + "é" * CHAT_LENGTH + "\n", "é" * CHAT_LENGTH),
        ("buen juego\u00a0!", "buen juego\u00a0!"),  # a no-break space (French punctuation) is text
        (FAMILY, FAMILY),
        *[(p, p) for p in PAYLOADS],
    ],
)
def test_rule_44_6_a_line_is_stripped_with_newlines_as_spaces_and_otherwise_kept_verbatim(sent: str, kept: str) -> None:
    assert check_text(sent) == kept


@pytest.mark.parametrize(
    ("sent", "names"),
    [
        ("", "1-300 characters"),
        (" \n\t ", "1-300 characters"),
        ("x" * (CHAT_LENGTH + 1), "got 301"),
        ("a\x00b", "U+0000"),
        ("\x1b[31mred", "U+001B"),
        ("abc\u202edcba", "U+202E"),  # a right-to-left override would reverse the text around it on screen
        ("a\ud800", "U+D800"),
        (5, "must be a string"),
        (None, "must be a string"),
        (["hi"], "must be a string"),
    ],
)
def test_rule_44_6_a_line_out_of_bounds_is_refused_naming_the_rule(sent: Any, names: str) -> None:
    with pytest.raises(InputError) as refused:
        check_text(sent)
    assert refused.value.code == "bad_message" and names in refused.value.message
    if isinstance(sent, str):
        assert refused.value.allowed == {"min": 1, "max": CHAT_LENGTH}


def test_rule_44_6_a_chat_message_needs_its_text_and_nothing_else() -> None:
    assert protocol.parse(json.dumps({"type": "chat", "text": "hola", "id": 1})).fields == {"text": "hola"}
    for bad, names in (({"type": "chat"}, "'text'"), ({"type": "chat", "text": "a", "name": "Eve"}, 'field "name"')):
        with pytest.raises(InputError) as refused:
            protocol.parse(json.dumps(bad))
        assert refused.value.code == "bad_message" and names in refused.value.message


def test_rule_44_6_a_line_reaches_the_room_under_the_seats_name_stored_with_its_version(tmp_path: Path) -> None:
    db, clock = tmp_path / "rooms.sqlite3", FakeClock()

    async def scenario() -> tuple[str, int]:
        manager = manager_at(db, clock)
        body = room_body("hha")
        body["seats"][0]["name"] = "Ana"
        room = await create(manager, body)
        ana, _ = await join(manager, room, 0)
        bob, _ = await join(manager, room, 1)
        watcher, _ = await join(manager, room, None)
        version = manager.rooms[room["room"]].version
        starts = [len(c.inbox) for c in (bob, watcher)]
        answer = await ana.ask({"type": "chat", "text": "  suerte a todos\n"}, "c")
        line = {"version": version + 1, "type": "chat", "seat": 0, "name": "Ana", "text": "suerte a todos"}
        line["at"] = clock.t
        line["ply"] = manager.rooms[room["room"]].session.ply  # said before any move
        assert answer == {**line, "re": "c"}
        for client, start in zip((bob, watcher), starts, strict=True):
            assert await client.wait_for(lambda m: m.get("type") == "chat", start) == line
        # a refused line changes nothing: no version, no row, nobody told
        refused = await ana.ask({"type": "chat", "text": "x" * (CHAT_LENGTH + 1)}, "long")
        assert refused["code"] == "bad_message" and manager.rooms[room["room"]].version == version + 1
        assert [m for m in bob.inbox[starts[0] :] if m.get("type") == "chat"] == [line]
        return room["room"], version + 1

    room_id, version = asyncio.run(scenario())
    assert chat_rows(db) == [(room_id, version, 0, "Ana", "suerte a todos", clock.t)]
    assert stored_version(db, room_id) == version


def test_rule_44_6_spectators_and_replaced_tabs_may_read_but_not_write(tmp_path: Path) -> None:
    async def scenario() -> None:
        manager = manager_at(tmp_path / "rooms.sqlite3", FakeClock())
        room = await create(manager, room_body("hha"))
        watcher, _ = await join(manager, room, None)
        old, _ = await join(manager, room, 0)
        await join(manager, room, 0)
        assert (await watcher.ask({"type": "chat", "text": "hola"}, "w"))["code"] == "spectator"
        assert (await old.ask({"type": "chat", "text": "hola"}, "o"))["code"] == "replaced"
        assert list(manager.rooms[room["room"]].chat) == []

    asyncio.run(scenario())
    assert chat_rows(tmp_path / "rooms.sqlite3") == []


def test_rule_44_6_the_rate_limit_holds_per_seat_and_per_address_and_spares_everyone_else(tmp_path: Path) -> None:
    async def scenario() -> None:
        clock = FakeClock()
        manager = manager_at(tmp_path / "rooms.sqlite3", clock)
        room, other_room = await create(manager, room_body("hha")), await create(manager, room_body("hha"))
        ana = await joined_from(manager, room, 0, "10.0.0.1")
        for n in range(CHAT_BURST):
            assert (await ana.ask({"type": "chat", "text": f"line {n}"}, f"a{n}"))["type"] == "chat"
        refused = await ana.ask({"type": "chat", "text": "one more"}, "a-over")
        assert refused["code"] == "rate_limited" and refused["allowed"]["retry_after_s"] == CHAT_REFILL_S
        # the same seat from another address, the same address in another room: both still limited
        ana_phone = await joined_from(manager, room, 0, "10.0.0.2")
        assert (await ana_phone.ask({"type": "chat", "text": "x"}, "p"))["code"] == "rate_limited"
        ana_elsewhere = await joined_from(manager, other_room, 0, "10.0.0.1")
        assert (await ana_elsewhere.ask({"type": "chat", "text": "x"}, "e"))["code"] == "rate_limited"
        # another seat of the room and another room's player are not touched by her flood
        bob = await joined_from(manager, room, 1, "10.0.0.3")
        carl = await joined_from(manager, other_room, 1, "10.0.0.4")
        assert (await bob.ask({"type": "chat", "text": "calma"}, "b"))["type"] == "chat"
        assert (await carl.ask({"type": "chat", "text": "hola"}, "c"))["type"] == "chat"
        clock.t += CHAT_REFILL_S
        assert (await ana_phone.ask({"type": "chat", "text": "ya"}, "later"))["type"] == "chat"
        texts = [line["text"] for line in manager.rooms[room["room"]].chat]
        assert texts == [f"line {n}" for n in range(CHAT_BURST)] + ["calma", "ya"]

    asyncio.run(scenario())


async def joined_from(manager: RoomManager, room: dict[str, Any], seat: int, address: str) -> Client:
    """Return a client of ``seat`` whose connection comes from ``address`` (as the server sets it)."""
    client = Client(manager)
    client.conn.client = address
    hello = {"type": "hello", "room": room["room"], "token": room["seats"][seat]["token"]}
    assert (await client.ask(hello, "hello"))["type"] == "welcome"
    return client


def test_rule_44_6_the_chat_survives_a_restart_and_a_resync_resends_the_missed_lines(tmp_path: Path) -> None:
    db, clock = tmp_path / "rooms.sqlite3", FakeClock()

    async def first() -> tuple[dict[str, Any], list[dict[str, Any]]]:
        manager = manager_at(db, clock)
        room = await create(manager, room_body("hha"))
        ana, _ = await join(manager, room, 0)
        late, welcome = await join(manager, room, None)
        await late.leave()
        for n, payload in enumerate(PAYLOADS):
            clock.t += 1.0
            await ana.ask({"type": "chat", "text": payload}, f"c{n}")
        # the spectator comes back with the version it held: the lines it missed are events, verbatim
        _, back = await join(manager, room, None, version=welcome["version"])
        assert back["resync"] == "events"
        missed = [e for e in back["missed"] if e["type"] == "chat"]
        assert [e["text"] for e in missed] == PAYLOADS
        assert back["chat"] == missed
        return room, missed

    room, lines = asyncio.run(first())

    async def restart() -> None:
        manager = manager_at(db, clock)  # the first one abandoned, as a killed server's
        assert manager.restore() == [room["room"]]
        _, welcome = await join(manager, room, 1)
        assert welcome["chat"] == lines
        assert welcome["version"] == lines[-1]["version"] + 1  # then seat 1 arrived (a presence event)

    asyncio.run(restart())


def test_a_line_carries_the_ply_it_was_said_at_and_a_restart_gives_each_stored_line_the_same(tmp_path: Path) -> None:
    """A game screen puts each line among the board's events by its ply (Frontera's one column, docs/PLAY.md)."""
    db, clock = tmp_path / "rooms.sqlite3", FakeClock()

    async def first() -> tuple[dict[str, Any], list[dict[str, Any]]]:
        manager = manager_at(db, clock)
        room = await create(manager, room_body("hhh"))
        players = [(await join(manager, room, seat))[0] for seat in range(3)]
        said = [await players[0].ask({"type": "chat", "text": "antes"}, "c0")]
        for seat, player in enumerate(players):
            await player.ask({"type": "pass", "ply": seat}, f"p{seat}")
            clock.t += 1.0
            said.append(await players[seat].ask({"type": "chat", "text": f"tras {seat}"}, f"c{seat + 1}"))
        assert [line["ply"] for line in said] == [0, 1, 2, 3]
        return room, [{k: v for k, v in line.items() if k != "re"} for line in said]

    room, lines = asyncio.run(first())

    async def restart() -> None:
        manager = manager_at(db, clock)
        assert manager.restore() == [room["room"]]
        _, welcome = await join(manager, room, 1)
        assert welcome["chat"] == lines  # the chat table keeps no ply: the moves' versions give it back

    asyncio.run(restart())


def test_rule_44_6_the_database_keeps_the_last_lines_of_each_room_only(tmp_path: Path) -> None:
    db = tmp_path / "rooms.sqlite3"

    async def scenario() -> str:
        room = await create(manager_at(db, FakeClock()), room_body("hha"))
        return str(room["room"])

    room_id = asyncio.run(scenario())
    store = SqliteRoomStore(db)
    for version in range(1, 8):
        store.add_chat(room_id, {"version": version, "seat": 0, "name": "Azul", "text": f"n{version}", "at": 1.0}, 3)
    assert [line["text"] for line in store.chat_lines(room_id, 10)] == ["n5", "n6", "n7"]
    assert [line["text"] for line in store.chat_lines(room_id, 2)] == ["n6", "n7"]
    assert stored_version(db, room_id) == 7
    with pytest.raises(StorageError, match="chat line"):
        store.add_chat("nosuchroom", {"version": 1, "seat": 0, "name": "A", "text": "x", "at": 1.0}, 3)
    assert [r[0] for r in chat_rows(db)] == [room_id] * 3


def test_rule_44_6_a_line_the_database_refuses_reaches_nobody(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def scenario() -> None:
        manager = manager_at(tmp_path / "rooms.sqlite3", FakeClock())
        room = await create(manager, room_body("hha"))
        ana, _ = await join(manager, room, 0)
        watcher, _ = await join(manager, room, None)
        live = manager.rooms[room["room"]]
        version, start = live.version, len(watcher.inbox)

        def refuse(*_: Any) -> None:
            raise StorageError("disk full")

        monkeypatch.setattr(manager.store, "add_chat", refuse)
        assert (await ana.ask({"type": "chat", "text": "hola"}, "c"))["code"] == "storage_failed"
        assert live.version == version and list(live.chat) == [] and list(live.events)[-1]["type"] != "chat"
        assert (await watcher.ask({"type": "ping"}, "p"))["type"] == "pong"
        assert [m for m in watcher.inbox[start:] if m.get("type") == "chat"] == []

    asyncio.run(scenario())


def test_rule_44_6_players_may_still_chat_once_the_game_is_over(tmp_path: Path) -> None:
    async def scenario() -> None:
        manager = manager_at(tmp_path / "rooms.sqlite3", FakeClock())
        room = await create(manager, room_body("hhh", max_rounds=1))
        players = [(await join(manager, room, seat))[0] for seat in range(3)]
        for seat, player in enumerate(players):
            answer = await player.ask({"type": "pass", "ply": seat}, f"p{seat}")
        assert answer["state"]["over"]
        bob = players[1]
        assert (await bob.ask({"type": "chat", "text": "buena partida"}, "gg"))["text"] == "buena partida"

    asyncio.run(scenario())


def test_rule_44_6_the_room_remembers_and_welcomes_with_its_last_200_lines(tmp_path: Path) -> None:
    async def scenario() -> None:
        clock = FakeClock()
        manager = manager_at(tmp_path / "rooms.sqlite3", clock)
        manager.chat_limits = chat.ChatLimits(clock, burst=math.inf)  # the memory is the subject here, not the rate
        room = await create(manager, room_body("hha"))
        ana, _ = await join(manager, room, 0)
        for n in range(CHAT_MEMORY + 5):
            await ana.ask({"type": "chat", "text": f"n{n}"}, f"c{n}")
        _, welcome = await join(manager, room, None)
        assert [line["text"] for line in welcome["chat"]] == [f"n{n}" for n in range(5, CHAT_MEMORY + 5)]

    asyncio.run(scenario())


def test_rule_44_6_the_server_keys_the_chat_limit_by_the_clients_address(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from play.server import ServerConfig, create_app

    def said(ws: Any, text: str, re: int) -> dict[str, Any]:
        ws.send_json({"type": "chat", "text": text, "id": re})
        while True:
            answer: dict[str, Any] = ws.receive_json()
            if answer.get("re") == re:
                return answer

    config = ServerConfig(records=tmp_path / "records", now=FakeClock())
    with TestClient(create_app(config)) as client:
        rooms = [client.post("/api/rooms", json=room_body("hhh")).json() for _ in range(2)]
        hellos = [{"type": "hello", "room": r["room"], "token": r["seats"][0]["token"], "id": 0} for r in rooms]
        with client.websocket_connect("/ws") as first, client.websocket_connect("/ws") as second:
            for ws, hello in ((first, hellos[0]), (second, hellos[1])):
                ws.send_json(hello)
                assert ws.receive_json()["type"] == "welcome"
            for n in range(CHAT_BURST):
                assert said(first, f"line {n}", n + 1)["type"] == "chat"
            # another room, another seat, the same address: its bucket is empty too
            assert said(second, "hola", 99)["code"] == "rate_limited"
        other = TestClient(client.app, client=("10.0.0.9", 4000))
        other.portal = client.portal
        with other.websocket_connect("/ws") as ws:
            ws.send_json({**hellos[1], "token": rooms[1]["seats"][1]["token"]})
            assert ws.receive_json()["type"] == "welcome"
            assert said(ws, "hola", 1)["type"] == "chat"


def test_rule_44_6_the_page_counts_against_the_servers_bounds() -> None:
    import re

    static = Path(__file__).resolve().parents[1] / "play" / "static" / "js"
    panel = (static / "ui" / "chat.js").read_text(encoding="utf-8")
    client = (static / "api.js").read_text(encoding="utf-8")
    assert re.search(r"export const CHAT_LENGTH = (\d+);", panel)[1] == str(CHAT_LENGTH)  # type: ignore[index]
    assert re.search(r"export const CHAT_MEMORY = (\d+);", client)[1] == str(CHAT_MEMORY)  # type: ignore[index]
