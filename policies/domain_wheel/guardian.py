"""Guardiana (Guardian): "Deja caballeros de guardia y corta cualquier avance rival metiendo
caballeros." (spec section 6.5).

* **Guards.** One knight stays in each own land worth 3 points or more or touched by a rival
  piece; each guard raises every rival's need there by one (rule 6.2). Spare turns put guards
  where they are missing.
* **Block.** Any rival position with a counter >= 1 that one of its knights can enter this move
  is entered at once, highest counter first, then most points; blockers stay while the rival
  king sits there.
* **Expand.** Otherwise it expands like Expansionista with the king (neutral lands touching its
  territory), never moving a guard; among them it prefers points and what they open up, so it
  grows towards the middle, where rivals' positions are within its knights' reach.

It requests the end only when that wins.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from dw_env.engine import Game, Move
from dw_env.rules import layout as lay
from policies.domain_wheel import toolkit as tk
from policies.domain_wheel.expansionist import ExpansionistPolicy
from policies.domain_wheel.scripted import F64, ScriptedPolicy

#: lands worth at least this many points are always guarded
GUARD_POINTS = 3
#: block positions completing within this many of the rival's turns (any counter >= 1)
BLOCK_HORIZON = 99


class GuardianPolicy(ExpansionistPolicy):
    """Guards own lands, blocks every rival position it can reach, expands otherwise."""

    name = "guardian"
    display_name = "Guardiana"
    keep_blockers = True
    #: it guards the middle and ends games by end request, never by taking the centre
    takes_centre = False

    def decide(self, game: Game, sit: tk.Situation, allowed: NDArray[np.int8]) -> Move | None:
        move = self.block(sit, self.blockers(sit), horizon=BLOCK_HORIZON, order="counter")
        if move is not None:
            return move
        move = super().decide_expansion(sit, allowed)
        if move is not None:
            return move
        return self.place_guard(sit, allowed) or self.prepare(sit, allowed)

    def conquest_values(self, sit: tk.Situation, eta: F64) -> F64:
        """Return ``(points + w * opening) / eta`` for neutral lands: expansion towards the valuable
        middle, where rivals' positions can be reached and cut."""
        values = ScriptedPolicy.conquest_values(self, sit, eta)
        values[sit.owner >= 0] = -math.inf
        return values

    def blockers(self, sit: tk.Situation) -> NDArray[np.int8]:
        """Return the knights that may block: all but those holding the plan's land and other blocks.

        Guards may leave to cut a rival position: that is what they stand guard for.
        """
        assert sit.game is not None
        mask: NDArray[np.int8] = (sit.game.board == lay.piece_code(sit.seat, lay.KNIGHT)).astype(np.int8)
        locked = ScriptedPolicy.locked_lands(self, sit)
        if locked:
            mask[np.isin(sit.cell_land, list(locked))] = 0
        sit.entries_ready = False
        return mask

    def guard_lands(self, sit: tk.Situation) -> list[int]:
        """Return own non-start lands worth >= 3 points or touched by a rival piece (in or next to it)."""
        game = sit.game
        assert game is not None
        p = sit.seat
        board = game.board
        rival = np.flatnonzero((board > 0) & ((board - 1) // 2 != p))
        nb = sit.geometry.cell_neighbors[rival]
        touched = np.zeros(sit.geometry.num_lands, dtype=bool)
        touched[sit.cell_land[rival]] = True
        touched[sit.cell_land[nb[nb >= 0]]] = True
        own = (sit.owner == p) & ~sit.is_start
        return [int(m) for m in np.flatnonzero(own & ((sit.points >= GUARD_POINTS) | touched))]

    def locked_cells(self, sit: tk.Situation) -> list[int]:
        """Return one knight per guarded land (the guard); none while stalled."""
        p = sit.seat
        guards: list[int] = []
        lands = set(self.guard_lands(sit))
        if not lands or self.stalled:
            return guards
        for cell in sit.own_knight_cells(p):
            land = int(sit.cell_land[cell])
            if land in lands:
                guards.append(int(cell))
                lands.discard(land)
        return guards

    def place_guard(self, sit: tk.Situation, allowed: NDArray[np.int8]) -> Move | None:
        """Return a free knight's move into an unguarded guard land (most points first), or None."""
        p = sit.seat
        empty = [m for m in self.guard_lands(sit) if sit.counts[p, m] == 0]
        for land in sorted(empty, key=lambda m: -int(sit.points[m])):
            move = tk.knight_into(sit, land, allowed)
            if move is not None:
                return move
        return None
