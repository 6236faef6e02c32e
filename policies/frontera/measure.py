"""Seconds per decision of each scripted Frontera seat: ``python -m policies.frontera.measure [map] [games]``.

Plays ``games`` seeded games on the map (default: large, 6 players, every seat once per game, the seats
rotated between games) and prints, per seat, its decisions and the mean, 99th percentile and largest time of
one decision, in CPU time of the deciding thread (``time.thread_time``: on a shared, loaded machine wall time
mostly measures the scheduler). Each seat's first decision is left out (imports and first-call costs).
"""

from __future__ import annotations

import sys
import time

import numpy as np

from frontera_env.engine import Game
from policies.frontera import SEATS
from policies.games.frontera import load_map


def measure(size: str = "large", games: int = 3, players: int = 6) -> dict[str, list[tuple[float, float]]]:
    """Return each seat's decision times (CPU, wall seconds) over ``games`` seeded games on the ``size`` map."""
    names = list(SEATS)[:players]
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in names}
    board = load_map(size)
    for g in range(games):
        order = names[g % players :] + names[: g % players]
        seats = [SEATS[name](seed=g * players + i) for i, name in enumerate(order)]
        game = Game.new(board, players, g, max_turns=250 * players)
        first = [True] * players
        while not game.over:
            seat = game.current
            start, wall = time.thread_time(), time.perf_counter()
            action = seats[seat].act(game, seat)
            elapsed = (time.thread_time() - start, time.perf_counter() - wall)
            if not first[seat]:
                times[order[seat]].append(elapsed)
            first[seat] = False
            game.apply(action)
    return times


def main(argv: list[str]) -> int:
    size = argv[0] if argv else "large"
    games = int(argv[1]) if len(argv) > 1 else 3
    print(f"{size} map, {games} games of 6 players; CPU ms of the deciding thread, and wall ms")
    print(f"{'seat':<12}  {'decisions':>9}  {'mean':>7}  {'p99':>7}  {'max':>7}  {'wall mean':>9}  {'wall p99':>8}")
    for name, values in measure(size, games).items():
        cpu, wall = (np.asarray(v) * 1e3 for v in zip(*values, strict=True))
        print(
            f"{name:<12}  {len(cpu):>9}  {cpu.mean():>7.3f}  {np.percentile(cpu, 99):>7.3f}  {cpu.max():>7.3f}  "
            f"{wall.mean():>9.3f}  {np.percentile(wall, 99):>8.3f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
