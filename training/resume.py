"""What ``dw train --resume`` saves beyond the weights, and how it is put back where the run stopped.

A training checkpoint (policies/checkpoint.py) holds, under ``training``: the optimizer's state, the three
RNG streams (Python's ``random``, the run's numpy Generator, torch's CPU and CUDA generators), the league
(snapshots, retired snapshots still playing, results), and the games in progress: every state array of the
vector env, who sits where in each slot, the scripted AIs' objects (their per-game plans and RNGs) and the
learner's decisions carried over to the next rollout. Restoring all of it makes a resumed run continue
exactly as the uninterrupted run would have.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from policies import checkpoint
from training.config import TrainConfig


def env_state(env: Any) -> dict[str, Any]:
    """Return copies of the vector env's state arrays (every numpy array it holds) and RNG states."""
    state: dict[str, Any] = {}
    for name, value in vars(env).items():
        if isinstance(value, np.ndarray) and value.flags.writeable:
            state[name] = value.copy()
        elif isinstance(value, np.random.Generator):
            state[name] = value.bit_generator.state
    return state


def restore_env_state(env: Any, state: dict[str, Any]) -> None:
    """Write state from :func:`env_state` back into the env's arrays, in place (views stay valid)."""
    for name, value in state.items():
        target = getattr(env, name)
        if isinstance(target, np.random.Generator):
            target.bit_generator.state = value
        else:
            np.copyto(target, value)


def training_state(table: Any, rollout: Any, optimizer: Any, rng: np.random.Generator) -> dict[str, Any]:
    """Return what ``--resume`` needs beyond the weights (see policies/checkpoint.py)."""
    open_slots = {name: getattr(rollout, name)[0].copy() for name in rollout.ARRAYS}
    rngs = {
        "python": random.getstate(),
        "numpy": rng.bit_generator.state,
        "torch": torch.get_rng_state(),
        "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else [],
    }
    tables = {
        "env": env_state(table.env),
        "obs": table.obs,
        "masks": table.masks,
        "player": table.player,
        "seat": table.seat,
        "opponent": table.opponent,
        "games": table.games,
        "scripted": (table.scripted.policies, table.scripted.pending),
        "rollout": (open_slots, rollout.count.copy(), rollout.open.copy()),
    }
    return {
        "optimizer": optimizer.state_dict(),
        "rng": checkpoint.pack(rngs),
        "league": checkpoint.pack(table.league.state_dict()),
        "table": checkpoint.pack(tables),
    }


def restore_training(state: dict[str, Any], table: Any, rollout: Any, optimizer: Any, rng: Any, path: Any) -> None:
    """Restore optimizer, RNG streams, league, games in progress and the carried-over decisions."""
    optimizer.load_state_dict(state["optimizer"])
    rngs = checkpoint.unpack(state["rng"], path)
    random.setstate(rngs["python"])
    rng.bit_generator.state = rngs["numpy"]
    torch.set_rng_state(rngs["torch"])
    if rngs["cuda"] and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(rngs["cuda"])
    table.league.load_state_dict(checkpoint.unpack(state["league"], path))
    tables = checkpoint.unpack(state["table"], path)
    restore_env_state(table.env, tables["env"])
    table.obs, table.masks, table.player = tables["obs"], tables["masks"], tables["player"]
    table.seat, table.opponent, table.games = tables["seat"], tables["opponent"], tables["games"]
    table.scripted.policies, table.scripted.pending = tables["scripted"]
    open_slots, count, is_open = tables["rollout"]
    for name, value in open_slots.items():
        getattr(rollout, name)[0] = value
    rollout.count[:], rollout.open[:] = count, is_open


def save_checkpoint(path: Path, net: nn.Module, config: TrainConfig, counters: dict[str, Any], extra: Any) -> None:
    """Save the weights, the config and the counters, plus the training state ``extra`` unless it is None."""
    payload = {
        "format": checkpoint.FORMAT,
        "format_version": checkpoint.FORMAT_VERSION,
        "observation_version": net.observation_version,
        "options": config.options.to_dict(),
        "network": dict(net.hparams),
        "model": {k: v.detach().cpu() for k, v in net.state_dict().items()},
        "config": config.to_dict(),
        "counters": dict(counters),
    }
    if extra is not None:
        payload["training"] = extra
    checkpoint.save(path, payload)
