"""``dw bench engine``: µs per random legal decision, against OpenSpiel's go 19x19 in the same run.

A decision is played as a user of the engine plays it: ask for the movable
pieces, pick one at random, ask for its destinations, pick one, play it (which
validates it and runs the end of turn). Games restart when they end. Two
drivers are measured:

* **Python API** — the loop above through :class:`dw_env.engine.Game`, one
  compiled call per step, as a Python user drives the engine;
* **compiled loop** — the same three kernels (``movable_pieces``,
  ``piece_destinations``, ``apply_action``) called from one compiled loop, as the
  vector env and batched self-play drive them: the engine's own cost.

The reference (the optional ``bench`` extra) plays OpenSpiel go 19x19 the way an
RL loop does: legal actions and the observation tensor every step, through its
Python bindings.
"""

from __future__ import annotations

import random
import time
from typing import Any

import numpy as np
from numba import njit

from dw_cli.bench.reference import go_reference, openspiel_us_per_step, random_play_us
from dw_env.engine import PASS_MOVE, Game, initial_arrays, kernel_tables, new_workspace
from dw_env.options import GameOptions
from dw_env.rules.layout import OVER, PASS
from dw_env.rules.moves import movable_pieces, piece_destinations
from dw_env.rules.turn import apply_action

MAPS: dict[str, GameOptions] = {
    "standard (n=2, R=4)": GameOptions(),
    "smallest (n=1, R=2)": GameOptions(land_radius=1, map_radius=2),
}


def engine_us_per_decision(options: GameOptions, seconds: float, seed: int = 0) -> tuple[float, int]:
    """Return (µs per decision, decisions played) of random legal play for about ``seconds``."""
    game = Game.new(options)
    warm = game.movable_cells()  # compile / warm up every call outside the timed loop
    game.destination_cells(int(warm[0]))
    game.play(PASS_MOVE)
    return random_play_us(lambda: Game.new(options), _random_decision, seconds, seed)


def _random_decision(game: Game, rng: random.Random) -> None:
    """Play one random legal decision: a random movable piece to a random destination, or a pass."""
    pieces = game.movable_cells()
    if len(pieces) == 0:
        game.play(PASS_MOVE)
    else:
        src = int(pieces[rng.randrange(len(pieces))])
        cells, _ = game.destination_cells(src)
        game.play((src, int(cells[rng.randrange(len(cells))])))


@njit(cache=True, nogil=True)
def _compiled_playout(G, board0, lands0, scalars0, decisions, seed, W, mask, kinds, dlist):  # type: ignore[no-untyped-def]
    """Play ``decisions`` random legal decisions, restarting finished games; return the games finished."""
    np.random.seed(seed)
    board, lands, scalars = board0.copy(), lands0.copy(), scalars0.copy()
    pieces = np.zeros(board.shape[0], dtype=np.int32)
    finished = 0
    for _ in range(decisions):
        if scalars[OVER] == 1:
            board[:] = board0
            lands[:, :] = lands0
            scalars[:] = scalars0
            finished += 1
        n = 0
        movable_pieces(G, board, lands, scalars, W, mask)
        for c in range(mask.shape[0]):
            if mask[c]:
                pieces[n] = c
                n += 1
        if n == 0:
            apply_action(G, board, lands, scalars, PASS, -1, W)
            continue
        src = pieces[np.random.randint(n)]
        k = piece_destinations(G, board, lands, scalars, src, W, kinds, dlist)
        apply_action(G, board, lands, scalars, src, dlist[np.random.randint(k)], W)
    return finished


def compiled_us_per_decision(options: GameOptions, seconds: float, seed: int = 0) -> tuple[float, int]:
    """Return (µs per decision, decisions) of the compiled random playout for about ``seconds``."""
    tables = kernel_tables(options)
    board, lands, scalars = initial_arrays(options)
    work = new_workspace(Game.new(options).geometry)
    cells = board.shape[0]
    buffers = (np.zeros(cells, np.int8), np.zeros(cells, np.int8), np.zeros(cells, np.int32))
    _compiled_playout(tables, board, lands, scalars, 10, seed, work, *buffers)  # compile / warm up
    batch, total = 2000, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        _compiled_playout(tables, board, lands, scalars, batch, seed + total, work, *buffers)
        total += batch
    return (time.perf_counter() - start) / total * 1e6, total


def go_us_per_step(seconds: float, seed: int = 0) -> float | None:
    """Return OpenSpiel go 19x19's µs per step (legal actions + observation tensor), or None if absent."""
    return openspiel_us_per_step("go", {"board_size": 19}, seconds, seed)


def run(seconds: float = 5.0) -> dict[str, Any]:
    """Run the benchmark, print a table and return the numbers."""
    if not 0.1 <= seconds <= 3600:  # also refuses nan and inf, which would never end a measuring loop
        raise ValueError(f"seconds must be in 0.1..3600, got {seconds!r}")
    results: dict[str, Any] = {}
    title = "dw bench engine: random legal play, one core, µs per decision (lower is better)"
    go = go_reference(seconds, title, 34, "OpenSpiel not installed (pip install -e '.[bench]'): no reference")
    results["openspiel_go19_us_per_step"] = go
    for label, options in MAPS.items():
        for driver, measure in (("Python API", engine_us_per_decision), ("compiled loop", compiled_us_per_decision)):
            us, n = measure(options, seconds)
            results[f"{label}, {driver}"] = us
            ratio = f"  ratio {us / go:.2f}x go" if go else ""
            print(f"  {label + ', ' + driver:<34} {us:8.2f} µs/decision ({n} decisions){ratio}")
    return results
