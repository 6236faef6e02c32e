"""Camera turns on the Alveole and Conquer boards (rule 11.10, issue 46 item 1), in Chromium against the play server.

Alveole turns as Domain Wheel does (15 degrees a Q/E press, freely by a right-button drag); Conquer's square grid
turns in quarter turns only. A turned board draws each point where the turn puts it (checked against where the
unturned board drew the point the turn carries there), a click there plays that point (checked on the server), and
the keyboard cursor's arrows follow the screen's directions, on Domain Wheel's board too. Two fingers twisting:
tests/test_play_conquer_phone.py.
"""

from __future__ import annotations

from typing import Any

import httpx

from tests import board_play_helpers as board_play
from tests.play_fixtures import LiveServer, needs_chromium, wait_until
from tests.test_play_a11y import start_small_game

pytestmark = needs_chromium
pytest_plugins = ["tests.play_fixtures"]

#: a right-button drag turns the camera by this many degrees a pixel (board/hexmap.js)
TURN_PER_PX = 0.4


def open_seat(pg: Any, server: LiveServer, game: str, options: dict[str, int]) -> Any:
    """Create a room (seat 0 human, seat 1 the random AI), open seat 0's link; return the room once it is our turn."""
    body = {"game": game, "options": options, "ai_speed": "instant",
            "seats": [{"type": "human"}, {"type": "ai", "strategy": "random"}]}  # fmt: skip
    answer = httpx.post(server.url + "/api/rooms", json=body, headers={"origin": server.url}, timeout=60)
    assert answer.status_code == 201, answer.text
    pg.goto(server.url + answer.json()["seats"][0]["link"])
    pg.wait_for_selector("[data-testid=game-screen][data-ply='0'][data-turn='0']")
    wait_for_styles(pg, game)
    return server.rooms[answer.json()["room"]]


def wait_for_styles(pg: Any, game: str) -> None:
    """Wait for the game's stylesheet (loaded by the page after the board): until then the board is laid out apart."""
    pg.wait_for_function(f"document.querySelector('link[data-{game}-css]')?.sheet != null")


def centre_of(pg: Any, selector: str) -> tuple[float, float]:
    box = pg.locator(selector).bounding_box()
    assert box, f"{selector} is not drawn"
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def right_drag(pg: Any, board: str, dx: float) -> None:
    """Drag across the board with the right mouse button, ``dx`` pixels to the right."""
    x, y = centre_of(pg, board)
    pg.mouse.move(x - dx / 2, y)
    pg.mouse.down(button="right")
    pg.mouse.move(x + dx / 2, y, steps=6)
    pg.mouse.up(button="right")


def angle(pg: Any, board: str) -> int:
    return int(pg.get_attribute(board, "data-angle"))


def test_rule_11_10_alveole_turns_by_q_e_and_right_drag_and_a_click_plays_the_cell_under_it(
    page: Any, live_server: LiveServer
) -> None:
    pg = page
    board = "svg.alveole-board"
    room = open_seat(pg, live_server, "alveole", {})
    piece = pg.locator("[data-testid=movable-piece]").first
    q, r = map(int, piece.get_attribute("data-qr").split(","))
    assert (q, r) != (0, 0)
    mirrored = centre_of(pg, f".alv-cell[data-qr='{-q},{-r}']")  # where a half turn about the centre puts the piece
    for _ in range(12):
        pg.keyboard.press("q")
    assert angle(pg, board) == -180
    there = centre_of(pg, f"[data-testid=movable-piece][data-qr='{q},{r}']")
    assert abs(there[0] - mirrored[0]) < 1.5 and abs(there[1] - mirrored[1]) < 1.5, (there, mirrored)
    pg.mouse.click(*mirrored)
    pg.wait_for_selector(f"{board}[data-selected='{q},{r}']")

    right_drag(pg, board, 30 / TURN_PER_PX)  # 30 degrees more
    assert angle(pg, board) == -150
    target = pg.locator("[data-testid=destination]").first
    to = target.get_attribute("data-qr")
    pg.mouse.click(*centre_of(pg, f"[data-testid=destination][data-qr='{to}']"))
    entry = wait_until(lambda: next(iter(room.session.view()["log"]), None), "the human's move")
    assert (entry["seat"], entry["from"], entry["to"]) == (0, [q, r], [int(v) for v in to.split(",")])
    pg.keyboard.press("r")  # the whole board, upright again
    assert angle(pg, board) == 0


