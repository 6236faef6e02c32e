"""The bounded per-move enclosure detection agrees with a slow whole-board reference (spec R-5.2, R-6, 6.2, 6.3).

The reference below follows the spec literally and shares no code with the engine: after each placement
it floods the WHOLE board from the frame for the mover (step 2) and then for the opponent (step 3),
sealing every capturing region. Random games in lock-step (uniform play, and "near existing dots" play,
which makes many rings) must give identical dots and owners after every action, and the invariants of
spec 6.2 are checked on the way: I2 (no region holds a live rival), I4 (scores equal +captured/-revived
bookkeeping; dots <= territory), I3 (every newly captured dot lies inside a ring of the capturer, by the
ray-casting method of spec 6.3, which uses no flood), I5 (the border is never sealed), I6 (a base fires only without a
capture and takes only the placed dot), I7 (sealed points stay enclosed by their owner's live dots), I8 (no
region holds its owner's dead dots) and I10 (endings within W*H placements).
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


def ring_encloses(ref: Reference, c: int, px: int, py: int) -> bool:
    """Return True iff some ring of c's live dots encloses (px, py): spec 6.3's second method, no flood.

    The live dots' N8 graph gets a BFS spanning forest; every non-tree edge closes a fundamental cycle (a
    ring, or a sum of rings); a horizontal ray from the point, with the half-open crossing rule, tells the
    even-odd parity against each cycle. The point is enclosed iff some cycle has odd parity.
    """
    nodes = [(x, y) for y in range(ref.h) for x in range(ref.w) if ref.wall(x, y, c)]
    alive = set(nodes)
    parent: dict[tuple[int, int], tuple[int, int] | None] = {}
    depth: dict[tuple[int, int], int] = {}
    extra: list[tuple[tuple[int, int], tuple[int, int]]] = []
    for root in nodes:
        if root in parent:
            continue
        parent[root], depth[root] = None, 0
        queue = [root]
        for u in queue:
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    v = (u[0] + dx, u[1] + dy)
                    if v == u or v not in alive:
                        continue
                    if v not in parent:
                        parent[v], depth[v] = u, depth[u] + 1
                        queue.append(v)
                    elif parent[u] != v and u < v:
                        extra.append((u, v))

    def crosses(a: tuple[int, int], b: tuple[int, int]) -> bool:
        if (a[1] > py) == (b[1] > py):
            return False
        x = a[0] + (py - a[1]) * (b[0] - a[0]) / (b[1] - a[1])
        return x > px

    for u, v in extra:
        path_u, path_v = [u], [v]
        while path_u[-1] != path_v[-1]:
            if depth[path_u[-1]] >= depth[path_v[-1]]:
                nxt = parent[path_u[-1]]
                assert nxt is not None
                path_u.append(nxt)
            else:
                nxt = parent[path_v[-1]]
                assert nxt is not None
                path_v.append(nxt)
        cycle = path_u + path_v[-2::-1]
        parity = sum(crosses(cycle[i], cycle[(i + 1) % len(cycle)]) for i in range(len(cycle)))
        if parity % 2:
            return True
    return False


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
        was_dead = [game.dead_mask(s) for s in (0, 1)]
        before_dead = [int(m.sum()) for m in was_dead]
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
        for s in (0, 1):  # I3: each newly captured dot lies inside a ring of the capturer (no flood used)
            newly = game.dead_mask(1 - s) & ~was_dead[1 - s]
            for q in np.flatnonzero(newly)[:2]:  # two per move keep the test short
                assert ring_encloses(ref, s + 1, int(q) % w, int(q) // w), (seed, game.ply, int(q))
        for s in (0, 1):
            c = s + 1
            regions = ref.regions(c)
            inside = {q for g in regions for q in g}
            assert not any(ref.live_rival_in(g, c) for g in regions)  # I2: no region holds a live rival
            for y in range(h):  # I7: sealed points stay enclosed by their owner's live dots
                for x in range(w):
                    if ref.own[y][x] == c and not ref.wall(x, y, c):
                        assert (x, y) in inside, (seed, game.ply, (x, y))
            revived = [(x, y) for y in range(h) for x in range(w) if ref.dot[y][x] == c and ref.own[y][x] == c]
            for x, y in revived:  # I7: a revived dot never touches the outside
                around = [(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)]
                assert all(ref.wall(a, b, c) or (a, b) in inside for a, b in around), (seed, game.ply, (x, y))
            own_dead = {(x, y) for y in range(h) for x in range(w) if ref.dot[y][x] == c and ref.own[y][x] == 3 - c}
            assert not own_dead & inside  # I8: no region holds its owner's dead dots
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
    captures = sum(lockstep(options, seed, near) for seed in range(40))
    assert captures > 40, "the games must exercise captures and bases"


def test_incremental_enclosure_agrees_with_whole_board_reference_on_15x15() -> None:
    options = ConquerOptions.preset("default")
    captures = sum(lockstep(options, 1000 + seed, near=True) for seed in range(6))
    assert captures > 20


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


def test_second_method_agrees_with_the_reference_flood_on_arbitrary_wall_sets() -> None:
    """Spec 6.3: ray parity on fundamental cycles vs the flood, on random wall sets and the x+y-even lattice."""
    rng = np.random.default_rng(3)
    boards = [rng.random((7, 7)) < 0.45 for _ in range(30)]
    boards.append(np.add.outer(np.arange(7), np.arange(7)) % 2 == 0)  # every link diagonal
    for walls in boards:
        ref = Reference(7, 7)
        for y, x in zip(*np.nonzero(walls), strict=True):
            ref.dot[int(y)][int(x)] = 1
        enclosed = {q for g in ref.regions(1) for q in g}
        for y in range(7):
            for x in range(7):
                if not walls[y, x]:
                    assert ring_encloses(ref, 1, x, y) == ((x, y) in enclosed), (x, y)


def test_incremental_enclosure_agrees_in_heuristic_games() -> None:
    """The heuristic seats build and break many rings (nested, shared, bases): every move must match."""
    from policies.conquer import HeuristicSeat, RandomSeat

    captures = 0
    for seed in range(6):
        w = (9, 12)[seed % 2]
        game, ref = ConquerGame.new(ConquerOptions(width=w, height=w)), Reference(w, w)
        seats = (HeuristicSeat(seed), HeuristicSeat(seed + 1) if seed % 3 else RandomSeat(seed + 1))
        while not game.over:
            mover = game.turn
            action = seats[mover].act(game, mover)
            game.play(action)
            if action != game.pass_action:
                captures += sum(ref.place(action % w, action // w, mover + 1))
                dots, own = ref.arrays()
                assert np.array_equal(game.dots, dots) and np.array_equal(game.owner, own), (seed, game.ply)
    assert captures > 20
