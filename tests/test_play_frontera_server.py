"""Frontera on the play server (docs/PLAY.md, "Per-seat views"): what each websocket receives, several seats
acting at once in the hidden deployment (R-2.7), the turn clock's engine timeouts (R-12.2, R-12.3) and a player who
leaves abandoning by the rules (R-11).

The websocket tests read the JSON frames a connection receives (welcome, state, missed events), not a view
built on the side. The clock tests use an injected clock the test moves and call the check themselves.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from frontera_env.state import ABANDONED
from frontera_env.view import UNKNOWN
from play.records import RecordStore
from play.rooms import RoomManager
from play.server import ServerConfig, create_app
from play.storage import SqliteRoomStore
from play.strategies import Catalogue
from tests.play_storage_helpers import Client, FakeClock, create, join

MAX_READS = 400
NO_OWNER = -1  # an abandoned territory (frontera_env.render_text.NO_OWNER)


def body(seats: str, fog: bool = False, **extra: Any) -> dict[str, Any]:
    kinds = [{"type": "human"} if k == "h" else {"type": "ai", "strategy": "expansionist"} for k in seats]
    options = {"map": "small", "players": len(seats), "fog": fog}
    return {"game": "frontera", "options": options, "seats": kinds, "ai_speed": "instant", "seed": 11, **extra}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with TestClient(create_app(ServerConfig(records=tmp_path_factory.mktemp("records"), ai_workers=1))) as c:
        yield c


def read_until(ws: Any, frames: list[dict[str, Any]], pred: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    for _ in range(MAX_READS):
        msg: dict[str, Any] = ws.receive_json()
        frames.append(msg)
        if pred(msg):
            return msg
    raise AssertionError("no matching message")


def hello(ws: Any, room: dict[str, Any], seat: int | None, frames: list[dict[str, Any]], **extra: Any) -> Any:
    msg: dict[str, Any] = {"type": "hello", "room": room["room"], **extra}
    if seat is not None:
        msg["token"] = room["seats"][seat]["token"]
    ws.send_json(msg)
    return read_until(ws, frames, lambda m: m["type"] == "welcome")


def states(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [f["state"] for f in frames if f["type"] in ("state", "welcome")]


def check_sight(view: dict[str, Any], seat: int | None, lay: dict[str, Any]) -> None:
    """Assert a view shows owner or armies only of the viewer's territories and their neighbours (R-13.4)."""
    st = view["state"]
    assert view["seat"] == seat and st["player"] == seat
    mine = {t for t, o in enumerate(st["owner"]) if o == seat}
    near = mine | {u for t in mine for u in lay["territories"][t]["land"] + lay["territories"][t]["sea"]}
    for t, owner in enumerate(st["owner"]):
        if t not in near and not view["over"]:
            assert owner == UNKNOWN and st["armies"][t] == 0, (seat, t)


def test_fog_each_socket_receives_its_own_seat_only_in_welcome_states_and_missed(client: TestClient) -> None:
    room = client.post("/api/rooms", json=body("hha", fog=True)).json()
    frames: dict[int | None, list[dict[str, Any]]] = {0: [], 1: [], None: []}
    with (
        client.websocket_connect("/ws") as ws0,
        client.websocket_connect("/ws") as ws1,
        client.websocket_connect("/ws") as spy,
    ):
        w0 = hello(ws0, room, 0, frames[0])
        lay = w0["layout"]
        hello(ws1, room, 1, frames[1])
        hello(spy, room, None, frames[None])
        t0 = next(t for t, o in enumerate(w0["state"]["state"]["owner"]) if o == 0)
        left = w0["state"]["state"]["deploy_left"]
        ws0.send_json({"type": "input", "action": "place", "cell": t0, "count": left, "id": "p"})
        read_until(ws0, frames[0], lambda m: m.get("re") == "p")
        read_until(ws1, frames[1], lambda m: m["type"] == "state" and m["state"]["ply"] >= 1)
        read_until(spy, frames[None], lambda m: m["type"] == "state" and m["state"]["ply"] >= 1)
        with client.websocket_connect("/ws") as late:  # a reconnect of seat 1 that missed every event
            frames[1].append(hello(late, room, 1, frames[1], version=0))
    placed = frames[0][-1]["state"]["state"]["armies"][t0]
    assert placed >= left + 1
    for seat, got in frames.items():
        for view in states(got):
            check_sight(view, seat, lay)
            if seat != 0:
                assert view["state"]["armies"][t0] < placed
                assert all("territory" not in e for e in view["log"] if e["seat"] == 0)
    missed = frames[1][-1]["missed"]
    assert frames[1][-1]["resync"] == "events" and [e["type"] for e in missed if e["type"] == "move"]
    for event in missed:
        if event["type"] == "move" and event["seat"] == 0:
            assert event["entry"]["kind"] == "deployment" and "territory" not in event["entry"]
    assert "seed" not in frames[None][0]["room"]["options"]


