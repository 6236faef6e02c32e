"""``dw bench ai``: milliseconds per decision of each AI on the standard map, Random as the reference.

Each AI plays all three seats of seeded games (self-play, so every decision is its own) on
the standard map until ``seconds`` have passed; every ``act`` call is timed. Reported: the
median and 99th percentile of the wall-clock time, and the 99th percentile of the thread's
CPU time (on a shared machine the wall-clock tail mostly measures other processes).
Random plays the same way in the same run as the reference.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from dw_env.engine import Game
from dw_env.options import GameOptions
from policies.registry import available, make

#: plies played before timing, so that every compiled kernel is loaded
WARM_UP_PLIES = 60


def decision_times(name: str, seconds: float, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Return (wall, cpu) seconds of each decision of ``name`` in self-play for about ``seconds``."""
    options = GameOptions()
    warm, game = make(name, seed=seed), Game.new(options)
    for _ in range(WARM_UP_PLIES):  # compile / load every kernel outside the timed loop
        game.play(warm.act(game, game.turn))
    wall: list[float] = []
    cpu: list[float] = []
    deadline = time.perf_counter() + seconds
    game_index = 0
    while time.perf_counter() < deadline:
        game = Game.new(options)
        policies = [make(name, seed=seed + 3 * game_index + i) for i in range(3)]
        game_index += 1
        while not game.over and time.perf_counter() < deadline:
            p = game.turn
            t0, c0 = time.perf_counter(), time.thread_time()
            move = policies[p].act(game, p)
            wall.append(time.perf_counter() - t0)
            cpu.append(time.thread_time() - c0)
            game.play(move)
    return np.asarray(wall), np.asarray(cpu)


def run(seconds: float = 5.0) -> dict[str, Any]:
    """Time every registered policy for ``seconds`` each (Random first, as the reference); print a table."""
    if not 0.1 <= seconds <= 3600:  # also refuses nan and inf, which would never end a measuring loop
        raise ValueError(f"seconds must be in 0.1..3600, got {seconds!r}")
    names = ["random"] + [n for n in available() if n != "random"]
    results: dict[str, Any] = {}
    print("dw bench ai: ms per decision on the standard map (n=2, R=4), self-play, one core")
    print(f"  {'policy':<14} {'decisions':>9} {'median':>8} {'p99':>8} {'p99 cpu':>8}  vs random")
    reference = None
    for name in names:
        wall, cpu = decision_times(name, seconds)
        median = float(np.median(wall) * 1e3)
        row = {
            "decisions": int(wall.size),
            "median_ms": median,
            "p99_ms": float(np.percentile(wall, 99) * 1e3),
            "p99_cpu_ms": float(np.percentile(cpu, 99) * 1e3),
        }
        reference = reference or median
        results[name] = row
        print(
            f"  {name:<14} {row['decisions']:>9} {median:>8.3f} {row['p99_ms']:>8.3f} {row['p99_cpu_ms']:>8.3f}"
            f"  {median / reference:6.1f}x"
        )
    return results
