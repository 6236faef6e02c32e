"""'Tus partidas' on the server (docs/PLAY.md, "Tus partidas"; issue 44 item 5): ``POST /api/my-games`` answers
each remembered seat with its game as that seat sees it, or with ``no_such_room`` / ``bad_token`` alone; bad
bodies are refused naming the field, the value and what is allowed; finished rooms are answered from the
database after a restart; the route is rate-limited per client on an injected clock (no sleeps).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from play import my_games
from play.limits import LimitSettings
from play.server import ServerConfig, create_app
from play.storage import SqliteRoomStore
from tests.play_storage_helpers import SMALL, FakeClock

LIMITS = LimitSettings(lookup_burst=3, lookup_rate=0.5)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def app_on(tmp_path: Path, clock: FakeClock) -> TestClient:
    db = tmp_path / "rooms.sqlite3"
    config = ServerConfig(records=tmp_path / "records", db=db, limits=LIMITS, clock=clock, now=clock)
    return TestClient(create_app(config))


@pytest.fixture
def client(tmp_path: Path, clock: FakeClock) -> Iterator[TestClient]:
    with app_on(tmp_path, clock) as c:
        yield c


def new_room(
    client: TestClient, game: str = "domain_wheel", names: tuple[str, ...] = ("Ana", "Bruno", "Carla"), **extra: Any
) -> dict[str, Any]:
    seats = [{"type": "human", "name": n} for n in names]
    body = {"game": game, "seats": seats, "ai_speed": "instant", **extra}
    if game == "domain_wheel":
        body["options"] = SMALL
    answer = client.post("/api/rooms", json=body)
    assert answer.status_code == 201, answer.text
    return dict(answer.json())


def ask(client: TestClient, room: dict[str, Any], *seats: tuple[int, str | None]) -> list[dict[str, Any]]:
    """Return the answers for ``seats``: (seat, token) pairs, token None meaning that seat's own."""
    body = [{"room": room["room"], "seat": s, "token": tok or room["seats"][s]["token"]} for s, tok in seats]
    answer = client.post("/api/my-games", json={"seats": body})
    assert answer.status_code == 200, answer.text
    return list(answer.json()["games"])


def play(client: TestClient, room: dict[str, Any], seat: int, *messages: dict[str, Any]) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "hello", "room": room["room"], "token": room["seats"][seat]["token"], "id": "h"})
        assert ws.receive_json()["type"] == "welcome"
        for i, message in enumerate(messages):
            ws.send_json({**message, "id": i})
            while (answer := ws.receive_json()).get("re") != i:
                pass
            assert answer["type"] == "state", answer


GOOD = {"room": "abc", "seat": 0, "token": "t"}


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ([GOOD], "the body must be a JSON object"),
        ({"seats": [GOOD], "extra": 1}, "unknown field 'extra'"),
        ({"seats": {"room": "abc"}}, "seats must be a list of at most 50"),
        ({"seats": [GOOD] * 51}, "got a list of 51"),
        ({"seats": ["abc"]}, "seats[0] must be an object"),
        ({"seats": [{**GOOD, "name": "x"}]}, "seats[0]: unknown field 'name'"),
        ({"seats": [GOOD, {**GOOD, "room": 5}]}, "seats[1]: room must be a room id"),
        ({"seats": [{**GOOD, "room": ""}]}, "seats[0]: room must be"),
        ({"seats": [{**GOOD, "room": "r" * 65}]}, "seats[0]: room must be"),
        ({"seats": [{**GOOD, "seat": True}]}, "seats[0]: seat must be an integer 0-15, got True"),
        ({"seats": [{**GOOD, "seat": -1}]}, "got -1"),
        ({"seats": [{**GOOD, "seat": "0"}]}, "got '0'"),
        ({"seats": [{**GOOD, "token": 7}]}, "seats[0]: token must be a string of 1-128 characters, got 7"),
        ({"seats": [{**GOOD, "token": "x" * 129}]}, "seats[0]: token must be"),
        ({"room": "abc"}, "unknown field 'room'"),
    ],
)
def test_a_bad_body_is_refused_naming_the_field_and_the_value(client: TestClient, body: Any, named: str) -> None:
    answer = client.post("/api/my-games", json=body)
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["code"] == "bad_message" and named in error["message"], error


