"""The Alveole play adapter (play/games/alveole.py) without a browser: menu, inputs and their errors, AI turns,
records and replays, positions, and a room over the real server's HTTP API."""

from __future__ import annotations

from typing import Any

import pytest

from alveole_env import AlveoleGame
from alveole_env.geometry import CELLS
from play import games
from play.games import InputError
from play.games.alveole import AlveoleAdapter, AlveoleSession
from tests.board_play_helpers import assert_record_replays, play_ai_game

ADAPTER = games.get("alveole")
START_POSITION = {"to_move": 2, "pieces": [[0, 0, 1], [2, -1, 1], [-3, -1, 2], [3, 1, 2]]}


def _session() -> AlveoleSession:
    session = ADAPTER.new_session(ADAPTER.parse_options({}), ["human:a", "random"])
    assert isinstance(session, AlveoleSession)
    return session


def _first_move(session: AlveoleSession) -> tuple[list[int], list[int]]:
    move = session.game.legal_moves()[0]
    return list(CELLS[move.src]), list(CELLS[move.dst])


def test_registered_next_to_domain_wheel() -> None:
    assert isinstance(ADAPTER, AlveoleAdapter)
    assert {"domain_wheel", "alveole"} <= {a.game_id for a in games.available()}
    menu = ADAPTER.menu()
    assert [s["display_name"] for s in menu["seats"]] == ["Negras", "Blancas"]
    assert menu["options"] == [{"name": "max_plies", "type": "int", "min": 1, "max": 100000, "default": 600}]
    assert games.for_record(_session().record()) is ADAPTER


def test_select_and_move_follow_the_engine() -> None:
    session = _session()
    src, dst = _first_move(session)
    answer = session.select(0, {"cell": src})
    expected = session.game.destinations(session.game.legal_moves()[0].src)
    assert {tuple(d["to"]) for d in answer["destinations"]} == {CELLS[c] for c in expected}
    action = session.parse_input(0, {"action": "move", "from": src, "to": dst})
    entry = session.apply(action)
    assert entry["from"] == src and entry["to"] == dst and entry["notation"].startswith(f"({src[0]},{src[1]})")
    view = session.view()
    assert view["ply"] == 1 and view["turn"] == 1 and len(view["board"]) == 61 and view["log"] == [entry]


@pytest.mark.parametrize(
    ("seat", "message", "code"),
    [
        (1, {"action": "move", "from": [1, -4], "to": [1, -3]}, "not_your_turn"),
        (0, {"action": "pass"}, "bad_message"),
        (0, {"action": "move", "from": [9, 9], "to": [0, 0]}, "bad_cell"),
        (0, {"action": "move", "from": "a", "to": [0, 0]}, "bad_message"),
        (0, {"action": "move", "from": [0, -4], "to": [1, -4]}, "illegal_move"),  # player 2's piece
    ],
)
def test_bad_inputs_are_refused_with_a_code(seat: int, message: dict[str, Any], code: str) -> None:
    session = _session()
    before = session.game.board.copy()
    with pytest.raises(InputError) as info:
        session.parse_input(seat, message)
    assert info.value.code == code
    assert (session.game.board == before).all() and session.ply == 0


def test_selecting_a_piece_that_is_not_yours_lists_yours() -> None:
    session = _session()
    with pytest.raises(InputError) as info:
        session.select(0, {"cell": [0, -4]})
    assert info.value.code == "not_your_piece"
    assert sorted(map(tuple, info.value.allowed)) == sorted({CELLS[m.src] for m in session.game.legal_moves()})


def test_ai_seats_play_a_game_that_replays() -> None:
    session = _session()
    play_ai_game(ADAPTER, session)
    view = session.view()
    assert view["over"] and view["winners"] and view["winning_group"]
    assert_record_replays(ADAPTER, session, "board", "board", [int(v) for v in AlveoleGame.new().board])


def test_positions_and_unknown_seats() -> None:
    options, start = ADAPTER.parse_position(START_POSITION)
    session = ADAPTER.session_at(options, ["a", "b"], start)
    assert session.turn == 1 and sorted(session.record()["start"]["pieces"]) == sorted(START_POSITION["pieces"])
    with pytest.raises(InputError, match="already connected"):
        ADAPTER.parse_position({"to_move": 1, "pieces": [[0, 0, 1], [1, 0, 1], [-3, -1, 2], [3, 1, 2]]})
    with pytest.raises(ValueError, match="unknown Alveole strategy 'balanced'; allowed: random, heuristic"):
        ADAPTER.make_policy("balanced", 0)
    with pytest.raises(InputError) as info:
        ADAPTER.parse_options({"max_plies": 0})
    assert info.value.code == "bad_options"


def test_a_room_over_the_http_api(tmp_path: Any) -> None:
    from starlette.testclient import TestClient

    from play.server import ServerConfig, create_app

    app = create_app(ServerConfig(records=tmp_path, replays=[], ai_workers=1))
    with TestClient(app) as client:
        body = {"game": "alveole", "options": {"max_plies": 50}, "seats": [{"type": "ai", "strategy": "random"}] * 2}
        answer = client.post("/api/rooms", json=body, headers={"origin": str(client.base_url)})
        assert answer.status_code == 201, answer.text
        assert answer.json()["summary"]["game"] == "alveole"
        layout = client.get("/api/layout", params={"game": "alveole"}).json()
        assert len(layout["cells"]) == 61 and layout["cells"][30] == [0, 0]
