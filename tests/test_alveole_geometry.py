"""The board (spec 1.1-1.7, test 7.1), the start layout (2.1) and the 12 symmetries commuting with the rules."""

from __future__ import annotations

import numpy as np
import pytest

from alveole_env import AlveoleGame
from alveole_env.encoding import NUM_ACTIONS, action_of, decode_action
from alveole_env.geometry import (
    CELL_GRID,
    CELLS,
    DIRECTIONS,
    GRID_CELL,
    LINE_OF,
    LINES,
    NEIGHBORS,
    NUM_CELLS,
    ON_BOARD_GRID,
    SYMMETRY_CELLS,
    SYMMETRY_DIRECTIONS,
    cell_coord,
    cell_index,
)
from alveole_env.position import from_board, from_dict
from alveole_env.state import START_LAYOUT


def test_spec_1_1_sixty_one_cells_and_neighbour_classes() -> None:
    assert NUM_CELLS == len(CELLS) == 61
    degree = (NEIGHBORS >= 0).sum(axis=1)
    corners = {(0, -4), (4, -4), (4, 0), (0, 4), (-4, 4), (-4, 0)}
    rim = {c for c, (q, r) in enumerate(CELLS) if max(abs(q), abs(r), abs(q + r)) == 4}
    assert {CELLS[c] for c in np.flatnonzero(degree == 3)} == corners
    assert len(rim) == 24 and all(degree[c] == 4 for c in rim if CELLS[c] not in corners)
    assert all(degree[c] == 6 for c in range(61) if c not in rim)
    assert degree.sum() // 2 == 156


def test_spec_1_2_neighbours_follow_the_direction_table() -> None:
    for c, (q, r) in enumerate(CELLS):
        for d, (dq, dr) in enumerate(DIRECTIONS):
            n = NEIGHBORS[c, d]
            assert (n < 0) == (max(abs(q + dq), abs(r + dr), abs(q + dq + r + dr)) > 4)
            if n >= 0:
                assert CELLS[n] == (q + dq, r + dr)
                assert NEIGHBORS[n, (d + 3) % 6] == c  # opposite directions


def test_spec_1_4_cell_index_round_trips() -> None:
    assert cell_index(0, -4) == 0 and cell_index(0, 0) == 30 and cell_index(0, 4) == 60
    for i in range(NUM_CELLS):
        assert cell_index(*cell_coord(i)) == i
    with pytest.raises(ValueError, match="not a board cell"):
        cell_index(4, 4)


def test_spec_1_6_twenty_seven_lines_with_their_lengths() -> None:
    assert len(LINES) == 27
    for axis in range(3):
        assert [len(LINES[axis * 9 + k]) for k in range(9)] == [5, 6, 7, 8, 9, 8, 7, 6, 5]
    assert all(len({LINE_OF[c, a] for a in range(3)}) == 3 for c in range(61))


def test_grid_embedding_and_action_ints() -> None:
    assert ON_BOARD_GRID.sum() == 61 and (GRID_CELL[CELL_GRID] == np.arange(61)).all()
    seen = set()
    for c in range(61):
        for d in range(6):
            a = action_of(c, d)
            assert decode_action(a) == (c, d)
            seen.add(a)
    assert len(seen) == 366 and max(seen) < NUM_ACTIONS == 486


def test_spec_1_7_symmetries_are_twelve_distinct_board_maps() -> None:
    assert SYMMETRY_CELLS.shape == (12, 61)
    assert len({tuple(p) for p in SYMMETRY_CELLS}) == 12
    for k in range(12):
        assert sorted(SYMMETRY_CELLS[k]) == list(range(61))
        for c in range(61):  # adjacency is preserved, direction by direction
            for d in range(6):
                n = NEIGHBORS[c, d]
                if n >= 0:
                    assert NEIGHBORS[SYMMETRY_CELLS[k, c], SYMMETRY_DIRECTIONS[k, d]] == SYMMETRY_CELLS[k, n]


def test_spec_2_1_start_layout_properties() -> None:
    game = AlveoleGame.new()
    assert game.num_pieces(0) == game.num_pieces(1) == 9 and game.turn == 0
    assert game.num_groups(0) == game.num_groups(1) == 9
    gaps = {(2, -4), (4, -2), (2, 2), (-2, 4), (-4, 2), (-2, -2)}
    assert all(game.board[cell_index(*c)] == 0 for c in gaps)
    assert {(4, -4), (0, 4), (-4, 0)} <= set(START_LAYOUT[0])
    colour_swap = np.where(game.board > 0, 3 - game.board, 0)
    images = [game.board[np.argsort(SYMMETRY_CELLS[k])] for k in range(12)]
    # 120-degree turns and corner mirrors keep the position; 60/180 turns and edge mirrors swap the colours
    assert sum((img == game.board).all() for img in images) == 6
    assert sum((img == colour_swap).all() for img in images) == 6


def _image(game: AlveoleGame, k: int, swap: bool) -> AlveoleGame:
    board = np.zeros(61, dtype=np.int8)
    board[SYMMETRY_CELLS[k]] = game.board
    seat = game.turn
    if swap:
        board = np.where(board > 0, 3 - board, 0).astype(np.int8)
        seat = 1 - seat
    return from_board(board, seat)


def _moves(game: AlveoleGame) -> set[tuple[int, int]]:
    return {(m.src, m.direction) for m in game.legal_moves()}


POSITIONS = {
    "start": AlveoleGame.new(),
    "midgame": from_dict(
        {
            "to_move": 2,
            "pieces": [[0, 0, 1], [1, -1, 1], [-1, 1, 1], [2, 0, 1], [-2, 2, 1], [0, -2, 1], [3, -3, 1]]
            + [[1, 0, 2], [-1, 0, 2], [0, 1, 2], [2, -2, 2], [-3, 3, 2], [1, 2, 2], [0, -4, 2]],
        }
    ),
}


@pytest.mark.parametrize("name", sorted(POSITIONS))
@pytest.mark.parametrize("swap", [False, True])
def test_spec_7_9_symmetries_commute_with_moves_and_perft(name: str, swap: bool) -> None:
    game = POSITIONS[name]
    base = _moves(game)
    expected = game.perft(3)
    for k in range(12):
        image = _image(game, k, swap)
        assert _moves(image) == {(int(SYMMETRY_CELLS[k, c]), int(SYMMETRY_DIRECTIONS[k, d])) for c, d in base}
        assert image.perft(3) == expected, f"symmetry {k} swap {swap}"
