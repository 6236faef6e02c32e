"""The bounded per-move enclosure detection agrees with a slow whole-board reference (spec R-5.2, R-6, 6.2, 6.3).

The reference below follows the spec literally and shares no code with the engine: after each placement
it floods the WHOLE board from the frame for the mover (step 2) and then for the opponent (step 3),
sealing every capturing region. Random games in lock-step (uniform play, and "near existing dots" play,
which makes many rings) must give identical dots and owners after every action, and the invariants of
spec 6.2 are checked on the way: I2 (no region holds a live rival), I4 (scores equal +captured/-revived
bookkeeping; dots <= territory), I5 (the border is never sealed), I6 (a base fires only without a
capture and takes only the placed dot) and I10 (endings within W*H placements).
"""

from __future__ import annotations

import numpy as np
import pytest

from conquer_env.engine import ConquerGame
from conquer_env.layout import BASE_FIRED, CAPTURED
from conquer_env.options import ConquerOptions


class Reference:
    """A deliberately simple Conquer board: lists, whole-board floods, nothing incremental."""

    def __init__(self, width: int, height: int) -> None:
        self.w, self.h = width, height
        self.dot = [[0] * width for _ in range(height)]
        self.own = [[0] * width for _ in range(height)]

    def wall(self, x: int, y: int, c: int) -> bool:
        return self.dot[y][x] == c and self.own[y][x] != 3 - c

    def regions(self, c: int) -> list[list[tuple[int, int]]]:
        """Return c's enclosed regions: N4 components of non-walls the frame flood does not reach."""
        outside: set[tuple[int, int]] = set()
        stack = [
            (x, y)
            for y in range(self.h)
            for x in range(self.w)
            if (x in (0, self.w - 1) or y in (0, self.h - 1)) and not self.wall(x, y, c)
        ]
        outside.update(stack)
        while stack:
            x, y = stack.pop()
            for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if 0 <= nx < self.w and 0 <= ny < self.h and (nx, ny) not in outside and not self.wall(nx, ny, c):
                    outside.add((nx, ny))
                    stack.append((nx, ny))
        seen: set[tuple[int, int]] = set()
        result = []
        for y in range(self.h):
            for x in range(self.w):
                if (x, y) in outside or (x, y) in seen or self.wall(x, y, c):
                    continue
                region, stack = [], [(x, y)]
                seen.add((x, y))
                while stack:
                    px, py = stack.pop()
                    region.append((px, py))
                    for nx, ny in ((px + 1, py), (px - 1, py), (px, py + 1), (px, py - 1)):
                        if (nx, ny) not in seen and not self.wall(nx, ny, c):
                            seen.add((nx, ny))
                            stack.append((nx, ny))
                result.append(region)
        return result

    def live_rival_in(self, region: list[tuple[int, int]], c: int) -> bool:
        return any(self.dot[y][x] == 3 - c and self.own[y][x] != c for x, y in region)

    def seal(self, regions: list[list[tuple[int, int]]], c: int) -> None:
        for region in regions:
            for x, y in region:
                self.own[y][x] = c

    def place(self, x: int, y: int, c: int) -> tuple[int, int]:
        """Apply rule R-6 literally; return (regions sealed in step 2, regions sealed in step 3)."""
        self.dot[y][x] = c
        step2 = [g for g in self.regions(c) if self.live_rival_in(g, c)]
        self.seal(step2, c)
        step3 = [g for g in self.regions(3 - c) if self.live_rival_in(g, 3 - c)]
        self.seal(step3, 3 - c)
        return len(step2), len(step3)

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        return np.array(self.dot, np.int8).ravel(), np.array(self.own, np.int8).ravel()


