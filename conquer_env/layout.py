"""The flat state layout the compiled kernels share: colour codes, scalar slots, end reasons, error codes.

A game is three arrays (spec section 0): ``dots`` int8[W*H] and ``owner`` int8[W*H], indexed by
``point = y * W + x`` (x left to right, y top to bottom, rule 1.1), and ``scalars`` int32[NUM_SCALARS].
Colour codes are ``NONE = 0``, ``RED = 1``, ``BLUE = 2``; seat ``s`` plays colour ``s + 1`` (Red is
seat 0 and moves first, rule R-2.3). Live and dead are not stored: a dot is dead iff its point is
owned by the other colour (rule R-4.1).

``FREE`` caches the count of legal points (empty and unowned, rule R-3.3); it is re-derived whenever a
position is loaded, so a position stays (dots, owner, to_move, passes) as the spec requires.
"""

from __future__ import annotations

NONE, RED, BLUE = 0, 1, 2

# scalar slots
TO_MOVE = 0  # seat to act: 0 Red, 1 Blue
PASSES = 1  # consecutive passes just played (rule)
OVER = 2  # 1 once the game has ended (by a rule or truncation)
END_REASON = 3  # index into END_REASONS, -1 while the game runs
PLY = 4  # actions played so far
FREE = 5  # legal points left (empty and unowned)
PLY_LIMIT = 6  # truncate when PLY reaches this (not a rule, resolution A30)
NUM_SCALARS = 7

#: why a game ended: board full (rule R-9.1), two passes (rule R-9.2), ply limit (not a rule)
END_REASONS: tuple[str, ...] = ("board_full", "two_passes", "truncated")
END_BOARD_FULL, END_TWO_PASSES, END_TRUNCATED = 0, 1, 2

# flags returned by a legal placement
PLACED = 1  # the dot was placed
CAPTURED = 2  # rule R-6 step 2 sealed at least one region for the mover
BASE_FIRED = 4  # rule R-6 step 3: the dot fell into an opponent's open base and was sealed at once

# negative results: the action is refused and the state is unchanged (rule)
ERR_OVER = -1
ERR_OFF_BOARD = -2
ERR_OCCUPIED = -3
ERR_SEALED = -4