def test_two_seats_deploy_at_once_and_neither_sees_the_other_before_both_are_ready(client: TestClient) -> None:
    room = client.post("/api/rooms", json=body("hh")).json()
    f0: list[dict[str, Any]] = []
    f1: list[dict[str, Any]] = []
    with client.websocket_connect("/ws") as ws0, client.websocket_connect("/ws") as ws1:
        s0 = hello(ws0, room, 0, f0)["state"]
        s1 = hello(ws1, room, 1, f1)["state"]
        assert s0["acting"] == [0, 1] == s1["acting"]
        t0 = s0["state"]["owner"].index(0)
        t1 = s1["state"]["owner"].index(1)
        base = s0["state"]["armies"]
        for ws, frames, t, start, tag in ((ws0, f0, t0, s0, "a"), (ws1, f1, t1, s1, "b")):
            left = start["state"]["deploy_left"]
            ws.send_json({"type": "input", "action": "place", "cell": t, "count": left, "id": tag})
            read_until(ws, frames, lambda m, tag=tag: m.get("re") == tag)
        mine0 = read_until(ws0, f0, lambda m: m["type"] == "state" and m["state"]["ply"] == 2)["state"]["state"]
        assert mine0["armies"][t1] == base[t1] and mine0["armies"][t0] > base[t0]
        ws0.send_json({"type": "input", "action": "ready", "id": "r0"})
        read_until(ws0, f0, lambda m: m.get("re") == "r0")
        ws1.send_json({"type": "input", "action": "ready", "id": "r1"})
        after = read_until(ws1, f1, lambda m: m.get("re") == "r1")["state"]
        theirs1 = [v["state"]["armies"][t0] for v in states(f1) if v["state"]["phase"] == "setup"]
        assert theirs1 and set(theirs1) == {base[t0]}
        assert after["state"]["phase"] == "reinforce" and after["state"]["armies"][t0] == mine0["armies"][t0]


def test_a_seat_that_does_not_act_and_a_spectator_are_refused_with_codes(client: TestClient) -> None:
    room = client.post("/api/rooms", json=body("hh")).json()
    frames: list[dict[str, Any]] = []
    with client.websocket_connect("/ws") as ws, client.websocket_connect("/ws") as spy:
        hello(ws, room, 0, frames)
        hello(spy, room, None, frames)
        spy.send_json({"type": "input", "action": "ready", "id": "s"})
        assert read_until(spy, frames, lambda m: m.get("re") == "s")["code"] == "spectator"
        for message, code in (
            ({"action": "attack", "from": 0, "to": 1}, "illegal_move"),
            ({"action": "place", "cell": 0, "count": -1}, "bad_message"),
            ({"action": "trade", "cards": "all"}, "bad_message"),
            ({"action": "dance"}, "bad_message"),
        ):
            ws.send_json({"type": "input", **message, "id": "x"})
            answer = read_until(ws, frames, lambda m: m.get("re") == "x")
            assert answer["type"] == "error" and answer["code"] == code, answer


def test_rule_12_the_clock_auto_deploys_the_unready_then_ends_a_turn_and_ai_seats_deploy_at_once(
    tmp_path: Path,
) -> None:
    async def scenario() -> None:
        clock = FakeClock()
        store = SqliteRoomStore(tmp_path / "rooms.sqlite3")
        manager = RoomManager(Catalogue([]), RecordStore(tmp_path / "r"), ai_workers=1, store=store, now=clock)
        room = await create(manager, {**body("hha"), "clock": 60})
        live = manager.rooms[room["room"]]
        other, _ = await join(manager, room, 1)  # the second person opens the link and goes
        await other.leave()
        client, welcome = await join(manager, room, 0)  # the last person: the deployment's clock starts
        assert live.deadline == clock.t + 60
        t0 = welcome["state"]["state"]["owner"].index(0)
        await client.ask({"type": "input", "action": "place", "cell": t0, "count": 1}, "p")
        clock.t += 30
        await client.ask({"type": "input", "action": "take_back", "cell": t0, "count": 1}, "t")
        assert live.deadline == clock.t + 30  # one deadline for the whole deployment, not per action
        await client.wait_for(lambda m: m["type"] == "state" and 2 not in m["state"]["acting"])  # the AI is ready
        clock.t += 31
        assert await manager.check_clocks() == [room["room"]]
        game = live.session.game  # type: ignore[attr-defined]
        assert game.phase == "reinforce" and int(game.state.deploy_left.sum()) == 0
        first, turn = game.current, game.state.turn_index
        assert live.deadline == clock.t + 60
        if live.seats[first].type == "ai":  # the AI plays its turn; wait for a human's
            await client.wait_for(lambda m: m["type"] == "state" and m["state"]["turn"] != first)
            first, turn = game.current, game.state.turn_index
        clock.t += 61
        assert await manager.check_clocks() == [room["room"]]
        assert game.state.turn_index == turn + 1 and game.current != first
        kinds = [e["entry"]["kind"] for e in live.events if e["type"] == "move" and e.get("timeout")]
        assert kinds == ["deployment_timeout", "timeout"]
        await client.leave()
        await manager.shutdown()

    asyncio.run(scenario())


