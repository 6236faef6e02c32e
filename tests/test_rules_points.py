"""Rules 8.1-8.3 (and 1.3): what lands are worth and how scores are counted (spec section 2)."""

from __future__ import annotations

from collections import Counter

import pytest
from helpers import BLUE, RED, STANDARD, game, guard_cell

from dw_env.geometry import build_geometry


def test_rule_8_1_points_by_ring_on_the_standard_map() -> None:
    g = STANDARD
    per_ring: Counter[tuple[int, int]] = Counter()
    for land in range(g.num_lands):
        if not g.is_start_land[land]:
            per_ring[(int(g.land_ring[land]), int(g.land_points[land]))] += 1
    # ring: (points each, scoring lands) as in the manual's table 8.1
    assert per_ring == {(0, 13): 1, (1, 6): 6, (2, 3): 12, (3, 1): 18, (4, 2): 21}
    assert all(g.land_points[s] == 0 for s in g.start_lands)  # rule 2.2


def test_rule_8_2_the_standard_total_is_145_with_thresholds_35_and_20() -> None:
    assert (STANDARD.total_points, STANDARD.end_request_points, STANDARD.centre_min_points) == (145, 35, 20)


@pytest.mark.parametrize(
    "map_radius, total, end_points, centre_points",
    [(2, 67, 17, 9), (3, 115, 28, 16), (4, 145, 35, 20), (5, 181, 44, 25)],
)
@pytest.mark.parametrize("land_radius", [1, 2, 3])
def test_rule_8_2_values_are_recomputed_for_other_map_sizes(
    land_radius: int, map_radius: int, total: int, end_points: int, centre_points: int
) -> None:
    # spec 2.2: T, E = ceil(24% of T) and C = round(T * 20 / 145); the land size does not matter
    g = build_geometry(land_radius, map_radius)
    assert (g.total_points, g.end_request_points, g.centre_min_points) == (total, end_points, centre_points)
    border = [i for i in range(g.num_lands) if g.land_ring[i] == map_radius and not g.is_start_land[i]]
    assert all(g.land_points[i] == 2 for i in border)
    assert g.land_points[g.centre_land] == 13


def test_rule_8_3_a_score_counts_every_owned_land_connected_or_not() -> None:
    # (3,0) touches Blue's start land (1 point); (2,-2) is an island (3 points); start lands give 0
    g = game(
        pieces={"blue": {"king": (20, -8), "knights": [(19, -8), (19, -7), guard_cell((3, 0)), guard_cell((2, -2))]}},
        owners={"blue": [(3, 0), (2, -2)]},
    )
    assert g.scores() == [4, 0, 0]
    assert g.score(BLUE) == 4 and g.score(RED) == 0


def test_rule_1_3_lands_nearer_the_centre_are_worth_more_except_the_border_bonus() -> None:
    g = STANDARD
    by_ring = {int(g.land_ring[i]): int(g.land_points[i]) for i in range(g.num_lands) if not g.is_start_land[i]}
    assert by_ring[0] > by_ring[1] > by_ring[2] > by_ring[3]
    assert by_ring[4] == 2  # the manual's non-monotonic border: A4 is worth 2, A3 only 1
