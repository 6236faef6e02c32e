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

The drivers and the reference take turns in short slices and each row's median slice
counts; a slice is timed on the driving thread's CPU clock. On a machine shared with
other work the wall clock of a slice mostly measures the other work, and a reference
measured minutes apart from the rows it divides measures a different machine.
"""

from __future__ import annotations

import contextlib
import random
import time
from typing import Any

import numpy as np
from numba import njit

from dw_env.engine import PASS_MOVE, Game, initial_arrays, kernel_tables, new_workspace
from dw_env.options import GameOptions
from dw_env.rules.layout import OVER, PASS
from dw_env.rules.moves import movable_pieces, piece_destinations
from dw_env.rules.turn import apply_action

MAPS: dict[str, GameOptions] = {
    "standard (n=2, R=4)": GameOptions(),
    "smallest (n=1, R=2)": GameOptions(land_radius=1, map_radius=2),
}


SLICES = 5


class _ApiDriver:
    """Random legal decisions through :class:`Game`, one slice at a time, games restarting when they end."""

    def __init__(self, options: GameOptions, seed: int) -> None:
        self.options, self.rng = options, random.Random(seed)
        self.game = Game.new(options)
        warm = Game.new(options)  # compile / warm up every call outside the measurement
        warm.destination_cells(int(warm.movable_cells()[0]))
        warm.play(PASS_MOVE)

    def run(self, seconds: float) -> tuple[float, int]:
        """Play for about ``seconds`` of this thread's CPU time; return (CPU seconds, decisions)."""
        game, rng, decisions = self.game, self.rng, 0
        start = time.thread_time()
        while decisions % 64 or time.thread_time() - start < seconds:
            if game.over:
                game = self.game = Game.new(self.options)
            _random_decision(game, rng)
            decisions += 1
        return time.thread_time() - start, decisions


class _CompiledDriver:
    """The compiled playout in batches of 2,000 decisions."""

    def __init__(self, options: GameOptions, seed: int) -> None:
        self.tables = kernel_tables(options)
        self.board, self.lands, self.scalars = initial_arrays(options)
        self.work = new_workspace(Game.new(options).geometry)
        cells = self.board.shape[0]
        self.buffers = (np.zeros(cells, np.int8), np.zeros(cells, np.int8), np.zeros(cells, np.int32))
        self.seed = seed
        self._play(10)  # compile / warm up

    def _play(self, decisions: int) -> None:
        self.seed += 1
        _compiled_playout(
            self.tables, self.board, self.lands, self.scalars, decisions, self.seed, self.work, *self.buffers
        )

    def run(self, seconds: float) -> tuple[float, int]:
        """Play batches for about ``seconds`` of CPU time; return (CPU seconds, decisions)."""
        decisions, start = 0, time.thread_time()
        while decisions == 0 or time.thread_time() - start < seconds:
            self._play(2000)
            decisions += 2000
        return time.thread_time() - start, decisions


class _GoDriver:
    """OpenSpiel go 19x19 as an RL loop plays it: legal actions, the observation tensor, apply."""

    def __init__(self, seed: int) -> None:
        import pyspiel

        self.game = pyspiel.load_game("go", {"board_size": 19})
        self.state, self.rng = self.game.new_initial_state(), random.Random(seed)

    def run(self, seconds: float) -> tuple[float, int]:
        """Play for about ``seconds`` of CPU time; return (CPU seconds, steps)."""
        state, rng, steps = self.state, self.rng, 0
        start = time.thread_time()
        while steps % 64 or time.thread_time() - start < seconds:
            if state.is_terminal():
                state = self.state = self.game.new_initial_state()
            legal = state.legal_actions()
            state.observation_tensor()
            state.apply_action(legal[rng.randrange(len(legal))])
            steps += 1
        return time.thread_time() - start, steps


def interleaved_us(drivers: dict[str, Any], seconds: float) -> dict[str, tuple[float, int]]:
    """Return {row: (median µs per decision over the slices, decisions)}: drivers take turns, SLICES each."""
    slices: dict[str, list[tuple[float, int]]] = {name: [] for name in drivers}
    for _ in range(SLICES):
        for name, driver in drivers.items():
            slices[name].append(driver.run(seconds / SLICES))
    return {
        name: (float(np.median([cpu / n * 1e6 for cpu, n in runs])), sum(n for _, n in runs))
        for name, runs in slices.items()
    }


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


GO = "OpenSpiel go 19x19 (reference)"
DRIVERS = (("Python API", _ApiDriver), ("compiled loop", _CompiledDriver))
#: issue 50 item 1: a decision through the Python API costs at most half a go 19x19 step, in the same run
GOAL_RATIO = 0.5


def goal_note(ratio: float, goal: float) -> str:
    """Return ``(goal <= Gx: met)`` or ``(goal <= Gx: missed)`` for a ratio to its reference."""
    return f"(goal <= {goal}x: {'met' if ratio <= goal else 'missed'})"


def run(seconds: float = 5.0) -> dict[str, Any]:
    """Run the benchmark, print a table and return the numbers."""
    if not 0.1 <= seconds <= 3600:  # also refuses nan and inf, which would never end a measuring loop
        raise ValueError(f"seconds must be in 0.1..3600, got {seconds!r}")
    drivers: dict[str, Any] = {}
    with contextlib.suppress(ImportError):  # the bench extra is optional; the rows still print
        drivers[GO] = _GoDriver(0)
    for label, options in MAPS.items():
        for driver, make in DRIVERS:
            drivers[f"{label}, {driver}"] = make(options, 0)
    measured = interleaved_us(drivers, seconds)
    print("dw bench engine: random legal play, one core, µs per decision (lower is better)")
    print(f"  CPU time of the driving thread, median of {SLICES} interleaved slices per row")
    go = measured.pop(GO, (None, 0))[0]
    results: dict[str, Any] = {"openspiel_go19_us_per_step": go}
    if go is None:
        print("  OpenSpiel not installed (pip install -e '.[bench]'): no reference")
    else:
        print(f"  {GO:<34} {go:8.2f} µs/step")
    for row, (us, n) in measured.items():
        results[row] = us
        ratio = f"  ratio {us / go:.3f}x go" if go else ""  # 3 decimals: a ratio at the goal shows which side
        if go and row.endswith("Python API"):
            ratio += " " + goal_note(us / go, GOAL_RATIO)
            results.setdefault("python_api_ratio_vs_go", {})[row] = us / go
        print(f"  {row:<34} {us:8.2f} µs/decision ({n} decisions){ratio}")
    return results
