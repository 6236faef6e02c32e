"""Every rule of the turn and of the end (R-3.1 to R-4.6) and the resolutions A3-A17, on hand-made positions.

Positions are written as lists of player-1 (``x``) and player-2 (``o``) cells in axial ``(q, r)``;
each keeps both players unconnected with at least 2 pieces (spec 2.3).
"""

from __future__ import annotations

import numpy as np
import pytest

from alveole_env import AlveoleGame, AlveoleOptions, IllegalActionError
from alveole_env.encoding import action_of
from alveole_env.geometry import CELLS, cell_index
from alveole_env.position import from_dict

Cell = tuple[int, int]


def position(x: list[Cell], o: list[Cell], to_move: int = 1, **options: int) -> AlveoleGame:
    pieces = [[q, r, 1] for q, r in x] + [[q, r, 2] for q, r in o]
    return from_dict({"to_move": to_move, "pieces": pieces}, AlveoleOptions(**options))


def dests(game: AlveoleGame, q: int, r: int) -> set[Cell]:
    return {CELLS[d] for d in game.destinations(cell_index(q, r))}


def play(game: AlveoleGame, src: Cell, dst: Cell) -> None:
    game.play(game.action_between(cell_index(*src), cell_index(*dst)))


# fillers off every line through (0, 0): q, r and s all nonzero
X_FILL = [(2, -1)]
O_FILL = [(-3, -1), (3, 1)]


# ---- distance = pieces on the whole line -----------------------------------------------


def test_rule_3_2_alone_on_its_lines_moves_one_cell_each_way() -> None:
    game = position([(0, 0), *X_FILL], O_FILL)
    assert dests(game, 0, 0) == {(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)}


def test_rule_3_2_pieces_behind_the_mover_count() -> None:
    game = position([(0, 0), (-3, 0), *X_FILL], O_FILL)
    assert (2, 0) in dests(game, 0, 0)  # E: 2 pieces on row r=0, one of them behind


def test_rule_3_2_both_colours_count() -> None:
    game = position([(0, 0), *X_FILL], [(-3, 0), *O_FILL])
    assert {(2, 0), (-2, 0)} <= dests(game, 0, 0)


def test_rule_3_2_pieces_beyond_a_blocker_count_for_the_other_sense() -> None:
    # E is blocked by the adjacent enemy; W moves 3 because (1,0) and (3,0) are on the line
    game = position([(0, 0), *X_FILL], [(1, 0), (3, 0), *O_FILL])
    got = dests(game, 0, 0)
    assert (-3, 0) in got and not any(r == 0 and q > 0 for q, r in got)


def test_rule_3_2_a7_pieces_beyond_the_capture_target_count() -> None:
    game = position([(0, 0), *X_FILL], [(3, 0), (4, 0), (-2, 3), (1, -4)])
    moves = {(CELLS[m.src], CELLS[m.dst]): m for m in game.legal_moves()}
    assert moves[((0, 0), (3, 0))].capture


def test_rule_3_2_other_lines_do_not_count() -> None:
    # a crowded column q=0 and diagonal s=0 do not lengthen the row move
    game = position([(0, 0), (0, 2), (-2, 2), *X_FILL], [(0, -3), (2, -2), *O_FILL])
    assert (1, 0) in dests(game, 0, 0) and (-1, 0) in dests(game, 0, 0)


def test_rule_3_2_opposite_directions_share_the_distance() -> None:
    game = position([(0, 0), (-4, 0), *X_FILL], [(4, 0), *O_FILL])
    assert {(3, 0), (-3, 0)} <= dests(game, 0, 0)


# ---- jumps, R-3.4 landing, R-3.5 edges ---------------------------------------------------


def test_rule_3_3_own_pieces_not_adjacent_to_each_other_are_jumped() -> None:
    # 5 pieces on row r=0: from (-4,0) E over its own (-2,0) and (0,0) to (1,0)
    game = position([(-4, 0), (-2, 0), (0, 0), (2, -3)], [(3, 0), (4, 0), (-1, 3), (3, -4)])
    assert (1, 0) in dests(game, -4, 0)


def test_rule_3_3_an_adjacent_enemy_blocks() -> None:
    game = position([(0, 0), *X_FILL], [(1, 0), *O_FILL])
    assert not any(r == 0 and q > 0 for q, r in dests(game, 0, 0))


def test_rule_3_3_a6_an_enemy_further_along_blocks() -> None:
    # 3 pieces on the row: E would go to (3,0) over the enemy on (2,0)
    game = position([(0, 0), (-3, 0), *X_FILL], [(2, 0), *O_FILL])
    assert (3, 0) not in dests(game, 0, 0)


def test_rule_3_4_landing_on_an_own_piece_is_illegal() -> None:
    game = position([(0, 0), (2, 0), *X_FILL], O_FILL)
    assert (2, 0) not in dests(game, 0, 0)
    assert (0, 0) not in dests(game, 2, 0)


