"""Parity of an exported package with its checkpoint, on positions taken from real games.

:func:`collect_positions` plays seeded games among the scripted AIs and the agent itself (its checkpoint,
sampling) on a map and records, at every turn, the acting player's phase-1 observation and, when it moves a
piece, the phase-2 observation with that piece selected: both phases, as the seats see them.
:func:`compare` runs the checkpoint's network (torch) and the package's graph for the same map (onnxruntime)
on them and reports whether the greedy actions agree and the largest absolute difference between the two
logits on legal actions. ``dw export --parity N`` records the result in the manifest (``parity``).
"""

from __future__ import annotations

import itertools
import warnings
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dw_env.engine import Game
from dw_env.options import GameOptions
from policies.base import Policy
from policies.registry import make
from policies.two_phase import TwoPhaseDriver, map_key, map_text

#: line-ups of the position games ("agent" is the checkpoint); each is played in all three rotations
LINEUPS = (
    ("agent", "balanced", "random"),
    ("expansionist", "agent", "center"),
    ("raider", "guardian", "agent"),
    ("balanced", "center", "expansionist"),
    ("agent", "agent", "guardian"),
)
#: positions kept per game at most, so that a few long games do not fill the sample
PER_GAME = 200


def collect_positions(
    checkpoint: Path, options: GameOptions, count: int, seed: int = 0
) -> tuple[NDArray[np.int8], NDArray[np.int8]]:
    """Return (observations [N, D], masks [N, A]) of ``count`` decisions from seeded games on ``options``."""
    from policies.network_policy import load

    driver = TwoPhaseDriver(options)
    obs: list[NDArray[np.int8]] = []
    masks: list[NDArray[np.int8]] = []
    for game_index in itertools.count():
        base = LINEUPS[game_index % len(LINEUPS)]
        lineup = base[game_index % 3 :] + base[: game_index % 3]
        seats: list[Policy] = []
        for s, spec in enumerate(lineup):
            seat_seed = seed * 1_000_003 + 3 * game_index + s
            seats.append(load(checkpoint, seed=seat_seed) if spec == "agent" else make(spec, seed=seat_seed))
        game = Game.new(options)
        kept = 0
        while not game.over and kept < PER_GAME and len(obs) < count:
            p = game.turn
            o, m = driver.encode(game, p)
            obs.append(o.copy())
            masks.append(m.copy())
            with warnings.catch_warnings():  # the agent on another map than its own warns once per seat
                warnings.simplefilter("ignore")
                move = seats[p].act(game, p)
            if move.src >= 0 and len(obs) < count:
                o, m = driver.encode(game, p, selected=move.src)
                obs.append(o.copy())
                masks.append(m.copy())
            game.play(move)
            kept += 1
        if len(obs) >= count:
            return np.stack(obs), np.stack(masks)
    raise AssertionError("unreachable")


def compare(net: Any, graph: Any, obs: NDArray[np.int8], masks: NDArray[np.int8], batch: int = 512) -> dict[str, Any]:
    """Return {positions, agree, phase_2, max_abs_logit_diff} of torch ``net`` vs onnx ``graph`` (same map)."""
    import torch

    agree, worst = 0, 0.0
    for at in range(0, len(obs), batch):
        o, m = obs[at : at + batch], masks[at : at + batch]
        with torch.no_grad():
            logits = net(torch.from_numpy(o))[0].numpy()
        legal = m != 0
        want = np.where(legal, logits, -np.inf).argmax(1)
        got, onnx_logits = graph.run(o, m)
        agree += int((got == want).sum())
        if onnx_logits is not None:
            worst = max(worst, float(np.abs(np.where(legal, onnx_logits - logits, 0.0)).max()))
    phase = obs[:, -9]  # the global block's "phase" feature (index 17 of 26)
    return {
        "positions": len(obs),
        "phase_2": int(phase.sum()),
        "agree": agree,
        "max_abs_logit_diff": worst,
    }


def parity_report(
    net: Any, trained: GameOptions, checkpoint: Path, package: Path, count: int, seed: int = 0
) -> dict[str, Any]:
    """Return the parity of ``package`` with ``checkpoint`` (its network ``net``, trained on ``trained``).

    The ``count`` positions are spread evenly over the package's maps.
    """
    from policies.onnx_policy import OnnxGraph
    from policies.package import read_package

    pkg = read_package(package)
    per_map = []
    share = -(-count // len(pkg.graphs))
    for spec in pkg.graphs:
        options = GameOptions(**{**trained.to_dict(), **spec.accepts})
        obs, masks = collect_positions(checkpoint, options, share, seed)
        net.set_geometry(TwoPhaseDriver(options).geometry)
        result = compare(net, OnnxGraph(pkg, spec), obs, masks)
        per_map.append({"map": map_text(map_key(options)), **result})
    return {
        "positions": sum(r["positions"] for r in per_map),
        "agree": sum(r["agree"] for r in per_map),
        "max_abs_logit_diff": max(r["max_abs_logit_diff"] for r in per_map),
        "source": "arena-style games among the scripted AIs and the agent (sampling), both phases",
        "seed": seed,
        "maps": per_map,
    }
