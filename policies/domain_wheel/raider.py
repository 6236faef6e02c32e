"""Saqueadora (Raider): "Va contra las tierras enemigas: las conquista o las libera para bajarles
puntos." (spec section 6.4).

Its targets are rival-owned non-start lands, valued ``points x (2 if the owner leads) + 3 if
taking it cuts the owner's territory``, per turn of eta. Far from its king (more than one land
away) it liberates them with knights alone (N + 3 + rival knights, 2 turns, rule 7); near its
king it conquers them (N + 2 + rival knights, K turns, rule 6), gaining the points. A
liberation runs beside the king's own plan. With no rival land worth it, it expands by points
per turn like Equilibrada, so it keeps pace. It requests the end only when that wins.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from dw_env.engine import Game, Move
from policies.domain_wheel import toolkit as tk
from policies.domain_wheel.scripted import ScriptedPolicy, would_win_with_centre

#: raids are preferred to plain expansion by this factor
RAID_PREFERENCE = 3.0
#: bonus for a land whose loss disconnects part of its owner's territory (spec 6.4)
CUT_BONUS = 3.0
#: raid only lands at most this far from the territory (N <= 1): farther ones cost too many knights
RAID_REACH = 2
#: liberate when the king is farther than this many lands (spec 6.4)
KING_NEAR_LANDS = 1


class RaiderPolicy(ScriptedPolicy):
    """Conquers or liberates rival lands; expands when there is nothing to raid."""

    name = "raider"
    display_name = "Saqueadora"

    def decide(self, game: Game, sit: tk.Situation, allowed: NDArray[np.int8]) -> Move | None:
        p = sit.seat
        free = self.free_knights(allowed)
        raid_value = self.raid_values(sit, p)
        near = sit.land_distance[int(sit.king_land[p])] <= KING_NEAR_LANDS
        if self.plan is not None and self.plan.kind == "conquer":
            near[self.plan.land] = True  # a raid begun as a conquest stays one while the king travels
        eta_c = tk.conquest_eta(sit, p, free, self.turns_to_conquer)
        eta_l = tk.liberation_eta(sit, p, free)
        conquer = self.conquest_values(sit, eta_c)
        if not would_win_with_centre(sit, p):
            conquer[sit.centre] = -math.inf
        rival = (raid_value > 0) & (sit.dist[p] <= RAID_REACH)
        raid_conquer = np.where(np.isfinite(eta_c), (raid_value + sit.points) / np.maximum(eta_c, 1.0), -math.inf)
        conquer = np.where(rival, np.where(near, RAID_PREFERENCE * raid_conquer, -math.inf), conquer)
        lib_value = RAID_PREFERENCE * raid_value / np.maximum(eta_l, 1.0)
        liberate = np.where(rival & np.isfinite(eta_l), lib_value, -math.inf)
        if self.plan is not None and self.plan.kind == "conquer":
            liberate[self.plan.land] = -math.inf
        self.raid = self._choose_plan(sit, self.raid, np.full_like(liberate, -math.inf), liberate)
        self.update_plan(sit, conquer)
        if self.raid is not None and self.plan is not None and self.raid.land == self.plan.land:
            self.raid = None
        # the king's plan gets its knights first; the raid uses the spare turns
        move = self.pursue(sit, allowed)
        if move is not None and (self.raid is None or move.src != sit.king_cell):
            return move
        if self.raid is not None:
            raid_move = self.pursue(sit, allowed, self.raid)
            if raid_move is not None:
                return raid_move
        return move or self.prepare(sit, allowed)

    def raid_values(self, sit: tk.Situation, p: int) -> NDArray[np.float64]:
        """Return per land the raid value of spec 6.4 (0 for lands that are not rival-owned)."""
        owner = sit.owner
        values = np.zeros(sit.geometry.num_lands)
        top = int(sit.scores.max())
        cuts = np.zeros(sit.geometry.num_lands, dtype=np.int32)
        for q in range(3):
            if q == p or not np.any((owner == q) & ~sit.is_start):
                continue
            sit.kernels.territory_cuts(sit.handle, q, sit.territory[q], sit._mark, sit._queue, cuts)
            mine = (owner == q) & ~sit.is_start
            factor = 2.0 if int(sit.scores[q]) == top else 1.0
            values[mine] = sit.points[mine] * factor + np.where(cuts[mine] > 0, CUT_BONUS, 0.0)
        return values