def test_rule_3_4_landing_on_an_enemy_captures_exactly_that_piece() -> None:
    game = position([(-4, 0), (-3, 0), (2, -3), (-2, 3)], [(-1, 0), (4, -4), (0, 3), (3, 1)])
    before = game.board.copy()
    play(game, (-4, 0), (-1, 0))  # 3 on the row: jumps its own (-3,0), captures on (-1,0)
    assert game.num_pieces(1) == 3 and game.num_pieces(0) == 4
    changed = {CELLS[c] for c in np.flatnonzero(game.board != before)}
    assert changed == {(-4, 0), (-1, 0)}
    assert game.board[cell_index(-1, 0)] == 1 and game.last_move is not None and game.last_move.capture


def test_rule_3_5_destinations_off_the_board_are_absent() -> None:
    # (4,-2) is on the rim: E, NE and, with 2 pieces on column q=4, NW by 2 would all leave the board
    game = position([(4, -4), (4, -2), *X_FILL], [(0, -4), *O_FILL])
    assert dests(game, 4, -2) == {(3, -2), (3, -1), (4, 0)}


def test_rule_3_5_a4_lines_stop_at_the_rim_without_wrapping() -> None:
    # row r=-4 holds 3 pieces: E from (3,-4) would need (6,-4): no move E, none along the rim
    game = position([(3, -4), (0, -4), *X_FILL], [(1, -4), *O_FILL])
    assert not any(r == -4 and q > 3 for q, r in dests(game, 3, -4))
    assert all(max(abs(q), abs(r), abs(q + r)) <= 4 for q, r in dests(game, 3, -4))


def test_rule_3_7_a_corner_piece_has_at_most_three_moves() -> None:
    game = position([(4, -4), *X_FILL], O_FILL)
    assert dests(game, 4, -4) == {(3, -4), (4, -3), (3, -3)}


def test_rule_3_5_a_rim_piece_moves_along_the_rim_jumping_its_own() -> None:
    game = position([(0, -4), (1, -4), (3, -3)], [(4, 0), (-4, 4)])
    assert (2, -4) in dests(game, 0, -4)


def test_rule_3_7_a16_no_two_directions_share_a_destination() -> None:
    for game in (AlveoleGame.new(), position([(0, 0), (-4, 0), *X_FILL], [(4, 0), *O_FILL])):
        moves = game.legal_moves()
        assert len({(m.src, m.dst) for m in moves}) == len({(m.src, m.direction) for m in moves}) == len(moves)


# ---- A7: the capture target counts -------------------------------------------------------------


def test_a7_a_capture_that_exists_only_when_the_target_is_counted() -> None:
    game = position([(0, 0), *X_FILL], [(2, 0), *O_FILL])
    moves = {(CELLS[m.src], CELLS[m.dst]): m for m in game.legal_moves()}
    assert moves[((0, 0), (2, 0))].capture  # n = 2 with the target; reading (b) would give n = 1
    assert ((0, 0), (1, 0)) not in moves


# ---- R-3.1 / A14: no pass; finished games ------------------------------------------------


def test_rule_3_1_a14_there_is_no_pass_action() -> None:
    game = AlveoleGame.new()
    _, mask = game.observe()
    assert mask.sum() == len(game.legal_actions()) == 15
    with pytest.raises(IllegalActionError):
        game.play(-1)


def test_rule_3_1_a_move_that_hands_the_opponent_the_win_is_legal() -> None:
    game = position([(0, 0), (2, -3), (-2, 3)], [(2, 0), (-3, 3), (-4, 4)])
    play(game, (0, 0), (2, 0))  # captures the stray: player 2 is left connected
    assert game.end_reason == "opponent_connected"


# ---- wins ------------------------------------------------------------------------


def test_rule_4_2_mover_connects_without_capture() -> None:
    game = position([(0, 0), (2, -1)], O_FILL)
    play(game, (2, -1), (1, 0))
    assert game.over and game.end_reason == "mover_connected" and game.winners == [0]
    assert not game.truncated and game.legal_actions() == []


def test_rule_4_2_capture_of_the_only_stray_piece_makes_the_opponent_win() -> None:
    game = position([(0, 0), (0, -3)], [(2, 0), (-2, 3), (-1, 3)])
    play(game, (0, 0), (2, 0))
    assert game.end_reason == "opponent_connected" and game.winners == [1]


def test_rule_4_2_a11_a_capture_leaving_one_piece_makes_the_opponent_win() -> None:
    game = position([(0, 0), (0, -3)], [(2, 0), (-3, 3)])
    play(game, (0, 0), (2, 0))
    assert game.num_pieces(1) == 1 and game.end_reason == "opponent_connected" and game.winners == [1]


def test_rule_4_2_a9_both_connected_the_mover_wins() -> None:
    game = position([(0, 0), (3, -1)], [(2, 0), (-2, 3), (-1, 3)])
    play(game, (0, 0), (2, 0))
    assert game.connected(0) and game.connected(1)
    assert game.end_reason == "mover_connected" and game.winners == [0]


def test_rule_4_1_a8_distance_two_is_not_connected() -> None:
    game = position([(0, 0), (1, 1)], O_FILL)
    assert not game.connected(0) and game.num_groups(0) == 2
    assert game.connected(1) is False


