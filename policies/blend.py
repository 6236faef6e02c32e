"""Weights on the line between two checkpoints of one network (``dw blend``).

A network trained further on some games (a fine-tuned network) often gains on those and loses on the games it
no longer sees. Averaging its weights with the network it started from, ``(1 - w) * start + w * tuned``, often
keeps most of the gain and wins back most of the loss: Wortsman et al., "Robust fine-tuning of zero-shot models"
(CVPR 2022, WiSE-FT), which works because a fine-tuned network stays in the same basin as its start. Frontera's
agent is such a blend (docs/FRONTERA.md): its second training stage on 2- and 4-player games cost 6-player play.

Both files must be checkpoints of the same game whose networks have the same sizes and the same weights' names,
shapes and types (in practice: one continued from the other with ``network.init_from`` or ``--resume``). The
result is a policy file (no training state, :func:`policies.checkpoint.export_policy`) carrying the tuned file's
options, config and counters, and a ``blend`` entry naming both files, their SHA-256 and the weight; it plays,
exports and starts training runs as any checkpoint does.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from dw_env.errors import brief
from policies import checkpoint
from policies.checkpoint import CheckpointError
from policies.package import sha256_of

#: the entry a blended file carries beside the checkpoint's own (policies/checkpoint.py)
BLEND_KEY = "blend"


def check_weight(weight: Any) -> float:
    """Return ``weight`` as a float in [0, 1]; ValueError naming the value and what is allowed otherwise."""
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not math.isfinite(weight):
        raise ValueError(f"blend weight {brief(weight)} is not a number; allowed: a number from 0 to 1")
    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"blend weight {weight:g} is outside 0..1 (0: the start's weights, 1: the tuned ones)")
    return float(weight)


def _check_same_network(start: dict[str, Any], tuned: dict[str, Any], a: Path, b: Path) -> None:
    """Raise CheckpointError unless both payloads hold the same game and network, weight by weight."""
    import torch

    game_a, game_b = checkpoint.game_of(start, a), checkpoint.game_of(tuned, b)
    if game_a != game_b:
        raise CheckpointError(f"{a} is a checkpoint of {game_a} and {b} one of {game_b}: both must be of one game")
    size_a, size_b = checkpoint.network_size(start, a), checkpoint.network_size(tuned, b)
    if size_a != size_b:
        diff = ", ".join(f"{k} {v} and {size_b.get(k)}" for k, v in sorted(size_a.items()) if v != size_b.get(k))
        raise CheckpointError(f"{a} and {b} hold networks of different sizes ({diff}): one network's weights blend")
    wa, wb = start["model"], tuned["model"]
    if not isinstance(wa, dict) or not isinstance(wb, dict):
        raise CheckpointError(f"{a if not isinstance(wa, dict) else b}: damaged checkpoint, its model is not a mapping")
    only = sorted(set(wa) ^ set(wb))
    if only:
        shown = ", ".join(only[:4]) + (f" and {len(only) - 4} more" if len(only) > 4 else "")
        raise CheckpointError(f"{a} and {b} do not hold the same weights: {shown} in one only")
    for name in wa:
        x, y = wa[name], wb[name]
        if not isinstance(x, torch.Tensor) or not isinstance(y, torch.Tensor):
            raise CheckpointError(f"{a} or {b}: damaged checkpoint, weight {name!r} is not a tensor")
        if x.shape != y.shape or x.dtype != y.dtype:
            raise CheckpointError(
                f"weight {name!r} is {tuple(x.shape)} {x.dtype} in {a} and {tuple(y.shape)} {y.dtype} in {b}: "
                "only one network's weights blend"
            )


def blend(start_path: str | Path, tuned_path: str | Path, weight: float) -> dict[str, Any]:
    """Return a policy payload with ``(1 - weight) * start + weight * tuned`` for every floating-point weight.

    Integer tensors (counters such as a batch norm's) are the tuned file's. Raises FileNotFoundError,
    :class:`CheckpointError` (a file that does not load or two networks that differ) or ValueError (the weight).
    """
    import torch

    w = check_weight(weight)
    a, b = Path(start_path), Path(tuned_path)
    start, tuned = checkpoint.load(a), checkpoint.load(b)
    _check_same_network(start, tuned, a, b)
    model = {}
    for name, y in tuned["model"].items():
        x = start["model"][name]
        model[name] = torch.lerp(x.double(), y.double(), w).to(y.dtype) if y.is_floating_point() else y.clone()
    out = checkpoint.export_policy(tuned)
    out["model"] = model
    out[BLEND_KEY] = {
        "start": a.name,
        "start_sha256": sha256_of(a.read_bytes()),
        "tuned": b.name,
        "tuned_sha256": sha256_of(b.read_bytes()),
        "weight": w,
    }
    return out
