"""A map, or a position on it, as compact text: per region, each territory's owner, armies and neighbours.

The position comes as two plain arrays indexed by territory id (``owner``, ``armies``), so rendering does not
depend on the rules engine's state class. Seats are 0..5; :data:`NO_OWNER` (-1) is an ownerless territory
(R-11), shown as ``-``. Example (a position on the small reference map)::

    Frontera small map CHICO-1 (frontera-gen/1, attempt 1): 35 territories, 6 regions, 25 to win
    region 0 Baja Almsoles, bonus 3, held by seat 1
       0 Braela       G  seat 1    3  land 2 3 4 | sea 31
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from frontera_env.board import FronteraMap
from frontera_env.errors import brief

#: the owner value of an ownerless territory (R-11)
NO_OWNER = -1
MAX_SEATS = 6


def check_position(
    fmap: FronteraMap, owner: Sequence[int] | NDArray[np.integer], armies: Sequence[int] | NDArray[np.integer]
) -> tuple[list[int], list[int]]:
    """Return ``owner`` and ``armies`` as lists after checking them against the map; ValueError naming the field."""
    n = len(fmap.territories)
    checked = []
    for name, values, lo, hi in (("owner", owner, NO_OWNER, MAX_SEATS - 1), ("armies", armies, 1, None)):
        array = np.asarray(values)
        if array.shape != (n,) or array.dtype.kind not in "iu":
            raise ValueError(
                f"{name} must be {n} integers, one per territory; got {brief(values)} "
                f"(shape {array.shape}, dtype {array.dtype})"
            )
        bad = np.flatnonzero((array < lo) | (array > hi if hi is not None else False))
        if bad.size:
            allowed = f"{lo}..{hi} ({NO_OWNER} for ownerless)" if hi is not None else f"at least {lo} (0.4)"
            raise ValueError(f"{name}[{bad[0]}] is {array[bad[0]]}; allowed: {allowed}")
        checked.append([int(x) for x in array])
    return checked[0], checked[1]


def render_text(
    fmap: FronteraMap,
    owner: Sequence[int] | NDArray[np.integer] | None = None,
    armies: Sequence[int] | NDArray[np.integer] | None = None,
) -> str:
    """Return the map as text, with each territory's owner and armies when both arrays are given."""
    if (owner is None) != (armies is None):
        raise ValueError("give owner and armies together, or neither")
    position = check_position(fmap, owner, armies) if owner is not None and armies is not None else None
    width = max(len(t.name) for t in fmap.territories)
    code = f" {fmap.world_code}" if fmap.world_code else ""
    lines = [
        f"Frontera {fmap.size} map{code} ({fmap.generator}, attempt {fmap.attempt}): "
        f"{fmap.territory_count} territories, {fmap.region_count} regions, {fmap.win_threshold} to win"
    ]
    for region in fmap.regions:
        held = ""
        if position is not None:
            owners = {position[0][t] for t in region.territories}
            if len(owners) == 1 and NO_OWNER not in owners:
                held = f", held by seat {owners.pop()}"
        lines.append(f"region {region.id} {region.name}, bonus {region.bonus}{held}")
        for t in region.territories:
            lines.append(_territory_line(fmap, t, width, position))
    if position is not None:
        lines.append(_summary(position))
    return "\n".join(lines) + "\n"


def _territory_line(fmap: FronteraMap, t: int, width: int, position: tuple[list[int], list[int]] | None) -> str:
    """Return one territory's line: id, name, card symbol's initial, owner and armies, neighbours."""
    territory = fmap.territories[t]
    line = f"{t:>4} {territory.name:<{width}} {territory.card[0].upper()}"
    if position is not None:
        seat = position[0][t]
        line += f"  {'-' if seat == NO_OWNER else f'seat {seat}':<6} {position[1][t]:>4}"
    line += "  land " + (" ".join(map(str, territory.land)) or "-")
    if territory.sea:
        line += " | sea " + " ".join(map(str, territory.sea))
    return line


def _summary(position: tuple[list[int], list[int]]) -> str:
    """Return one line of territories and armies per seat (and ownerless), in seat order."""
    owner, armies = position
    parts = []
    for seat in sorted(set(owner), key=lambda s: (s == NO_OWNER, s)):
        held = [a for o, a in zip(owner, armies, strict=True) if o == seat]
        who = "ownerless" if seat == NO_OWNER else f"seat {seat}"
        parts.append(f"{who}: {len(held)} territories, {sum(held)} armies")
    return "; ".join(parts)
