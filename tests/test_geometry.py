"""Geometry against the spec's computed tables (spec sections 1-2; rules 1.2, 2.1-2.4, 8.1-8.2, 10.2).

Every number here is copied from ``domain-wheel-spec.md``; the structural checks
(tiling, adjacency, symmetry) are recomputed from cell coordinates alone, so they
do not trust the tables they test.
"""

from __future__ import annotations

import heapq
import itertools

import numpy as np
import pytest

from dw_env.engine import Game
from dw_env.geometry import DIRECTIONS, Geometry, build_geometry, hex_distance
from dw_env.options import GameOptions
from dw_env.rules import layout as lay

SIZES = list(itertools.product(range(1, 6), range(2, 6)))  # every (n, R) of rule 10.2

#: spec 1.3: total cells per (n, R)
CELLS = {
    1: {2: 133, 3: 259, 4: 427, 5: 637},
    2: {2: 361, 3: 703, 4: 1159, 5: 1729},
    3: {2: 703, 3: 1369, 4: 2257, 5: 3367},
    4: {2: 1159, 3: 2257, 4: 3721, 5: 5551},
    5: {2: 1729, 3: 3367, 4: 5551, 5: 8281},
}
#: spec 1.3: axial span (q-span = r-span) of the cell map per (n, R)
SPANS = {
    1: {2: 15, 3: 21, 4: 27, 5: 33},
    2: {2: 25, 3: 35, 4: 45, 5: 55},
    3: {2: 35, 3: 49, 4: 63, 5: 77},
    4: {2: 45, 3: 63, 4: 81, 5: 99},
    5: {2: 55, 3: 77, 4: 99, 5: 121},
}
#: spec 2.2: per R, (points of each ring as value x count, T, E, C, cheapest start->ring-1 chain)
POINTS = {
    2: ([(13, 1), (6, 6), (2, 9)], 67, 17, 9, 6),
    3: ([(13, 1), (6, 6), (3, 12), (2, 15)], 115, 28, 16, 9),
    4: ([(13, 1), (6, 6), (3, 12), (1, 18), (2, 21)], 145, 35, 20, 10),
    5: ([(13, 1), (6, 6), (3, 12), (1, 18), (1, 24), (2, 27)], 181, 44, 25, 11),
}
#: spec 1.4-1.5 on the standard map: start land, throne, in-map neighbour lands, initial knights
STANDARD_START = [
    ((4, 0), (20, -8), {(3, 0), (3, 1), (4, -1)}, [(19, -8), (19, -7)]),
    ((-4, 4), (-12, 20), {(-3, 3), (-4, 3), (-3, 4)}, [(-11, 19), (-12, 19)]),
    ((0, -4), (-8, -12), {(0, -3), (-1, -3), (1, -4)}, [(-8, -11), (-7, -12)]),
]


@pytest.fixture(scope="module")
def standard() -> Geometry:
    return build_geometry(2, 4)


def cells_of(g: Geometry) -> list[tuple[int, int]]:
    return [g.cell_coord(i) for i in range(g.num_cells)]


# ---- the standard map (rule 2.4, spec 2.1) ----------------------------------------------------------
def test_standard_map_numbers(standard: Geometry) -> None:
    g = standard
    assert (g.num_lands, g.num_cells, g.cells_per_land) == (61, 1159, 19)
    assert g.total_points == 145
    assert g.end_request_points == 35  # rule 9.3
    assert g.centre_min_points == 20  # rule 6.8
    assert g.land_coord(g.centre_land) == (0, 0)
    assert g.cell_coord(int(g.land_throne[g.centre_land])) == (0, 0)


def test_standard_map_bounding_box(standard: Geometry) -> None:
    """Spec 1.3: q, r and s all lie in [-22, 22]; the farthest cell is 22 from the centre; 45 x 45 box."""
    q, r = standard.cell_q, standard.cell_r
    for axis in (q, r, -q - r):
        assert (int(axis.min()), int(axis.max())) == (-22, 22)
    assert standard.max_cell_distance == 22
    assert standard.grid_size == 45


def test_standard_map_points_per_ring(standard: Geometry) -> None:
    """Spec 2.1: 13 / 6 / 3 / 1 / 2 per ring; the three start lands score 0."""
    g = standard
    for ring, value, lands in ((0, 13, 1), (1, 6, 6), (2, 3, 12), (3, 1, 18)):
        assert sorted(g.land_points[g.land_ring == ring].tolist()) == [value] * lands
    border = g.land_points[g.land_ring == 4]
    assert sorted(border.tolist()) == [0] * 3 + [2] * 21
    assert g.land_points[g.start_lands].tolist() == [0, 0, 0]


