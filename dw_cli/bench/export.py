"""``dw bench export``: ms per decision at batch 1 on one CPU core, exported package vs the torch checkpoint.

The shipped agent (``checkpoints/small-agent.pt``) is exported in the run (plain flavour, the small and the
standard map) to a temporary folder. Both seats then decide on the same positions, taken from seeded games
among the scripted AIs and the agent (:func:`training.export.export_parity.collect_positions`, both phases):

* ``forward``: one network evaluation at batch 1, the torch module (``torch.no_grad``, one thread) vs the
  onnxruntime session (one intra-op thread), on identical int8 observation and mask;
* ``decision``: a whole seat decision, :meth:`Policy.act` of ``NetworkPolicy`` (greedy) vs
  ``PackagePolicy`` on the positions' games: encoding, one or two evaluations, mapping back.

The goal is at most 5 ms per decision on the standard map.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from dw_env.options import GameOptions

ROOT = Path(__file__).resolve().parents[2]
CHECKPOINT = ROOT / "checkpoints" / "small-agent.pt"
MAPS = {"small": (1, 2), "standard": (2, 4)}
GOAL_MS = 5.0
#: positions timed per map (network evaluations) and games whose decisions are timed
POSITIONS = 200
DECISIONS = 100


def _time(fn: Any, items: list[Any], seconds: float) -> float:
    """Return the median ms of ``fn(item)`` cycling through ``items`` for about ``seconds`` (after a warm-up)."""
    for item in items[:20]:
        fn(item)
    times: list[float] = []
    deadline = time.perf_counter() + seconds
    i = 0
    while time.perf_counter() < deadline or len(times) < 20:
        item = items[i % len(items)]
        t0 = time.perf_counter()
        fn(item)
        times.append(time.perf_counter() - t0)
        i += 1
    return float(np.median(times) * 1e3)


def _games(options: GameOptions, count: int) -> list[Any]:
    """Return copies of games at ``count`` decisions of seeded games among the scripted AIs."""
    from dw_env.engine import Game
    from policies.registry import make

    games: list[Any] = []
    seed = 0
    while len(games) < count:
        seats = [make(n, seed=seed + i) for i, n in enumerate(("balanced", "raider", "expansionist"))]
        game = Game.new(options)
        while not game.over and len(games) < count:
            games.append(game.copy())
            game.play(seats[game.turn].act(game, game.turn))
        seed += 3
    return games


def measure_map(options: GameOptions, net: Any, folder: Path, seconds: float) -> dict[str, float]:
    """Return the median ms of a forward and of a decision, torch and onnx, on ``options``' map."""
    import warnings

    import torch

    from policies.checkpoint import load as load_checkpoint
    from policies.domain_wheel.network_policy import NetworkPolicy
    from policies.domain_wheel.two_phase import TwoPhaseDriver, map_key
    from policies.onnx_policy import OnnxGraph, PackagePolicy
    from policies.package import read_package
    from training.export.export_parity import collect_positions

    package = read_package(folder)
    obs, masks = collect_positions(CHECKPOINT, options, POSITIONS, seed=1)
    net.set_geometry(TwoPhaseDriver(options).geometry)
    graph = OnnxGraph(package, package.graph_for(map_key(options)))
    pairs = [(obs[i : i + 1], masks[i : i + 1]) for i in range(len(obs))]

    def torch_forward(pair: Any) -> None:
        with torch.no_grad():
            net(torch.from_numpy(pair[0]))

    games = _games(options, DECISIONS)
    torch_seat = NetworkPolicy(load_checkpoint(CHECKPOINT), seed=0, greedy=True)
    onnx_seat = PackagePolicy(folder, seed=0)
    with warnings.catch_warnings():  # the torch seat warns once when it plays another map than its own
        warnings.simplefilter("ignore")
        return {
            "forward_torch_ms": _time(torch_forward, pairs, seconds / 4),
            "forward_onnx_ms": _time(lambda pair: graph.run(*pair), pairs, seconds / 4),
            "decision_torch_ms": _time(lambda g: torch_seat.act(g, g.turn), games, seconds / 4),
            "decision_onnx_ms": _time(lambda g: onnx_seat.act(g, g.turn), games, seconds / 4),
        }


def run(seconds: float = 5.0) -> dict[str, Any]:
    """Export the shipped agent, time both seats on each map for ``seconds`` per map; print a table."""
    if not 0.1 <= seconds <= 3600:  # also refuses nan and inf, which would never end a measuring loop
        raise ValueError(f"seconds must be in 0.1..3600, got {seconds!r}")
    import torch

    from training.export.export import ExportRequest, export_package, load_network

    torch.set_num_threads(1)
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "small-agent"
        export_package(ExportRequest(CHECKPOINT, folder, maps=tuple(MAPS.values()), progress=False))
        net, payload = load_network(CHECKPOINT)
        trained = GameOptions.from_dict(payload["options"])
        print("dw bench export: median ms at batch 1, one CPU core, checkpoints/small-agent.pt, greedy")
        print(f"  {'map':<9} {'what':<9} {'torch':>8} {'onnx':>8} {'torch/onnx':>10}")
        for name, (n, r) in MAPS.items():
            options = GameOptions(**{**trained.to_dict(), "land_radius": n, "map_radius": r})
            row = measure_map(options, net, folder, seconds)
            for what in ("forward", "decision"):
                t, o = row[f"{what}_torch_ms"], row[f"{what}_onnx_ms"]
                print(f"  {name:<9} {what:<9} {t:>8.3f} {o:>8.3f} {t / o:>9.1f}x")
            results[name] = row
    ok = results["standard"]["decision_onnx_ms"] <= GOAL_MS
    print(f"  goal: <= {GOAL_MS:g} ms per decision on the standard map: {'met' if ok else 'NOT met'}")
    return results