def test_rule_11_a_player_who_leaves_abandons_their_territories_turn_ownerless_and_a_restart_keeps_it(
    tmp_path: Path,
) -> None:
    """R-11.1 through the room: ``leave`` stores the abandonment as a move, no AI takes the seat, its link stops."""
    db = tmp_path / "rooms.sqlite3"

    def manager_at() -> RoomManager:
        return RoomManager(Catalogue([]), RecordStore(tmp_path / "r"), ai_workers=1, store=SqliteRoomStore(db))

    async def scenario() -> tuple[dict[str, Any], list[int], list[int]]:
        manager = manager_at()
        room = await create(manager, body("hha"))
        live = manager.rooms[room["room"]]
        ana, _ = await join(manager, room, 0)
        bruno, welcome = await join(manager, room, 1)
        held = [t for t, o in enumerate(welcome["state"]["state"]["owner"]) if o == 1]
        assert held
        left = await bruno.ask({"type": "leave"}, "bye")
        assert left["type"] == "left" and left["seat"] == 1
        game = live.session.game  # type: ignore[attr-defined]
        assert game.state.status[1] == ABANDONED
        assert all(int(game.state.owner[t]) == NO_OWNER for t in held)  # ownerless, armies stay
        assert live.seats[1].left and live.seats[1].type == "human" and live.seats[1].policy is None
        assert live.moves[-1].action == {"seat": 1, "action": {"type": "abandon", "seat": 1}}
        seen = await ana.wait_for(lambda m: m["type"] == "state" and m["state"]["state"]["status"][1] != 0)
        assert [seen["state"]["state"]["owner"][t] for t in held] == [NO_OWNER] * len(held)
        again = await bruno.ask({"type": "leave"}, "again")
        assert again["type"] == "error" and again["code"] == "spectator"
        host, _ = await join(manager, room, None, host=room["host_token"])
        for by in ({"by": "ai", "strategy": "expansionist"}, {"by": "person"}):
            refused = await host.ask({"type": "replace_seat", "seat": 1, **by}, "hand")
            assert refused["type"] == "error" and "left the game by its rules" in refused["message"], refused
        # the seat goes nowhere: the game carries on between the two others (the human still deploys)
        assert 1 not in live.session.acting() and 0 in live.session.acting()
        status = [int(s) for s in game.state.status]
        await manager.shutdown()
        return room, status, [int(o) for o in game.state.owner]

    room, status, owner = asyncio.run(scenario())

    async def restart() -> None:
        manager = manager_at()
        assert manager.restore() == [room["room"]]
        game = manager.rooms[room["room"]].session.game  # type: ignore[attr-defined]
        assert [int(s) for s in game.state.status] == status and [int(o) for o in game.state.owner] == owner
        client = Client(manager)
        refused = await client.ask({"type": "hello", "room": room["room"], "token": room["seats"][1]["token"]}, "h")
        assert refused["type"] == "error" and refused["code"] == "bad_token" and "left this game" in refused["message"]
        await manager.shutdown()

    asyncio.run(restart())


def test_rule_11_when_the_leaver_was_the_last_rival_the_other_wins_and_the_rematch_seats_an_ai_there(
    tmp_path: Path,
) -> None:
    async def scenario() -> None:
        manager = RoomManager(
            Catalogue([]), RecordStore(tmp_path / "r"), ai_workers=1, store=SqliteRoomStore(tmp_path / "db")
        )
        room = await create(manager, body("hh"))
        live = manager.rooms[room["room"]]
        ana, _ = await join(manager, room, 0)
        bruno, _ = await join(manager, room, 1)
        assert (await bruno.ask({"type": "leave"}, "bye"))["type"] == "left"
        over = await ana.wait_for(lambda m: m["type"] == "state" and m["state"]["over"])
        assert over["state"]["winners"] == [0]  # R-11 then R-10: the last seat standing wins
        assert live.record_id  # the finished game's record is saved as for any ending
        answer = await ana.ask({"type": "rematch"}, "again")
        rematch = manager.rooms[answer["room"]]
        assert [(s.type, s.strategy) for s in rematch.seats] == [("human", None), ("ai", "expansionist")]
        await manager.shutdown()

    asyncio.run(scenario())
