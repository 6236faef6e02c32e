"""Aggressor: attacks by the odds table of spec 0.2, with its whole weight on one spearhead.

It places its pool on the frontier territory from which the best conquest chance against a rival's territory
is highest (the chance that a blitz, A29, empties it, from the exact per-roll odds of spec 0.2), attacks only
where that chance is at least :data:`THRESHOLD` (rivals before ownerless territories, the best chance first),
moves everything into each conquest to keep rolling (R-6.2), and brings its largest interior stack forward.
"""

from __future__ import annotations

from policies.frontera.odds import conquest_chance
from policies.frontera.seat import FronteraSeat
from policies.frontera.sight import Sight

#: the lowest chance of conquest (spec 0.2, rolling until done) at which it attacks: clearly favourable
THRESHOLD = 0.6


class AggressorSeat(FronteraSeat):
    """Attacks whenever the odds favour it, rivals first, from one concentrated stack."""

    name = "aggressor"
    display_name = "Agresora"
    english_name = "Aggressor"

    def deploy(self, s: Sight, pool: int) -> tuple[int, int]:
        best: tuple[float, int, int] | None = None
        for t in s.frontier or s.own:
            for u in s.hostile(t):
                key = (conquest_chance(int(s.armies[t]) + pool, int(s.armies[u])), int(s.owner[u] >= 0), -t)
                if best is None or key > best:
                    best = key
        return (-best[2] if best is not None else s.own[0]), pool

    def attack(self, s: Sight) -> tuple[int, int] | None:
        best: tuple[tuple[int, float, int], tuple[int, int]] | None = None
        for source, target in s.targets():
            chance = conquest_chance(int(s.armies[source]), int(s.armies[target]))
            if chance < THRESHOLD:
                continue
            key = (int(s.owner[target] >= 0), chance, int(s.armies[source]))
            if best is None or key > best[0]:
                best = (key, (source, target))
        return None if best is None else best[1]

    def regroup(self, s: Sight) -> tuple[int, int, int] | None:
        return self.interior_to_front(s)
