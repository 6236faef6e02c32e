"""Open bases, several regions at once, and move priority (spec rules R-5.5, R-6 steps 2-3, R-8; A9-A12, A19, A20)."""

from __future__ import annotations

import numpy as np

from conquer_env.engine import ConquerGame
from conquer_env.layout import BASE_FIRED, CAPTURED, PLACED
from conquer_env.position import from_text, summary, to_text

DIAMOND = """
    .......
    .......
    ...R...
    ..R.R..
    ...R...
    .......
    .......
"""


def place(game: ConquerGame, x: int, y: int) -> int:
    return game.play(game.point_action(x, y))


def sealed(game: ConquerGame, colour: int) -> set[tuple[int, int]]:
    w = game.width
    return {(int(q) % w, int(q) // w) for q in np.flatnonzero(game.owner == colour)}


def test_rule_8_1_empty_ring_seals_nothing_and_is_legal_for_both() -> None:
    """An empty ring captures nothing (A10): no territory, its inside stays legal for Red and Blue (A19, A20)."""
    game = from_text(DIAMOND, to_move="B")
    assert game.open_bases(0)[3 * 7 + 3] and not game.owner.any()
    assert game.is_legal(game.point_action(3, 3))
    game.play(game.pass_action)
    assert game.is_legal(game.point_action(3, 3)), "legal for its owner too"
    assert game.territory_scores() == [0, 0]
    assert summary(game) == {"dead": {"R": [], "B": []}, "dots": [0, 0], "territory": [0, 0], "legal": 45, "end": None}


def test_rule_8_3_opponent_dot_in_an_empty_ring_is_captured_at_once() -> None:
    """Blue plays into Red's open base: step 3 seals the region for Red and the dot dies."""
    game = from_text(DIAMOND, to_move="B")
    assert place(game, 3, 3) == PLACED | BASE_FIRED
    assert game.is_dead(3, 3) and sealed(game, 1) == {(3, 3)}
    assert game.dots_scores() == [1, 0] and game.territory_scores() == [1, 0]
    assert summary(game) == {
        "dead": {"R": [], "B": [(3, 3)]},
        "dots": [1, 0],
        "territory": [1, 0],
        "legal": 44,
        "end": None,
    }


def test_rule_8_3_base_fire_seals_the_whole_region_empty_points_included() -> None:
    """A radius-2 empty ring: the intruder at (3,3) is captured and all 5 inner points are sealed."""
    game = from_text(
        """
        .......
        ...R...
        ..R.R..
        .R...R.
        ..R.R..
        ...R...
        .......
        """,
        to_move="B",
    )
    assert place(game, 3, 2) & BASE_FIRED
    assert sealed(game, 1) == {(3, 3), (3, 2), (2, 3), (4, 3), (3, 4)}
    assert game.dots_scores() == [1, 0] and game.territory_scores() == [5, 0]
    assert not game.is_legal(game.point_action(3, 3)), "sealed empty points are closed to both (A18)"
    assert summary(game) == {
        "dead": {"R": [], "B": [(3, 2)]},
        "dots": [1, 0],
        "territory": [5, 0],
        "legal": 36,
        "end": None,
    }


def test_rule_8_2_owner_filling_its_own_open_base_changes_nothing() -> None:
    game = from_text(DIAMOND)
    assert place(game, 3, 3) == PLACED
    assert not game.owner.any() and game.scores() == [0, 0]
    assert not game.is_dead(3, 3)


def test_rule_8_4_open_base_is_gone_when_its_ring_loses_a_dot() -> None:
    """A base is recomputed from the walls: once Blue captures one of its dots, Blue may enter safely."""
    game = from_text(
        """
        .........   .........
        .........   .........
        ....RB...   .........
        ...R.RB..   .........
        ....RB...   .........
        .........   .........
        .........   .........
        .........   .........
        .........   .........
        """,
        to_move="B",
    )
    assert game.open_bases(0)[3 * 9 + 4]
    place(game, 8, 8)
    place(game, 0, 0)
    place(game, 4, 6)  # Blue elsewhere: its diamond around Red (5,3) still lacks (4,3), Red's base point
    assert game.open_bases(0)[3 * 9 + 4]
    flags = place(game, 0, 8)  # Red elsewhere
    flags = place(game, 4, 3)  # Blue's dot closes its diamond around Red (5,3): the capture breaks Red's ring
    assert flags & CAPTURED and not flags & BASE_FIRED
    assert game.is_dead(5, 3) and not game.is_dead(4, 3)
    assert not game.open_bases(0).any(), "the ring lost (5,3): no Red base is left"


def test_resolution_a11_dot_in_open_base_closing_its_own_ring_survives() -> None:
    """Example 5: Blue's dot in Red's base closes Blue's diamond around Red (3,2): Blue captures, the base dissolves."""
    game = from_text(
        """
        to_move: B
        ......   ......
        ..RB..   ......
        .R.RB.   ......
        ..RB..   ......
        ......   ......
        """
    )
    flags = place(game, 2, 2)
    assert flags == PLACED | CAPTURED
    assert to_text(game, header=False).split("\n")[:5] == [
        "......   ......",
        "..RB..   ......",
        ".RBrB.   ...B..",
        "..RB..   ......",
        "......   ......",
    ]
    assert game.dots_scores() == [0, 1] and game.territory_scores() == [0, 1]
    assert summary(game) == {
        "dead": {"R": [(3, 2)], "B": []},
        "dots": [0, 1],
        "territory": [0, 1],
        "legal": 22,
        "end": None,
    }


SHARED = """
    .........
    .........
    ....R....
    ...RBR...
    ..RB.BR..
    ...R.R...
    .........
    .........
    .........
"""


def test_resolution_a12_one_dot_closes_three_rings_with_shared_dots() -> None:
    """Red (4,4) closes three diamonds sharing dots: all three capturing regions are sealed in one move."""
    game = from_text(SHARED)
    assert place(game, 4, 4) & CAPTURED
    assert sealed(game, 1) == {(4, 3), (3, 4), (5, 4)}
    assert game.dots_scores() == [3, 0] and game.territory_scores() == [3, 0]
    assert summary(game) == {
        "dead": {"R": [], "B": [(4, 3), (3, 4), (5, 4)]},
        "dots": [3, 0],
        "territory": [3, 0],
        "legal": 70,
        "end": None,
    }


def test_resolution_a12_empty_twin_region_stays_open_and_later_catches_an_intruder() -> None:
    """Same rings without Blue (5,4): that region stays an open base and fires when Blue enters it."""
    game = from_text(SHARED.replace("..RB.BR..", "..RB..R.."))
    place(game, 4, 4)
    assert sealed(game, 1) == {(4, 3), (3, 4)}
    assert game.owner_of(5, 4) == 0 and game.open_bases(0)[4 * 9 + 5]
    assert place(game, 5, 4) == PLACED | BASE_FIRED
    assert game.owner_of(5, 4) == 1 and game.dots_scores() == [3, 0]


ISLAND = """
    ...........
    .....R.....
    ....R.R....
    ...R.B.R...
    ..R..R..R..
    .R..R.R..R.
    ..R..R..R..
    ...R...R...
    ....R.R....
    ...........
    ...........
"""


def test_resolution_a9_own_island_inside_a_capture_keeps_an_open_base() -> None:
    """Example 6: closing the outer ring seals the 20-point band; the island's inside (5,5) stays an open base."""
    game = from_text(ISLAND)
    assert place(game, 5, 9) & CAPTURED
    assert game.owner_of(5, 5) == 0 and game.is_legal(game.point_action(5, 5))
    assert len(sealed(game, 1)) == 20
    assert game.dots_scores() == [1, 0] and game.territory_scores() == [20, 0]
    assert summary(game) == {
        "dead": {"R": [], "B": [(5, 3)]},
        "dots": [1, 0],
        "territory": [20, 0],
        "legal": 81,
        "end": None,
    }
    assert place(game, 5, 5) == PLACED | BASE_FIRED, "the island's base is fatal to a Blue intruder"
    assert game.dots_scores() == [2, 0] and game.territory_scores() == [21, 0]


def test_resolution_a9_pinched_pocket_stays_an_open_base() -> None:
    """Red (4,3) pinches the empty (4,2) off against the ring: it is not sealed with the capture."""
    game = from_text("""
        .........
        ....R....
        ...R.R...
        ..R.R.R..
        .R.....R.
        ..R.B.R..
        ...R.R...
        .........
        .........
    """)
    place(game, 4, 7)
    assert game.is_dead(4, 5)
    assert game.owner_of(4, 2) == 0 and game.open_bases(0)[2 * 9 + 4]
    assert game.territory_scores() == [11, 0] and game.dots_scores() == [1, 0]
