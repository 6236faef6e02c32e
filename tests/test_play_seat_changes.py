"""Seats changing hands (docs/PLAY.md, "Seats change hands"; issue 44 items 3, 4 and 6): a player leaves and
the game's takeover AI plays on, the host gives a seat to an AI or a new person, a finished game's rematch.

In-process on a real database file with scripted clients (tests/play_storage_helpers.py); restarts are a
new manager on the same file. Waits poll a condition under a generous safety net, never a sleep.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from play.rooms import RoomManager
from tests.play_storage_helpers import Client, create, join, manager_on, room_body


async def refused_hello(manager: RoomManager, room_id: str, **fields: Any) -> dict[str, Any]:
    """Return the answer to a hello that is expected to be refused."""
    answer = await Client(manager).ask({"type": "hello", "room": room_id, **fields}, "h")
    assert answer["type"] == "error", answer
    return answer


def test_a_player_who_leaves_gets_the_takeover_ai_a_dead_link_and_a_left_seat_after_a_restart(
    tmp_path: Path,
) -> None:
    db = tmp_path / "rooms.sqlite3"

    async def play() -> None:
        manager = manager_on(db, tmp_path / "r")
        room = await create(manager, room_body("hha"))
        rid, token = room["room"], room["seats"][0]["token"]
        token_of.append(token)
        ana, _ = await join(manager, room, 0)
        bea, _ = await join(manager, room, 1)
        version = manager.rooms[rid].version
        left = await ana.ask({"type": "leave"}, "bye")
        assert left["type"] == "left" and left["seat"] == 0
        # the AI plays seat 0's turn at once; Bea sees the seat left and the move
        news = await bea.wait_for(lambda m: m.get("type") == "room" and m["room"]["seats"][0]["presence"] == "left")
        seat = news["room"]["seats"][0]
        assert (seat["type"], seat["strategy"], seat["name"]) == ("ai", "balanced", "Azul")
        moved = await bea.wait_for(lambda m: m.get("type") == "state" and m["state"]["ply"] == 1)
        assert moved["state"]["last"]["seat"] == 0
        # the leaver watches on as a spectator
        assert (await ana.ask({"type": "pass"}, "p"))["code"] == "spectator"
        refused = await refused_hello(manager, rid, token=token)
        assert refused["code"] == "bad_token" and "left this game" in refused["message"]
        # a tab that held the version before the departure gets it as an event
        _, welcome = await join(manager, room, None, version=version)
        seat_events = [e for e in welcome["missed"] if e["type"] == "seat"]
        assert seat_events == [{"version": version + 1, "type": "seat", "seat": 0, "summary": seat}]
        await manager.shutdown()

    async def after_restart() -> None:
        manager = manager_on(db, tmp_path / "r")
        (rid,) = manager.restore()
        seat = manager.rooms[rid].summary()["seats"][0]
        assert (seat["presence"], seat["type"], seat["strategy"]) == ("left", "ai", "balanced")
        assert manager.rooms[rid].seats[0].policy is not None
        refused = await refused_hello(manager, rid, token=token_of[0])
        assert refused["code"] == "bad_token" and "left this game" in refused["message"]
        await manager.shutdown()

    token_of: list[str] = []
    asyncio.run(play())
    asyncio.run(after_restart())


def test_the_host_hands_a_seat_to_a_new_person_the_old_link_dies_at_once_and_others_may_not(tmp_path: Path) -> None:
    async def scenario() -> None:
        manager = manager_on(tmp_path / "rooms.sqlite3", tmp_path / "r")
        room = await create(manager, room_body("hha"))
        rid, old_token = room["room"], room["seats"][1]["token"]
        ana, _ = await join(manager, room, 0)
        bea, _ = await join(manager, room, 1)
        host, welcome = await join(manager, room, None, host=room["host_token"])
        assert welcome["host"] is True and welcome["role"] == "spectator"
        version = manager.rooms[rid].version
        # only the host may give seats away
        refused = await ana.ask({"type": "replace_seat", "seat": 1, "by": "person"}, "r")
        assert refused["code"] == "not_host"
        wrong = await refused_hello(manager, rid, host=old_token)
        assert wrong["code"] == "bad_token" and "host" in wrong["message"]
        link = await host.ask({"type": "replace_seat", "seat": 1, "by": "person", "name": "Carla"}, "r")
        assert link["type"] == "seat_link" and link["seat"] == 1
        assert link["link"] == f"/#room={rid}&seat=1&token={link['token']}" and link["token"] != old_token
        told = await bea.wait_for(lambda m: m.get("type") == "bye")
        assert told["reason"] == "seat_handed_over" and bea.conn.closed
        assert (await refused_hello(manager, rid, token=old_token))["code"] == "bad_token"
        # the new person's link opens the seat, which waited for them
        carla, welcome = await join(manager, {"room": rid, "seats": [None, link]}, 1)
        assert welcome["role"] == "player" and welcome["room"]["seats"][1]["name"] == "Carla"
        assert "seat_link" not in [m["type"] for m in ana.inbox + carla.inbox]
        _, late = await join(manager, room, None, version=version)
        handed = [e for e in late["missed"] if e["type"] == "seat"]
        assert [(e["seat"], e["summary"]["name"], e["summary"]["type"]) for e in handed] == [(1, "Carla", "human")]

    asyncio.run(scenario())


def test_the_host_gives_a_human_seat_to_an_ai_which_plays_its_turn_and_a_bad_strategy_is_named(
    tmp_path: Path,
) -> None:
    async def scenario() -> None:
        manager = manager_on(tmp_path / "rooms.sqlite3", tmp_path / "r")
        room = await create(manager, room_body("hha"))
        rid = room["room"]
        ana, _ = await join(manager, room, 0)
        host, _ = await join(manager, room, None, host=room["host_token"])
        bad = await host.ask({"type": "replace_seat", "seat": 0, "by": "ai", "strategy": "nobody"}, "b")
        assert bad["code"] == "unknown_strategy" and "'nobody'" in bad["message"] and "random" in bad["allowed"]
        bad = await host.ask({"type": "replace_seat", "seat": 3, "by": "ai", "strategy": "random"}, "b")
        assert bad["code"] == "bad_message" and bad["allowed"] == [0, 1, 2]
        assert manager.rooms[rid].seats[0].type == "human" and not ana.conn.closed
        done = await host.ask({"type": "replace_seat", "seat": 0, "by": "ai", "strategy": "random"}, "ok")
        assert done["type"] == "room" and done["room"]["seats"][0]["type"] == "ai"
        await ana.wait_for(lambda m: m.get("type") == "bye")
        await host.wait_for(lambda m: m.get("type") == "state" and m["state"]["last"]["seat"] == 0)
        assert (await refused_hello(manager, rid, token=room["seats"][0]["token"]))["code"] == "bad_token"

    asyncio.run(scenario())


def test_a_rematch_once_the_game_is_over_keeps_every_link_is_asked_once_and_survives_a_restart(tmp_path: Path) -> None:
    db = tmp_path / "rooms.sqlite3"
    found: dict[str, Any] = {}

    async def play() -> None:
        manager = manager_on(db, tmp_path / "r")
        room = await create(manager, room_body("hha", max_rounds=1))
        rid = room["room"]
        ana, _ = await join(manager, room, 0)
        bea, _ = await join(manager, room, 1)
        early = await ana.ask({"type": "rematch"}, "early")
        assert early["code"] == "not_over"
        await ana.ask({"type": "pass", "ply": 0}, "p0")
        await bea.ask({"type": "pass", "ply": 1}, "p1")
        await ana.wait_for(lambda m: m.get("type") == "state" and m["state"]["over"])
        version = manager.rooms[rid].version
        watcher, _ = await join(manager, room, None)
        assert (await watcher.ask({"type": "rematch"}, "w"))["code"] == "spectator"
        asked = await ana.ask({"type": "rematch"}, "again")
        new = asked["room"]
        assert new != rid and (await bea.wait_for(lambda m: m.get("type") == "rematch"))["room"] == new
        assert (await bea.ask({"type": "rematch"}, "twice"))["room"] == new
        assert manager.rooms[rid].summary()["rematch"] == new
        _, late = await join(manager, room, None, version=version)
        assert late["missed"] == [{"version": version + 1, "type": "rematch", "room": new}]
        # every player's own token, and the host's, open the new room
        again = {"room": new, "seats": room["seats"]}
        _, welcome = await join(manager, again, 1)
        assert welcome["role"] == "player" and welcome["room"]["seats"][2]["type"] == "ai"
        assert welcome["room"]["options"]["max_rounds"] == 1 and welcome["state"]["ply"] == 0
        _, welcome = await join(manager, again, None, host=room["host_token"])
        assert welcome["host"] is True
        found.update(room=room, new=new)
        await manager.shutdown()

    async def after_restart() -> None:
        with sqlite3.connect(db) as con:
            stored = con.execute("SELECT rematch FROM rooms WHERE id = ?", (found["room"]["room"],)).fetchone()
        assert stored == (found["new"],)
        manager = manager_on(db, tmp_path / "r")
        assert manager.restore() == [found["new"]]
        _, welcome = await join(manager, {"room": found["new"], "seats": found["room"]["seats"]}, 0)
        assert welcome["seat"] == 0
        _, welcome = await join(manager, {"room": found["new"]}, None, host=found["room"]["host_token"])
        assert welcome["host"] is True
        await manager.shutdown()

    asyncio.run(play())
    asyncio.run(after_restart())


def test_an_ai_decision_in_flight_when_the_host_changes_the_seat_is_dropped(tmp_path: Path, monkeypatch: Any) -> None:
    async def scenario() -> None:
        calls: list[tuple[int, Any, int]] = []
        called, gate = asyncio.Event(), asyncio.Event()

        async def decide(room: Any, session: Any, policy: Any, snapshot: Any, seat: int) -> Any:
            calls.append((seat, policy, room.session.ply))
            called.set()
            if len(calls) == 1:  # the first decision waits until the host has given its seat away
                await gate.wait()
            return session.fallback_action(seat)

        monkeypatch.setattr("play.ai_seat.decide", decide)
        manager = manager_on(tmp_path / "rooms.sqlite3", tmp_path / "r")
        room = await create(manager, room_body("haa"))
        ana, _ = await join(manager, room, 0)
        host, _ = await join(manager, room, None, host=room["host_token"])
        await ana.ask({"type": "pass", "ply": 0}, "p")
        await asyncio.wait_for(called.wait(), 60)
        old = calls[0][1]
        await host.ask({"type": "replace_seat", "seat": 1, "by": "ai", "strategy": "random"}, "r")
        called.clear()
        gate.set()
        await asyncio.wait_for(called.wait(), 60)
        seat, policy, ply = calls[1]
        assert (seat, ply) == (1, 1) and policy is not old
        assert policy is manager.rooms[room["room"]].seats[1].policy
        await manager.shutdown()

    asyncio.run(scenario())


@pytest.mark.parametrize(("game", "takeover"), [("alveole", "heuristic"), ("conquer", "heuristic")])
def test_in_the_two_seat_games_a_leaving_players_seat_goes_to_the_heuristic_which_plays_on(
    tmp_path: Path, game: str, takeover: str
) -> None:
    async def scenario() -> None:
        manager = manager_on(tmp_path / "rooms.sqlite3", tmp_path / "r")
        room = await create(manager, room_body("hh", game=game))
        first, _ = await join(manager, room, 0)
        second, _ = await join(manager, room, 1)
        await first.ask({"type": "leave"}, "bye")
        moved = await second.wait_for(lambda m: m.get("type") == "state" and m["state"]["ply"] == 1)
        assert moved["state"]["last"]["seat"] == 0
        seat = moved["room"]["seats"][0]
        assert (seat["presence"], seat["strategy"]) == ("left", takeover)
        await manager.shutdown()

    asyncio.run(scenario())