def test_a_body_that_is_not_json_or_too_large_is_refused(client: TestClient) -> None:
    assert client.post("/api/my-games", content=b"{nope").json()["error"]["code"] == "bad_json"
    big = client.post("/api/my-games", content=b" " * (17 * 1024), headers={"content-type": "application/json"})
    assert big.status_code == 413


def test_issue44_5_the_right_token_sees_its_game_and_whose_turn_it_is(client: TestClient, clock: FakeClock) -> None:
    room = new_room(client, clock=3600)
    first, second = ask(client, room, (0, None), (1, None))
    assert first["room"] == room["room"] and first["seat"] == 0 and first["game"] == "domain_wheel"
    assert first["title"] == "Domain Wheel" and first["status"] == "waiting" and first["over"] is False
    assert first["your_turn"] is True and first["turn"] == 0 and first["turn_name"] == "Ana" and first["you"] == "Ana"
    assert first["clock"] == 3600 and first["deadline"] is None  # nobody has opened a seat: the clock waits
    assert [(o["seat"], o["name"], o["type"], o["presence"]) for o in first["opponents"]] == [
        (1, "Bruno", "human", "away"),
        (2, "Carla", "human", "away"),
    ]
    assert "winner" not in first and not any("token" in key or "hash" in key for key in first)
    assert second["your_turn"] is False and second["turn"] == 0 and second["you"] == "Bruno"
    assert [o["name"] for o in second["opponents"]] == ["Ana", "Carla"]


def test_issue44_5_after_a_move_the_turn_and_deadline_follow(client: TestClient, clock: FakeClock) -> None:
    room = new_room(client, "conquer", ("Ana", "Bruno"), clock=60)
    play(client, room, 1)  # Bruno opens his link: the clock starts when Ana opens hers
    clock.t += 10
    play(client, room, 0, {"type": "pass"})
    first, second = ask(client, room, (0, None), (1, None))
    assert first["your_turn"] is False and second["your_turn"] is True
    assert first["turn"] == second["turn"] == 1 and second["turn_name"] == "Bruno"
    assert second["deadline"] == clock.t + 60 and second["ply"] == 1 and second["updated"] == clock.t


def test_issue44_5_a_wrong_token_or_seat_learns_nothing_but_the_refusal(client: TestClient) -> None:
    room = new_room(client)
    other = room["seats"][1]["token"]
    answers = ask(client, room, (0, "not-the-token"), (0, other), (5, other))
    assert answers == [
        {"room": room["room"], "seat": 0, "error": "bad_token"},
        {"room": room["room"], "seat": 0, "error": "bad_token"},
        {"room": room["room"], "seat": 5, "error": "bad_token"},
    ]
    gone = client.post("/api/my-games", json={"seats": [{"room": "nothere", "seat": 0, "token": other}]})
    assert gone.json() == {"games": [{"room": "nothere", "seat": 0, "error": "no_such_room"}]}


