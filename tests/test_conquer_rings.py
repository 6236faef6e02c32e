"""Rings and enclosed regions (spec rules R-5, R-6 step 2, R-7.1/7.2; resolutions A5-A8, A17).

Every case is a hand-made position (spec section 7 diagrams: dots left, owners right) and the move
that finishes it; each checks the dead dots, both scores, the legal points and the end state.
"""

from __future__ import annotations

import numpy as np

from conquer_env.engine import ConquerGame
from conquer_env.layout import BASE_FIRED, CAPTURED, PLACED
from conquer_env.position import from_text, summary, to_text


def place(game: ConquerGame, x: int, y: int) -> int:
    return game.play(game.point_action(x, y))


def owners(game: ConquerGame) -> list[str]:
    return to_text(game, header=False).split("\n")[:-1]


def test_rule_5_3_ring_of_diagonal_links_captures() -> None:
    """Example 1: a diamond of diagonal links captures; an N8 flood would slip between (2,1) and (1,2)."""
    game = from_text("""
        B....
        ..R..
        .RBR.
        .....
        ....B
    """)
    assert place(game, 2, 3) == PLACED | CAPTURED
    assert owners(game) == [
        "B....   .....",
        "..R..   .....",
        ".RbR.   ..R..",
        "..R..   .....",
        "....B   .....",
    ]
    assert game.dots_scores() == [1, 0] and game.territory_scores() == [1, 0]
    assert game.is_dead(2, 2) and not game.is_dead(0, 0)
    assert len(game.legal_actions()) == 25 - 7 + 1 and not game.over
    assert summary(game) == {
        "dead": {"R": [], "B": [(2, 2)]},
        "dots": [1, 0],
        "territory": [1, 0],
        "legal": 18,
        "end": None,
    }


def test_rule_5_4_ring_along_the_border_rows_captures() -> None:
    """A ring of dots standing on the border rows captures: it touches the edge but does not use it."""
    game = from_text("""
        RRR..
        RB.B.
        .R...
        .....
        .....
    """)
    place(game, 2, 1)  # Red closes (0,0)(1,0)(2,0)(2,1)(1,2)(0,1) around Blue (1,1)
    assert game.is_dead(1, 1) and game.owner_of(1, 1) == 1
    assert game.dots_scores() == [1, 0] and game.territory_scores() == [1, 0]
    assert not game.is_dead(3, 1), "Blue (3,1) outside the ring stays live"
    assert summary(game) == {
        "dead": {"R": [], "B": [(1, 1)]},
        "dots": [1, 0],
        "territory": [1, 0],
        "legal": 17,
        "end": None,
    }


def test_rule_5_1_cup_open_to_the_edge_captures_nothing_until_the_edge_row_closes_it() -> None:
    """Example 2: the edge never closes a ring (A6); a dot on the edge row does."""
    game = from_text("""
        .R.R.
        .RBR.
        ..R..
        ....B
        B...B
    """)
    assert not game.is_dead(2, 1) and game.owner_of(2, 1) == 0
    place(game, 0, 2)  # Red elsewhere: the cup stays open
    place(game, 4, 2)
    assert game.dots_scores() == [0, 0]
    assert place(game, 2, 0) & CAPTURED
    assert owners(game)[:3] == [".RRR.   .....", ".RbR.   ..R..", "R.R.B   ....."]
    assert summary(game) == {
        "dead": {"R": [], "B": [(2, 1)]},
        "dots": [1, 0],
        "territory": [1, 0],
        "legal": 13,
        "end": None,
    }
    assert game.dots_scores() == [1, 0] and game.territory_scores() == [1, 0]


EXAMPLE_3 = """
    B.....B
    ...R...
    ....R..
    BR.B.R.
    ..R.R..
    ...R...
    B.....B
"""


def test_rule_5_2_diagonal_gap_is_no_ring_and_closing_it_seals_the_whole_inside() -> None:
    """Example 3: seven of eight dots leave a two-step diagonal gap; closing it seals 5 points, not 1."""
    game = from_text(EXAMPLE_3)
    assert game.regions(0).max() == 0, "the flood enters through (2,2): nothing is enclosed"
    assert place(game, 2, 2) == PLACED | CAPTURED
    sealed = {(x, y) for y in range(7) for x in range(7) if game.owner_of(x, y) == 1}
    assert sealed == {(3, 3), (3, 2), (2, 3), (4, 3), (3, 4)}
    assert game.dots_scores() == [1, 0] and game.territory_scores() == [5, 0]
    assert len(game.legal_points()) == 49 - 14 - 4
    assert summary(game) == {
        "dead": {"R": [], "B": [(3, 3)]},
        "dots": [1, 0],
        "territory": [5, 0],
        "legal": 31,
        "end": None,
    }


