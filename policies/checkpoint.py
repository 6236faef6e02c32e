"""Checkpoint files: written atomically, checked against the observation layout and the map on load.

A checkpoint is one ``torch.save`` file (suffix ``.pt``) holding a plain mapping::

    format, format_version      "dw-ppo-checkpoint", 1
    observation_version         the layout the weights read (dw_env.envs.observation.OBSERVATION_VERSION)
    options                     the game options trained on (map size and rules variants)
    network                     the network's size: channels, blocks, head_hidden
    model                       the network's weights (state dict)
    config                      the full training config (training/config.py)
    counters                    env steps, updates, games, elapsed seconds at the time of writing
    training                    (training checkpoints only) optimizer, RNG streams, league and the games in
                                progress, as pickled bytes: present so that ``--resume`` continues exactly

Policy files for the arena are checkpoints without ``training`` (:func:`export_policy`), a few hundred KB.
Loading uses ``torch.load(weights_only=True)``, so a file can hold tensors, numbers, strings and bytes but no
code; the training state is unpickled only when a run is resumed from its own checkpoint.

Writes go to a temporary file in the same folder, are flushed to disk, then renamed over the target with
``os.replace``: a crash mid-write leaves the previous checkpoint intact, never a torn one.
"""

from __future__ import annotations

import io
import os
import pickle
import tempfile
from pathlib import Path
from typing import Any

from dw_env.envs.observation import OBSERVATION_VERSION
from dw_env.options import GameOptions

FORMAT = "dw-ppo-checkpoint"
FORMAT_VERSION = 1
REQUIRED_KEYS = ("format", "format_version", "observation_version", "options", "network", "model")


class CheckpointError(ValueError):
    """A checkpoint that cannot be used here: corrupt, of another format, layout or map."""


def write_atomic(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (temporary file in the same folder, fsync, os.replace)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def save(path: str | Path, payload: dict[str, Any]) -> None:
    """Save a checkpoint mapping atomically (see the module docstring for its keys)."""
    import torch

    missing = [key for key in REQUIRED_KEYS if key not in payload]
    if missing:
        raise ValueError(f"checkpoint payload lacks {', '.join(missing)}")
    buffer = io.BytesIO()
    torch.save(payload, buffer)
    write_atomic(path, buffer.getvalue())


def pack(obj: Any) -> bytes:
    """Return pickled bytes of training state (stored under ``training``; unpickled only on resume)."""
    return pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)


def unpack(data: bytes, path: str | Path) -> Any:
    """Return the object pickled by :func:`pack`; CheckpointError naming ``path`` if it is damaged."""
    try:
        return pickle.loads(data)
    except Exception as exc:  # noqa: BLE001 - any unpickling failure means a damaged file
        raise CheckpointError(f"{path}: the training state in this checkpoint is damaged ({exc})") from None


def load(path: str | Path, options: GameOptions | None = None, *, map_only: bool = False) -> dict[str, Any]:
    """Return a checkpoint's mapping after checking its format and observation layout.

    With ``options``, also refuse a checkpoint made for another map size (or, unless ``map_only``, other
    rules options). Raises FileNotFoundError for a missing file and :class:`CheckpointError` with a clear
    message for anything else.
    """
    import torch

    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"no such checkpoint: {path}")
    try:
        payload = torch.load(p, map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001 - torch raises many types for damaged files
        raise CheckpointError(f"{path}: not a readable checkpoint (corrupt or truncated file?): {exc}") from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise CheckpointError(f"{path}: not a dw train checkpoint (format {_get(payload, 'format')!r})")
    missing = [key for key in REQUIRED_KEYS if key not in payload]
    if missing:
        raise CheckpointError(f"{path}: damaged checkpoint, missing {', '.join(missing)}")
    if payload["format_version"] != FORMAT_VERSION:
        raise CheckpointError(
            f"{path}: checkpoint format version {payload['format_version']} is not supported; "
            f"this version reads {FORMAT_VERSION}"
        )
    if payload["observation_version"] != OBSERVATION_VERSION:
        raise CheckpointError(
            f"{path}: made for observation layout {payload['observation_version']!r}, but this environment "
            f"produces {OBSERVATION_VERSION!r}; retrain, or use the version of dw_env the checkpoint was made with"
        )
    if options is not None:
        check_options(payload, options, path, map_only=map_only)
    return payload


def _get(payload: Any, key: str) -> Any:
    return payload.get(key) if isinstance(payload, dict) else type(payload).__name__


def check_options(payload: dict[str, Any], options: GameOptions, path: str | Path, *, map_only: bool) -> None:
    """Raise CheckpointError if the checkpoint was made for another map size (or other rules options)."""
    saved = GameOptions.from_dict(payload["options"])
    here = (options.land_radius, options.map_radius)
    there = (saved.land_radius, saved.map_radius)
    if here != there:
        raise CheckpointError(
            f"{path}: made for map size land_radius={there[0]}, map_radius={there[1]}, but this run uses "
            f"land_radius={here[0]}, map_radius={here[1]}"
        )
    if not map_only and saved != options:
        diff = {k: (v, getattr(options, k)) for k, v in saved.to_dict().items() if getattr(options, k) != v}
        text = ", ".join(f"{k}={a} (here {b})" for k, (a, b) in diff.items())
        raise CheckpointError(f"{path}: made for other game options: {text}")


def export_policy(payload: dict[str, Any]) -> dict[str, Any]:
    """Return the playable part of a checkpoint (no optimizer, RNG, league or games in progress)."""
    return {key: value for key, value in payload.items() if key != "training"}
