"""The seeded map generator ``frontera-gen/1`` (spec 2.3, steps G-1..G-10): a world code gives one map.

One hex-cell blob grows per region, water between them (G-4); each blob splits into territories by balanced
growth (G-5); a few single water cells become land bridges (G-6); sea links join the landmasses (G-8). Every
step is integer arithmetic over one SplitMix64 stream seeded by FNV-1a-64 of the size, code and attempt, so
the same (size, code) gives the same map in any process and any language.

Axial coordinates ``(q, r)``, pointy-top hexagons; the six directions ``D`` in the order G-2 fixes::

         (0,-1)  (1,-1)
      (-1,0)  (q,r)  (1,0)
         (-1,1)  (0,1)

Cells are numbered in canonical order (by ``r``, then ``q``), so sorting cell numbers sorts cells canonically.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from frontera_env.board import SIZES, SYMBOLS, FronteraMap, Region, Territory
from frontera_env.errors import GeneratorError, brief
from frontera_env.prng import SplitMix64, fnv1a64

GENERATOR = "frontera-gen/1"
#: the six axial directions in G-2's order
D: tuple[tuple[int, int], ...] = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
CODE_PATTERN = re.compile(r"[A-Z0-9-]{1,32}")


@dataclass(frozen=True)
class SizeConstants:
    """One column of G's constants table: region size template, grid radius, land bridges, extra sea links."""

    template: tuple[int, ...]
    radius: int
    bridges: int
    extra_links: int


CONSTANTS: dict[str, SizeConstants] = {
    "small": SizeConstants((4, 5, 5, 6, 7, 8), 15, 2, 2),
    "medium": SizeConstants((4, 5, 6, 6, 7, 8, 9, 10), 19, 3, 3),
    "large": SizeConstants((5, 6, 7, 8, 9, 10, 10, 12, 13), 23, 4, 4),
}
CELLS_PER_TERRITORY = 12  # a region's growth target, per territory (G-3)
STALL_CELLS = 9  # a region that ends with fewer cells per territory fails the attempt (G-4)
MIN_TERRITORY_CELLS = 4  # G-5
BEST_CANDIDATE_DRAWS = 10  # G-3
MAX_GAP = 4  # the farthest apart two territories an extra sea link joins (G-8)
MAX_SEA_LINKS = 2  # a territory takes no extra link once it has this many (G-8)
ATTEMPTS = 64  # G-1
# G-9's syllables and endings, as the spec lists them
_SYL_TEXT = (
    "ar bel cor dan el fal gor hal is jor kal lor mar nor or pel quin ras sol tor "
    "ul val yor zar ben cas dor fen gal lin mor ner pra ros sel tan ver alm bra cel"
)
_ENDS_TEXT = "a o ia en al ar es in"
SYL: tuple[str, ...] = tuple(_SYL_TEXT.split())
ENDS: tuple[str, ...] = tuple(_ENDS_TEXT.split())
PREFIX = ("Alta", "Baja", "Gran", "Nueva", "Costa", "Sierra", "Tierras de", "Marca de")


def normalise_code(code: object) -> str:
    """Return the world code trimmed and uppercased (G-1); GeneratorError naming it if it breaks the pattern."""
    text = code.strip().upper() if isinstance(code, str) else None
    if text is None or not CODE_PATTERN.fullmatch(text):
        raise GeneratorError(
            f"world code {brief(code)} is not allowed; allowed: 1-32 characters from A-Z, 0-9 and '-' "
            "(case and surrounding spaces are ignored)"
        )
    return text


def hex_distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    """Return the hex distance between two axial cells."""
    dq, dr = a[0] - b[0], a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


@dataclass(frozen=True)
class Grid:
    """The hex grid of radius R (G-2): cells in canonical order, their neighbours, interior and centre pool."""

    radius: int
    cells: tuple[tuple[int, int], ...]
    neighbours: tuple[tuple[int, ...], ...]
    interior: tuple[bool, ...]
    centre_pool: tuple[int, ...]


@lru_cache(maxsize=8)
def grid(radius: int) -> Grid:
    """Return the (cached) grid of ``radius`` (G-2)."""
    origin = (0, 0)
    cells = tuple(
        (q, r)
        for r in range(-radius, radius + 1)
        for q in range(-radius, radius + 1)
        if hex_distance((q, r), origin) <= radius
    )
    index = {c: i for i, c in enumerate(cells)}
    neighbours = tuple(tuple(index[(q + dq, r + dr)] for dq, dr in D if (q + dq, r + dr) in index) for q, r in cells)
    interior = tuple(hex_distance(c, origin) <= radius - 1 for c in cells)
    pool = tuple(i for i, c in enumerate(cells) if hex_distance(c, origin) <= radius - 4)
    return Grid(radius, cells, neighbours, interior, pool)


