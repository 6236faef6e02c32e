"""Directa al centro (Straight to the centre): "Arma un camino de tierras hasta el anillo 1 y se lanza
al centro." (spec section 6.3).

1. **Path.** The cheapest chain of lands from its territory to ring 1 (own land 0, neutral 1,
   rival 2, a land with a seated rival king or a start land impassable), conquered in order.
2. **Minimum.** With ring 1 reached but fewer than C points (rule 6.8b), the best extra lands
   next to the territory, valued by points (and what they open up) per turn.
3. **Launch and hold.** Once its 13 points would make it the leader: ``2 + rival knights``
   knights into the centre, the king onto its throne, one more knight per intruder (rule 6.5)
   while holding; a spare knight waits on a ring-1 land next to the centre.

It requests the end only when that wins and the centre is more than 4 own turns away.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dw_env.engine import Game, Move
from dw_env.errors import brief
from dw_env.info import NUM_PLAYERS
from policies import state as st
from policies.domain_wheel import toolkit as tk
from policies.domain_wheel.scripted import ScriptedPolicy, would_win_with_centre

#: path weights per land (spec 6.3)
WEIGHT_OWN, WEIGHT_NEUTRAL, WEIGHT_RIVAL = 0, 1, 2
#: the centre is "near" (no end request) within this many own turns
CENTRE_NEAR_TURNS = 4


def centre_path(sit: tk.Situation, p: int) -> list[int]:
    """Return the cheapest chain of lands from T(p) to a ring-1 land (first land after T first).

    Ties go to the chain with more points. Empty if T(p) already reaches ring 1 or no chain exists.
    """
    g = sit.geometry
    blocked = sit.is_start.copy()
    for land in sit.rival_seated_lands(p):
        blocked[land] = True
    cost = np.full(g.num_lands, math.inf)
    prev = np.full(g.num_lands, -1, dtype=np.int64)
    heap: list[tuple[float, int]] = []
    for index in np.flatnonzero(sit.territory[p]):
        cost[index] = 0.0
        heap.append((0.0, int(index)))
    heapq.heapify(heap)
    goal = -1
    while heap:
        c, here = heapq.heappop(heap)
        if c > cost[here]:
            continue
        if sit.ring[here] == 1:
            goal = here
            break
        for nb in g.land_neighbors[here]:
            nb = int(nb)
            if nb < 0 or blocked[nb]:
                continue
            owner = int(sit.owner[nb])
            weight = WEIGHT_OWN if owner == p else WEIGHT_NEUTRAL if owner < 0 else WEIGHT_RIVAL
            step = weight * 100.0 - (float(sit.points[nb]) if weight else 0.0)
            if c + step < cost[nb]:
                cost[nb] = c + step
                prev[nb] = here
                heapq.heappush(heap, (c + step, nb))
    if goal < 0 or sit.territory[p, goal]:
        return []
    path = [goal]
    while prev[path[-1]] >= 0:
        path.append(int(prev[path[-1]]))
    return [land for land in reversed(path) if sit.owner[land] != p]


class CenterPolicy(ScriptedPolicy):
    """A chain of lands to ring 1, enough points, then the centre."""

    name = "center"
    display_name = "Directa al centro"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self._path_key: bytes = b""
        self._path: list[int] = []

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._path_key = b""
        self._path = []

    def state_dict(self) -> dict[str, Any]:
        """Return the scripted memory plus the cached path to ring 1 and the position it was found for."""
        return {**super().state_dict(), "path_key": self._path_key.hex(), "path": list(self._path)}

    def _read_state(self, state: Mapping[str, Any], num_lands: int) -> dict[str, Any]:
        key = state["path_key"]
        if key != "":
            key = st.read_str(key, "CenterPolicy.path_key", max_len=16 * num_lands + 64)
        try:
            path_key = bytes.fromhex(key)
        except ValueError:
            raise st.StateError(f"CenterPolicy.path_key: must be hexadecimal text, got {brief(key)}") from None
        path = st.read_list(state["path"], "CenterPolicy.path", num_lands)
        return {
            **super()._read_state(state, num_lands),
            "_path_key": path_key,
            "_path": [st.read_int(x, f"CenterPolicy.path[{i}]", 0, num_lands - 1) for i, x in enumerate(path)],
        }

    def wants_end(self, game: Game, sit: tk.Situation) -> bool:
        p = sit.seat
        hold = int(sit.hold(p)[sit.centre])
        if sit.seated_on(p, sit.centre) and hold >= 1 and self.turns_to_conquer - hold <= CENTRE_NEAR_TURNS:
            return False
        return super().wants_end(game, sit)

    def decide(self, game: Game, sit: tk.Situation, allowed: NDArray[np.int8]) -> Move | None:
        p = sit.seat
        free = self.free_knights(allowed)
        eta = tk.conquest_eta(sit, p, free, self.turns_to_conquer)
        values = np.full(sit.geometry.num_lands, -math.inf)
        if tk.centre_open(sit, p) and np.isfinite(eta[sit.centre]) and self._launch_ok(sit, p):
            values[sit.centre] = 1.0
        elif sit.dist[p, sit.centre] != 1:
            path = self._centre_path(sit, p)
            if path and np.isfinite(eta[path[0]]):
                values[path[0]] = 1.0
            else:
                values = self.conquest_values(sit, eta)
                values[sit.centre] = -math.inf
        else:
            values = self.conquest_values(sit, eta)
            values[sit.centre] = -math.inf
        self.update_plan(sit, values)
        move = self.pursue(sit, allowed)
        if move is None and self.plan is not None and self.plan.land == sit.centre:
            move = self.reinforce_centre(sit, allowed)
        return move or self.prepare(sit, allowed)

    def _launch_ok(self, sit: tk.Situation, p: int) -> bool:
        """Return True to go for the centre: already on it, or leading once its points count."""
        return sit.seated_on(p, sit.centre) or would_win_with_centre(sit, p)

    def _centre_path(self, sit: tk.Situation, p: int) -> list[int]:
        key = sit.owner.tobytes() + bytes(int(sit.king_land[q]) * 2 + int(sit.seated[q]) for q in range(NUM_PLAYERS))
        if key != self._path_key:
            self._path_key = key
            self._path = centre_path(sit, p)
        return self._path

    def reinforce_centre(self, sit: tk.Situation, allowed: NDArray[np.int8]) -> Move | None:
        """Return a spare knight's move to a ring-1 own land next to the centre (reinforcements)."""
        p = sit.seat
        ring1 = [int(m) for m in np.flatnonzero((sit.ring == 1) & (sit.owner == p))]
        if not ring1 or any(sit.counts[p, m] > 0 for m in ring1):
            return None
        return tk.knight_into(sit, ring1[0], allowed)
