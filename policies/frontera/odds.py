"""Combat odds (spec 0.2): one roll's outcomes by exhaustive enumeration, and the chance a blitz takes a territory.

``ROLL[ad][dd]`` lists ``(attacker losses, defender losses, probability)`` for one roll of ``ad`` attacking dice
against ``dd`` defending dice (ties to the defender, R-5.2): the table of spec 0.2, exact as fractions.
``conquest_chance(a, d)`` is the probability that a source of ``a`` armies empties a target of ``d`` armies
rolling until done (A29: a blitz stops when the source has one army left), computed once for armies up to
:data:`MAX_ARMIES` by a recurrence over ``ROLL`` (larger stacks are scaled down).
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

#: the largest stack the conquest table covers exactly
MAX_ARMIES = 128


def _roll(ad: int, dd: int) -> list[tuple[int, int, Fraction]]:
    """Return one roll's (attacker losses, defender losses, probability) by enumerating every die (R-5.2)."""
    counts: dict[tuple[int, int], int] = {}
    for dice in itertools.product(range(1, 7), repeat=ad + dd):
        a, d = sorted(dice[:ad], reverse=True), sorted(dice[ad:], reverse=True)
        lost_d = sum(1 for x, y in zip(a, d, strict=False) if x > y)
        key = (min(ad, dd) - lost_d, lost_d)
        counts[key] = counts.get(key, 0) + 1
    total = 6 ** (ad + dd)
    return [(la, ld, Fraction(n, total)) for (la, ld), n in sorted(counts.items())]


#: ROLL[ad][dd]: one roll's outcomes (spec 0.2); index 0 unused
ROLL: tuple[tuple[list[tuple[int, int, Fraction]], ...], ...] = tuple(
    tuple(_roll(ad, dd) if ad and dd else [] for dd in range(4)) for ad in range(4)
)


def _conquest_table(size: int) -> NDArray[np.float64]:
    """Return P[a, d]: a source of ``a`` armies empties a target of ``d`` by rolling until done (A29)."""
    table = np.zeros((size + 1, size + 1))
    table[2:, 0] = 1.0
    table[1, 0] = 1.0
    for a in range(2, size + 1):
        for d in range(1, size + 1):
            ad, dd = min(3, a - 1), min(3, d)
            table[a, d] = sum(float(p) * table[a - la, d - ld] for la, ld, p in ROLL[ad][dd])
    return table


_CONQUEST = _conquest_table(MAX_ARMIES)


def conquest_chance(attacker: int, defender: int) -> float:
    """Return the chance that ``attacker`` armies on the source take a target of ``defender`` armies (A29).

    Stacks beyond the table are scaled down together, keeping their ratio (an estimate; exact below 129).
    """
    top = max(attacker, defender)
    if top > MAX_ARMIES:
        attacker, defender = attacker * MAX_ARMIES // top, max(1, defender * MAX_ARMIES // top)
    return float(_CONQUEST[attacker, defender])
