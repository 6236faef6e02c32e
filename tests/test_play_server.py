"""The play server (docs/PLAY.md) in-process: rooms, seats and tokens, AI seats, spectators, reconnecting,
robustness (malformed requests, traversal, expiry, disconnects, limits), replays and the tutorial API.

Games use the small map (land radius 1, map radius 2) and random AIs at instant speed so each test is quick.
Every websocket read is bounded by a message count, never an open-ended wait.
"""

from __future__ import annotations

import asyncio
import json
import random
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from dw_env.rules import layout as lay
from play.server import ServerConfig, create_app
from tests.play_fixtures import wait_until

SMALL = {"land_radius": 1, "map_radius": 2}
MAX_READS = 2000


@pytest.fixture
def records(tmp_path: Path) -> Path:
    return tmp_path / "records"


@pytest.fixture
def client(records: Path) -> Iterator[TestClient]:
    with TestClient(create_app(ServerConfig(records=records, ai_workers=2))) as c:
        yield c


def make_room(client: TestClient, seats: list[dict[str, Any]] | None = None, **extra: Any) -> dict[str, Any]:
    body = {
        "options": {**SMALL, **extra.pop("options", {})},
        "seats": seats
        or [
            {"type": "human", "name": "Ana"},
            {"type": "ai", "strategy": "random"},
            {"type": "ai", "strategy": "random"},
        ],
        "ai_speed": "instant",
        "seed": 3,
        **extra,
    }
    r = client.post("/api/rooms", json=body)
    assert r.status_code == 201, r.text
    data: dict[str, Any] = r.json()
    return data


