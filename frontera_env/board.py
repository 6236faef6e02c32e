"""The map a game is played on (rules M-1..M-11): territories, regions, land borders and sea links.

A :class:`FronteraMap` is immutable and already valid; it is built by the map-file reader
(``frontera_env.map_file``) or the seeded generator (``frontera_env.generator``), which check M-1..M-11.
The rules read only the lists (land, sea, regions, bonuses, card symbols); the geometry is for renderers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

#: card symbols, in the order of ``SYMBOLS[id mod 3]`` (M-8)
SYMBOLS: tuple[str, ...] = ("galleon", "cannon", "balloon")
#: the map sizes the generator knows: size -> (territories N, regions K) (M-9)
SIZES: dict[str, tuple[int, int]] = {"small": (35, 6), "medium": (55, 8), "large": (80, 9)}


def win_threshold(territories: int) -> int:
    """Return W(N) = ceil(7N/10), the territories a player needs to win (R-10, constant W)."""
    return (7 * territories + 9) // 10


@dataclass(frozen=True)
class Region:
    """One region: its name, the bonus its sole owner collects (R-4) and its territories in ascending order."""

    id: int
    name: str
    bonus: int
    territories: tuple[int, ...]


@dataclass(frozen=True)
class Territory:
    """One territory: its region, land and sea neighbours (ascending), card symbol and optional geometry."""

    id: int
    name: str
    region: int
    land: tuple[int, ...]
    sea: tuple[int, ...]
    card: str
    capital: tuple[int, int] | None = None
    cells: tuple[tuple[int, int], ...] = ()

    @property
    def neighbours(self) -> tuple[int, ...]:
        """Return land and sea neighbours together, ascending: they behave alike for every rule (1.2)."""
        return tuple(sorted(self.land + self.sea))


@dataclass(frozen=True)
class FronteraMap:
    """A whole map as ``frontera-map/1`` describes it (spec 2.2); ``grid_radius`` is None without geometry."""

    size: str
    generator: str
    world_code: str
    attempt: int
    regions: tuple[Region, ...]
    territories: tuple[Territory, ...]
    grid_radius: int | None = None
    sea_links: tuple[tuple[int, int], ...] = field(default=())

    @property
    def territory_count(self) -> int:
        return len(self.territories)

    @property
    def region_count(self) -> int:
        return len(self.regions)

    @property
    def win_threshold(self) -> int:
        return win_threshold(len(self.territories))

    @property
    def has_geometry(self) -> bool:
        """Return whether the map carries cells and capitals (M-11 applies, renderers can draw it)."""
        return self.grid_radius is not None

    @cached_property
    def edges(self) -> tuple[tuple[int, int], ...]:
        """Return the directed edges (source, target), land and sea alike, sorted by (source, target) (spec 6.2)."""
        return tuple((t.id, u) for t in self.territories for u in t.neighbours)

    @cached_property
    def adjacency(self) -> NDArray[np.bool_]:
        """Return the read-only ``bool [N, N]`` matrix of neighbours, land and sea alike (1.2)."""
        n = len(self.territories)
        matrix = np.zeros((n, n), dtype=np.bool_)
        if self.edges:
            source, target = np.array(self.edges, dtype=np.int64).T
            matrix[source, target] = True
        matrix.flags.writeable = False
        return matrix