class _Failed(Exception):
    """A failed check: the attempt is abandoned and the next one starts (G-1)."""


def generate(size: str, world_code: str) -> FronteraMap:
    """Return the map ``frontera-gen/1`` makes for ``size`` and ``world_code`` (G-1..G-10).

    GeneratorError names a size or code it refuses, or says that all 64 attempts failed.
    """
    if not isinstance(size, str) or size not in SIZES:
        raise GeneratorError(f"map size {brief(size)} is not known; allowed: {', '.join(SIZES)}")
    code = normalise_code(world_code)
    for attempt in range(ATTEMPTS):
        seed = fnv1a64(f"FRONTERA/{size}/{code}/{attempt}".encode("ascii"))
        try:
            return _Attempt(size, SplitMix64(seed)).run(code, attempt)
        except _Failed:
            continue
    raise GeneratorError(f"no valid map for size {size!r} and world code {code!r} in {ATTEMPTS} attempts")


class _Attempt:
    """One attempt of G-2..G-10 on one PRNG stream; ``run`` returns the map or raises _Failed."""

    def __init__(self, size: str, rng: SplitMix64) -> None:
        self.size = size
        self.const = CONSTANTS[size]
        self.rng = rng
        self.grid = grid(self.const.radius)
        n = len(self.grid.cells)
        self.region_of = [-1] * n  # cell -> region, -1 for water
        self.territory_of = [-1] * n  # cell -> territory, -1 for water
        self.near = [0] * n  # cell -> bit set of the regions among its neighbours (G-4's availability)

    def run(self, code: str, attempt: int) -> FronteraMap:
        """Return the map of this attempt (G-2..G-10); _Failed when a check fails."""
        centres, sizes = self.place_centres()
        self.grow_regions(centres, sizes)
        seeds = self.split_territories(sizes)
        self.build_bridges(len(sizes))
        land = self.land_adjacency(len(seeds))
        sea = self.sea_links(land)
        return self.assemble(code, attempt, sizes, seeds, land, sea)

    # G-3 ---------------------------------------------------------------------------------------------
    def best_candidate(self, pool: Sequence[int], chosen: Sequence[int]) -> int:
        """Return one draw from ``pool`` if ``chosen`` is empty, else the first of 10 draws farthest from it."""
        cells = self.grid.cells
        if not chosen:
            return pool[self.rng.below(len(pool))]
        best, best_gap = -1, -1
        for _ in range(BEST_CANDIDATE_DRAWS):
            cell = pool[self.rng.below(len(pool))]
            gap = min(hex_distance(cells[cell], cells[c]) for c in chosen)
            if gap > best_gap:
                best, best_gap = cell, gap
        return best

    def place_centres(self) -> tuple[list[int], list[int]]:
        """Return the region centres and the shuffled size template (G-3)."""
        cells = self.grid.cells
        centres: list[int] = []
        for _ in self.const.template:
            c = self.best_candidate(self.grid.centre_pool, centres)
            if any(hex_distance(cells[c], cells[o]) < 2 for o in centres):
                raise _Failed
            centres.append(c)
        sizes = list(self.const.template)
        self.rng.shuffle(sizes)
        return centres, sizes

    # G-4 ---------------------------------------------------------------------------------------------
    def compact_pick(self, frontier: list[int], owner: list[int], label: int) -> int:
        """Return of two draws from ``frontier`` the second only if it has strictly more neighbours in the blob."""
        x = frontier[self.rng.below(len(frontier))]
        y = frontier[self.rng.below(len(frontier))]
        nbrs = self.grid.neighbours
        in_blob_x = sum(owner[c] == label for c in nbrs[x])
        in_blob_y = sum(owner[c] == label for c in nbrs[y])
        return y if in_blob_y > in_blob_x else x

    def available(self, cell: int, region: int) -> bool:
        """Return whether ``cell`` may join ``region``: interior, water, touching no other region (G-4)."""
        touching = self.near[cell] & ~(1 << region)  # near[cell]: bit j set when a neighbour is region j's
        return self.grid.interior[cell] and self.region_of[cell] == -1 and not touching

    def claim(self, cell: int, region: int) -> None:
        """Give ``cell`` to ``region`` and mark it as region ``region``'s neighbour for the cells around it."""
        self.region_of[cell] = region
        for n in self.grid.neighbours[cell]:
            self.near[n] |= 1 << region

    def grow_regions(self, centres: list[int], sizes: list[int]) -> None:
        """Grow every region from its centre by sweeps of compact picks until none grows (G-4)."""
        nbrs = self.grid.neighbours
        count = [1] * len(centres)
        border: list[set[int]] = [set() for _ in centres]  # water cells next to each region
        for i, c in enumerate(centres):
            self.claim(c, i)
        for i, c in enumerate(centres):
            border[i].update(n for n in nbrs[c] if self.region_of[n] == -1)
        grew = True
        while grew:
            grew = False
            for i, n_i in enumerate(sizes):
                if count[i] >= CELLS_PER_TERRITORY * n_i:
                    continue
                frontier = sorted(c for c in border[i] if self.available(c, i))
                if not frontier:
                    continue
                cell = self.compact_pick(frontier, self.region_of, i)
                self.claim(cell, i)
                count[i] += 1
                grew = True
                for b in border:
                    b.discard(cell)
                border[i].update(n for n in nbrs[cell] if self.region_of[n] == -1)
        if any(count[i] < STALL_CELLS * n_i for i, n_i in enumerate(sizes)):
            raise _Failed

    # G-5 ---------------------------------------------------------------------------------------------
    def split_territories(self, sizes: list[int]) -> list[int]:
        """Split every region into its territories by balanced growth from seeds; return the seed cells (G-5)."""
        seeds: list[int] = []
        for i, n_i in enumerate(sizes):
            region_cells = [c for c, r in enumerate(self.region_of) if r == i]
            first = len(seeds)
            mine: list[int] = []
            for _ in range(n_i):
                s = self.best_candidate(region_cells, mine)
                if s in mine:
                    raise _Failed
                mine.append(s)
            for k, s in enumerate(mine):
                self.territory_of[s] = first + k
            seeds.extend(mine)
            self.grow_territories(region_cells, list(range(first, first + n_i)))
        return seeds

    def grow_territories(self, region_cells: list[int], territories: list[int]) -> None:
        """Give a region's cells to its territories, the smallest one with room first (G-5)."""
        nbrs = self.grid.neighbours
        cells_of = {t: [c for c in region_cells if self.territory_of[c] == t] for t in territories}
        unassigned = len(region_cells) - len(territories)
        mine = set(region_cells)
        while unassigned:
            for t in sorted(territories, key=lambda t: (len(cells_of[t]), t)):
                free = {n for c in cells_of[t] for n in nbrs[c] if n in mine and self.territory_of[n] == -1}
                if free:
                    break
            else:  # pragma: no cover - a region grows connected, so some territory always has a frontier
                raise _Failed
            cell = self.compact_pick(sorted(free), self.territory_of, t)
            self.territory_of[cell] = t
            cells_of[t].append(cell)
            unassigned -= 1
        if min(len(cells) for cells in cells_of.values()) < MIN_TERRITORY_CELLS:
            raise _Failed

    # G-6 ---------------------------------------------------------------------------------------------
    def build_bridges(self, regions: int) -> None:
        """Fill single water cells between two not yet bridged regions, joining region i's territory (G-6)."""
        nbrs = self.grid.neighbours
        bridged: set[tuple[int, int]] = set()
        for _ in range(self.const.bridges):
            by_pair: dict[tuple[int, int], list[int]] = {}
            for c, interior in enumerate(self.grid.interior):
                if not interior or self.region_of[c] != -1:
                    continue
                touching = sorted({self.region_of[n] for n in nbrs[c]} - {-1})
                if len(touching) == 2 and (touching[0], touching[1]) not in bridged:
                    by_pair.setdefault((touching[0], touching[1]), []).append(c)
            if not by_pair:
                return
            pairs = sorted(by_pair)
            pair = pairs[self.rng.below(len(pairs))]
            cells = by_pair[pair]
            w = cells[self.rng.below(len(cells))]
            i = pair[0]
            self.territory_of[w] = min(self.territory_of[n] for n in nbrs[w] if self.region_of[n] == i)
            self.region_of[w] = i
            bridged.add(pair)

    # G-7 ---------------------------------------------------------------------------------------------
    def land_adjacency(self, territories: int) -> list[set[int]]:
        """Return each territory's land neighbours: territories whose cells share an edge with its cells (G-7)."""
        land: list[set[int]] = [set() for _ in range(territories)]
        for c, t in enumerate(self.territory_of):
            if t < 0:
                continue
            for n in self.grid.neighbours[c]:
                u = self.territory_of[n]
                if u >= 0 and u != t:
                    land[t].add(u)
        return land

    # G-8 ---------------------------------------------------------------------------------------------
    def gaps(self, territories: int) -> np.ndarray:
        """Return the ``[T, T]`` matrix of smallest hex distances between two territories' cells (G-8)."""
        owned = sorted((t, c) for c, t in enumerate(self.territory_of) if t >= 0)
        labels = np.array([t for t, _ in owned])
        q = np.array([self.grid.cells[c][0] for _, c in owned])
        r = np.array([self.grid.cells[c][1] for _, c in owned])
        dq, dr = q[:, None] - q[None, :], r[:, None] - r[None, :]
        dist = (np.abs(dq) + np.abs(dr) + np.abs(dq + dr)) // 2
        starts = np.searchsorted(labels, np.arange(territories))
        rows = np.minimum.reduceat(dist, starts, axis=0)
        return np.minimum.reduceat(rows, starts, axis=1)

    def sea_links(self, land: list[set[int]]) -> list[set[int]]:
        """Return each territory's sea neighbours: Kruskal over gaps between landmasses, then extra links (G-8)."""
        n = len(land)
        parent = list(range(n))

        def find(x: int) -> int:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for t in range(n):
            for u in land[t]:
                parent[find(u)] = find(t)
        gap = self.gaps(n).tolist()
        pairs = [(gap[t][u], t, u) for t in range(n) for u in range(t + 1, n) if u not in land[t]]
        sea: list[set[int]] = [set() for _ in range(n)]
        for _, t, u in sorted(pairs):
            a, b = find(t), find(u)
            if a != b:
                parent[b] = a
                sea[t].add(u)
                sea[u].add(t)
        region = self.territory_region(n)
        for _ in range(self.const.extra_links):
            candidates = [
                (t, u)
                for g, t, u in pairs  # already ascending by (t, u)
                if g <= MAX_GAP
                and u not in sea[t]
                and region[t] != region[u]
                and len(sea[t]) < MAX_SEA_LINKS
                and len(sea[u]) < MAX_SEA_LINKS
            ]
            if not candidates:
                break
            t, u = candidates[self.rng.below(len(candidates))]
            sea[t].add(u)
            sea[u].add(t)
        return sea

    def territory_region(self, territories: int) -> list[int]:
        """Return each territory's region."""
        region = [0] * territories
        for c, t in enumerate(self.territory_of):
            if t >= 0:
                region[t] = self.region_of[c]
        return region

    # G-9 ---------------------------------------------------------------------------------------------
    def base_name(self, used: set[str]) -> str:
        """Return a base name not in ``used`` (drawn again while it is), and add it to ``used`` (G-9)."""
        while True:
            name = SYL[self.rng.below(len(SYL))] + SYL[self.rng.below(len(SYL))] + ENDS[self.rng.below(len(ENDS))]
            name = name[0].upper() + name[1:]
            if name not in used:
                used.add(name)
                return name

    def names(self, territories: int, regions: int) -> tuple[list[str], list[str]]:
        """Return the territory names (id order) and then the region names, "prefix base" (G-9)."""
        used: set[str] = set()
        territory_names = [self.base_name(used) for _ in range(territories)]
        region_names = []
        for _ in range(regions):
            prefix = PREFIX[self.rng.below(len(PREFIX))]
            region_names.append(f"{prefix} {self.base_name(used)}")
        return territory_names, region_names

    # G-10 --------------------------------------------------------------------------------------------
    def assemble(
        self, code: str, attempt: int, sizes: list[int], seeds: list[int], land: list[set[int]], sea: list[set[int]]
    ) -> FronteraMap:
        """Return the finished map: bonuses ceil(n/2), symbols by id, capitals at the seeds (G-10)."""
        n = len(seeds)
        t_names, r_names = self.names(n, len(sizes))
        region = self.territory_region(n)
        cells: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        for c, t in enumerate(self.territory_of):  # canonical order
            if t >= 0:
                cells[t].append(self.grid.cells[c])
        territories = tuple(
            Territory(
                id=t,
                name=t_names[t],
                region=region[t],
                land=tuple(sorted(land[t])),
                sea=tuple(sorted(sea[t])),
                card=SYMBOLS[t % 3],
                capital=self.grid.cells[seeds[t]],
                cells=tuple(cells[t]),
            )
            for t in range(n)
        )
        regions = tuple(
            Region(i, r_names[i], (n_i + 1) // 2, tuple(t.id for t in territories if t.region == i))
            for i, n_i in enumerate(sizes)
        )
        links = tuple((t, u) for t in range(n) for u in sorted(sea[t]) if t < u)
        return FronteraMap(self.size, GENERATOR, code, attempt, regions, territories, self.const.radius, links)
