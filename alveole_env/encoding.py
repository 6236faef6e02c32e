"""The observation and action encoding shared by the engine, both envs, the seats and the network.

The board is embedded in the 9 x 9 axial grid of :mod:`alveole_env.geometry` (cell ``(q, r)`` at
row ``r + 4``, column ``q + 4``; the 20 off-board squares are always 0 and never legal).

Observation: int8 ``[PLANES[0] * 81]``, plane-major then row-major, **egocentric** in its planes
(the board itself is not turned: actions are in the absolute frame):

====== ===========================================================================
plane  content
====== ===========================================================================
0      the acting player's pieces (1)
1      the opponent's pieces (1)
2      on each board cell, the pieces on its row (axis 0: directions E/W), 0..9
3      on each board cell, the pieces on its diagonal (axis 1: NE/SW), 0..9
4      on each board cell, the pieces on its column (axis 2: NW/SE), 0..9
5      1 on the 61 board cells (the "on board" plane)
====== ===========================================================================

Planes 2-4 are the move distances of R-3.2 (a piece on that cell moves exactly that far along the
axis), which a small convolution cannot count across the whole board by itself.

Actions: ``a = direction * 81 + grid_square(from_cell)`` with ``ACTION_PLANES = 6`` (spec 1.2's
direction order E, NE, NW, W, SW, SE) and no extra action (passing is never legal, R-3.1 / A14):
``NUM_ACTIONS = 486``. A move is identified by (from cell, direction), equivalently (from, to) (A16).
"""

from __future__ import annotations

from typing import Final

import numpy as np
from numba import njit
from numpy.typing import NDArray

from alveole_env.errors import brief
from alveole_env.geometry import CELL_GRID, GRID, GRID_CELL, GRID_CELLS, LINE_OF, NUM_CELLS, NUM_DIRECTIONS
from alveole_env.rules import list_moves, move_target

#: observation planes (C, H, W)
PLANES: Final = (6, GRID, GRID)
#: action planes (one per direction) and extra actions (none)
ACTION_PLANES: Final = NUM_DIRECTIONS
EXTRA_ACTIONS: Final = 0
#: the action count A = ACTION_PLANES * H * W + EXTRA_ACTIONS, and the observation length D = C * H * W
NUM_ACTIONS: Final = ACTION_PLANES * GRID_CELLS + EXTRA_ACTIONS
OBS_SIZE: Final = PLANES[0] * GRID_CELLS
PLANE_NAMES: Final[tuple[str, ...]] = ("own", "opponent", "row_count", "diagonal_count", "column_count", "on_board")
OBSERVATION_VERSION: Final = "alveole-obs-v1"
#: the rules a trained strategy played under: bumped when a resolution changes (e.g. BGA's real start layout, A1)
RULES_VERSION: Final = "alveole-rules-1"


def action_of(cell: int, direction: int) -> int:
    """Return the action int of moving the piece on ``cell`` (0..60) along ``direction`` (0..5)."""
    if not 0 <= cell < NUM_CELLS or not 0 <= direction < NUM_DIRECTIONS:
        raise ValueError(
            f"need a cell in 0..{NUM_CELLS - 1} and a direction in 0..5, got {brief(cell)}, {brief(direction)}"
        )
    return direction * GRID_CELLS + int(CELL_GRID[cell])


def decode_action(action: int) -> tuple[int, int]:
    """Return ``(from cell, direction)`` of an action; ValueError if it is out of range or off the board."""
    if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or not 0 <= action < NUM_ACTIONS:
        raise ValueError(f"action must be an integer in 0..{NUM_ACTIONS - 1}, got {brief(action)}")
    direction, square = divmod(int(action), GRID_CELLS)
    cell = int(GRID_CELL[square])
    if cell < 0:
        row, col = divmod(square, GRID)
        raise ValueError(f"action {action} names grid square (row {row}, column {col}), which is off the board")
    return cell, direction


def encoder_tables() -> tuple[NDArray[np.int16], NDArray[np.int16]]:
    """Return the encoder's tables ``(CELL_GRID, LINE_OF)`` as writable copies (one numba type)."""
    return CELL_GRID.copy(), LINE_OF.copy()


@njit(cache=True, nogil=True)
def encode(E, board, lines, player, moves, num_moves, obs, mask):  # type: ignore[no-untyped-def]
    """Write ``player``'s observation into ``obs`` and the mask of ``moves[:num_moves]`` (``cell*6+dir``)."""
    cell_grid, line_of = E[0], E[1]
    sq = 81
    obs[:] = 0
    mask[:] = 0
    own = player + 1
    for c in range(board.shape[0]):
        g = cell_grid[c]
        v = board[c]
        if v == own:
            obs[g] = 1
        elif v != 0:
            obs[sq + g] = 1
        for a in range(3):
            obs[(2 + a) * sq + g] = lines[line_of[c, a]]
        obs[5 * sq + g] = 1
    for i in range(num_moves):
        m = moves[i]
        mask[(m % 6) * sq + cell_grid[m // 6]] = 1


@njit(cache=True, nogil=True)
def legal_actions(G, cell_grid, board, lines, player, out):  # type: ignore[no-untyped-def]
    """Write ``player``'s legal action ints into ``out`` in ascending order; return the count (R-3.7).

    Directions outside, cells inside: cell indices and grid squares run in the same order.
    """
    own = player + 1
    count = 0
    for d in range(6):
        for c in range(board.shape[0]):
            if board[c] == own and move_target(G, board, lines, c, d, own) >= 0:
                out[count] = d * 81 + cell_grid[c]
                count += 1
    return count


@njit(cache=True, nogil=True)
def observation(G, E, board, lines, player, legal, moves, obs, mask):  # type: ignore[no-untyped-def]
    """Write ``player``'s observation and, if ``legal``, the mask of its legal moves (else all 0); one call."""
    count = list_moves(G, board, lines, player, moves) if legal else 0
    encode(E, board, lines, player, moves, count, obs, mask)
