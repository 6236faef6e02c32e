"""Expansionista (Expansionist): "Junta tierras cercanas lo más rápido posible. Casi no mira a los
rivales." (spec section 6.2).

Targets only neutral lands touching its territory (N = 0, rule 6.3), the one with the lowest
eta first (ties to more points); never blocks, never liberates, and leaves its knights free to
move on. Rivals matter only through the cost (their knights raise the need, rule 6.2). It
requests the end only when that wins.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from dw_env.engine import Game, Move
from policies.domain_wheel import toolkit as tk
from policies.domain_wheel.scripted import F64, ScriptedPolicy, would_win_with_centre

#: tie-break weight of points against eta (an eta difference of one turn always dominates)
POINTS_TIE_BREAK = 1e-3


class ExpansionistPolicy(ScriptedPolicy):
    """Nearest neutral lands first, as fast as possible."""

    name = "expansionist"
    display_name = "Expansionista"
    keep_blockers = False
    #: the centre is a neutral land touching the territory too (once ring 1 is reached): take it
    #: when its 13 points make this AI the leader (rule 9.1 ends the game)
    takes_centre = True

    def decide(self, game: Game, sit: tk.Situation, allowed: NDArray[np.int8]) -> Move | None:
        return self.decide_expansion(sit, allowed) or self.prepare(sit, allowed)

    def decide_expansion(self, sit: tk.Situation, allowed: NDArray[np.int8]) -> Move | None:
        """Return the next move towards the nearest neutral land (None while holding)."""
        p = sit.seat
        eta = tk.conquest_eta(sit, p, self.free_knights(allowed), self.turns_to_conquer)
        eta[sit.dist[p] != 1] = tk.INFEASIBLE
        values = self.conquest_values(sit, eta)
        if not (self.takes_centre and would_win_with_centre(sit, p)):
            values[sit.centre] = -math.inf
        self.update_plan(sit, values)
        return self.pursue(sit, allowed)

    def conquest_values(self, sit: tk.Situation, eta: F64) -> F64:
        """Return ``1 / eta`` for neutral lands, ties to more points; -inf elsewhere."""
        ok = np.isfinite(eta) & (sit.owner < 0)
        return np.where(ok, 1.0 / np.maximum(eta, 1.0) + POINTS_TIE_BREAK * sit.points, -math.inf)