def test_issue44_5_every_entry_takes_the_same_timing_safe_comparison(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    room = new_room(client)
    compared: list[tuple[bytes, bytes]] = []
    real = my_games.hmac.compare_digest

    def counting(a: bytes, b: bytes) -> bool:
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(my_games.hmac, "compare_digest", counting)
    token = room["seats"][0]["token"]
    body = [
        {"room": room["room"], "seat": 0, "token": token},
        {"room": room["room"], "seat": 9, "token": token},
        {"room": "nothere", "seat": 0, "token": token},
    ]
    client.post("/api/my-games", json={"seats": body})
    assert len(compared) == 3 and {len(a) for a, _ in compared} == {64}


def test_issue44_5_a_finished_room_is_answered_from_the_database_after_a_restart(
    tmp_path: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    with app_on(tmp_path, clock) as first:
        room = new_room(first, "conquer", ("Ana", "Bruno"))
        play(first, room, 0, {"type": "input", "action": "move", "from": [4, 4], "to": [4, 4]})
        play(first, room, 1, {"type": "pass"})
        play(first, room, 0, {"type": "pass"})
        live = first.app.state.manager.rooms[room["room"]]
        assert live.session.over
        before = ask(first, room, (0, None), (1, None))
        winners = live.session.winners
    replays: list[str] = []
    real_replay = my_games.replay_room

    def counted(adapter: Any, stored: Any, *args: Any) -> Any:
        replays.append(stored.id)
        return real_replay(adapter, stored, *args)

    monkeypatch.setattr(my_games, "replay_room", counted)
    with app_on(tmp_path, clock) as second:
        assert room["room"] not in second.app.state.manager.rooms
        assert ask(second, room, (0, "guess")) == [{"room": room["room"], "seat": 0, "error": "bad_token"}]
        assert replays == []  # a guessed token makes the server replay nothing
        after = ask(second, room, (0, None), (1, None), (0, room["seats"][1]["token"]))
        assert ask(second, room, (1, None)) == [after[1]]
        assert replays == [room["room"]]  # once, then kept
    for was, now in zip(before, after, strict=False):
        assert now["over"] is True and now["status"] == "over" and now["your_turn"] is False and now["turn"] is None
        assert now["winner"] == was["winner"] == winners and now["ply"] == was["ply"] == 3
        assert (now["you"], now["title"], now["deadline"]) == (was["you"], "Conquer", None)
    assert after[2] == {"room": room["room"], "seat": 0, "error": "bad_token"}


def test_issue44_5_an_expired_room_is_gone(tmp_path: Path, clock: FakeClock) -> None:
    with app_on(tmp_path, clock) as first:
        room = new_room(first)
    SqliteRoomStore(tmp_path / "rooms.sqlite3").finish(room["room"], "expired")
    with app_on(tmp_path, clock) as second:
        assert ask(second, room, (0, None)) == [{"room": room["room"], "seat": 0, "error": "no_such_room"}]


def test_issue44_5_look_ups_are_rate_limited_per_client_until_the_clock_moves(
    client: TestClient, clock: FakeClock
) -> None:
    for _ in range(3):
        assert client.post("/api/my-games", json={"seats": []}).json() == {"games": []}
    refused = client.post("/api/my-games", json={"seats": []})
    assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate_limited"
    assert refused.json()["error"]["allowed"]["retry_after_s"] == pytest.approx(2.0)
    other = TestClient(client.app, client=("10.0.0.9", 4000))
    assert other.post("/api/my-games", json={"seats": []}).status_code == 200
    clock.t += 2.0
    assert client.post("/api/my-games", json={"seats": []}).status_code == 200


def test_a_page_of_another_site_cannot_look_up_games(client: TestClient) -> None:
    answer = client.post("/api/my-games", json={"seats": []}, headers={"origin": "http://evil.example"})
    assert answer.status_code == 403 and answer.json()["error"]["code"] == "bad_origin"


def test_rule_2_7_every_unready_seat_of_a_simultaneous_deployment_is_told_it_is_its_turn(client: TestClient) -> None:
    options = {"map": "small", "players": 3, "fog": False}
    room = new_room(client, "frontera", ("Ana", "Bruno", "Carla"), options=options, seed=5)
    assert [g["your_turn"] for g in ask(client, room, (0, None), (1, None), (2, None))] == [True, True, True]
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "hello", "room": room["room"], "token": room["seats"][0]["token"], "id": "h"})
        welcome = ws.receive_json()
        assert welcome["type"] == "welcome"
        mine = welcome["state"]["state"]
        place = {"type": "input", "action": "place", "cell": mine["owner"].index(0), "count": mine["deploy_left"]}
        for i, message in enumerate((place, {"type": "input", "action": "ready"})):
            ws.send_json({**message, "id": i})
            while (answer := ws.receive_json()).get("re") != i:
                pass
            assert answer["type"] == "state", answer
    first, second, third = ask(client, room, (0, None), (1, None), (2, None))
    assert first["your_turn"] is False and second["your_turn"] is True and third["your_turn"] is True
    assert first["acting"] == second["acting"] == [1, 2]
