"""Nested captures and rescue (spec rules R-7.1-7.3, R-10.1; resolutions A13, A14, A16, A26)."""

from __future__ import annotations

import numpy as np

from conquer_env.engine import ConquerGame
from conquer_env.layout import CAPTURED
from conquer_env.position import from_text, summary, to_text


def place(game: ConquerGame, x: int, y: int) -> int:
    return game.play(game.point_action(x, y))


def sealed(game: ConquerGame, colour: int) -> set[tuple[int, int]]:
    w = game.width
    return {(int(q) % w, int(q) // w) for q in np.flatnonzero(game.owner == colour)}


def diamond(cx: int, cy: int, radius: int) -> list[tuple[int, int]]:
    """Return the points at N4 distance ``radius`` from (cx, cy): a ring of diagonal links."""
    return [
        (cx + dx, cy + dy)
        for dx in range(-radius, radius + 1)
        for dy in range(-radius, radius + 1)
        if abs(dx) + abs(dy) == radius
    ]


def ball(cx: int, cy: int, radius: int) -> set[tuple[int, int]]:
    return {
        (cx + dx, cy + dy)
        for dx in range(-radius, radius + 1)
        for dy in range(-radius, radius + 1)
        if abs(dx) + abs(dy) <= radius
    }


ONION = """
    .......   .......
    ...R...   .......
    ..RBR..   .......
    .RBrBR.   ...B...
    ..RBR..   .......
    .......   .......
    .......   .......
"""


def test_rule_7_3_onion_capture_of_a_capture_revives_and_transfers_territory() -> None:
    """Example 4: Red's radius-2 ring takes Blue's diamond and revives Red (3,3); Blue's territory becomes Red's."""
    game = from_text(ONION)
    assert game.is_dead(3, 3) and game.dots_scores() == [0, 1] and game.territory_scores() == [0, 1]
    assert place(game, 3, 5) & CAPTURED
    assert to_text(game, header=False).split("\n")[1:6] == [
        "...R...   .......",
        "..RbR..   ...R...",
        ".RbRbR.   ..RRR..",
        "..RbR..   ...R...",
        "...R...   .......",
    ]
    assert not game.is_dead(3, 3), "the rescued dot is live again (A14)"
    assert game.dots_scores() == [4, 0] and game.territory_scores() == [5, 0]
    assert summary(game) == {
        "dead": {"R": [], "B": [(3, 2), (2, 3), (4, 3), (3, 4)]},
        "dots": [4, 0],
        "territory": [5, 0],
        "legal": 36,
        "end": None,
    }


def test_rule_7_3_deep_onion_three_layers() -> None:
    """Blue's radius-3 ring takes Red's layer and the re-revived centre, and revives Blue's inner diamond."""
    rows = ["." * 11 for _ in range(11)]
    grid = [list(r) for r in rows]
    owners = [list(r) for r in rows]
    grid[5][5], owners[5][5] = "r", "B"  # layer 1: Blue's diamond took Red (5,5)
    for x, y in diamond(5, 5, 1):
        grid[y][x] = "B"
    for x, y in diamond(5, 5, 2):
        grid[y][x] = "R"
    grid[7][5] = "."  # Red closes layer 2 at (5,7)
    text = "\n".join("".join(g) + "   " + "".join(o) for g, o in zip(grid, owners, strict=True))
    game = from_text(text)
    place(game, 5, 7)
    assert sealed(game, 1) == ball(5, 5, 1) and not game.is_dead(5, 5)
    assert game.dots_scores() == [4, 0]
    # layer 3: Blue builds its radius-3 ring while Red plays harmless dots on the top border row
    outer = diamond(5, 5, 3)
    for i, (x, y) in enumerate(outer):
        flags = place(game, x, y)
        if i < len(outer) - 1:
            assert not flags & CAPTURED
            place(game, i, 0) if i < 11 else place(game, 0, 10)
    assert flags & CAPTURED
    assert sealed(game, 2) == ball(5, 5, 2)
    assert all(not game.is_dead(x, y) for x, y in diamond(5, 5, 1)), "Blue's inner diamond is revived"
    assert all(game.is_dead(x, y) for x, y in diamond(5, 5, 2) + [(5, 5)])
    assert game.dots_scores() == [0, 9] and game.territory_scores() == [0, 13]


def test_rule_10_1_rescue_of_several_dots_lowers_the_opponents_dots_score() -> None:
    """Blue holds two dead Red dots (dots score 2); Red's outer ring revives both and Blue's score falls to 0."""
    game = from_text("""
        ........   ........
        ...RR...   ........
        ..RBBR..   ........
        .RBrrBR.   ...BB...
        ..RBB...   ........
        ...RR...   ........
        ........   ........
        ........   ........
    """)
    assert game.dots_scores() == [0, 2]
    place(game, 5, 4)
    assert game.dots_scores() == [6, 0]
    assert not game.is_dead(3, 3) and not game.is_dead(4, 3)
    assert game.territory_scores() == [8, 0]
    assert summary(game) == {
        "dead": {"R": [], "B": [(3, 2), (4, 2), (2, 3), (5, 3), (3, 4), (4, 4)]},
        "dots": [6, 0],
        "territory": [8, 0],
        "legal": 46,
        "end": None,
    }


def test_resolution_a13_own_earlier_capture_inside_a_bigger_capture_is_not_counted_twice() -> None:
    """Red took (5,5) with a diamond; a radius-4 ring around it takes Blue (5,2): dots 2, territory 1 + 20."""
    grid = [list("." * 11) for _ in range(11)]
    owners = [list("." * 11) for _ in range(11)]
    grid[5][5], owners[5][5] = "b", "R"
    for x, y in diamond(5, 5, 1) + diamond(5, 5, 4):
        grid[y][x] = "R"
    grid[2][5] = "B"
    grid[9][5] = "."
    game = from_text("\n".join("".join(g) + "   " + "".join(o) for g, o in zip(grid, owners, strict=True)))
    assert game.dots_scores() == [1, 0]
    place(game, 5, 9)
    assert game.dots_scores() == [2, 0]
    assert sealed(game, 1) == {(5, 5)} | (ball(5, 5, 3) - ball(5, 5, 1))
    assert game.territory_scores() == [21, 0]


def test_resolution_a16_no_chain_reaction_after_a_rescue() -> None:
    """After the onion capture nothing else changes in the same move: both players' regions hold no live rival."""
    game = from_text(ONION)
    place(game, 3, 5)
    for seat in (0, 1):
        labels = game.regions(seat)
        rival = game.live_mask(1 - seat)
        assert not (rival & (labels > 0)).any()