def test_rule_11_10_conquer_turns_in_quarters_plays_where_clicked_and_arrows_follow_the_screen(
    page: Any, live_server: LiveServer
) -> None:
    pg = page
    board = "svg.conquer-board"
    open_seat(pg, live_server, "conquer", {"width": 9, "height": 9})
    assert pg.is_visible(".keys-hint") and not pg.is_visible(".touch-hint"), "a desktop gets keys, not gestures"
    before = centre_of(pg, "[data-testid=legal-point][data-xy='4,6']")  # a quarter turn carries (6, 4) here
    pg.keyboard.press("e")
    assert angle(pg, board) == 90
    right_drag(pg, board, 40 / TURN_PER_PX)  # under half a quarter: the grid stays as it is
    assert angle(pg, board) == 90
    right_drag(pg, board, 50 / TURN_PER_PX)  # past half a quarter: a quarter more
    assert angle(pg, board) == -180
    right_drag(pg, board, -50 / TURN_PER_PX)
    assert angle(pg, board) == 90
    after = centre_of(pg, "[data-testid=legal-point][data-xy='6,4']")
    assert abs(after[0] - before[0]) < 1.5 and abs(after[1] - before[1]) < 1.5, (after, before)
    pg.mouse.click(*before)
    pg.wait_for_selector("[data-testid=dot][data-xy='6,4'][data-colour='1']")
    pg.wait_for_selector("[data-testid=game-screen][data-ply='2'][data-turn='0']")

    pg.keyboard.press("ArrowRight")  # the first arrow shows the cursor at the centre
    assert pg.inner_text("[data-testid=announcer]") == "4,4"
    start = centre_of(pg, "[data-testid=board-cursor]")
    pg.keyboard.press("ArrowRight")  # right on the screen: up the board's y on a board turned a quarter clockwise
    assert pg.inner_text("[data-testid=announcer]") == "4,3"
    moved = centre_of(pg, "[data-testid=board-cursor]")
    assert moved[0] > start[0] + 10 and abs(moved[1] - start[1]) < 1.5, (start, moved)
    pg.keyboard.press("ArrowUp")
    assert pg.inner_text("[data-testid=announcer]") == "3,3"


def test_rule_11_10_a_conquer_replay_turns_by_keys_and_its_button_shows_the_whole_board(
    page: Any, live_server: LiveServer
) -> None:
    pg = page
    board = "svg.conquer-board"
    seats = [{"type": "ai", "strategy": "random"}] * 2
    body = {
        "game": "conquer",
        "options": {"width": 9, "height": 9, "max_plies": 4},
        "seats": seats,
        "ai_speed": "instant",
    }
    room = board_play.spectate_ai_game(pg, live_server, body, "[data-testid=legal-point]")
    board_play.open_replay(pg, live_server, room, "conquer")
    wait_for_styles(pg, "conquer")
    pg.keyboard.press("e")
    pg.keyboard.press("+")
    assert angle(pg, board) == 90 and float(pg.get_attribute(board, "data-zoom")) > 1
    pg.keyboard.press("ArrowRight")  # still the replay's: one ply on, the camera as it was
    pg.wait_for_selector("[data-testid=replay][data-ply='1']")
    assert angle(pg, board) == 90
    pg.click("[data-testid=board-overview]")
    assert angle(pg, board) == 0 and pg.get_attribute(board, "data-zoom") == "1.000"


def cell_qr(pg: Any, cell: str) -> tuple[int, int]:
    q, r = pg.get_attribute(f".cell[data-cell='{cell}']", "data-qr").split(",")
    return int(q), int(r)


def test_rule_11_10_domain_wheel_arrows_follow_the_screen_after_a_half_turn(page: Any, live_server: LiveServer) -> None:
    """On a board turned half round by twelve 15-degree E presses, → moves the cursor to the cell drawn to its right
    (the board's left neighbour, (q - 1, r)) and ↑ to a cell drawn above it (a row further down the board)."""
    pg = page
    start_small_game(pg, live_server)
    pg.keyboard.press("ArrowRight")  # the first arrow shows the cursor on your own king
    king = pg.get_attribute(".piece.king.p0", "data-cell")
    assert pg.get_attribute("[data-testid=board-cursor]", "data-cell") == king
    q, r = cell_qr(pg, king)
    assert pg.locator(f".cell[data-qr='{q - 1},{r}']").count() == 1, "the test needs the king's left neighbour"
    for _ in range(12):
        pg.keyboard.press("e")
    assert angle(pg, "svg.hexmap") == -180
    start = centre_of(pg, "[data-testid=board-cursor]")
    pg.keyboard.press("ArrowRight")
    assert cell_qr(pg, pg.get_attribute("[data-testid=board-cursor]", "data-cell")) == (q - 1, r)
    moved = centre_of(pg, "[data-testid=board-cursor]")
    assert moved[0] > start[0] + 10 and abs(moved[1] - start[1]) < 1.5, (start, moved)
    pg.keyboard.press("ArrowUp")
    above = centre_of(pg, "[data-testid=board-cursor]")
    assert cell_qr(pg, pg.get_attribute("[data-testid=board-cursor]", "data-cell"))[1] == r + 1
    assert above[1] < moved[1] - 10, (moved, above)