def read_until(ws: Any, pred: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """Return the first message satisfying ``pred`` (bounded number of reads)."""
    for _ in range(MAX_READS):
        msg: dict[str, Any] = ws.receive_json()
        if pred(msg):
            return msg
    raise AssertionError("no matching message")


def hello(ws: Any, room: dict[str, Any], seat: int | None = 0) -> dict[str, Any]:
    msg: dict[str, Any] = {"type": "hello", "room": room["room"]}
    if seat is not None:
        msg["token"] = room["seats"][seat]["token"]
    ws.send_json(msg)
    return read_until(ws, lambda m: m["type"] == "welcome")


def until_turn(ws: Any, state: dict[str, Any], seat: int) -> dict[str, Any]:
    """Return the first state at which ``seat`` is to act (or the game is over)."""
    while not state["over"] and state["turn"] != seat:
        state = read_until(ws, lambda m: m["type"] == "state")["state"]
    return state


def ask(ws: Any, message: dict[str, Any]) -> dict[str, Any]:
    """Send a message with an id; return the direct answer to it (its ``re``)."""
    ws.send_json({**message, "id": "q"})
    return read_until(ws, lambda m: m.get("re") == "q")


def random_move(ws: Any, state: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """Return a legal input for the acting seat: a move found by select, or a pass."""
    for src in rng.sample(state["movable"], len(state["movable"])):
        answer = ask(ws, {"type": "select", "cell": src})
        assert answer["type"] == "destinations", answer
        if answer["destinations"]:
            return {"type": "move", "from": src, "to": rng.choice(answer["destinations"])["to"], "ply": state["ply"]}
    return {"type": "pass", "ply": state["ply"]}


# ---- menu, rooms ------------------------------------------------------------------------
def test_menu_lists_options_and_every_strategy_with_cards(client: TestClient) -> None:
    menu = client.get("/api/menu").json()
    game = menu["games"][0]
    assert game["id"] == "domain_wheel"
    assert {o["name"]: (o.get("min"), o.get("max")) for o in game["options"]}["land_radius"] == (1, 5)
    names = [s["display_name"] for s in menu["strategies"] if s["kind"] == "scripted"]
    assert names == ["Equilibrada", "Expansionista", "Directa al centro", "Saqueadora", "Guardiana", "Aleatoria"]
    shipped = {s["id"]: s for s in menu["strategies"] if s["kind"] == "checkpoint"}
    assert "checkpoint:small-agent.pt" in shipped
    card = shipped["checkpoint:small-agent.pt"]["card"]
    assert "land radius 1, map radius 2" in card["game"]
    rates = {r["opponents"]: r["win_rate"] for r in card["strength"]["results"]}
    assert set(rates) >= {"random (x2)", "balanced (x2)"} and all(0 <= v <= 1 for v in rates.values())
    assert set(menu["ai_speeds"]) == {"normal", "fast", "instant"}


def test_a_search_seat_is_offered_for_every_checkpoint_and_plays(client: TestClient) -> None:
    """Every checkpoint is also offered as a tree-search seat (policies/search.py), and such a seat answers."""
    menu = client.get("/api/menu").json()
    search = {s["id"]: s for s in menu["strategies"] if s["kind"] == "search"}
    checkpoints = {s["id"] for s in menu["strategies"] if s["kind"] == "checkpoint"}
    assert {sid.replace("search:", "checkpoint:") for sid in search} == checkpoints
    assert search["search:small-agent.pt"]["card"]["game"]  # the checkpoint's own card
    room = make_room(
        client,
        seats=[
            {"type": "human"},
            {"type": "ai", "strategy": "search:small-agent.pt"},
            {"type": "ai", "strategy": "random"},
        ],
    )
    with client.websocket_connect("/ws") as ws:
        state = hello(ws, room)["state"]
        ws.send_json({"type": "pass"})
        state = read_until(ws, lambda m: m["type"] == "state" and m["state"]["ply"] >= 3)["state"]
        assert state["turn"] == 0 and not state["over"]


def test_arena_tables_are_read_by_column_name() -> None:
    from play.strategies import arena_results

    card = "intro\n\n| Opponents | win rate | games |\n|---|---|---|\n| balanced (x2) | **62.5%** | 1,200 |\n\nafter"
    assert arena_results(card) == [{"opponents": "balanced (x2)", "games": 1200, "win_rate": 0.625}]
    assert arena_results("| a | b |\n|---|---|\n| 1 | 2 |") == []


def test_strategy_packages_are_discovered_from_strategies_dir(tmp_path: Path) -> None:
    pkg = tmp_path / "agents" / "my-agent"
    pkg.mkdir(parents=True)
    manifest = {"name": "my-agent", "description": "trained on the small map", "strength": {"source": "arena"}}
    (pkg / "strategy.json").write_text(json.dumps(manifest))
    app = create_app(ServerConfig(strategies=[tmp_path / "agents"], records=tmp_path / "r"))
    with TestClient(app) as c:
        found = {s["id"]: s for s in c.get("/api/strategies").json()["strategies"]}
    assert found["package:my-agent"]["card"]["description"] == "trained on the small map"
    assert found["package:my-agent"]["kind"] == "package"


def test_layout_endpoint_and_room_summary_hide_tokens(client: TestClient) -> None:
    layout = client.get("/api/layout", params={"land_radius": 1, "map_radius": 2}).json()
    assert (layout["num_cells"], layout["num_lands"], layout["key"]) == (133, 19, "dw-n1-R2")
    room = make_room(client)
    summary = client.get(f"/api/rooms/{room['room']}").json()
    assert "token" not in json.dumps(summary) and room["seats"][0]["token"] not in json.dumps(summary)
    assert room["seats"][0]["link"].endswith(room["seats"][0]["token"])
    assert [s["type"] for s in summary["seats"]] == ["human", "ai", "ai"]


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"options": {"land_radius": 9}}, "bad_options"),
        ({"options": {"colour": 1}}, "bad_options"),
        ({"seats": [{"type": "human"}]}, "bad_message"),
        ({"seats": [{"type": "ai", "strategy": "../../etc/passwd"}] * 3}, "unknown_strategy"),
        ({"seats": [{"type": "robot"}] * 3}, "bad_message"),
        ({"seats": [{"type": "human", "name": "x" * 99}] * 3}, "bad_message"),
        ({"game": "chess"}, "unknown_game"),
        ({"ai_speed": "warp"}, "bad_message"),
        ({"ai_speed": ["fast"]}, "bad_message"),  # unhashable: once a TypeError, answered 500
        ({"bogus": 1}, "bad_message"),
    ],
)
def test_bad_room_requests_name_the_problem(client: TestClient, body: dict[str, Any], code: str) -> None:
    full = {"seats": [{"type": "human"}] * 3, **body}
    r = client.post("/api/rooms", json=full)
    assert r.status_code == 400, r.text
    assert r.json()["error"]["code"] == code
    assert r.json()["error"]["message"]
    assert client.get("/api/rooms").json()["rooms"] == []


