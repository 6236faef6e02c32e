r"""The board of side 5: cells, directions, lines, the 9 x 9 grid embedding and the 12 symmetries (spec 1.1-1.7).

Cells use axial coordinates ``(q, r)`` with ``s = -q - r``; the board is every cell with
``max(|q|, |r|, |s|) <= 4`` (61 cells). Hexes are pointy-top and ``r`` grows downwards. Cells are
numbered row by row (``r`` from -4 to 4, ``q`` ascending in a row), spec 1.4::

     r=-4           0   1   2   3   4               q:  0 .. 4
     r=-3         5   6   7   8   9  10                -1 .. 4
     r=-2      11  12  13  14  15  16  17              -2 .. 4
     r=-1    18  19  20  21  22  23  24  25            -3 .. 4
     r= 0  26  27  28  29  30  31  32  33  34          -4 .. 4
     r= 1    35  36  37  38  39  40  41  42            -4 .. 3
     r= 2      43  44  45  46  47  48  49              -4 .. 2
     r= 3        50  51  52  53  54  55                -4 .. 1
     r= 4          56  57  58  59  60                  -4 .. 0

Directions, in the fixed order of every listing and of the action encoding (spec 1.2)::

             NW=2 (0,-1)   NE=1 (+1,-1)
                       \   /
     W=3 (-1,0)  ----   c   ----  E=0 (+1,0)
                       /   \
            SW=4 (-1,+1)   SE=5 (0,+1)

Directions ``d`` and ``d + 3`` are opposite; both run along the axis ``d % 3``: axis 0 keeps
``r`` (rows), axis 1 keeps ``s`` (diagonals), axis 2 keeps ``q`` (columns), spec 1.6.

The grid embedding (the encoding's 9 x 9 planes) puts cell ``(q, r)`` at row ``r + 4``, column
``q + 4``; the 20 grid squares with ``|q + r| > 4`` are off the board.

Everything here is computed once at import by small pure helpers; the tables are read-only numpy
arrays that the compiled kernels take as arguments.
"""

from __future__ import annotations

from typing import Final

import numpy as np
from numpy.typing import NDArray

from alveole_env.errors import brief

#: cells per board edge (spec 0)
SIDE: Final = 5
#: the largest |q|, |r|, |s| of a board cell
RADIUS: Final = SIDE - 1
#: cells on the board, 3 * SIDE^2 - 3 * SIDE + 1
NUM_CELLS: Final = 3 * SIDE * SIDE - 3 * SIDE + 1
#: rows and columns of the grid embedding
GRID: Final = 2 * RADIUS + 1
#: grid squares (on and off the board)
GRID_CELLS: Final = GRID * GRID
#: movement directions (spec 1.2)
NUM_DIRECTIONS: Final = 6
#: (dq, dr) of each direction, spec 1.2's order
DIRECTIONS: Final[tuple[tuple[int, int], ...]] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
DIRECTION_NAMES: Final[tuple[str, ...]] = ("E", "NE", "NW", "W", "SW", "SE")
#: lines per axis and in all (spec 1.6)
LINES_PER_AXIS: Final = GRID
NUM_LINES: Final = 3 * LINES_PER_AXIS
#: the 12 board symmetries (spec 1.7)
NUM_SYMMETRIES: Final = 12


def on_board(q: int, r: int) -> bool:
    """Return True if axial ``(q, r)`` is a board cell (spec 1.1)."""
    return max(abs(q), abs(r), abs(q + r)) <= RADIUS


def _cells() -> tuple[tuple[int, int], ...]:
    return tuple((q, r) for r in range(-RADIUS, RADIUS + 1) for q in range(-RADIUS, RADIUS + 1) if on_board(q, r))


#: (q, r) of every cell, in index order (spec 1.4)
CELLS: Final = _cells()
_INDEX: Final = {qr: i for i, qr in enumerate(CELLS)}


def cell_index(q: int, r: int) -> int:
    """Return the index of cell ``(q, r)``; ValueError naming the coordinates if it is off the board."""
    try:
        return _INDEX[(q, r)]
    except (KeyError, TypeError):
        raise ValueError(
            f"({brief(q)}, {brief(r)}) is not a board cell: need max(|q|, |r|, |q + r|) <= {RADIUS}"
        ) from None


def cell_coord(index: int) -> tuple[int, int]:
    """Return ``(q, r)`` of cell ``index`` (0..60)."""
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not 0 <= index < NUM_CELLS:
        raise ValueError(f"cell index must be an integer in 0..{NUM_CELLS - 1}, got {brief(index)}")
    return CELLS[int(index)]


def cell_distance(a: int, b: int) -> int:
    """Return the hex distance between cells ``a`` and ``b`` (spec 1.1)."""
    (qa, ra), (qb, rb) = CELLS[a], CELLS[b]
    dq, dr = qa - qb, ra - rb
    return max(abs(dq), abs(dr), abs(dq + dr))


