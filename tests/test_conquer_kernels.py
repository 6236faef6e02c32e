"""The compiled enclosure search itself (conquer_env.enclosure.flood_together), on hand-made wall sets.

These pin the lockstep floods' bookkeeping: merged floods, a flood that runs dry while its group is still
open, the early stop ("the last undecided group is the open one") and the results written per flood.
"""

from __future__ import annotations

import numpy as np

from conquer_env import enclosure
from conquer_env.enclosure import DONE, START

W = H = 15


def walls(*points: tuple[int, int]) -> np.ndarray:
    dots = np.zeros(W * H, np.int8)
    for x, y in points:
        dots[y * W + x] = 1
    return dots


def run(dots: np.ndarray, starts: list[tuple[int, int]], last_is_open: bool) -> list[int]:
    stamp, control, queue = enclosure.new_workspace(W * H)
    for i, (x, y) in enumerate(starts):
        control[START + i] = y * W + x
    owner = np.zeros(W * H, np.int8)
    enclosure.flood_together(W, H, dots, owner, 1, len(starts), stamp, 5, queue, control, last_is_open)
    return [int(control[DONE + i]) for i in range(len(starts))]


def test_a_flood_that_runs_dry_inside_an_undecided_group_is_not_reported_enclosed() -> None:
    """Flood 1 starts in a dead end, meets flood 0's mark and runs dry; flood 2's cell is closed at once.

    The search then stops early with group {0, 1} undecided: both its floods must read "not enclosed",
    whatever the order their results are written in.
    """
    dots = walls((10, 7), (9, 6), (9, 8), (1, 2), (3, 2), (2, 1), (2, 3))
    assert run(dots, [(7, 7), (9, 7), (2, 2)], last_is_open=True) == [1, 1, 2]


def test_without_the_early_stop_every_group_is_decided() -> None:
    dots = walls((10, 7), (9, 6), (9, 8), (1, 2), (3, 2), (2, 1), (2, 3))
    assert run(dots, [(7, 7), (9, 7), (2, 2)], last_is_open=False) == [1, 1, 2]


def test_two_enclosed_floods_and_one_open() -> None:
    ring_a = [(x, y) for x in range(2, 6) for y in range(2, 6) if x in (2, 5) or y in (2, 5)]
    ring_b = [(x, y) for x in range(8, 12) for y in range(8, 12) if x in (8, 11) or y in (8, 11)]
    dots = walls(*ring_a, *ring_b)
    assert run(dots, [(3, 3), (7, 1), (9, 10)], last_is_open=False) == [2, 1, 2]
    assert run(dots, [(3, 3), (7, 1), (9, 10)], last_is_open=True) == [2, 1, 2]


def test_a_flood_touching_the_border_is_open() -> None:
    assert run(walls(), [(0, 5)], last_is_open=False) == [1]