def choose(game: ConquerGame, rng: np.random.Generator, near: bool) -> int:
    points = game.legal_points()
    if len(points) == 0 or rng.random() < 0.01:
        return game.pass_action
    if near and game.dots.any() and rng.random() < 0.9:
        w = game.width
        occupied = np.flatnonzero(game.dots)
        x0, y0 = divmod(int(rng.choice(occupied)), w)[::-1]
        close = [int(p) for p in points if max(abs(int(p) % w - x0), abs(int(p) // w - y0)) <= 2]
        if close:
            return close[int(rng.integers(len(close)))]
    return int(points[int(rng.integers(len(points)))])


def lockstep(options: ConquerOptions, seed: int, near: bool) -> int:
    """Play one random game on the engine and the reference side by side; return the captures seen."""
    rng = np.random.default_rng(seed)
    game = ConquerGame.new(options)
    ref = Reference(options.width, options.height)
    w, h = options.width, options.height
    border = np.zeros((h, w), bool)
    border[0, :] = border[-1, :] = border[:, 0] = border[:, -1] = True
    border = border.ravel()
    bookkeeping = [0, 0]
    captures = placements = 0
    while not game.over:
        action = choose(game, rng, near)
        mover = game.turn
        before_dead = [int(game.dead_mask(s).sum()) for s in (0, 1)]
        flags = game.play(action)
        if action == game.pass_action:
            continue
        placements += 1
        step2, step3 = ref.place(action % w, action // w, mover + 1)
        dots, own = ref.arrays()
        assert np.array_equal(game.dots, dots) and np.array_equal(game.owner, own), (seed, game.ply, action)
        assert bool(flags & CAPTURED) == (step2 > 0) and bool(flags & BASE_FIRED) == (step3 > 0)
        if step3:  # I6: only without a capture, and the placed dot is what died
            assert step2 == 0 and step3 == 1 and game.is_dead(action % w, action // w)
        captures += step2 + step3
        for s in (0, 1):  # I2: no region of either player holds a live rival
            assert not any(ref.live_rival_in(g, s + 1) for g in ref.regions(s + 1))
        after_dead = [int(game.dead_mask(s).sum()) for s in (0, 1)]
        for s in (0, 1):  # I4: dots score of s = dead dots of the other seat, tracked by their changes
            bookkeeping[s] += after_dead[1 - s] - before_dead[1 - s]
        assert game.dots_scores() == bookkeeping
        d, t = game.dots_scores(), game.territory_scores()
        assert d[0] <= t[0] and d[1] <= t[1]
        assert not game.owner[border].any()  # I5
    assert game.end_reason in ("board_full", "two_passes") and placements <= w * h  # I10
    if game.end_reason == "board_full":
        assert not ((game.dots == 0) & (game.owner == 0)).any()
    return captures


@pytest.mark.parametrize("near", [False, True], ids=["uniform", "near_dots"])
def test_incremental_enclosure_agrees_with_whole_board_reference_on_9x9(near: bool) -> None:
    options = ConquerOptions.preset("small")
    captures = sum(lockstep(options, seed, near) for seed in range(60))
    assert captures > 60, "the games must exercise captures and bases"


def test_incremental_enclosure_agrees_with_whole_board_reference_on_15x15() -> None:
    options = ConquerOptions.preset("default")
    captures = sum(lockstep(options, 1000 + seed, near=True) for seed in range(6))
    assert captures > 30


@pytest.mark.parametrize("width,height", [(3, 12), (12, 4), (2, 2), (6, 40)])
def test_incremental_enclosure_agrees_on_narrow_boards(width: int, height: int) -> None:
    for seed in range(8):
        lockstep(ConquerOptions(width=width, height=height), 500 + seed, near=True)


def test_incremental_enclosure_agrees_from_the_cross_start() -> None:
    """Rule R-2.2's four centre dots, then random play in lock-step with the reference."""
    for seed in range(10):
        game = ConquerGame.new(ConquerOptions(width=8, height=8, start="cross"))
        ref = Reference(8, 8)
        for x, y, c in ((3, 3, 1), (4, 4, 1), (4, 3, 2), (3, 4, 2)):
            ref.dot[y][x] = c
        rng = np.random.default_rng(seed)
        while not game.over:
            action, mover = choose(game, rng, near=True), game.turn
            game.play(action)
            if action != game.pass_action:
                ref.place(action % 8, action // 8, mover + 1)
                assert np.array_equal(game.owner, ref.arrays()[1]) and np.array_equal(game.dots, ref.arrays()[0])
