"""Continental: completes regions and holds them, for their bonus (R-4.1).

Its goal is the region it is closest to completing (owned share, then the smaller region, then the larger
bonus per territory) among those it does not own whole. It deploys on its frontier territory inside or next to
that region facing the goal's weakest foreign territory, attacks only targets in the goal region (or in a region
it owns whole, to win it back) at a conquest chance of at least :data:`THRESHOLD` (spec 0.2), and regroups to
the borders of the regions it owns.
"""

from __future__ import annotations

from policies.frontera.odds import conquest_chance
from policies.frontera.seat import FronteraSeat
from policies.frontera.sight import Sight

#: the lowest chance of conquest (spec 0.2, rolling until done) at which it attacks
THRESHOLD = 0.55


class ContinentalSeat(FronteraSeat):
    """Takes one region at a time, the one nearest completion, and guards the regions it holds."""

    name = "continental"
    display_name = "Continental"
    english_name = "Continental"

    def goal(self, s: Sight) -> int:
        """Return the region to complete next: highest owned share among those not owned whole."""
        open_ = [r for r in range(len(s.ctx.regions)) if s.region_share(r) < 1.0] or list(range(len(s.ctx.regions)))
        return max(open_, key=lambda r: (s.region_share(r), -len(s.ctx.regions[r]), s.ctx.bonus[r], -r))

    def wanted(self, s: Sight) -> set[int]:
        """Return the foreign territories it attacks: the goal region's and those of the regions it owned."""
        goal = self.goal(s)
        return {
            t
            for r, members in enumerate(s.ctx.regions)
            if r == goal or s.region_share(r) >= 0.75
            for t in members
            if s.owner[t] != s.seat
        }

    def deploy(self, s: Sight, pool: int) -> tuple[int, int]:
        wanted = self.wanted(s)
        best: tuple[int, int, int] | None = None
        for t in s.frontier:
            for u in s.hostile(t):
                if u in wanted:
                    key = (int(s.armies[t]) - int(s.armies[u]), -int(s.armies[u]), -t)
                    if best is None or key > best:
                        best = key
        if best is None:
            return max(s.frontier or s.own, key=lambda t: (s.threat(t) - int(s.armies[t]), -t)), pool
        return -best[2], pool

    def attack(self, s: Sight) -> tuple[int, int] | None:
        wanted = self.wanted(s)
        best: tuple[float, tuple[int, int]] | None = None
        for source, target in s.targets():
            if target not in wanted:
                continue
            chance = conquest_chance(int(s.armies[source]), int(s.armies[target]))
            if chance >= THRESHOLD and (best is None or chance > best[0]):
                best = (chance, (source, target))
        return None if best is None else best[1]

    def regroup(self, s: Sight) -> tuple[int, int, int] | None:
        return self.interior_to_front(s)
