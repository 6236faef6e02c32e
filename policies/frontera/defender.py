"""Defender: fortifies its borders and attacks only when it is nearly sure, once a turn, for the card.

Deployment goes one army at a time to the frontier territory under the most pressure (rival armies next to it
minus its own); it attacks only at a conquest chance of at least :data:`THRESHOLD` (spec 0.2) and stops after
its first conquest of the turn (enough for a card, R-8.1), leaves the smallest garrison in a conquest so the
border stack stays strong (R-6.2), and pulls interior armies to the most threatened border.
"""

from __future__ import annotations

from policies.frontera.odds import conquest_chance
from policies.frontera.seat import FronteraSeat
from policies.frontera.sight import Sight

#: the lowest chance of conquest (spec 0.2, rolling until done) at which it attacks: nearly sure
THRESHOLD = 0.85


class DefenderSeat(FronteraSeat):
    """Holds what it has: reinforces the most threatened borders and attacks rarely."""

    name = "defender"
    display_name = "Defensora"
    english_name = "Defender"

    def deploy(self, s: Sight, pool: int) -> tuple[int, int]:
        fronts = s.frontier or s.own
        return max(fronts, key=lambda t: (s.threat(t) - int(s.armies[t]), -t)), 1

    def place(self, s: Sight) -> tuple[int, int]:
        return self.deploy(s, s.deploy_left)

    def attack(self, s: Sight) -> tuple[int, int] | None:
        if (s.turn or {}).get("conquests", 0) >= 1:
            return None
        best: tuple[float, tuple[int, int]] | None = None
        for source, target in s.targets():
            chance = conquest_chance(int(s.armies[source]), int(s.armies[target]))
            if chance >= THRESHOLD and (best is None or chance > best[0]):
                best = (chance, (source, target))
        return None if best is None else best[1]

    def garrison(self, s: Sight, lo: int, hi: int) -> int:
        return lo

    def regroup(self, s: Sight) -> tuple[int, int, int] | None:
        return self.interior_to_front(s)
