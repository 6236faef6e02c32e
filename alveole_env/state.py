"""The flat state of one game (what the compiled kernels read and write) and the start position (spec 0, 2.1).

A game is three preallocated arrays:

* ``board`` int8 ``[61]``: ``EMPTY`` or ``1 + seat`` (seat 0 is the spec's player 1, who moves first,
  rule A2; seat 1 is player 2);
* ``lines`` int8 ``[27]``: the number of pieces on each line (spec 1.6), kept in step with ``board``
  so the distance of a move (R-3.2) is one read;
* ``scalars`` int32 ``[NUM_SCALARS]``: the entries named below.

Nothing else matters to the rules: there is no repetition rule, so no history (A13).
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from alveole_env.errors import StateError
from alveole_env.geometry import LINE_OF, NUM_CELLS, NUM_LINES, RAYS, cell_index
from gamecore.arrays import check_layout

NUM_PLAYERS: Final = 2
#: pieces per player at the start (spec 0)
PIECES: Final = 9
#: fewest pieces of a valid position in progress (spec 2.3)
MIN_PIECES: Final = 2
EMPTY: Final = 0

#: why a game ended: the three rule endings of R-4.2 / R-4.4, then the engine's truncation (R-4.6)
END_REASONS: Final[tuple[str, ...]] = ("mover_connected", "opponent_connected", "no_legal_move", "truncated")
END_MOVER_CONNECTED: Final = 0
END_OPPONENT_CONNECTED: Final = 1
END_NO_LEGAL_MOVE: Final = 2
END_TRUNCATED: Final = 3

# scalars entries
TURN: Final = 0  #: seat to move
PLY: Final = 1  #: plies played
OVER: Final = 2  #: 1 once the game has ended (by a rule or by truncation)
WINNER: Final = 3  #: winning seat, -1 while playing and on truncation
END_REASON: Final = 4  #: index into END_REASONS, -1 while playing
COUNT0: Final = 5  #: seat 0's pieces on the board (COUNT0 + seat for either)
COUNT1: Final = 6
MAX_PLIES: Final = 7  #: the options' truncation limit
LAST_FROM: Final = 8  #: the last move's start cell, -1 before any move
LAST_TO: Final = 9  #: the last move's destination, -1 before any move
LAST_CAPTURE: Final = 10  #: 1 if the last move captured
NUM_SCALARS: Final = 11

#: the start layout, AbstractPlay's hex5 Lines of Action layout (spec 2.1, resolution A1): (q, r) per seat.
#: Kept as one constant so that BGA's real layout can be dropped in if it is ever found.
START_LAYOUT: Final[tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]] = (
    ((1, -4), (4, -4), (-1, -3), (4, -1), (-4, 0), (3, 1), (-4, 3), (-3, 4), (0, 4)),
    ((0, -4), (3, -4), (4, -3), (-3, -1), (4, 0), (-4, 1), (1, 3), (-4, 4), (-1, 4)),
)


def piece_code(seat: int) -> int:
    """Return the board value of ``seat``'s pieces."""
    return 1 + seat


def empty_arrays() -> tuple[NDArray[np.int8], NDArray[np.int8], NDArray[np.int32]]:
    """Return a fresh empty (board, lines, scalars) triple: no pieces, seat 0 to move, nothing played."""
    scalars = np.zeros(NUM_SCALARS, dtype=np.int32)
    scalars[[WINNER, END_REASON, LAST_FROM, LAST_TO]] = -1
    return np.zeros(NUM_CELLS, dtype=np.int8), np.zeros(NUM_LINES, dtype=np.int8), scalars


def fill_arrays(
    board: NDArray[np.int8], lines: NDArray[np.int8], scalars: NDArray[np.int32], pieces: NDArray[np.int8]
) -> None:
    """Set ``board`` to ``pieces`` and recompute the line counts and piece counts from it."""
    board[:] = pieces
    lines[:] = 0
    for c in np.flatnonzero(board):
        lines[LINE_OF[c]] += 1
    scalars[COUNT0] = int(np.count_nonzero(board == piece_code(0)))
    scalars[COUNT1] = int(np.count_nonzero(board == piece_code(1)))


def start_board() -> NDArray[np.int8]:
    """Return the start position's board (spec 2.1)."""
    board = np.zeros(NUM_CELLS, dtype=np.int8)
    for seat, cells in enumerate(START_LAYOUT):
        for q, r in cells:
            board[cell_index(q, r)] = piece_code(seat)
    return board


#: the highest ply a game may hold (a position loaded at or past its options' ``max_plies`` is truncated)
MAX_PLY: Final = 100_000


def check_arrays(board: Any, lines: Any, scalars: Any, max_plies: int, *, max_ply: int | None = None) -> None:
    """Raise StateError unless (board, lines, scalars) is a state the kernels may run on.

    The compiled kernels index tables by these values and trust them, so arrays given to a game (the
    constructor) or read from a file (a training checkpoint's games in progress) are checked whole before
    they are used: types, shapes and memory layout, piece codes, the line and piece counts recomputed from
    the board, the player to move, the ply (at most ``max_ply``, default ``max_plies``), the ending fields
    and the last move.
    """
    check_layout(board, "board", np.int8, (NUM_CELLS,), StateError)
    check_layout(lines, "lines", np.int8, (NUM_LINES,), StateError)
    check_layout(scalars, "scalars", np.int32, (NUM_SCALARS,), StateError)
    if not np.isin(board, (EMPTY, piece_code(0), piece_code(1))).all():
        bad = int(board[~np.isin(board, (EMPTY, piece_code(0), piece_code(1)))][0])
        raise StateError(f"board cells must be {EMPTY}, {piece_code(0)} or {piece_code(1)}, got {bad}")
    expected = np.zeros(NUM_LINES, dtype=np.int64)
    for c in np.flatnonzero(board):
        expected[LINE_OF[c]] += 1
    if not np.array_equal(expected, lines):
        raise StateError("the line counts do not match the board")
    for seat, entry in ((0, COUNT0), (1, COUNT1)):
        count = int(np.count_nonzero(board == piece_code(seat)))
        if count > PIECES:
            raise StateError(f"seat {seat} has {count} pieces on the board; allowed: at most {PIECES}")
        if int(scalars[entry]) != count:
            raise StateError(f"seat {seat}'s piece count {int(scalars[entry])} does not match the board ({count})")
    checks = (
        (TURN, 0, 1),
        (PLY, 0, max_plies if max_ply is None else max_ply),
        (OVER, 0, 1),
        (WINNER, -1, 1),
        (END_REASON, -1, len(END_REASONS) - 1),
        (LAST_FROM, -1, NUM_CELLS - 1),
        (LAST_TO, -1, NUM_CELLS - 1),
        (LAST_CAPTURE, 0, 1),
    )
    for entry, low, high in checks:
        if not low <= int(scalars[entry]) <= high:
            raise StateError(f"scalar {entry} must be in {low}..{high}, got {int(scalars[entry])}")
    if int(scalars[MAX_PLIES]) != max_plies:
        raise StateError(f"the ply limit {int(scalars[MAX_PLIES])} is not the options' {max_plies}")
    if (int(scalars[OVER]) == 1) != (int(scalars[END_REASON]) >= 0):
        raise StateError("a game is over exactly when it has an end reason")
    src, dst = int(scalars[LAST_FROM]), int(scalars[LAST_TO])
    if (src < 0) != (dst < 0) or (src >= 0 and not (RAYS[src, :, 1:] == dst).any()):
        raise StateError(f"the last move {src} -> {dst} is no move: its cells must share a line, or both be -1")
