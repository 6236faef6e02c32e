"""Layout of a game state in flat arrays, shared by the compiled rules and Python.

A state is three arrays (batched versions add a leading game axis):

* ``board`` int8 ``[C]``: the piece on each cell. ``0`` is a free cell, otherwise
  ``1 + 2 * player + kind`` with kind ``0`` king, ``1`` knight (rule 4.1: one piece a cell).
* ``lands`` int16 ``[LAND_ROWS, L]``: per land, the owner (``-1`` none), each
  player's conquest hold counter (rule 6.4), liberation counter (rule 7.3) and
  first-conquest record (rule 6.7).
* ``scalars`` int32 ``[NUM_SCALARS]``: turn, round, countdown, game over, winners,
  each king's cell (a cache of ``board`` kept for speed) and the action counter.

Geometry and options travel to the kernels as one tuple (see ``dw_env.engine.kernel_tables``);
the integer options sit in its ``params`` array at the ``P_*`` offsets.
"""

from __future__ import annotations

from typing import Final

KING: Final = 0
KNIGHT: Final = 1
EMPTY: Final = 0


def piece_code(player: int, kind: int) -> int:
    """Return the board code of a player's king (kind 0) or knight (kind 1)."""
    return 1 + 2 * player + kind


# lands rows
OWNER: Final = 0
HOLD: Final = 1  # HOLD + player
LIB: Final = 4  # LIB + player
FIRST: Final = 7  # FIRST + player: 1 once the player has conquered the land (rule 6.7)
LAND_ROWS: Final = 10
NO_OWNER: Final = -1

# scalars
TURN: Final = 0
ROUND: Final = 1
CD_HOLDER: Final = 2  # -1 when no countdown runs (rule 9.2)
CD_LEFT: Final = 3
OVER: Final = 4
END_REASON: Final = 5
WINNERS: Final = 6  # bit p set when player p won (rule 9.5); 0 on truncation
KING_CELL: Final = 7  # KING_CELL + player
PLY: Final = 10  # actions played since the initial position of the record
NUM_SCALARS: Final = 11

# end reasons
END_NONE: Final = 0
END_CENTRE: Final = 1  # rule 9.1
END_COUNTDOWN: Final = 2  # rule 9.2
END_REQUEST: Final = 3  # rules 9.3-9.4
END_TRUNCATION: Final = 4  # resolution A57, not a rule
END_REASON_NAMES: Final = ("none", "centre", "countdown", "end_request", "truncation")

# params (integer options and derived thresholds)
P_K: Final = 0  # turns to conquer (rule 6.4)
P_FAST: Final = 1  # fast knights on (rule 4.5)
P_ALONE: Final = 2  # king may be alone (rule 10.4); 0 activates rule 4.11
P_E: Final = 3  # end-request points (rule 9.3)
P_C: Final = 4  # centre minimum points (rule 6.8)
P_CD: Final = 5  # countdown turns (rule 9.2)
P_KL: Final = 6  # liberation turns (rule 7.3)
P_MAXR: Final = 7  # truncation rounds (A57)
P_CENTRE: Final = 8  # centre land index
NUM_PARAMS: Final = 9

# action codes for the "from" cell
PASS: Final = -1  # rule 3.2(b)
END_REQUEST_ACTION: Final = -2  # rule 3.2(c)

# move kinds (bit flags; a destination may be reached by several kinds)
STEP: Final = 1  # rule 4.2
KING_MOVE: Final = 2  # rule 4.4
FAST_KNIGHT: Final = 4  # rule 4.5 (or 4.7 with fast knights off)
DOUBLE_STEP: Final = 8  # rule 4.8
JUMP: Final = 16  # rule 4.9
SWAP: Final = 32  # rule 4.10
MOVE_KIND_NAMES: Final = ("step", "king_move", "fast_knight", "double_step", "jump", "swap")

# status codes returned by the apply kernel (>= 0 is success)
ERR_GAME_OVER: Final = -1
ERR_NOT_YOUR_PIECE: Final = -2
ERR_ILLEGAL_DESTINATION: Final = -3
ERR_END_REQUEST: Final = -4
ERR_BAD_CELL: Final = -5