def _grid_tables() -> tuple[NDArray[np.int16], NDArray[np.int16]]:
    cell_grid = np.array([(r + RADIUS) * GRID + (q + RADIUS) for q, r in CELLS], dtype=np.int16)
    grid_cell = np.full(GRID_CELLS, -1, dtype=np.int16)
    grid_cell[cell_grid] = np.arange(NUM_CELLS, dtype=np.int16)
    return cell_grid, grid_cell


#: grid square (row * 9 + column) of each cell, and the cell of each grid square (-1 off the board)
CELL_GRID, GRID_CELL = _grid_tables()
#: 1 on the 61 grid squares that are board cells
ON_BOARD_GRID: Final = (GRID_CELL >= 0).astype(np.int8)


def _rays() -> NDArray[np.int16]:
    """Return ``rays[c, d, k]`` = the cell ``k`` steps from ``c`` in direction ``d`` (-1 off the board)."""
    rays = np.full((NUM_CELLS, NUM_DIRECTIONS, GRID), -1, dtype=np.int16)
    for c, (q, r) in enumerate(CELLS):
        for d, (dq, dr) in enumerate(DIRECTIONS):
            for k in range(GRID):
                if on_board(q + k * dq, r + k * dr):
                    rays[c, d, k] = _INDEX[(q + k * dq, r + k * dr)]
    return rays


#: ``RAYS[c, d, k]``: cell ``k`` steps from ``c`` along direction ``d``, ``k`` in 0..8 (``RAYS[c, d, 0] == c``)
RAYS: Final = _rays()
#: ``NEIGHBORS[c, d]``: the adjacent cell in direction ``d`` or -1 (spec 1.1)
NEIGHBORS: Final = np.ascontiguousarray(RAYS[:, :, 1])


def _line_of() -> NDArray[np.int16]:
    """Return ``line_of[c, axis]``: the line id (0..26) through ``c`` along ``axis`` (spec 1.6)."""
    line_of = np.zeros((NUM_CELLS, 3), dtype=np.int16)
    for c, (q, r) in enumerate(CELLS):
        s = -q - r
        line_of[c] = (r + RADIUS, LINES_PER_AXIS + s + RADIUS, 2 * LINES_PER_AXIS + q + RADIUS)
    return line_of


#: ``LINE_OF[c, axis]``: the line through ``c`` that direction ``d`` uses when ``d % 3 == axis``
LINE_OF: Final = _line_of()
#: the cells of each line, in id order (rows by r, diagonals by s, columns by q)
LINES: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(int(c) for c in np.flatnonzero(LINE_OF[:, line // LINES_PER_AXIS] == line)) for line in range(NUM_LINES)
)


def _rotate(q: int, r: int) -> tuple[int, int]:
    """Turn ``(q, r)`` by 60 degrees (spec 1.7)."""
    return -r, q + r


def _symmetry_map(k: int, q: int, r: int) -> tuple[int, int]:
    """Apply symmetry ``k``: rotations ``k`` = 0..5 (60 * k degrees), mirror then rotation ``k - 6`` for 6..11."""
    if k >= 6:
        q, r = r, q
    for _ in range(k % 6):
        q, r = _rotate(q, r)
    return q, r


def _symmetries() -> tuple[NDArray[np.int16], NDArray[np.int16]]:
    cells = np.zeros((NUM_SYMMETRIES, NUM_CELLS), dtype=np.int16)
    dirs = np.zeros((NUM_SYMMETRIES, NUM_DIRECTIONS), dtype=np.int16)
    for k in range(NUM_SYMMETRIES):
        for c, (q, r) in enumerate(CELLS):
            cells[k, c] = _INDEX[_symmetry_map(k, q, r)]
        for d, (dq, dr) in enumerate(DIRECTIONS):
            dirs[k, d] = DIRECTIONS.index(_symmetry_map(k, dq, dr))
    return cells, dirs


#: ``SYMMETRY_CELLS[k, c]``: the image of cell ``c`` under symmetry ``k``; ``SYMMETRY_DIRECTIONS[k, d]``: of
#: direction ``d`` (the maps are linear, so a direction turns like a cell offset). ``k`` 0..5 rotate by
#: 60 * k degrees; 6..11 mirror ``(q, r) -> (r, q)`` and then rotate by 60 * (k - 6) degrees.
SYMMETRY_CELLS, SYMMETRY_DIRECTIONS = _symmetries()
for _table in (CELL_GRID, GRID_CELL, ON_BOARD_GRID, RAYS, NEIGHBORS, LINE_OF, SYMMETRY_CELLS, SYMMETRY_DIRECTIONS):
    _table.setflags(write=False)


def cell_name(index: int) -> str:
    """Return the spec's text of a cell, ``(q,r)`` (spec 1.5)."""
    q, r = cell_coord(index)
    return f"({q},{r})"
