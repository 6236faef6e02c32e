"""``dw bench engine --game alveole``: µs per random legal move on the Alveole engine, against OpenSpiel's
havannah (board size 8) and hex 11x11 measured in the same run.

Drivers of our engine, each playing uniformly random legal moves and restarting finished games:

* **API + observation**: ``legal_actions()``, ``observe()`` and ``play()`` through
  :class:`alveole_env.engine.AlveoleGame` every move: what an RL loop over the engine does, and
  what the references are measured doing (legal actions, observation tensor, apply);
* **API**: ``legal_actions()`` and ``play()`` only, as a scripted player drives it;
* **compiled loop**: the kernels (``list_moves``, ``apply_move``) called from one compiled loop:
  the engine's own cost;
* **vector env**: :class:`alveole_env.vector.AlveoleVectorEnv` with 256 games, µs per game step
  including observations, masks and uniform sampling.

The references (OpenSpiel's Python bindings, the ``bench`` extra) play the same way as
``dw_cli.bench.reference.openspiel_us_per_step``: legal actions and the observation tensor every step.
Both are two-player connection games on hex boards, the closest OpenSpiel has to Alveole.
"""

from __future__ import annotations

import random
import time
from typing import Any

import numpy as np
from numba import njit

from alveole_env import rules
from alveole_env.engine import AlveoleGame
from alveole_env.state import OVER, TURN
from alveole_env.vector import AlveoleVectorEnv
from dw_cli.bench.reference import openspiel_us_per_step, random_play_us

#: OpenSpiel references: label -> (game name, parameters)
REFERENCES: dict[str, tuple[str, dict[str, int]]] = {
    "OpenSpiel havannah(board_size=8)": ("havannah", {"board_size": 8}),
    "OpenSpiel hex(board_size=11)": ("hex", {"board_size": 11}),
}
VECTOR_GAMES = 256


def api_us_per_move(seconds: float, observe: bool, seed: int = 0) -> tuple[float, int]:
    """Return (µs per move, moves) of random legal play through the engine's Python API."""
    warm = AlveoleGame.new()  # compile / load every kernel outside the timed loop
    warm.observe()
    warm.play(warm.legal_actions()[0])

    def move(game: AlveoleGame, rng: random.Random) -> None:
        legal = game.legal_actions()
        if observe:
            game.observe()
        game.play(legal[rng.randrange(len(legal))])

    return random_play_us(AlveoleGame.new, move, seconds, seed)


@njit(cache=True, nogil=True)
def _compiled_playout(G, board0, lines0, scalars0, moves, seed, buffer, stack, seen):  # type: ignore[no-untyped-def]
    """Play ``moves`` random legal moves, restarting finished games; return the games finished."""
    np.random.seed(seed)
    board, lines, scalars = board0.copy(), lines0.copy(), scalars0.copy()
    finished = 0
    for _ in range(moves):
        if scalars[OVER] == 1:
            board[:] = board0
            lines[:] = lines0
            scalars[:] = scalars0
            finished += 1
        n = rules.list_moves(G, board, lines, scalars[TURN], buffer)
        m = buffer[np.random.randint(n)]
        rules.apply_move(G, board, lines, scalars, m // 6, m % 6, stack, seen)
    return finished


def compiled_us_per_move(seconds: float, seed: int = 0) -> tuple[float, int]:
    """Return (µs per move, moves) of the compiled random playout for about ``seconds``."""
    tables = rules.tables()
    start_game = AlveoleGame.new()
    state = (start_game.board, start_game.lines, start_game.scalars)
    buffers = (np.zeros(rules.MAX_MOVES, np.int32), *rules.new_workspace())
    _compiled_playout(tables, *state, 10, seed, *buffers)
    batch, total = 5000, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        _compiled_playout(tables, *state, batch, seed + total, *buffers)
        total += batch
    return (time.perf_counter() - start) / total * 1e6, total


def vector_us_per_step(seconds: float, seed: int = 0) -> tuple[float, int]:
    """Return (µs per game step, game steps) of the vector env with uniform sampling."""
    venv = AlveoleVectorEnv(VECTOR_GAMES, seed=seed)
    venv.reset()
    venv.step(venv.sample_actions())
    calls = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        venv.step(venv.sample_actions())
        calls += 1
    steps = calls * VECTOR_GAMES
    return (time.perf_counter() - start) / steps * 1e6, steps


def run(seconds: float = 5.0) -> dict[str, Any]:
    """Run the benchmark, print a table and return the numbers (µs per move or step; ratios to each reference)."""
    if not 0.1 <= seconds <= 3600:  # also refuses nan and inf, which would never end a measuring loop
        raise ValueError(f"seconds must be in 0.1..3600, got {seconds!r}")
    results: dict[str, Any] = {}
    print("dw bench engine --game alveole: random legal play, one core, µs per move (lower is better)")
    references: dict[str, float] = {}
    for label, (name, params) in REFERENCES.items():
        us = openspiel_us_per_step(name, params, seconds)
        results[label] = us
        if us is None:
            print(f"  {label:<44} not installed (pip install -e '.[bench]'): no reference")
        else:
            references[label] = us
            print(f"  {label + ' (reference)':<44} {us:8.2f} µs/step")
    drivers = (
        ("Alveole API + observation", lambda s: api_us_per_move(s, observe=True)),
        ("Alveole API", lambda s: api_us_per_move(s, observe=False)),
        ("Alveole compiled loop", compiled_us_per_move),
        (f"Alveole vector env ({VECTOR_GAMES} games)", vector_us_per_step),
    )
    for label, measure in drivers:
        us, n = measure(seconds)
        results[label] = us
        ratios = "  ".join(
            f"{us / ref:.2f}x {ref_label.split()[1].split('(')[0]}" for ref_label, ref in references.items()
        )
        print(f"  {label:<44} {us:8.2f} µs/move ({n} moves)  ratio {ratios}")
        for ref_label, ref in references.items():
            results[f"{label} / {ref_label}"] = us / ref
    return results