def test_standard_map_land_adjacency_counts(standard: Geometry) -> None:
    """Spec 1.3: 37 lands with 6 neighbours (rings 0-3), 18 border lands with 4, 6 corners with 3."""
    degree = (standard.land_neighbors >= 0).sum(axis=1)
    assert dict(zip(*np.unique(degree, return_counts=True), strict=True)) == {3: 6, 4: 18, 6: 37}
    assert (standard.land_ring[degree == 6] < 4).all()
    assert (standard.land_ring[degree < 6] == 4).all()


def test_standard_start_lands_thrones_and_initial_knights(standard: Geometry) -> None:
    """Spec 1.4-1.5 (resolutions A1, A2): alternate corners, knights on the throne neighbours nearest the centre."""
    g = standard
    for p, (land, throne, neighbours, knights) in enumerate(STANDARD_START):
        index = int(g.start_lands[p])
        assert g.land_coord(index) == land
        assert g.cell_coord(int(g.land_throne[index])) == throne
        assert {g.land_coord(int(m)) for m in g.land_neighbors[index] if m >= 0} == neighbours
        assert [g.cell_coord(int(c)) for c in g.initial_knights[p]] == knights
        assert g.is_start_land[index] == 1 and g.land_ring[index] == 4
    assert int(g.is_start_land.sum()) == 3


def test_initial_position_matches_the_setup_rules() -> None:
    """Rules 2.1-2.3: each player owns its start land, king on the throne, two knights; all scores 0."""
    game = Game.new()
    g = game.geometry
    for p, (land, throne, _, knights) in enumerate(STANDARD_START):
        king, knight_cells = game.pieces(p)
        assert g.cell_coord(king) == throne
        assert sorted(g.cell_coord(c) for c in knight_cells) == sorted(knights)
        assert game.owner(g.land_index(*land)) == p
    assert game.scores() == [0, 0, 0]
    assert int(np.count_nonzero(game.board)) == 9
    assert int((game.lands[lay.OWNER] >= 0).sum()) == 3
    assert (game.turn, game.round, game.countdown, game.over) == (0, 1, None, False)


def test_start_land_neighbours_and_the_single_spoke(standard: Geometry) -> None:
    """Spec 1.4: corners are 2R = 8 apart; ring 1 is 3 land steps away along exactly one chain."""
    g = standard
    starts = [int(s) for s in g.start_lands]
    for a, b in itertools.combinations(starts, 2):
        assert g.land_distance[a, b] == 8
    ring1 = np.flatnonzero(g.land_ring == 1)
    for s in starts:
        assert int(g.land_distance[s, ring1].min()) == 3
        nearest = [m for m in ring1 if g.land_distance[s, m] == 3]
        assert len(nearest) == 1


# ---- every map size (rule 10.2, spec 1.2-1.3, 2.2) ------------------------------------------------
@pytest.mark.parametrize(("n", "big_r"), SIZES)
def test_cell_and_land_counts(n: int, big_r: int) -> None:
    g = build_geometry(n, big_r)
    assert g.num_cells == CELLS[n][big_r] == (3 * n * n + 3 * n + 1) * (3 * big_r * big_r + 3 * big_r + 1)
    assert g.num_lands == 3 * big_r * big_r + 3 * big_r + 1
    assert g.cells_per_land == 3 * n * n + 3 * n + 1
    span_q = int(g.cell_q.max() - g.cell_q.min()) + 1
    span_r = int(g.cell_r.max() - g.cell_r.min()) + 1
    assert span_q == span_r == g.grid_size == SPANS[n][big_r]