def test_malformed_http_bodies_and_routes(client: TestClient) -> None:
    assert client.post("/api/rooms", content=b"{not json").json()["error"]["code"] == "bad_json"
    r = client.post("/api/rooms", content=b"[" + b"1," * 20000 + b"1]", headers={"content-type": "application/json"})
    assert r.status_code == 413 and r.json()["error"]["code"] == "too_large"
    assert client.get("/api/nothing").status_code == 404
    assert client.delete("/api/rooms").status_code == 405
    assert client.get("/api/rooms/nope").json()["error"]["code"] == "no_such_room"


def test_room_limit(records: Path) -> None:
    with TestClient(create_app(ServerConfig(records=records, max_rooms=2))) as c:
        make_room(c)
        make_room(c)
        r = c.post("/api/rooms", json={"seats": [{"type": "human"}] * 3})
        assert r.status_code == 503 and r.json()["error"]["code"] == "room_full"


# ---- playing ----------------------------------------------------------------------------
def test_room_vs_two_ais_the_ais_answer(client: TestClient) -> None:
    room = make_room(client)
    with client.websocket_connect("/ws") as ws:
        welcome = hello(ws, room)
        assert (welcome["role"], welcome["seat"], welcome["layout"]["key"]) == ("player", 0, "dw-n1-R2")
        state = welcome["state"]
        assert state["turn"] == 0 and state["ply"] == 0
        ws.send_json({"type": "pass", "ply": 0})
        state = until_turn(ws, read_until(ws, lambda m: m["type"] == "state")["state"], 0)
        assert state["ply"] == 3  # Green's and Red's AIs moved
        assert [e["seat"] for e in state["log"]] == [0, 1, 2]


def test_destinations_have_kinds_and_colours_and_moves_apply(client: TestClient) -> None:
    room = make_room(client)
    with client.websocket_connect("/ws") as ws:
        state = hello(ws, room)["state"]
        king = state["players"][0]["king"]
        answer = ask(ws, {"type": "select", "cell": king})
        assert answer["type"] == "destinations" and answer["cell"] == king
        colours = {d["colour"] for d in answer["destinations"]}
        assert colours == {"green"}  # a king move in its own land; no swap from a throne (rule 4.10)
        assert all("king_move" in d["kinds"] for d in answer["destinations"])
        target = answer["destinations"][0]["to"]
        ws.send_json({"type": "move", "from": king, "to": target, "ply": 0, "id": 7})
        moved = read_until(ws, lambda m: m["type"] == "state")
        assert moved["re"] == 7
        assert moved["state"]["last"]["from"] == king and moved["state"]["last"]["to"] == target


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ({"type": "move", "from": [0, 0], "to": [0, 1]}, "illegal_move"),
        ({"type": "move", "from": [99, 99], "to": [0, 1]}, "bad_cell"),
        ({"type": "move", "from": "a", "to": [0, 1]}, "bad_message"),
        ({"type": "move", "from": [0, 0]}, "bad_message"),
        ({"type": "select", "cell": [0, 0]}, "not_your_piece"),
        ({"type": "pass", "ply": 5}, "stale"),
        ({"type": "end_request"}, "illegal_move"),
        ({"type": "fly"}, "unknown_type"),
        ({"type": "hello", "room": "x"}, "already_joined"),
        ({"type": "set_speed", "speed": "warp"}, "bad_message"),
        ({"type": "pass", "extra": 1}, "bad_message"),
    ],
)
def test_illegal_and_malformed_inputs_change_nothing(client: TestClient, message: dict[str, Any], code: str) -> None:
    room = make_room(client)
    with client.websocket_connect("/ws") as ws:
        state = hello(ws, room)["state"]
        answer = ask(ws, message)
        assert answer["type"] == "error" and answer["code"] == code, answer
        assert isinstance(answer["message"], str) and answer["message"]
        after = ask(ws, {"type": "sync"})["state"]
        assert after["ply"] == state["ply"] == 0 and after["pieces"] == state["pieces"]


def test_raw_frames_bad_json_too_large_and_binary(client: TestClient) -> None:
    room = make_room(client)
    with client.websocket_connect("/ws") as ws:
        ws.send_text("{nope")
        assert ws.receive_json()["code"] == "bad_json"
        ws.send_text("[1, 2]")
        assert ws.receive_json()["code"] == "bad_json"
        ws.send_text(json.dumps({"type": "ping", "pad": "x" * 5000}))
        assert ws.receive_json()["code"] == "too_large"
        ws.send_bytes(b"\x00\x01")
        assert ws.receive_json()["code"] == "bad_json"
        ws.send_json({"type": "select", "cell": [0, 0]})
        assert ws.receive_json()["code"] == "not_joined"
        ws.send_json({"type": "hello", "room": "nope"})
        assert ws.receive_json()["code"] == "no_such_room"
        assert hello(ws, room)["role"] == "player"  # the socket still works