def test_resolution_a7_crossing_diagonal_links_of_the_two_colours_do_not_block() -> None:
    """Blue's link (1,1)-(2,2) crosses Red's link (2,1)-(1,2); Red's ring still closes around (2,2)."""
    game = from_text("""
        ......
        .BR...
        .RBR..
        ......
        ......
        ......
    """)
    assert place(game, 2, 3) & CAPTURED
    assert game.is_dead(2, 2) and not game.is_dead(1, 1)
    assert game.dots_scores() == [1, 0]
    assert summary(game) == {
        "dead": {"R": [], "B": [(2, 2)]},
        "dots": [1, 0],
        "territory": [1, 0],
        "legal": 30,
        "end": None,
    }


def test_resolution_a7_blue_ring_closes_across_a_red_link() -> None:
    """The mirror case: Blue's ring uses a diagonal link that crosses Red's link."""
    game = from_text("""
        to_move: B
        ......
        .RB...
        .BRB..
        .R....
        ......
        ......
    """)
    assert place(game, 2, 3) & CAPTURED
    assert game.is_dead(2, 2) and game.owner_of(2, 2) == 2
    assert game.dots_scores() == [0, 1]


def test_resolution_a8_capture_takes_every_live_opponent_dot_inside() -> None:
    """A radius-2 ring takes all three Blue dots inside, not only those touching the ring."""
    game = from_text("""
        .......
        ...R...
        ..R.R..
        .RBBBR.
        ..R.R..
        .......
        .......
    """)
    place(game, 3, 5)
    assert [game.is_dead(x, 3) for x in (2, 3, 4)] == [True, True, True]
    assert game.dots_scores() == [3, 0] and game.territory_scores() == [5, 0]
    assert summary(game) == {
        "dead": {"R": [], "B": [(2, 3), (3, 3), (4, 3)]},
        "dots": [3, 0],
        "territory": [5, 0],
        "legal": 36,
        "end": None,
    }


def test_rule_4_2_dead_dots_cannot_complete_a_ring() -> None:
    """Red (4,2) is dead inside Blue's diamond: Red's diamond (4,2)(3,3)(4,4)(5,3) does not close."""
    game = from_text("""
        .........   .........
        ....B....   .........
        ...BrB...   ....B....
        ...RBR...   .........
        .........   .........
        .........   .........
        .........   .........
        .........   .........
        .........   .........
    """)
    assert place(game, 4, 4) == PLACED
    assert not game.is_dead(4, 3) and game.owner_of(4, 3) == 0
    assert game.dots_scores() == [0, 1]
    assert summary(game) == {
        "dead": {"R": [(4, 2)], "B": []},
        "dots": [0, 1],
        "territory": [0, 1],
        "legal": 73,
        "end": None,
    }


def test_rule_5_4_border_dots_are_never_captured() -> None:
    """A Blue dot on the border row is outside every ring: no Red dots around it can take it (A4, A6)."""
    game = from_text("""
        to_move: R
        .RBR.
        ..R..
        .....
        .....
        .....
    """)
    assert game.regions(0).max() == 0
    place(game, 4, 4)
    assert not game.is_dead(2, 0)


def test_rule_7_4_own_live_dots_are_never_territory() -> None:
    """The capturing ring's own dots are not sealed (A9, A27): only the enclosed region is."""
    game = from_text(EXAMPLE_3)
    place(game, 2, 2)
    ring = [(3, 1), (4, 2), (1, 3), (5, 3), (2, 4), (4, 4), (3, 5), (2, 2)]
    assert all(game.owner_of(x, y) == 0 for x, y in ring)
    assert all(bool(game.live_mask(0)[y * 7 + x]) for x, y in ring)


def test_rule_r6_step_2_flags_and_no_base_fire_when_capturing() -> None:
    """A capturing move never reports the base rule (fact I6)."""
    game = from_text(EXAMPLE_3)
    flags = place(game, 2, 2)
    assert flags & CAPTURED and not flags & BASE_FIRED
    assert np.count_nonzero(game.owner) == 5