@pytest.mark.parametrize("big_r", [2, 3, 4, 5])
def test_rings_points_and_thresholds(big_r: int) -> None:
    """Spec 1.3 ring sizes and the spec 2.2 points table: T, E = ceil(24% T), C = round(20 T / 145)."""
    rings, total, end_points, centre_points, _ = POINTS[big_r]
    for n in (1, 2):
        g = build_geometry(n, big_r)
        counts = np.bincount(g.land_ring)
        assert counts.tolist() == [1] + [6 * k for k in range(1, big_r + 1)]
        for ring, (value, scoring) in enumerate(rings):
            values = g.land_points[g.land_ring == ring]
            assert sorted(values[values > 0].tolist()) == [value] * scoring
        assert (g.total_points, g.end_request_points, g.centre_min_points) == (total, end_points, centre_points)
        assert int(g.land_points.sum()) == total
        assert end_points == -(-24 * total // 100)
        assert centre_points == (20 * total + 72) // 145


@pytest.mark.parametrize("big_r", [2, 3, 4, 5])
def test_cheapest_chain_to_ring_one_is_below_the_centre_minimum(big_r: int) -> None:
    """Spec 2.2 last column: the points of the cheapest land chain from a start land to ring 1; C exceeds it."""
    g = build_geometry(1, big_r)
    cheapest = POINTS[big_r][4]
    for s in g.start_lands:
        best = {int(s): 0}
        heap = [(0, int(s))]
        found = None
        while heap:
            cost, land = heapq.heappop(heap)
            if g.land_ring[land] == 1:
                found = cost
                break
            for m in g.land_neighbors[land]:
                m = int(m)
                step = cost + int(g.land_points[m]) if m >= 0 else 0
                if m >= 0 and step < best.get(m, 1 << 30):
                    best[m] = step
                    heapq.heappush(heap, (step, m))
        assert found == cheapest
        assert g.centre_min_points > cheapest


@pytest.mark.parametrize(("n", "big_r"), SIZES)
def test_land_adjacency_counts(n: int, big_r: int) -> None:
    """Rings 0..R-1 have 6 neighbours, the 6 border corners 3, the other border lands 4 (spec 1.3)."""
    g = build_geometry(n, big_r)
    degree = (g.land_neighbors >= 0).sum(axis=1)
    interior = 3 * big_r * (big_r - 1) + 1
    assert int((degree == 6).sum()) == interior
    assert int((degree == 3).sum()) == 6
    assert int((degree == 4).sum()) == 6 * (big_r - 1)


@pytest.mark.parametrize(("n", "big_r"), SIZES)
def test_lands_tile_the_map(n: int, big_r: int) -> None:
    """Spec 1.2: every cell lies in exactly one land; a land is the 3n^2+3n+1 cells within n of its throne."""
    g = build_geometry(n, big_r)
    u, v = (2 * n + 1, -n), (n, n + 1)
    members = np.sort(g.land_cells.ravel())
    assert members.tolist() == list(range(g.num_cells))  # no gap, no overlap
    assert g.land_cells.shape == (g.num_lands, 3 * n * n + 3 * n + 1)
    coords = cells_of(g)
    for land in range(g.num_lands):
        a, b = g.land_coord(land)
        throne = g.cell_coord(int(g.land_throne[land]))
        assert throne == (a * u[0] + b * v[0], a * u[1] + b * v[1])
        assert hex_distance((a, b), (0, 0)) == g.land_ring[land] <= big_r
        for cell in g.land_cells[land]:
            assert g.cell_land[cell] == land
            assert hex_distance(coords[cell], throne) <= n
    assert int(g.is_throne.sum()) == g.num_lands
    assert (g.is_throne[g.land_throne] == 1).all()


@pytest.mark.parametrize(("n", "big_r"), SIZES)
def test_index_orders_and_coordinate_lookups(n: int, big_r: int) -> None:
    """Cells are numbered in (r, q) order and lands in (b, a) order; lookups invert the coordinates."""
    g = build_geometry(n, big_r)
    coords = cells_of(g)
    assert coords == sorted(coords, key=lambda c: (c[1], c[0]))
    lands = [g.land_coord(i) for i in range(g.num_lands)]
    assert lands == sorted(lands, key=lambda c: (c[1], c[0]))
    for i in (0, g.num_cells // 2, g.num_cells - 1):
        assert g.cell_index(*coords[i]) == i
    for i in range(g.num_lands):
        assert g.land_index(*lands[i]) == i


@pytest.mark.parametrize(("n", "big_r"), SIZES)
def test_cell_neighbours_follow_the_direction_order(n: int, big_r: int) -> None:
    g = build_geometry(n, big_r)
    coords = cells_of(g)
    lookup = {c: i for i, c in enumerate(coords)}
    expected = np.array(
        [[lookup.get((q + dq, r + dr), -1) for dq, dr in DIRECTIONS] for q, r in coords], dtype=np.int32
    )
    assert np.array_equal(g.cell_neighbors, expected)
    # a throne's six neighbours always lie inside its own land (spec 1.2)
    nb = g.cell_neighbors[g.land_throne]
    assert (nb >= 0).all()
    assert (g.cell_land[nb] == np.arange(g.num_lands)[:, None]).all()


@pytest.mark.parametrize(("n", "big_r"), SIZES)
def test_land_adjacency_is_axial_adjacency(n: int, big_r: int) -> None:
    """Spec 1.2 (resolution A4): lands touch iff their land coordinates are axial neighbours.

    Also: two adjacent lands share 2n+1 adjacent cell pairs with n+1 cells on each side,
    and the land distance equals the hex distance in land coordinates.
    """
    g = build_geometry(n, big_r)
    nb = g.cell_neighbors
    here = np.repeat(np.arange(g.num_cells), 6)
    there = nb.ravel()
    keep = there >= 0
    a, b = g.cell_land[here[keep]], g.cell_land[there[keep]]
    cross = a != b
    touching = set(zip(a[cross].tolist(), b[cross].tolist(), strict=True))
    axial = {
        (land, int(m)) for land in range(g.num_lands) for m in g.land_neighbors[land] if m >= 0
    }  # land_neighbors is built from axial offsets
    assert touching == axial
    for land in range(g.num_lands):
        la, lb = g.land_coord(land)
        for d, (da, db) in enumerate(DIRECTIONS):
            m = int(g.land_neighbors[land, d])
            if m >= 0:
                assert g.land_coord(m) == (la + da, lb + db)
    pairs: dict[tuple[int, int], int] = {}
    sides: dict[tuple[int, int], set[int]] = {}
    for x, y in zip(here[keep][cross].tolist(), there[keep][cross].tolist(), strict=True):
        key = (int(g.cell_land[x]), int(g.cell_land[y]))
        pairs[key] = pairs.get(key, 0) + 1
        sides.setdefault(key, set()).add(x)
    assert set(pairs.values()) == {2 * n + 1}
    assert {len(s) for s in sides.values()} == {n + 1}
    lands = [g.land_coord(i) for i in range(g.num_lands)]
    expected = np.array([[hex_distance(x, y) for y in lands] for x in lands])
    assert np.array_equal(g.land_distance, expected)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_cells_just_outside_an_inner_land(n: int) -> None:
    """Spec 1.2: the ring at distance n+1 around a land has 6(n+1) cells (fewer only at the map edge)."""
    g = build_geometry(n, 3)
    centre = g.centre_land
    inside = set(g.land_cells[centre].tolist())
    outside = {int(y) for x in inside for y in g.cell_neighbors[x] if y >= 0 and y not in inside}
    assert len(outside) == 6 * (n + 1)
    assert not any(g.is_throne[y] for y in outside)


@pytest.mark.parametrize(("n", "big_r"), SIZES)
def test_start_lands_and_initial_knights_for_every_size(n: int, big_r: int) -> None:
    """Spec 1.4-1.5: start lands (R,0), (-R,R), (0,-R); knights on two throne neighbours nearest the centre."""
    g = build_geometry(n, big_r)
    assert [g.land_coord(int(s)) for s in g.start_lands] == [(big_r, 0), (-big_r, big_r), (0, -big_r)]
    for p in range(3):
        throne = int(g.land_throne[g.start_lands[p]])
        knights = [int(c) for c in g.initial_knights[p]]
        assert len(set(knights)) == 2
        assert all(k in g.cell_neighbors[throne] for k in knights)
        assert all(g.is_throne[k] == 0 for k in knights)

        def euclid(cell: int) -> float:
            q, r = g.cell_coord(cell)
            return (3**0.5 * (q + r / 2)) ** 2 + (1.5 * r) ** 2

        others = [int(c) for c in g.cell_neighbors[throne] if c not in knights]
        assert max(euclid(k) for k in knights) <= min(euclid(c) for c in others) + 1e-9


@pytest.mark.parametrize(("n", "big_r"), SIZES)
def test_rotation_by_120_degrees_is_a_map_symmetry(n: int, big_r: int) -> None:
    """Spec 1.2 and 1.4: the rotation maps each player's start land and initial knights onto the next player's."""
    g = build_geometry(n, big_r)
    cells, lands = g.cell_rotation, g.land_rotation
    assert sorted(cells.tolist()) == list(range(g.num_cells))  # a permutation
    assert sorted(lands.tolist()) == list(range(g.num_lands))
    for p in range(3):
        nxt = (p + 1) % 3
        assert lands[g.start_lands[p]] == g.start_lands[nxt]
        assert cells[g.land_throne[g.start_lands[p]]] == g.land_throne[g.start_lands[nxt]]
        assert sorted(cells[g.initial_knights[p]].tolist()) == sorted(g.initial_knights[nxt].tolist())
    # it preserves everything the rules look at
    assert np.array_equal(g.cell_land[cells], lands[g.cell_land])
    assert np.array_equal(g.is_throne[cells], g.is_throne)
    assert np.array_equal(g.land_ring[lands], g.land_ring)
    assert np.array_equal(g.land_points[lands], g.land_points)
    assert np.array_equal(g.land_distance[np.ix_(lands, lands)], g.land_distance)
    rotated = {(int(cells[x]), int(cells[y])) for x in range(g.num_cells) for y in g.cell_neighbors[x] if y >= 0}
    edges = {(x, int(y)) for x in range(g.num_cells) for y in g.cell_neighbors[x] if y >= 0}
    assert rotated == edges
    c3, l3 = g.rotation_power(3)
    assert np.array_equal(c3, np.arange(g.num_cells)) and np.array_equal(l3, np.arange(g.num_lands))
    c1, l1 = g.rotation_power(1)
    assert np.array_equal(c1, cells) and np.array_equal(l1, lands)


def test_rotation_maps_the_initial_position_onto_itself_with_seats_shifted() -> None:
    """Spec 1.5: the three initial set-ups are exact 120-degree rotations of each other."""
    game = Game.new()
    g = game.geometry
    rotated = np.zeros_like(game.board)
    for cell in np.flatnonzero(game.board):
        code = int(game.board[cell])
        player, kind = (code - 1) // 2, (code - 1) % 2
        rotated[g.cell_rotation[cell]] = lay.piece_code((player + 1) % 3, kind)
    assert np.array_equal(rotated, game.board)


# ---- option validation (rule 10; errors name the option, the value and the range) ----------------
@pytest.mark.parametrize(
    ("name", "value", "allowed"),
    [
        ("land_radius", 0, "1..5"),
        ("land_radius", 6, "1..5"),
        ("map_radius", 1, "2..5"),
        ("map_radius", 6, "2..5"),
        ("turns_to_conquer", 0, "1..8"),
        ("turns_to_conquer", 9, "1..8"),
        ("max_rounds", 0, "1..100000"),
    ],
)
def test_out_of_range_options_are_rejected_by_name(name: str, value: int, allowed: str) -> None:
    with pytest.raises(ValueError) as info:
        GameOptions(**{name: value})
    message = str(info.value)
    assert name in message and str(value) in message
    assert allowed in message.replace("_", "")
    with pytest.raises(ValueError, match=name):
        Game.new(**{name: value})


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("land_radius", 2.0),
        ("map_radius", "4"),
        ("turns_to_conquer", True),
        ("fast_knights", 1),
        ("king_may_be_alone", None),
    ],
)
def test_options_of_the_wrong_type_are_rejected_by_name(name: str, value: object) -> None:
    with pytest.raises(ValueError) as info:
        GameOptions(**{name: value})  # type: ignore[arg-type]
    assert name in str(info.value) and repr(value) in str(info.value)


