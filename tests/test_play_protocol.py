"""The websocket protocol's message validation (play/protocol.py), and a bounded fuzz of JSON messages
against a live room: every frame gets an answer, refusals name what was wrong, and nothing but a legal
input of the acting seat ever changes the game.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from play import protocol
from play.games import InputError
from play.server import ServerConfig, create_app

#: every error code docs/PLAY.md lists
ERROR_CODES = {
    "bad_json",
    "too_large",
    "bad_message",
    "unknown_type",
    "not_joined",
    "already_joined",
    "no_such_room",
    "bad_token",
    "spectator",
    "not_your_turn",
    "not_your_piece",
    "bad_cell",
    "illegal_move",
    "stale",
    "game_over",
    "not_host",
    "not_over",
}
#: every type but "leave", which gives the fuzzing socket's seat away for good (tests/test_play_seat_changes.py)
FUZZED_TYPES = [t for t in protocol.MESSAGE_TYPES if t != "leave"]


def test_valid_messages_parse() -> None:
    msg = protocol.parse('{"type": "move", "from": [1, 2], "to": [1, 3], "ply": 4, "id": 9}')
    assert (msg.type, msg.id, msg.is_input) == ("move", 9, True)
    assert msg.game_input() == {"action": "move", "from": [1, 2], "to": [1, 3], "ply": 4}
    assert protocol.parse('{"type": "input", "action": "pass"}').game_input() == {"action": "pass"}
    assert protocol.parse('{"type": "hello", "room": "abc"}').fields == {"room": "abc"}


@pytest.mark.parametrize(
    ("text", "code", "names"),
    [
        ("nope", "bad_json", "JSON"),
        ("[]", "bad_json", "object"),
        ('{"type": "dance"}', "unknown_type", "dance"),
        ('{"id": 1}', "unknown_type", "null"),
        ('{"type": "select"}', "bad_message", "cell"),
        ('{"type": "select", "cell": [0, 0], "colour": 1}', "bad_message", "colour"),
        ('{"type": "pass", "ply": -1}', "bad_message", "ply"),
        ('{"type": "pass", "ply": true}', "bad_message", "ply"),
        ('{"type": "hello", "room": 5}', "bad_message", "room"),
        ('{"type": "hello", "room": "r", "seat": "0"}', "bad_message", "seat"),
        ('{"type": "set_speed", "speed": "warp"}', "bad_message", "warp"),
        ('{"type": "set_speed", "speed": []}', "bad_message", "speed"),  # unhashable: once a TypeError
        ('{"type": "set_speed", "speed": {"fast": 1}}', "bad_message", "speed"),
        ('{"type": "ping", "id": [1]}', "bad_message", "id"),
        ('{"type": "input", "action": 3}', "bad_message", "action"),
    ],
)
def test_malformed_messages_name_the_problem(text: str, code: str, names: str) -> None:
    with pytest.raises(InputError) as info:
        protocol.parse(text)
    assert info.value.code == code
    assert names in info.value.message


def test_size_limit_counts_bytes() -> None:
    with pytest.raises(InputError) as info:
        protocol.parse(json.dumps({"type": "ping", "x": "é" * 2100}))
    assert info.value.code == "too_large"


def test_error_keeps_the_message_id() -> None:
    with pytest.raises(InputError) as info:
        protocol.parse('{"type": "select", "id": "a7"}')
    assert protocol.error(info.value, info.value.re)["re"] == "a7"


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-50, 50) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3),
    max_leaves=8,
)
cells = st.lists(st.integers(-8, 8), min_size=2, max_size=2) | json_values
messages = st.fixed_dictionaries(
    {"type": st.sampled_from([*FUZZED_TYPES, "nope"]) | json_values},
    optional={
        "cell": cells,
        "from": cells,
        "to": cells,
        "ply": st.integers(-1, 5) | json_values,
        "room": st.text(max_size=10) | json_values,
        "token": st.text(max_size=10),
        "seat": st.integers(-1, 3) | json_values,
        "speed": st.sampled_from(list(protocol.AI_SPEEDS)) | json_values,
        "action": st.sampled_from(["move", "pass", "end_request", "jump"]) | json_values,
        "extra": json_values,
    },
)


@settings(max_examples=200, deadline=None)
@given(messages)
def test_validate_never_raises_anything_but_input_errors(message: dict[str, Any]) -> None:
    try:
        protocol.parse(json.dumps(message))
    except InputError as exc:
        assert exc.code in ERROR_CODES and exc.message


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Any:
    records: Path = tmp_path_factory.mktemp("records")
    with TestClient(create_app(ServerConfig(records=records, ai_workers=1))) as client:
        body = {
            "options": {"land_radius": 1, "map_radius": 2},
            "seats": [{"type": "human"}, {"type": "human"}, {"type": "human"}],
        }
        room = client.post("/api/rooms", json=body).json()
        with client.websocket_connect("/ws") as ws:
            ws.send_json({"type": "hello", "room": room["room"], "token": room["seats"][0]["token"]})
            assert ws.receive_json()["type"] == "welcome"
            yield client, room, ws


def _answer(ws: Any) -> list[dict[str, Any]]:
    """Send a ping and return every message that arrived before its pong."""
    ws.send_json({"type": "ping", "id": "fence"})
    out: list[dict[str, Any]] = []
    for _ in range(20):
        msg = ws.receive_json()
        if msg.get("re") == "fence":
            return out
        out.append(msg)
    raise AssertionError("no pong")


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(messages)
def test_fuzzed_messages_are_answered_and_change_nothing_unless_legal(live: Any, message: dict[str, Any]) -> None:
    client, room, ws = live
    before = client.get(f"/api/rooms/{room['room']}").json()
    ws.send_text(json.dumps(message))
    answers = _answer(ws)
    if message.get("type") == "ping" and set(message) <= {"type", "id"}:
        assert [a["type"] for a in answers] == ["pong"]
        return
    assert len(answers) == 1, answers
    answer = answers[0]
    after = client.get(f"/api/rooms/{room['room']}").json()
    if answer["type"] == "error":
        assert answer["code"] in ERROR_CODES and answer["message"], answer
        assert after["ply"] == before["ply"]
    elif answer["type"] == "state" and message.get("type") != "sync":
        # only a legal input of the acting seat (seat 0 holds this socket) moves the game
        assert before["turn"] == 0 and after["ply"] == before["ply"] + 1
        # give the turn back to seat 0: the other two seats are humans nobody plays, so reset the room
        _reset(live)
    else:
        assert answer["type"] in ("destinations", "room", "state", "pong"), answer
        assert after["ply"] == before["ply"]


def _reset(live: Any) -> None:
    """Replace the room's game by a fresh one (the fuzz only ever plays seat 0)."""
    client, room, _ = live
    manager = client.app.state.manager
    target = manager.rooms[room["room"]]
    target.session = target.adapter.new_session(target.options, ["human:a", "human:b", "human:c"])
