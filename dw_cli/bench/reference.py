"""The timing loops every engine benchmark shares: random play until a deadline, and OpenSpiel's reference.

``random_play_us`` drives any engine object with an ``over`` flag through one decision at a time (the game
restarts when it ends, the clock is read only between games' ends and at the start); ``openspiel_us_per_step``
plays an OpenSpiel game the way an RL loop does (legal actions, the observation tensor, apply) so each
benchmark's ratio is against the same measurement.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any


def random_play_us(
    new_game: Callable[[], Any], decide: Callable[[Any, random.Random], None], seconds: float, seed: int = 0
) -> tuple[float, int]:
    """Return (µs per decision, decisions) of ``decide(game, rng)`` on games from ``new_game`` for about ``seconds``.

    A finished game is replaced by a new one; the loop stops at the first game end after the deadline.
    """
    rng = random.Random(seed)
    game = new_game()
    decisions = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        if game.over:
            if time.perf_counter() > deadline:
                break
            game = new_game()
        decide(game, rng)
        decisions += 1
    return (time.perf_counter() - start) / decisions * 1e6, decisions


def openspiel_us_per_step(name: str, params: dict[str, int], seconds: float, seed: int = 0) -> float | None:
    """Return an OpenSpiel game's µs per step (legal actions + observation tensor + apply), or None if absent."""
    try:
        import pyspiel
    except ImportError:
        return None
    rng = random.Random(seed)
    game = pyspiel.load_game(name, params)
    steps = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            state.observation_tensor()
            state.apply_action(legal[rng.randrange(len(legal))])
            steps += 1
        if time.perf_counter() > deadline:
            break
    return (time.perf_counter() - start) / steps * 1e6


def go_reference(seconds: float, title: str, width: int, missing: str) -> float | None:
    """Measure OpenSpiel go 19x19 (µs per step, None if absent), then print ``title`` and the reference's line."""
    go = openspiel_us_per_step("go", {"board_size": 19}, seconds)
    print(title)
    print(f"  {'OpenSpiel go 19x19 (reference)':<{width}} {go:8.2f} µs/step" if go else f"  {missing}")
    return go