def test_wrong_token_is_refused_and_closes(client: TestClient) -> None:
    room = make_room(client)
    other = make_room(client)
    for token, seat in (("x" * 43, None), (other["seats"][0]["token"], None), (room["seats"][0]["token"], 1)):
        with client.websocket_connect("/ws") as ws:
            msg: dict[str, Any] = {"type": "hello", "room": room["room"], "token": token}
            if seat is not None:
                msg["seat"] = seat
            ws.send_json(msg)
            answer = ws.receive_json()
            assert answer["code"] == "bad_token"
            closed = ws.receive()
            assert closed["type"] == "websocket.close" and closed["code"] == 4403


def test_other_sites_pages_are_refused(client: TestClient) -> None:
    room = make_room(client)
    evil = {"origin": "http://evil.example"}
    r = client.post("/api/rooms", json={"seats": [{"type": "human"}] * 3}, headers=evil)
    assert r.status_code == 403 and r.json()["error"]["code"] == "bad_origin"
    with client.websocket_connect("/ws", headers=evil) as ws:
        assert ws.receive_json()["code"] == "bad_origin"
        assert ws.receive()["code"] == 4403
    with client.websocket_connect("/ws", headers={"origin": "http://testserver"}) as ws:
        assert hello(ws, room)["role"] == "player"


def test_spectators_are_read_only(client: TestClient) -> None:
    room = make_room(client)
    with client.websocket_connect("/ws") as ws:
        welcome = hello(ws, room, seat=None)
        assert (welcome["role"], welcome["seat"]) == ("spectator", None)
        for message in (
            {"type": "pass"},
            {"type": "select", "cell": welcome["state"]["movable"][0]},
            {"type": "set_speed", "speed": "fast"},
        ):
            assert ask(ws, message)["code"] == "spectator"
        assert ask(ws, {"type": "sync"})["state"]["ply"] == 0


def test_reconnect_resumes_the_seat_and_replaces_the_old_socket(client: TestClient) -> None:
    room = make_room(client)
    with client.websocket_connect("/ws") as first:
        hello(first, room)
        with client.websocket_connect("/ws") as second:
            assert hello(second, room)["seat"] == 0
            assert read_until(first, lambda m: m["type"] == "replaced")["seat"] == 0
            second.send_json({"type": "pass", "ply": 0})
            state = read_until(second, lambda m: m["type"] == "state")["state"]
            assert state["log"][0]["seat"] == 0
    with client.websocket_connect("/ws") as third:  # a page reload later: the same seat, the game went on
        state = until_turn(third, hello(third, room)["state"], 0)
        assert state["ply"] == 3


def test_disconnect_mid_move_leaves_the_server_working(client: TestClient) -> None:
    room = make_room(client)
    with client.websocket_connect("/ws") as ws:
        state = hello(ws, room)["state"]
        ws.send_json({"type": "select", "cell": state["movable"][0]})
        ws.send_json({"type": "pass", "ply": 0})
    # the socket closed with answers unread; the room is intact and playable
    summary = client.get(f"/api/rooms/{room['room']}").json()
    assert summary["seats"][0]["connected"] is False
    with client.websocket_connect("/ws") as ws:
        state = until_turn(ws, hello(ws, room)["state"], 0)
        assert state["ply"] in (0, 3)
        assert ask(ws, {"type": "ping"})["type"] == "pong"