def test_rule_4_2_second_player_wins_too() -> None:
    game = position(O_FILL, [(0, 0), (2, -1)], to_move=2)
    play(game, (2, -1), (1, 0))
    assert game.winners == [1] and game.end_reason == "mover_connected"


# ---- no legal move -----------------------------------------------------------------------

NO_MOVE_X = [(0, -4), (0, 4)]
NO_MOVE_O = [(1, -4), (-1, -3), (0, -3), (-1, 4), (1, 3), (0, 3)]


def test_rule_4_4_a10_no_legal_move_loses_at_once() -> None:
    game = position(NO_MOVE_X, NO_MOVE_O)
    assert game.over and game.end_reason == "no_legal_move" and game.winners == [1]
    assert game.legal_actions() == [] and game.observe()[1].sum() == 0
    assert [game.perft(d) for d in (1, 2, 3)] == [0, 0, 0]


def test_rule_4_4_the_other_player_can_move_there() -> None:
    game = position(NO_MOVE_X, NO_MOVE_O, to_move=2)
    assert not game.over and len(game.legal_actions()) > 0


def test_rule_4_4_after_a_move_the_next_player_without_moves_loses() -> None:
    # player 2's free piece steps; the boxed-in corners of player 1 stay boxed in, so player 1 cannot move
    game = position(NO_MOVE_X, NO_MOVE_O + [(3, 0)], to_move=2)
    play(game, (3, 0), (3, -1))
    assert game.end_reason == "no_legal_move" and game.winners == [1]


# ---- R-4.6 / A13 truncation ---------------------------------------------------------------------


def test_rule_4_6_truncation_is_not_a_rule_ending() -> None:
    game = AlveoleGame.new(AlveoleOptions(max_plies=3))
    for _ in range(3):
        assert not game.over
        game.play(game.legal_actions()[0])
    assert game.over and game.truncated and game.end_reason == "truncated" and game.winners == []
    assert game.legal_actions() == []


def test_rule_4_6_a_rule_ending_on_the_last_ply_wins_over_truncation() -> None:
    game = position([(0, 0), (2, -1)], O_FILL, max_plies=1)
    play(game, (2, -1), (1, 0))
    assert game.end_reason == "mover_connected" and not game.truncated


def test_rule_4_6_perft_ignores_the_cap() -> None:
    assert AlveoleGame.new(AlveoleOptions(max_plies=1)).perft(3) == AlveoleGame.new().perft(3)


# ---- illegal actions: clear errors, nothing changed ---------------------------------------------


@pytest.mark.parametrize(
    ("action", "words"),
    [
        (action_of(cell_index(0, -4), 0), "holds no piece of seat 0"),  # player 2's piece
        (action_of(cell_index(2, -4), 0), "holds no piece of seat 0"),  # empty cell
        (action_of(cell_index(4, -4), 0), "off the board"),
        (action_of(cell_index(4, -4), 5), "enemy piece"),
        (0, "off the board"),  # grid square (0, 0) is not a cell
        (486, "0..485"),
        (True, "integer"),
        ("5", "integer"),
    ],
)
def test_illegal_action_names_why_and_changes_nothing(action: object, words: str) -> None:
    game = AlveoleGame.new()
    before = (game.board.copy(), game.lines.copy(), game.scalars.copy())
    with pytest.raises(IllegalActionError, match="legal actions") as info:
        game.play(action)  # type: ignore[arg-type]
    assert words in str(info.value)
    for a, b in zip(before, (game.board, game.lines, game.scalars), strict=True):
        assert (a == b).all()


def test_landing_on_own_piece_message() -> None:
    game = position([(0, 0), (2, 0), *X_FILL], O_FILL)
    with pytest.raises(IllegalActionError, match="own piece"):
        game.play(action_of(cell_index(0, 0), 0))


def test_play_after_the_end_is_refused() -> None:
    game = position([(0, 0), (2, -1)], O_FILL)
    play(game, (2, -1), (1, 0))
    with pytest.raises(IllegalActionError, match="game is over"):
        game.play(action_of(cell_index(0, 0), 3))


# ---- spec 1.5: move text -----------------------------------------------------------------------


def test_spec_1_5_move_text_round_trips_and_marks_captures() -> None:
    game = position([(0, 0), *X_FILL], [(2, 0), *O_FILL])
    for move in game.legal_moves():
        assert game.parse_move(move.text()) == move
    assert game.parse_move("(0,0)x(2,0)").capture
    with pytest.raises(IllegalActionError, match="written as a plain move; it is \\(0,0\\)x\\(2,0\\)"):
        game.parse_move("(0,0)>(2,0)")
    with pytest.raises(IllegalActionError, match="no legal move from \\(0,0\\) to \\(1,0\\)"):
        game.parse_move("(0,0)>(1,0)")
    with pytest.raises(IllegalActionError, match="is written"):
        game.parse_move("0,0 -> 2,0")
    with pytest.raises(IllegalActionError, match="not a board cell"):
        game.parse_move("(5,0)>(0,0)")
    with pytest.raises(IllegalActionError, match="cell must be an integer cell index in 0..60, got -1"):
        game.action_between(-1, 3)
