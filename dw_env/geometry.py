"""Map geometry: cells, lands, thrones, rings, points and symmetry tables.

Cells use axial coordinates ``(q, r)`` (pointy-top hexes), with ``s = -q - r``::

          (0,-1)  (1,-1)
       (-1,0)  (0,0)  (1,0)          direction order D (spec 1.1):
          (-1,1)  (0,1)              (1,0) (1,-1) (0,-1) (-1,0) (-1,1) (0,1)

A land of radius ``n`` is every cell within hex distance ``n`` of its throne.
Thrones form the lattice ``a*U + b*V`` with ``U = (2n+1, -n)`` and ``V = (n, n+1)``,
so a land has coordinates ``(a, b)`` and land adjacency is plain axial adjacency
in ``(a, b)`` (spec 1.2). The map holds every land within land distance ``R`` of
the centre land ``(0, 0)``; the ring of a land is that distance.

Indexing: cells are numbered in ``(r, q)`` order, so the rules' final tie-break
"r, then q" (rules 5.3, 6.7) is simply the smallest index. Lands are numbered
in ``(b, a)`` order. Everything here is computed once per ``(n, R)`` and cached.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from dw_env.info import NUM_PLAYERS

#: Neighbour offsets in the fixed order used by every tie-break (spec 1.1).
DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))

I32 = NDArray[np.int32]


def hex_distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    """Return the hex distance between two axial coordinates (spec 1.1)."""
    dq, dr = a[0] - b[0], a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def rotate_120(q: int, r: int) -> tuple[int, int]:
    """Return the axial coordinate rotated by 120 degrees about the origin.

    It maps Blue's start land onto Green's and Green's onto Red's (spec 1.4);
    the same formula rotates land coordinates.
    """
    return -q - r, q


def land_points(ring: int, map_radius: int, is_start: bool) -> int:
    """Return the points of a land (rule 8.1, spec 2.2 formula for any map radius)."""
    if is_start:
        return 0
    if ring == 0:
        return 13
    if ring == map_radius:
        return 2
    return max(1, 13 >> ring)


@dataclass(frozen=True, eq=False)
class Geometry:
    """Precomputed tables of one ``(land_radius, map_radius)`` map.

    All tables are int32 numpy arrays so the compiled kernels can use them directly.
    ``-1`` marks "no cell" / "no land".
    """

    land_radius: int
    map_radius: int
    num_cells: int
    num_lands: int
    cells_per_land: int
    cell_q: I32  # [C]
    cell_r: I32  # [C]
    cell_neighbors: I32  # [C, 6] in DIRECTIONS order, -1 off the map
    cell_land: I32  # [C]
    is_throne: I32  # [C] 1 for thrones
    land_a: I32  # [L]
    land_b: I32  # [L]
    land_throne: I32  # [L] cell index of the throne
    land_cells: I32  # [L, cells_per_land]
    land_neighbors: I32  # [L, 6], -1 off the map
    land_distance: I32  # [L, L] land steps
    land_ring: I32  # [L]
    land_points: I32  # [L]
    is_start_land: I32  # [L] 1 for start lands
    start_lands: I32  # [3] land index of each player's start land
    centre_land: int
    total_points: int
    end_request_points: int  # E, rule 9.3
    centre_min_points: int  # C, rule 6.8
    initial_knights: I32  # [3, 2] cell index of each player's initial knights (spec 1.5)
    cell_rotation: I32  # [C] cell index after a 120-degree rotation
    land_rotation: I32  # [L] land index after a 120-degree rotation
    cell_grid: I32  # [2] (q_min, r_min) of the dense axial box
    grid_size: int  # side of the dense axial box

    def cell_index(self, q: int, r: int) -> int:
        """Return the index of the cell at axial ``(q, r)``; ValueError if off the map."""
        idx = self._cell_lookup().get((q, r))
        if idx is None:
            raise ValueError(
                f"cell ({q}, {r}) is not on the map (land radius {self.land_radius}, "
                f"map radius {self.map_radius}); cells lie within distance "
                f"{self.max_cell_distance} of (0, 0)"
            )
        return idx

    def land_index(self, a: int, b: int) -> int:
        """Return the index of the land at land coordinates ``(a, b)``; ValueError if off the map."""
        idx = self._land_lookup().get((a, b))
        if idx is None:
            raise ValueError(
                f"land ({a}, {b}) is not on the map; lands lie within land distance {self.map_radius} of (0, 0)"
            )
        return idx

    def cell_coord(self, cell: int) -> tuple[int, int]:
        """Return the axial coordinate of a cell index."""
        return int(self.cell_q[cell]), int(self.cell_r[cell])

    def land_coord(self, land: int) -> tuple[int, int]:
        """Return the land coordinate of a land index."""
        return int(self.land_a[land]), int(self.land_b[land])

    @property
    def max_cell_distance(self) -> int:
        """Return the distance from the centre throne to the farthest cell."""
        return int(np.max((np.abs(self.cell_q) + np.abs(self.cell_r) + np.abs(self.cell_q + self.cell_r)) // 2))

    def cell_distance(self, a: int, b: int) -> int:
        """Return the hex distance between two cell indices."""
        return hex_distance(self.cell_coord(a), self.cell_coord(b))

    @functools.cache  # noqa: B019 - geometries are cached and immortal
    def _cell_lookup(self) -> dict[tuple[int, int], int]:
        return {(int(q), int(r)): i for i, (q, r) in enumerate(zip(self.cell_q, self.cell_r, strict=True))}

    @functools.cache  # noqa: B019
    def _land_lookup(self) -> dict[tuple[int, int], int]:
        return {(int(a), int(b)): i for i, (a, b) in enumerate(zip(self.land_a, self.land_b, strict=True))}

    def rotation_power(self, k: int) -> tuple[I32, I32]:
        """Return (cell map, land map) for a rotation by ``k`` times 120 degrees."""
        cells = np.arange(self.num_cells, dtype=np.int32)
        lands = np.arange(self.num_lands, dtype=np.int32)
        for _ in range(k % NUM_PLAYERS):
            cells = self.cell_rotation[cells]
            lands = self.land_rotation[lands]
        return cells, lands


@functools.cache
def build_geometry(land_radius: int, map_radius: int) -> Geometry:
    """Return the (cached) geometry of a map; see the module docstring."""
    n, big_r = land_radius, map_radius
    if not 1 <= n <= 5:
        raise ValueError(f"option land_radius={n} is out of range; allowed: 1..5")
    if not 2 <= big_r <= 5:
        raise ValueError(f"option map_radius={big_r} is out of range; allowed: 2..5")
    u, v = (2 * n + 1, -n), (n, n + 1)

    lands = [
        (a, b)
        for b in range(-big_r, big_r + 1)
        for a in range(-big_r, big_r + 1)
        if hex_distance((a, b), (0, 0)) <= big_r
    ]
    land_lookup = {ab: i for i, ab in enumerate(lands)}
    thrones = [(a * u[0] + b * v[0], a * u[1] + b * v[1]) for a, b in lands]

    offsets = [(dq, dr) for dr in range(-n, n + 1) for dq in range(-n, n + 1) if hex_distance((dq, dr), (0, 0)) <= n]
    cell_of: dict[tuple[int, int], int] = {}
    for li, (tq, tr) in enumerate(thrones):
        for dq, dr in offsets:
            cell_of[(tq + dq, tr + dr)] = li
    cells = sorted(cell_of, key=lambda c: (c[1], c[0]))
    cell_lookup = {c: i for i, c in enumerate(cells)}
    num_cells, num_lands = len(cells), len(lands)

    cell_q = np.array([c[0] for c in cells], dtype=np.int32)
    cell_r = np.array([c[1] for c in cells], dtype=np.int32)
    cell_land = np.array([cell_of[c] for c in cells], dtype=np.int32)
    neighbors = np.full((num_cells, 6), -1, dtype=np.int32)
    for i, (q, r) in enumerate(cells):
        for d, (dq, dr) in enumerate(DIRECTIONS):
            neighbors[i, d] = cell_lookup.get((q + dq, r + dr), -1)
    land_throne = np.array([cell_lookup[t] for t in thrones], dtype=np.int32)
    is_throne = np.zeros(num_cells, dtype=np.int32)
    is_throne[land_throne] = 1
    land_cells = np.zeros((num_lands, len(offsets)), dtype=np.int32)
    for li, (tq, tr) in enumerate(thrones):
        members = sorted((cell_lookup[(tq + dq, tr + dr)] for dq, dr in offsets))
        land_cells[li] = members

    land_a = np.array([ab[0] for ab in lands], dtype=np.int32)
    land_b = np.array([ab[1] for ab in lands], dtype=np.int32)
    land_neighbors = np.full((num_lands, 6), -1, dtype=np.int32)
    for li, (a, b) in enumerate(lands):
        for d, (da, db) in enumerate(DIRECTIONS):
            land_neighbors[li, d] = land_lookup.get((a + da, b + db), -1)
    land_distance = np.array([[hex_distance(x, y) for y in lands] for x in lands], dtype=np.int32)
    centre = land_lookup[(0, 0)]
    land_ring = land_distance[centre].copy()

    # Start lands: three alternate corners of the border ring (spec 1.4, resolution A1).
    start_coords = [(big_r, 0), (-big_r, big_r), (0, -big_r)]
    start_lands = np.array([land_lookup[c] for c in start_coords], dtype=np.int32)
    is_start = np.zeros(num_lands, dtype=np.int32)
    is_start[start_lands] = 1
    points = np.array(
        [land_points(int(land_ring[i]), big_r, bool(is_start[i])) for i in range(num_lands)], dtype=np.int32
    )
    total = int(points.sum())
    end_points = -(-24 * total // 100)  # E = ceil(24% of T), spec 2.2
    centre_points = (20 * total + 72) // 145  # C = round-half-up(T * 20 / 145), spec 2.2

    # Initial knights (spec 1.5, resolution A2): the two throne neighbours nearest
    # (Euclidean, pointy-top layout) to the centre cell, ties broken by order D.
    def euclid(c: tuple[int, int]) -> float:
        x = math.sqrt(3.0) * (c[0] + c[1] / 2.0)
        y = 1.5 * c[1]
        return x * x + y * y

    initial = np.zeros((NUM_PLAYERS, 2), dtype=np.int32)
    for p, land in enumerate(start_lands):
        tq, tr = thrones[land]
        ranked = sorted(range(6), key=lambda d: (round(euclid((tq + DIRECTIONS[d][0], tr + DIRECTIONS[d][1])), 9), d))
        for k in range(2):
            dq, dr = DIRECTIONS[ranked[k]]
            initial[p, k] = cell_lookup[(tq + dq, tr + dr)]

    cell_rotation = np.array([cell_lookup[rotate_120(q, r)] for q, r in cells], dtype=np.int32)
    land_rotation = np.array([land_lookup[rotate_120(a, b)] for a, b in lands], dtype=np.int32)
    q_min, r_min = int(cell_q.min()), int(cell_r.min())
    grid = int(max(cell_q.max() - q_min, cell_r.max() - r_min)) + 1

    return Geometry(
        land_radius=n,
        map_radius=big_r,
        num_cells=num_cells,
        num_lands=num_lands,
        cells_per_land=len(offsets),
        cell_q=cell_q,
        cell_r=cell_r,
        cell_neighbors=neighbors,
        cell_land=cell_land,
        is_throne=is_throne,
        land_a=land_a,
        land_b=land_b,
        land_throne=land_throne,
        land_cells=land_cells,
        land_neighbors=land_neighbors,
        land_distance=land_distance,
        land_ring=land_ring,
        land_points=points,
        is_start_land=is_start,
        start_lands=start_lands,
        centre_land=centre,
        total_points=total,
        end_request_points=end_points,
        centre_min_points=centre_points,
        initial_knights=initial,
        cell_rotation=cell_rotation,
        land_rotation=land_rotation,
        cell_grid=np.array([q_min, r_min], dtype=np.int32),
        grid_size=grid,
    )