def test_an_all_ai_room_plays_for_its_spectators_at_the_chosen_speed(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    delays: list[float] = []
    real_sleep = asyncio.sleep

    async def recorded_sleep(delay: float, *args: Any) -> Any:  # the AI loop's pauses, recorded, not measured
        delays.append(delay)
        return await real_sleep(delay, *args)

    monkeypatch.setattr("play.rooms.asyncio.sleep", recorded_sleep)
    room = make_room(client, [{"type": "ai", "strategy": "random"}] * 3, ai_speed="fast")
    assert all("token" not in s for s in room["seats"])
    live = client.app.state.manager.rooms[room["room"]]  # type: ignore[attr-defined]
    # nobody watches: the AI loop parks on the room's wake event (a condition, not a pause) and plays nothing
    wait_until(lambda: live.ai_task is None or live.wake._waiters, "the AI loop parking")
    assert client.get(f"/api/rooms/{room['room']}").json()["ply"] == 0 and 0.25 not in delays
    with client.websocket_connect("/ws") as ws:
        hello(ws, room, seat=None)
        state = read_until(ws, lambda m: m["type"] == "state" and m["state"]["ply"] >= 2)["state"]
        assert delays.count(0.25) >= 2  # each AI move waited the fast speed's pause first
        assert [e["seat"] for e in state["log"]][:2] == [0, 1]


def test_a_seated_human_sets_the_ai_speed(client: TestClient) -> None:
    room = make_room(client)
    with client.websocket_connect("/ws") as ws:
        hello(ws, room)
        ws.send_json({"type": "set_speed", "speed": "normal"})
        assert read_until(ws, lambda m: m["type"] == "room")["room"]["ai_speed"] == "normal"
    assert client.get(f"/api/rooms/{room['room']}").json()["ai_speed"] == "normal"


def test_a_server_bug_costs_one_answer_not_the_socket(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    room = make_room(client)
    session = client.app.state.manager.rooms[room["room"]].session  # type: ignore[attr-defined]

    def broken(*args: Any) -> Any:
        raise RuntimeError("bug")

    monkeypatch.setattr(session, "select", broken)
    with client.websocket_connect("/ws") as ws:
        state = hello(ws, room)["state"]
        assert ask(ws, {"type": "select", "cell": state["movable"][0]})["code"] == "internal"
        assert ask(ws, {"type": "ping"})["type"] == "pong"
    monkeypatch.setattr("play.server.games.available", broken)
    r = client.get("/api/menu")
    assert r.status_code == 500 and r.json()["error"]["code"] == "internal"


def test_idle_rooms_expire(records: Path) -> None:
    with TestClient(create_app(ServerConfig(records=records, idle_expiry=1000.0))) as c:
        manager = c.app.state.manager  # type: ignore[attr-defined]
        room = make_room(c)
        live = manager.rooms[room["room"]]
        with c.websocket_connect("/ws") as ws:
            hello(ws, room)
            live.idle_since -= 5000.0  # long past the expiry, but connected: it stays
            assert c.portal.call(manager.sweep) == []
            assert c.get(f"/api/rooms/{room['room']}").status_code == 200
        wait_until(lambda: not live.connections(), "the server seeing the socket close")
        assert c.portal.call(manager.sweep) == []  # unwatched only since now: not yet
        live.idle_since -= 1000.0
        c.portal.call(manager.sweep)  # (the server's own sweeper may be the one that removes it)
        assert room["room"] not in manager.rooms
        assert c.get(f"/api/rooms/{room['room']}").json()["error"]["code"] == "no_such_room"


def test_two_humans_in_one_room_each_moves_only_for_their_seat(client: TestClient) -> None:
    seats = [{"type": "human", "name": "Ana"}, {"type": "human", "name": "Bo"}, {"type": "ai", "strategy": "random"}]
    room = make_room(client, seats)
    with client.websocket_connect("/ws") as ana, client.websocket_connect("/ws") as bo:
        hello(ana, room, 0)
        state = hello(bo, room, 1)["state"]
        assert ask(bo, {"type": "pass"})["code"] == "not_your_turn"
        ana.send_json({"type": "pass", "ply": 0})
        state = read_until(bo, lambda m: m["type"] == "state")["state"]
        assert state["turn"] == 1
        assert ask(ana, {"type": "pass"})["code"] == "not_your_turn"
        bo.send_json({"type": "pass", "ply": 1})
        state = until_turn(ana, read_until(ana, lambda m: m["type"] == "state")["state"], 0)
        assert state["ply"] == 3 and [e["seat"] for e in state["log"]] == [0, 1, 2]


def test_game_to_the_end_by_a_scripted_client_then_replay(client: TestClient, records: Path) -> None:
    room = make_room(client, options={"max_rounds": 12})
    rng = random.Random(5)
    seen: dict[int, dict[str, Any]] = {}
    with client.websocket_connect("/ws") as ws:
        state = hello(ws, room)["state"]
        seen[state["ply"]] = state
        while not state["over"]:
            if state["turn"] == 0:
                ws.send_json(random_move(ws, state, rng))
            state = read_until(ws, lambda m: m["type"] == "state")["state"]
            seen[state["ply"]] = state
        assert state["result"]["end_reason"] in ("truncation", "centre", "countdown", "end_request")
        assert ask(ws, {"type": "pass"})["code"] == "game_over"
    rid = wait_until(lambda: client.get(f"/api/rooms/{room['room']}").json()["record"], "saving the record")
    listing = client.get("/api/records").json()
    assert [r["id"] for r in listing["records"]] == [rid]
    assert listing["records"][0]["players"] == ["human:Ana", "random", "random"]
    info = client.get(f"/api/records/{rid}").json()
    assert info["plies"] == state["ply"] and len(info["moves"]) == state["ply"]
    assert info["layout"]["key"] == "dw-n1-R2"
    for ply in (0, 1, state["ply"] // 2, state["ply"]):
        view = client.get(f"/api/records/{rid}/ply/{ply}").json()
        assert view["ply"] == ply and view["pieces"] == seen[ply]["pieces"] and view["players"] == seen[ply]["players"]
    assert client.get(f"/api/records/{rid}/ply/{state['ply'] + 1}").json()["error"]["code"] == "bad_ply"


def test_replays_of_other_folders_and_traversal_refused(tmp_path: Path) -> None:
    from dw_env.engine import Game
    from dw_env.record import Recorder

    arena = tmp_path / "arena" / "games"
    arena.mkdir(parents=True)
    rec = Recorder(Game.new(land_radius=1, map_radius=2), ["random", "random", "random"])
    rec.pass_turn()
    rec.pass_turn()
    rec.record.save(arena / "game_00001.json")
    outside = tmp_path / "secret.json"
    rec.record.save(outside)
    (arena / "link.json").symlink_to(outside)
    app = create_app(ServerConfig(records=tmp_path / "records", replays=[tmp_path / "arena"]))
    with TestClient(app) as c:
        ids = [r["id"] for r in c.get("/api/records").json()["records"]]
        assert ids == ["1/games/game_00001.json"]
        assert c.get("/api/records/1/games/game_00001.json/ply/2").json()["ply"] == 2
        for bad in ("1/games/link.json", "1/../secret.json", "1/games/..%2F..%2Fsecret.json", "9/x.json", "x"):
            assert c.get(f"/api/records/{bad}").status_code == 404, bad


def test_static_assets_and_traversal(tmp_path: Path) -> None:
    static = tmp_path / "static"
    (static / "js").mkdir(parents=True)
    (static / "index.html").write_text("<!doctype html><title>t</title>")
    (static / "js" / "main.js").write_text("export const x = 1;")
    (tmp_path / "secret.txt").write_text("secret")
    (static / "leak.txt").symlink_to(tmp_path / "secret.txt")
    with TestClient(create_app(ServerConfig(records=tmp_path / "r", static_dir=static))) as c:
        assert c.get("/").text.startswith("<!doctype html>")
        js = c.get("/static/js/main.js")
        assert js.status_code == 200 and js.headers["content-type"].startswith("text/javascript")
        for bad in ("leak.txt", "..%2Fsecret.txt", "js/..%2F..%2Fsecret.txt", "%2e%2e/secret.txt", ".hidden", "js"):
            assert c.get(f"/static/{bad}").status_code == 404, bad


def test_a_room_can_start_from_a_designers_position(client: TestClient) -> None:
    """POST /api/rooms with a position (docs/POSITIONS.md) plays on from it; its options come with it."""
    from dw_env import position

    data = json.loads((Path(__file__).parent / "scenarios" / "paso_20.json").read_text())["position"]
    game = position.from_dict(data)
    answer = client.post(
        "/api/rooms", json={"position": data, "seats": [{"type": "human"}, {"type": "human"}, {"type": "human"}]}
    ).json()
    assert answer["summary"]["ply"] == int(game.scalars[lay.PLY]) and answer["summary"]["turn"] == game.turn
    assert answer["summary"]["options"] == game.options.to_dict()
    with client.websocket_connect("/ws") as ws:
        welcome = hello(ws, answer, seat=game.turn)
        assert welcome["state"]["can_request_end"] is True  # Paso 20: Blue may request the end (rule 9.3)
    both = client.post("/api/rooms", json={"position": data, "options": {}, "seats": []}).json()
    assert both["error"]["code"] == "bad_message"
    broken = client.post("/api/rooms", json={"position": {**data, "board": "x"}}).json()
    assert broken["error"]["code"] == "bad_position" and "board" in broken["error"]["message"]
    assert client.post("/api/rooms", json={"position": 7}).json()["error"]["code"] == "bad_position"


def test_tutorial_highlights_the_piece_each_situation_checks(client: TestClient) -> None:
    """Situations that check a piece's destinations (Paso 3, 8, 10 have no move) show it and where it may go
    (rule 11.11), with the engine's kinds and colours (rule 11.1)."""
    from dw_env import position

    steps = {s["id"]: s for s in client.get("/api/tutorial").json()["steps"]}
    scenarios = Path(__file__).parent / "scenarios"
    for step_id, count in (("paso_03", 24), ("paso_10", 14)):
        highlight = steps[step_id]["highlight"]
        assert highlight["from"] == [19, -8]
        assert len(highlight["destinations"]) == count
        game = position.from_dict(json.loads((scenarios / f"{step_id}.json").read_text())["position"])
        src = game.geometry.cell_index(19, -8)
        engine = {game.geometry.cell_coord(d): f for d, f in game.destinations(src).items()}
        assert {tuple(d["to"]) for d in highlight["destinations"]} == set(engine)
        assert all(d["colour"] == "green" for d in highlight["destinations"])  # steps and fast knights
    assert steps["paso_01"]["highlight"] is None  # nothing to point at


def test_tutorial_api_serves_the_twenty_situations(client: TestClient) -> None:
    data = client.get("/api/tutorial").json()
    assert [s["id"] for s in data["steps"]] == [f"paso_{i:02d}" for i in range(1, 21)]
    assert set(data["layouts"]) == {"dw-n2-R4"}
    for step in data["steps"]:
        assert step["view"]["layout"] == "dw-n2-R4" and step["caption_es"] and "after" in step
    step = client.get("/api/tutorial/paso_05").json()
    move = next(a for a in step["actions"] if a.get("action") == "move")
    colours = {tuple(d["to"]): d["colour"] for d in move["destinations"]}
    assert colours[(15, -6)] == "orange" and colours[(16, -6)] == "green"  # rule 11.1
    assert move["view"]["players"][0]["king"] == [15, -6]
    assert client.get("/api/tutorial/paso_99").json()["error"]["code"] == "not_found"


def test_real_uvicorn_on_loopback(records: Path) -> None:
    import socket

    import uvicorn
    from websockets.sync.client import connect

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = create_app(ServerConfig(records=records, ai_workers=2))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        wait_until(lambda: server.started, "uvicorn's start")
        import httpx

        room = httpx.post(
            f"http://127.0.0.1:{port}/api/rooms",
            json={
                "options": SMALL,
                "seats": [{"type": "human"}, {"type": "ai", "strategy": "random"}] * 1
                + [{"type": "ai", "strategy": "random"}],
                "ai_speed": "instant",
            },
        ).json()
        with connect(f"ws://127.0.0.1:{port}/ws", open_timeout=10) as ws:
            ws.send(json.dumps({"type": "hello", "room": room["room"], "token": room["seats"][0]["token"]}))
            welcome = json.loads(ws.recv(timeout=10))
            assert welcome["type"] == "welcome"
            ws.send(json.dumps({"type": "pass", "ply": 0}))
            for _ in range(50):
                msg = json.loads(ws.recv(timeout=10))
                if msg["type"] == "state" and msg["state"]["ply"] == 3:
                    break
            else:
                raise AssertionError("the AIs did not answer")
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def test_without_torch_only_scripted_ais_and_packages_are_offered(monkeypatch: pytest.MonkeyPatch) -> None:
    """A play-only install (no torch) lists no checkpoint it could not load; the packages' search seats run on onnx."""
    from pathlib import Path

    from play import strategies

    monkeypatch.setattr(strategies, "_torch_installed", lambda: False)
    entries = strategies.Catalogue().entries()
    assert {s.kind for s in entries} == {"scripted", "package", "search"}
    searches = [s for s in entries if s.kind == "search"]
    assert {s.id for s in searches} == {
        "search:small-agent",
        "search:small-10m",
        "search:standard-agent",
        "search:standard-stage9",
    }  # shipped
    assert all(Path(s.spec.removeprefix("search:").partition("?")[0]).is_dir() for s in searches)
