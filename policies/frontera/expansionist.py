"""Expansionist: most territories. It spreads its armies along the frontier and takes every weak neighbour.

Deployment goes one army at a time to the frontier territory with the most weak foreign neighbours (at most
2 armies); it attacks the weakest target it can take with even odds or better (spec 0.2), ownerless ones first
on ties, splits a conquering stack evenly between source and conquest (R-6.2) to keep expanding from both, and
moves interior armies to the front.
"""

from __future__ import annotations

from policies.frontera.odds import conquest_chance
from policies.frontera.seat import FronteraSeat
from policies.frontera.sight import Sight

#: the lowest chance of conquest (spec 0.2, rolling until done) at which it attacks
THRESHOLD = 0.5


class ExpansionistSeat(FronteraSeat):
    """Takes as many territories as it can: cheap targets first, armies spread along the frontier."""

    name = "expansionist"
    display_name = "Expansionista"
    english_name = "Expansionist"

    def deploy(self, s: Sight, pool: int) -> tuple[int, int]:
        fronts = s.frontier or s.own
        best = max(fronts, key=lambda t: (sum(1 for u in s.hostile(t) if s.armies[u] <= 2), -int(s.armies[t]), -t))
        return best, 1

    def place(self, s: Sight) -> tuple[int, int]:
        return self.deploy(s, s.deploy_left)

    def attack(self, s: Sight) -> tuple[int, int] | None:
        best: tuple[tuple[int, int, float], tuple[int, int]] | None = None
        for source, target in s.targets():
            chance = conquest_chance(int(s.armies[source]), int(s.armies[target]))
            if chance < THRESHOLD:
                continue
            key = (-int(s.armies[target]), int(s.owner[target] < 0), chance)
            if best is None or key > best[0]:
                best = (key, (source, target))
        return None if best is None else best[1]

    def garrison(self, s: Sight, lo: int, hi: int) -> int:
        source = int((s.turn or {})["window"][0])
        total = int(s.armies[source]) + int((s.turn or {})["window"][2])
        return total // 2

    def regroup(self, s: Sight) -> tuple[int, int, int] | None:
        return self.interior_to_front(s)
