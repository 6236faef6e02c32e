"""``dw bench engine --game frontera``: µs per random legal action on the three reference maps, against OpenSpiel's
go 19x19 and backgammon measured in the same run, and random games per second by player count.

Games are 4 players (the per-map rows), fog off, cards and blitz on, truncated at ``250 * players`` turns (the
env's default). Two drivers of our engine, each playing uniformly random legal actions:

* **Python API**: ``Game.legal_actions()`` then ``Game.apply()`` of a random one (the full-fidelity engine:
  every Deploy count, every Regroup count, Place and TakeBack in setup), as a scripted player drives it;
* **compiled loop**: whole games in one call of ``frontera_env.kernels.random_games`` over spec 6.2's action
  indices (the kernel's mask, then its step): the engine's own cost, as the vector env drives it. The deal
  (``Game.new``, Python, once per game) is made before the clock starts for these rows.

Random games per second (medium map, 2..6 players) time the whole game: the Python deal plus the compiled play.
The references (OpenSpiel's Python bindings, the ``bench`` extra) play as an RL loop does: legal actions, the
observation tensor, apply; backgammon's dice are sampled from its chance outcomes, and only the players' actions
are counted as steps.
"""

from __future__ import annotations

import random
import time
from typing import Any

import numpy as np

from dw_cli.bench.reference import openspiel_us_per_step
from frontera_env import arrays, kernels
from frontera_env.encoding import Layout
from frontera_env.engine import Game
from frontera_env.map_file import reference_map

MAPS = ("small", "medium", "large")
PLAYERS = 4
PLAYER_COUNTS = (2, 3, 4, 5, 6)
#: games dealt per compiled call by default; a call plays them all to their end
BATCH = 16


def _new_game(size: str, players: int, seed: int) -> Game:
    """Return a dealt game on ``size``'s reference map with the bench's options."""
    return Game.new(reference_map(size), players, seed, max_turns=250 * players)


def python_us_per_action(size: str, seconds: float, seed: int = 0) -> tuple[float, int]:
    """Return (µs per action, actions) of random ``legal_actions()`` + ``apply()`` for about ``seconds``."""
    rng = random.Random(seed)
    game = _new_game(size, PLAYERS, seed)
    actions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        if game.over:
            game = _new_game(size, PLAYERS, seed + actions)
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
        actions += 1
    return (time.perf_counter() - start) / actions * 1e6, actions


def _deal(size: str, players: int, seed: int, games: int) -> tuple[arrays.Tables, arrays.Batch, int]:
    """Return the map's tables and a batch of ``games`` dealt games (the Python deal), and the action count."""
    first = _new_game(size, players, seed)
    tables = arrays.tables(first.ctx)
    batch = arrays.empty_batch(games, players, first.state.territories)
    for g in range(games):
        arrays.store(_new_game(size, players, seed + g).state, batch, g)
    return tables, batch, Layout.for_map(first.ctx.map).size


def _play(tables: arrays.Tables, batch: arrays.Batch, size: int, seed: int) -> int:
    """Play every game of ``batch`` to its end in one compiled call; return the actions played."""
    work = kernels.workspace(batch.owner.shape[1])
    played = kernels.random_games(tables, batch, seed, 10**7, np.zeros(size, np.int8), work)
    return int(np.abs(played).sum())


def compiled_us_per_action(size: str, seconds: float, seed: int = 0, games: int = BATCH) -> tuple[float, int]:
    """Return (µs per action, actions) of the compiled loop over ``games`` per call, deals excluded, ~``seconds``."""
    _play(*_deal(size, PLAYERS, seed, 1), seed)  # compile or load the kernels outside the clock
    spent, actions, calls = 0.0, 0, 0
    while spent < seconds:
        tables, batch, count = _deal(size, PLAYERS, seed + calls * games, games)
        start = time.perf_counter()
        actions += _play(tables, batch, count, seed + calls)
        spent += time.perf_counter() - start
        calls += 1
    return spent / actions * 1e6, actions


def games_per_second(players: int, seconds: float, seed: int = 0, games: int = BATCH) -> tuple[float, int]:
    """Return (random games per second, games) on the medium map: the Python deal and the compiled play."""
    played, calls = 0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        tables, batch, count = _deal("medium", players, seed + calls * games, games)
        _play(tables, batch, count, seed + calls)
        played += games
        calls += 1
    return played / (time.perf_counter() - start), played


def backgammon_us_per_step(seconds: float, seed: int = 0) -> float | None:
    """Return OpenSpiel backgammon's µs per player step (chance outcomes sampled, not counted), None if absent."""
    try:
        import pyspiel
    except ImportError:
        return None
    rng = random.Random(seed)
    game = pyspiel.load_game("backgammon")
    steps = 0
    start = time.perf_counter()
    while True:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probs)[0])
                continue
            legal = state.legal_actions()
            state.observation_tensor()
            state.apply_action(legal[rng.randrange(len(legal))])
            steps += 1
        if time.perf_counter() - start > seconds:
            break
    return (time.perf_counter() - start) / steps * 1e6


def _line(label: str, value: float, unit: str, refs: dict[str, float | None]) -> str:
    ratios = "".join(f"  {value / us:6.3f}x {name}" for name, us in refs.items() if us)
    return f"  {label:<34} {value:10.2f} {unit}{ratios}"


def run(seconds: float = 5.0, games: int = BATCH) -> dict[str, Any]:
    """Run the benchmark (``games`` dealt per compiled call), print a table with ratios and return the numbers."""
    if not 0.1 <= seconds <= 3600:  # also refuses nan and inf, which would never end a measuring loop
        raise ValueError(f"seconds must be in 0.1..3600, got {seconds!r}")
    if isinstance(games, bool) or not isinstance(games, int) or not 1 <= games <= 4096:
        raise ValueError(f"games must be an integer in 1..4096, got {games!r:.40}")
    go = openspiel_us_per_step("go", {"board_size": 19}, seconds)
    backgammon = backgammon_us_per_step(seconds)
    refs = {"go 19x19": go, "backgammon": backgammon}
    results: dict[str, Any] = {"OpenSpiel go 19x19": go, "OpenSpiel backgammon": backgammon}
    print("dw bench engine --game frontera: random legal play, one core, µs per action (lower is better)")
    for name, us in refs.items():
        shown = f"{us:10.2f} µs/step" if us else "not installed (pip install -e '.[bench]'): no ratio"
        print(f"  {'OpenSpiel ' + name + ' (reference)':<34} {shown}")
    for size in MAPS:
        for driver in ("Python API", "compiled loop"):
            if driver == "Python API":
                us, n = python_us_per_action(size, seconds)
            else:
                us, n = compiled_us_per_action(size, seconds, games=games)
            label = f"{size}, {driver}"
            results[label] = us
            for name, ref in refs.items():
                results[f"{label} / {name}"] = us / ref if ref else None
            print(_line(label, us, f"µs/action ({n} actions)", refs))
    print("random games per second, medium map (Python deal + compiled play; higher is better)")
    for players in PLAYER_COUNTS:
        rate, played = games_per_second(players, seconds, games=games)
        results[f"games/s, {players} players"] = rate
        print(f"  {players} players {rate:12.1f} games/s ({played} games)")
    return results