def test_unknown_option_is_named_with_the_allowed_ones() -> None:
    with pytest.raises(ValueError) as info:
        GameOptions.from_dict({"land_radius": 2, "fast_knight": True})
    message = str(info.value)
    assert "'fast_knight'" in message and "fast_knights" in message and "king_may_be_alone" in message
    with pytest.raises(ValueError, match="mapping"):
        GameOptions.from_dict([("land_radius", 2)])  # type: ignore[arg-type]


def test_geometry_builder_checks_its_arguments() -> None:
    with pytest.raises(ValueError, match=r"land_radius=0 .*1\.\.5"):
        build_geometry(0, 4)
    with pytest.raises(ValueError, match=r"map_radius=7 .*2\.\.5"):
        build_geometry(2, 7)


def test_off_map_coordinates_are_rejected(standard: Geometry) -> None:
    with pytest.raises(ValueError, match=r"cell \(23, 0\) is not on the map.*22"):
        standard.cell_index(23, 0)
    with pytest.raises(ValueError, match=r"land \(5, 0\) is not on the map"):
        standard.land_index(5, 0)


def test_options_round_trip_and_replace() -> None:
    options = GameOptions(land_radius=1, map_radius=3, turns_to_conquer=2, fast_knights=False)
    assert GameOptions.from_dict(options.to_dict()) == options
    assert options.replace(max_rounds=7).max_rounds == 7
    with pytest.raises(ValueError, match="max_rounds"):
        options.replace(max_rounds=-1)
