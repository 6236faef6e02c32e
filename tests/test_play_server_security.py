"""The play server's defences (docs/PLAY.md, "Limits and robustness" and "Security: hosts and TLS"): the Host
check against DNS rebinding, per-client rate limits driven by an injected clock (no sleeps), records read with
size and depth limits off the event loop, deep JSON refused as ``bad_json``, and one client's bad messages never
reaching another room.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient, WebSocketDenialResponse

from play.limits import LimitSettings
from play.server import ServerConfig, create_app

SMALL = {"land_radius": 1, "map_radius": 2}
EVIL = {"host": "evil.example:8000", "origin": "http://evil.example:8000"}


class FakeClock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def room_body(**extra: Any) -> dict[str, Any]:
    seats = [{"type": "human", "name": "Ana"}] + [{"type": "ai", "strategy": "random"}] * 2
    return {"options": SMALL, "seats": seats, "ai_speed": "instant", "seed": 3, **extra}


def save_record(folder: Path, name: str = "game.json") -> Path:
    from dw_env.engine import Game
    from dw_env.record import Recorder

    folder.mkdir(parents=True, exist_ok=True)
    rec = Recorder(Game.new(**SMALL), ["random", "random", "random"])
    rec.pass_turn()
    rec.pass_turn()
    rec.record.save(folder / name)
    return folder / name


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def client(tmp_path: Path, clock: FakeClock) -> Iterator[TestClient]:
    limits = LimitSettings(room_burst=3, room_refill_s=10.0, rooms_per_client=5, message_burst=4, message_rate=1.0)
    with TestClient(create_app(ServerConfig(records=tmp_path / "records", limits=limits, clock=clock))) as c:
        yield c


# ---- finding 15: DNS rebinding ----------------------------------------------------------
def test_requests_for_another_host_are_refused_naming_it(client: TestClient) -> None:
    for method, path in (("GET", "/api/records"), ("POST", "/api/rooms"), ("GET", "/api/menu"), ("GET", "/")):
        r = client.request(method, path, headers=EVIL, json=room_body() if method == "POST" else None)
        assert r.status_code == 403, (method, path, r.text)
        error = r.json()["error"]
        assert error["code"] == "bad_host" and "evil.example" in error["message"] and "--allow-host" in error["message"]
        assert "127.0.0.1" in error["allowed"]
    assert client.get("/api/rooms").json()["rooms"] == []  # the refused POST created nothing


def test_a_websocket_handshake_for_another_host_is_refused(client: TestClient) -> None:
    room = client.post("/api/rooms", json=room_body()).json()
    with pytest.raises(WebSocketDenialResponse) as refused, client.websocket_connect("/ws", headers=EVIL):
        pass
    assert refused.value.status_code == 403 and refused.value.json()["error"]["code"] == "bad_host"
    with client.websocket_connect("/ws", headers={"host": "localhost:8000", "origin": "http://localhost:8000"}) as ws:
        ws.send_json({"type": "hello", "room": room["room"]})
        assert ws.receive_json()["type"] == "welcome"


@pytest.mark.parametrize("host", ["localhost:8000", "127.0.0.1:9", "[::1]:8000", "127.0.0.2", "testserver"])
def test_loopback_names_and_the_bound_address_are_served(client: TestClient, host: str) -> None:
    assert client.get("/api/menu", headers={"host": host}).status_code == 200


def test_allow_host_names_another_host(tmp_path: Path) -> None:
    with TestClient(create_app(ServerConfig(records=tmp_path, allow_hosts=["Play.Example.org"]))) as c:
        assert c.get("/api/menu", headers={"host": "play.example.org"}).status_code == 200
        r = c.get("/api/menu", headers={"host": "evil.example"})
        assert r.status_code == 403 and "play.example.org" in r.json()["error"]["allowed"]


def test_record_listing_shows_no_absolute_path(tmp_path: Path) -> None:
    arena = tmp_path / "arena"
    save_record(arena)
    with TestClient(create_app(ServerConfig(records=tmp_path / "records", replays=[arena]))) as c:
        text = c.get("/api/records").text
    assert str(tmp_path) not in text
    listing = json.loads(text)
    assert listing["sources"] == [{"source": 0, "name": "records"}, {"source": 1, "name": "arena"}]
    assert [r["id"] for r in listing["records"]] == ["1/game.json"]


# ---- finding 16: per-client limits ------------------------------------------------------
def test_room_creation_is_rate_limited_per_client_until_the_clock_moves(client: TestClient, clock: FakeClock) -> None:
    for _ in range(3):
        assert client.post("/api/rooms", json=room_body()).status_code == 201
    r = client.post("/api/rooms", json=room_body())
    assert r.status_code == 429
    error = r.json()["error"]
    assert error["code"] == "rate_limited" and "retry in 10 s" in error["message"]
    assert error["allowed"]["retry_after_s"] == pytest.approx(10.0)
    assert len(client.get("/api/rooms").json()["rooms"]) == 3  # the refusal created nothing
    other = TestClient(client.app, client=("10.0.0.9", 4000))
    other.portal = client.portal  # the same running app: another address has its own bucket
    assert other.post("/api/rooms", json=room_body()).status_code == 201
    clock.now += 10.0
    assert client.post("/api/rooms", json=room_body()).status_code == 201


def test_one_client_holds_at_most_its_cap_of_live_rooms(client: TestClient, clock: FakeClock) -> None:
    for _ in range(5):
        clock.now += 100.0  # the bucket is full each time: only the cap refuses
        assert client.post("/api/rooms", json=room_body()).status_code == 201
    clock.now += 100.0
    r = client.post("/api/rooms", json=room_body())
    assert r.status_code == 429 and r.json()["error"]["allowed"] == {"rooms_per_client": 5}
    manager = client.app.state.manager  # type: ignore[attr-defined]
    gone = next(iter(manager.rooms.values()))
    client.portal.call(manager.close_room, gone, "expired")  # an expired room no longer counts
    assert client.post("/api/rooms", json=room_body()).status_code == 201


def test_websocket_messages_are_rate_limited_per_client(client: TestClient, clock: FakeClock) -> None:
    with client.websocket_connect("/ws") as ws:
        for _ in range(4):
            ws.send_json({"type": "ping"})
            assert ws.receive_json()["type"] == "pong"
        ws.send_json({"type": "ping", "id": 7})
        refused = ws.receive_json()
        assert refused["code"] == "rate_limited" and refused["allowed"]["retry_after_s"] == pytest.approx(1.0)
        clock.now += 1.0
        ws.send_json({"type": "ping", "id": 8})
        assert ws.receive_json() == {"type": "pong", "re": 8}


# ---- finding 16: records ----------------------------------------------------------------
def test_a_deeply_nested_or_broken_record_file_is_skipped_not_a_500(tmp_path: Path) -> None:
    arena = tmp_path / "arena"
    save_record(arena)
    (arena / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (arena / "liar.json").write_text(json.dumps({"format": "domain-wheel-record/1", "moves": 5}))
    (arena / "text.json").write_text("not json")
    with TestClient(create_app(ServerConfig(records=tmp_path / "records", replays=[arena]))) as c:
        r = c.get("/api/records")
        assert r.status_code == 200 and [x["id"] for x in r.json()["records"]] == ["1/game.json"]
        for bad in ("1/deep.json", "1/text.json"):
            r = c.get(f"/api/records/{bad}")
            assert r.status_code == 400 and r.json()["error"]["code"] == "bad_record", bad


def test_records_are_read_and_replayed_off_the_event_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from play import records

    save_record(tmp_path / "records")
    threads: list[bool] = []
    real = records.read_record

    def spy(path: Path) -> Any:
        try:
            asyncio.get_running_loop()
            threads.append(True)  # on the event loop
        except RuntimeError:
            threads.append(threading.current_thread() is threading.main_thread())
        return real(path)

    monkeypatch.setattr(records, "read_record", spy)
    with TestClient(create_app(ServerConfig(records=tmp_path / "records"))) as c:
        assert c.get("/api/records").status_code == 200
        assert c.get("/api/records/0/game.json").status_code == 200
        assert c.get("/api/records/0/game.json/ply/2").json()["ply"] == 2
    assert threads and not any(threads), threads


# ---- finding 16: deep JSON, Conquer's select, one client's bad messages -------------------
def test_deeply_nested_bodies_and_frames_answer_bad_json(client: TestClient) -> None:
    deep = "[" * 3000 + "]" * 3000
    r = client.post("/api/rooms", content=deep.encode())
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_json" and "deeply" in r.json()["error"]["message"]
    with client.websocket_connect("/ws") as ws:
        ws.send_text("[" * 2000 + "]" * 2000)
        answer = ws.receive_json()
        assert answer["code"] == "bad_json" and "deeply" in answer["message"]
        ws.send_text('{"type": "ping", "id": NaN}')
        assert ws.receive_json()["code"] == "bad_json"


def test_a_conquer_selection_answers_through_the_websocket(client: TestClient) -> None:
    body = {"game": "conquer", "options": {"width": 9, "height": 9}, "seats": [{"type": "human"}, {"type": "human"}]}
    room = client.post("/api/rooms", json=body).json()
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "hello", "room": room["room"], "token": room["seats"][0]["token"]})
        assert ws.receive_json()["type"] == "welcome"
        ws.send_json({"type": "select", "cell": [4, 4], "id": 1})
        answer = ws.receive_json()
        assert answer["type"] == "destinations" and answer["re"] == 1
        assert answer["legal"] is True and answer["cell"] == [4, 4]


def test_one_clients_bad_messages_never_reach_another_room(tmp_path: Path) -> None:
    two_humans = [{"type": "human", "name": "A"}, {"type": "human", "name": "B"}, {"type": "ai", "strategy": "random"}]
    with TestClient(create_app(ServerConfig(records=tmp_path))) as client:
        mine = client.post("/api/rooms", json=room_body(seats=two_humans)).json()
        theirs = client.post("/api/rooms", json=room_body(seats=two_humans)).json()
        with client.websocket_connect("/ws") as bad, client.websocket_connect("/ws") as good:
            good.send_json({"type": "hello", "room": theirs["room"], "token": theirs["seats"][0]["token"]})
            assert good.receive_json()["type"] == "welcome"
            bad.send_json({"type": "hello", "room": mine["room"], "token": mine["seats"][0]["token"]})
            assert bad.receive_json()["type"] == "welcome"
            garbage = [
                "{",
                "[" * 500,
                b"\xff\xfe",
                json.dumps({"type": "move", "from": "x", "to": [9, 9]}),
                json.dumps({"type": "pass", "ply": 99}),
                json.dumps({"type": "hello", "room": theirs["room"]}),
            ]
            for frame in garbage:
                bad.send_bytes(frame) if isinstance(frame, bytes) else bad.send_text(frame)
                assert bad.receive_json()["type"] == "error", frame
            good.send_json({"type": "ping", "id": "still here"})
            assert good.receive_json() == {"type": "pong", "re": "still here"}
            good.send_json({"type": "sync"})
            state = good.receive_json()["state"]
        assert state["ply"] == 0 and state["turn"] == 0
        assert client.get(f"/api/rooms/{theirs['room']}").json()["ply"] == 0
