"""Fuzz of what the play server reads from clients: any text, bytes or JSON value, as a websocket frame or as an
HTTP body, gets a JSON error reply naming the problem; never an exception, never ``internal``, never a 500.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from play import protocol
from play.games import InputError
from play.limits import LimitSettings
from play.server import ServerConfig, create_app

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)
#: JSON texts nested far deeper than a parser's stack allows, with some noise around
deep_texts = st.builds(
    lambda depth, opener, tail: opener * depth + tail,
    st.integers(1, 5000),
    st.sampled_from(["[", '{"a":', '{"type": "ping", "x": [']),
    st.text(max_size=10),
)
frames = st.text(max_size=300) | st.binary(max_size=300) | deep_texts | json_values.map(json.dumps)


@settings(max_examples=300, deadline=None)
@given(frames)
def test_any_frame_parses_or_is_refused_with_an_input_error(frame: str | bytes) -> None:
    try:
        message = protocol.parse(frame)
    except InputError as exc:
        assert exc.code in ("bad_json", "too_large", "bad_message", "unknown_type") and exc.message
        json.dumps(protocol.error(exc))  # the reply itself is JSON
    else:
        assert message.type in protocol.MESSAGE_TYPES


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    records: Path = tmp_path_factory.mktemp("records")
    config = ServerConfig(records=records, ai_workers=1, limits=LimitSettings.off())
    with TestClient(create_app(config), raise_server_exceptions=False) as c:
        yield c


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=400) | deep_texts.map(str.encode) | json_values.map(lambda v: json.dumps(v).encode()))
def test_any_room_body_gets_a_json_answer_never_a_500(client: TestClient, body: bytes) -> None:
    r = client.post("/api/rooms", content=body, headers={"content-type": "application/json"})
    assert r.status_code in (201, 400, 413, 503), r.text
    if r.status_code != 201:
        error = r.json()["error"]
        assert error["code"] != "internal" and error["message"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(frames, min_size=1, max_size=5))
def test_any_websocket_frames_are_answered_with_json_never_internal(client: TestClient, batch: list[Any]) -> None:
    with client.websocket_connect("/ws") as ws:
        for frame in batch:
            ws.send_bytes(frame) if isinstance(frame, bytes) else ws.send_text(frame)
        ws.send_json({"type": "ping", "id": "fence"})
        for _ in range(len(batch) + 1):
            answer = ws.receive_json()
            if answer.get("re") == "fence":
                break
            assert answer["type"] != "error" or (answer["code"] != "internal" and answer["message"]), answer
        else:
            raise AssertionError("no pong after the fuzzed frames")
