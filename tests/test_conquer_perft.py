"""Perft for Conquer (python-chess style): leaf counts, captures, base fires and endings from a fixed position.

The counts are pinned, and at depth 2 they are recomputed by the whole-board reference of
tests/test_conquer_reference.py, which shares no code with the engine. The position has a capture for
Red in one move (closing the diamond around Blue (1,1)) and an empty Red diamond around (5,5) that
traps any Blue dot played there (rule R-8.3).
"""

from __future__ import annotations

import copy

from conquer_env.engine import ConquerGame
from conquer_env.layout import BASE_FIRED, CAPTURED
from conquer_env.position import from_text
from tests.test_conquer_reference import Reference

POSITION = """
    .R.....
    RB.B...
    .R.B...
    ..B....
    .....R.
    ....R.R
    .....R.
"""
#: depth -> (leaves, capturing moves, base fires, games ended), counted over every node of the tree
PERFT = {1: (39, 1, 0, 0), 2: (1483, 1, 38, 1), 3: (54911, 1409, 38, 39)}


def perft(game: ConquerGame, depth: int, counts: list[int]) -> None:
    if depth == 0 or game.over:
        counts[0] += 1
        return
    for action in game.legal_actions():
        child = game.copy()
        flags = child.play(action)
        counts[1] += action != game.pass_action and bool(flags & CAPTURED)
        counts[2] += action != game.pass_action and bool(flags & BASE_FIRED)
        counts[3] += child.over
        perft(child, depth - 1, counts)


def reference_perft(ref: Reference, mover: int, passes: int, depth: int, counts: list[int]) -> None:
    if depth == 0:
        counts[0] += 1
        return
    free = [(x, y) for y in range(ref.h) for x in range(ref.w) if ref.dot[y][x] == 0 and ref.own[y][x] == 0]
    for point in [*free, None]:
        child = copy.deepcopy(ref)
        if point is None:
            over = passes + 1 == 2
        else:
            step2, step3 = child.place(point[0], point[1], mover + 1)
            counts[1] += step2 > 0
            counts[2] += step3 > 0
            over = not any(child.dot[y][x] == 0 and child.own[y][x] == 0 for y in range(ref.h) for x in range(ref.w))
        counts[3] += over
        if over:
            counts[0] += 1
        else:
            reference_perft(child, 1 - mover, passes + 1 if point is None else 0, depth - 1, counts)


def test_perft_counts_are_pinned() -> None:
    for depth, expected in PERFT.items():
        counts = [0, 0, 0, 0]
        perft(from_text(POSITION), depth, counts)
        assert tuple(counts) == expected, depth


def test_perft_depth_2_agrees_with_the_reference() -> None:
    game = from_text(POSITION)
    ref = Reference(game.width, game.height)
    for q in range(game.options.num_points):
        ref.dot[q // game.width][q % game.width] = int(game.dots[q])
    counts = [0, 0, 0, 0]
    reference_perft(ref, game.turn, game.passes, 2, counts)
    assert tuple(counts) == PERFT[2]
