"""The Conquer play adapter (play/games/conquer.py) without a browser: menu, inputs and their errors, AI turns,
records and replays, positions, and a room over the real server's HTTP API."""

from __future__ import annotations

from typing import Any

import pytest

from conquer_env.position import from_text, to_dict
from play import games
from play.games import InputError
from play.games.conquer import ConquerAdapter, ConquerSession
from tests.board_play_helpers import assert_record_replays, play_ai_game

ADAPTER = games.get("conquer")
NEARLY = """
    to_move: B
    .........
    .........
    ....R....
    ...RBR...
    .........
    .........
    .........
    .........
    .........
"""


def _session(**options: Any) -> ConquerSession:
    session = ADAPTER.new_session(ADAPTER.parse_options({"width": 9, "height": 9, **options}), ["human:a", "random"])
    assert isinstance(session, ConquerSession)
    return session


def test_registered_next_to_the_other_games() -> None:
    assert isinstance(ADAPTER, ConquerAdapter)
    assert {"domain_wheel", "alveole", "conquer"} <= {a.game_id for a in games.available()}
    menu = ADAPTER.menu()
    assert [s["display_name"] for s in menu["seats"]] == ["Rojo", "Azul"]
    assert [o["name"] for o in menu["options"]] == ["width", "height", "scoring", "start"]
    assert [s["id"] for s in menu["strategies"]] == ["random", "heuristic"]
    assert games.for_record(_session().record()) is ADAPTER
    assert ADAPTER.layout(ADAPTER.parse_options({"size": "39x32"}))["width"] == 39


def test_place_pass_and_the_view() -> None:
    session = _session()
    assert session.select(0, {"cell": [4, 4]}) == {"cell": [4, 4], "legal": True}
    entry = session.apply(session.parse_input(0, {"action": "place", "cell": [4, 4]}))
    assert entry["point"] == [4, 4] and entry["action"] == "place" and not entry["capture"]
    same = session.parse_input(1, {"action": "move", "from": [5, 5], "to": [5, 5]})
    assert same == 5 * 9 + 5
    session.apply(session.parse_input(1, {"action": "pass"}))
    view = session.view()
    assert view["ply"] == 2 and view["turn"] == 0 and view["passes"] == 1 and len(view["dots"]) == 81
    assert [4, 4] not in view["legal"] and len(view["legal"]) == 80
    refused = session.select(0, {"cell": [4, 4]})
    assert not refused["legal"] and "occupied by a Red dot" in refused["reason"]


def test_a_capture_is_logged_with_its_ring_and_territory() -> None:
    _, start = ADAPTER.parse_position(to_dict(from_text(NEARLY, to_move="R")))
    session = ADAPTER.session_at(start.options, ["a", "b"], start)
    entry = session.apply(session.parse_input(0, {"action": "place", "cell": [4, 4]}))
    event = entry["events"][0]
    assert entry["capture"] and event == {"type": "capture", "player": 0, "dead": 1, "sealed": 1, "rescued": 0}
    view = session.view()
    assert view["owner"][3 * 9 + 4] == 1 and view["dead"][3 * 9 + 4] == 1
    assert len(view["rings"]) == 4 and {r[0] for r in view["rings"]} == {1}
    assert session.record()["start"]["to_move"] == "R"


@pytest.mark.parametrize(
    ("seat", "message", "code"),
    [
        (1, {"action": "place", "cell": [0, 0]}, "not_your_turn"),
        (0, {"action": "jump"}, "bad_message"),
        (0, {"action": "place", "cell": [9, 0]}, "bad_cell"),
        (0, {"action": "place", "cell": "a1"}, "bad_message"),
        (0, {"action": "move", "from": [0, 0], "to": [1, 0]}, "bad_message"),
    ],
)
def test_bad_inputs_are_refused_with_a_code(seat: int, message: dict[str, Any], code: str) -> None:
    session = _session()
    with pytest.raises(InputError) as info:
        session.parse_input(seat, message)
    assert info.value.code == code and session.ply == 0


def test_an_occupied_point_is_an_illegal_move_and_changes_nothing() -> None:
    session = _session()
    session.apply(40)
    before = session.view()
    with pytest.raises(InputError) as info:
        session.apply(40)
    assert info.value.code == "illegal_move" and "occupied" in info.value.message
    assert session.view() == before


def test_ai_seats_play_a_game_that_replays() -> None:
    session = _session(scoring="territory")
    play_ai_game(ADAPTER, session)
    view = session.view()
    assert view["over"] and view["winners"] == [0] and view["scoring"] == "territory"
    assert_record_replays(ADAPTER, session, "owner", "dots", [0] * 81)


def test_positions_options_and_unknown_seats() -> None:
    with pytest.raises(InputError, match="already over"):
        ADAPTER.parse_position(to_dict(from_text("passes: 2\n...\n...")))
    with pytest.raises(InputError) as info:
        ADAPTER.parse_position({"dots": ["R.", "X."]})
    assert info.value.code == "bad_position"
    with pytest.raises(ValueError, match="unknown Conquer strategy 'balanced'; allowed: random, heuristic"):
        ADAPTER.make_policy("balanced", 0)
    assert ADAPTER.make_policy("heuristic", 3).name == "heuristic"
    with pytest.raises(InputError) as info:
        ADAPTER.parse_options({"width": 99})
    assert info.value.code == "bad_options" and "width=99" in info.value.message


def test_a_room_over_the_http_api(tmp_path: Any) -> None:
    from starlette.testclient import TestClient

    from play.server import ServerConfig, create_app

    app = create_app(ServerConfig(records=tmp_path, replays=[], ai_workers=1))
    with TestClient(app) as client:
        body = {
            "game": "conquer",
            "options": {"width": 9, "height": 9},
            "seats": [{"type": "ai", "strategy": "random"}] * 2,
        }
        answer = client.post("/api/rooms", json=body, headers={"origin": str(client.base_url)})
        assert answer.status_code == 201, answer.text
        assert answer.json()["summary"]["game"] == "conquer"
        layout = client.get("/api/layout", params={"game": "conquer", "width": 9}).json()
        assert layout["game"] == "conquer"
        listed = client.get("/api/menu").json()["strategies_by_game"]["conquer"]
        assert [s["id"] for s in listed if s["kind"] == "scripted"] == ["random", "heuristic"]
