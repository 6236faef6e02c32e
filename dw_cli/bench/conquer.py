"""``dw bench engine --game conquer``: µs per Conquer move with random legal play, next to OpenSpiel go 19x19.

Three drivers on the 15 x 15 default board and the 39 x 32 classic board:

* **Python API**: ``ConquerGame.legal_points()``, a random pick, ``play()``: a Python user's loop;
* **Python API + observation**: the same plus ``observe()`` every move, the way an RL loop (and the go
  reference below) runs;
* **compiled loop**: the placement kernel called from one compiled loop over a random order of the points
  (illegal ones, sealed since, skipped): the engine's own cost.

The reference (OpenSpiel, ``import pyspiel``) plays go 19x19 with legal actions and the observation tensor
every step, measured in the same run (``dw_cli.bench.reference.go_reference``).

**Fill levels.** The per-move cost must not grow with the dots on the board (the enclosure test is a
local flood, ``conquer_env.kernels``): positions are sampled from random games when 10 %, 40 % and 70 %
of the points are filled, and one random legal move is timed on each (compiled, a copy of the position
per move, the cost of the copy alone subtracted).
"""

from __future__ import annotations

import functools
import random
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit

from conquer_env import kernels
from conquer_env.engine import ConquerGame, initial_arrays
from conquer_env.layout import OVER
from conquer_env.options import ConquerOptions
from dw_cli.bench.reference import go_reference, random_play_us

BOARDS: dict[str, ConquerOptions] = {
    "15x15": ConquerOptions.preset("default"),
    "39x32": ConquerOptions.preset("classic"),
}
FILL_LEVELS: tuple[float, ...] = (0.1, 0.4, 0.7)


def api_us_per_move(options: ConquerOptions, seconds: float, observe: bool, seed: int = 0) -> tuple[float, int]:
    """Return (µs per move, moves) of random legal placements through the Python API for about ``seconds``."""
    game = ConquerGame.new(options)
    game.play(int(game.legal_points()[0]))  # compile / warm up outside the clock
    game.observe()

    def place(game: ConquerGame, rng: random.Random) -> None:
        points = game.legal_points()
        if observe:
            game.observe()
        game.play(int(points[rng.randrange(len(points))]))

    return random_play_us(lambda: ConquerGame.new(options), place, seconds, seed)


@njit(cache=True, nogil=True)
def _compiled_games(width, height, dots0, owner0, scalars0, games, seed, stamp, control, queue):  # type: ignore[no-untyped-def]
    """Play ``games`` random games (a random point order, illegal points skipped); return the moves played."""
    np.random.seed(seed)
    n = width * height
    order = np.arange(n)
    moves = 0
    for _ in range(games):
        dots, owner, scalars = dots0.copy(), owner0.copy(), scalars0.copy()
        np.random.shuffle(order)
        for i in range(n):
            if scalars[OVER]:
                break
            if kernels.place(width, height, dots, owner, scalars, order[i], stamp, control, queue) > 0:
                moves += 1
    return moves


def compiled_us_per_move(options: ConquerOptions, seconds: float, seed: int = 0) -> tuple[float, int]:
    """Return (µs per move, moves) of the compiled random playout for about ``seconds``."""
    w, h = options.width, options.height
    state = initial_arrays(options)
    work = kernels.new_workspace(options.num_points)
    _compiled_games(w, h, *state, 1, seed, *work)
    total = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        total += _compiled_games(w, h, *state, 10, seed + games, *work)
        games += 10
    return (time.perf_counter() - start) / total * 1e6, total


@njit(cache=True, nogil=True)
def _one_move_each(width, height, dots, owner, scalars, actions, play, stamp, control, queue):  # type: ignore[no-untyped-def]
    """Copy each sampled position into scratch and (when ``play``) place its move; return a checksum."""
    d = dots[0].copy()
    o = owner[0].copy()
    s = scalars[0].copy()
    check = 0
    for i in range(dots.shape[0]):
        d[:] = dots[i]
        o[:] = owner[i]
        s[:] = scalars[i]
        if play:
            check += kernels.place(width, height, d, o, s, actions[i], stamp, control, queue)
        else:
            check += d[actions[i]]
    return check


def sample_positions(
    options: ConquerOptions, fill: float, count: int, seed: int = 0, per_game: int = 20
) -> tuple[Any, ...]:
    """Return (dots, owner, scalars, actions) of ``count`` random-game positions once ``fill`` of the points are taken.

    Each game gives up to ``per_game`` consecutive positions from the moment it reaches the fill level.
    """
    rng = random.Random(seed)
    n = options.num_points
    rows: list[tuple[Any, ...]] = []
    while len(rows) < count:
        game = ConquerGame.new(options)
        taken = 0
        while not game.over and len(rows) < count and taken < per_game:
            points = game.legal_points()
            action = int(points[rng.randrange(len(points))])
            if n - len(points) >= fill * n:
                rows.append((game.dots.copy(), game.owner.copy(), game.scalars.copy(), action))
                taken += 1
            game.play(action)
    return tuple(np.stack([r[k] for r in rows]) for k in range(3)) + (np.array([r[3] for r in rows], np.int64),)


def fill_level_us_per_move(options: ConquerOptions, fill: float, seconds: float, count: int = 400) -> float:
    """Return the compiled µs of one random legal move in positions ``fill`` filled (the copy's cost taken off)."""
    w, h = options.width, options.height
    dots, owner, scalars, actions = sample_positions(options, fill, count, seed=int(fill * 1000))
    stamp, control, queue = kernels.new_workspace(options.num_points)

    def timed(play: bool) -> float:
        start = time.perf_counter()
        _one_move_each(w, h, dots, owner, scalars, actions, play, stamp, control, queue)
        return time.perf_counter() - start

    best = {play: timed(play) for play in (True, False)}  # the first calls also compile or load the kernel
    best = {play: float("inf") for play in best}
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        for play in (True, False):
            best[play] = min(best[play], timed(play))
    return max(0.0, best[True] - best[False]) / count * 1e6


def run(seconds: float = 5.0) -> dict[str, Any]:
    """Run the benchmark, print a table and return the numbers (``seconds`` is spent per measurement)."""
    if not 0.1 <= seconds <= 3600:
        raise ValueError(f"seconds must be in 0.1..3600, got {seconds!r}")
    results: dict[str, Any] = {}
    title = "dw bench engine --game conquer: random legal play, one core, µs per move (lower is better)"
    go = go_reference(seconds, title, 40, "OpenSpiel not installed: no reference")
    results["openspiel_go19_us_per_step"] = go
    drivers: tuple[tuple[str, Callable[[ConquerOptions], tuple[float, int]]], ...] = (
        ("Python API", functools.partial(api_us_per_move, seconds=seconds, observe=False)),
        ("Python API + observation", functools.partial(api_us_per_move, seconds=seconds, observe=True)),
        ("compiled loop", functools.partial(compiled_us_per_move, seconds=seconds)),
    )
    for label, options in BOARDS.items():
        for driver, measure in drivers:
            us, n = measure(options)
            key = f"{label}, {driver}"
            results[key] = us
            ratio = f"  ratio {us / go:.2f}x go" if go else ""
            if go:
                results[f"{key}, ratio to go"] = us / go
            print(f"  {key:<40} {us:8.2f} µs/move ({n} moves){ratio}")
    print("  per-move cost by fill level (compiled, one move per sampled position):")
    for label, options in BOARDS.items():
        for fill in FILL_LEVELS:
            us = fill_level_us_per_move(options, fill, max(0.2, seconds / 3))
            results[f"{label}, fill {int(fill * 100)}%"] = us
            print(f"  {label + f', {int(fill * 100)}% filled':<40} {us:8.3f} µs/move")
    return results


if __name__ == "__main__":
    run()
