"""Checkpoint files: written atomically, checked against the observation layout and the map on load.

A checkpoint is one ``torch.save`` file (suffix ``.pt``) holding a plain mapping::

    format, format_version      "dw-ppo-checkpoint", 2 (version 1 files still load as policies)
    observation_version         the layout the weights read (dw_env.envs.observation.OBSERVATION_VERSION)
    game                        (other games than Domain Wheel only) the game's id (policies.games)
    options                     the game options trained on (map size and rules variants)
    network                     the network's size: channels, blocks, head_hidden
    model                       the network's weights (state dict)
    config                      the full training config (training/ppo/config.py)
    counters                    env steps, updates, games, elapsed seconds at the time of writing
    training                    (training checkpoints only) optimizer, RNG streams, league and the games in
                                progress as tensors, numbers, strings, lists and mappings (JSON text for the
                                scripted AIs' memory and RNG states): present so that ``--resume`` continues
                                exactly (training/ppo/resume.py)

Policy files for the arena are checkpoints without ``training`` (:func:`export_policy`), a few hundred KB.
Loading uses ``torch.load(weights_only=True)`` and nothing in the file is ever unpickled otherwise: a file
holds data, never code, so loading a checkpoint from an untrusted source runs nothing. (Version 1 training
checkpoints kept their training state as pickled bytes; those bytes are never read: such a file still plays
as a policy but cannot be resumed.) Everything read is checked: a file that does not fit raises
:class:`CheckpointError` naming the file, the entry, the value received (bounded) and what is allowed.

Writes go to a temporary file in the same folder, are flushed to disk, then renamed over the target with
``os.replace``: a crash mid-write leaves the previous checkpoint intact, never a torn one.
"""

from __future__ import annotations

import io
import os
import re
import tempfile
from pathlib import Path
from typing import Any

from dw_env.envs.observation import OBSERVATION_VERSION
from dw_env.errors import brief
from dw_env.options import GameOptions
from policies.state import cut

FORMAT = "dw-ppo-checkpoint"
#: the version written; 2: the training state is plain data (1 held it as pickled bytes, never read now)
FORMAT_VERSION = 2
#: versions whose weights load (a policy); only FORMAT_VERSION files can be resumed
READABLE_VERSIONS = (1, 2)
REQUIRED_KEYS = ("format", "format_version", "observation_version", "options", "network", "model")
#: the network's size keys (policies/domain_wheel/network.py HexPolicyNet) and the values a file may give them
NETWORK_LIMITS: dict[str, tuple[int, int]] = {
    "channels": (4, 1024),
    "cell_layers": (0, 64),
    "land_layers": (0, 64),
    "head_hidden": (8, 4096),
    "turn_trunk": (0, 1),
}
#: the size keys files written before them lack, and the value that reads them as they were made
NETWORK_DEFAULTS: dict[str, int] = {"turn_trunk": 0}
#: temporary files :func:`write_atomic` leaves behind when the process is killed mid-write
_TEMPORARY = re.compile(r"^\.(?P<name>.+)\.[A-Za-z0-9_]{6,}\.tmp$")


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


def stale_temporaries(folder: str | Path, names: tuple[str, ...]) -> list[Path]:
    """Return the temporary files :func:`write_atomic` left in ``folder`` for targets ``names`` (killed writes)."""
    found = []
    base = Path(folder)
    if not base.is_dir():
        return []
    for p in base.iterdir():
        m = _TEMPORARY.match(p.name)
        if m and m.group("name") in names and p.is_file() and not p.is_symlink():
            found.append(p)
    return sorted(found)


_CODE_GLOBAL = re.compile(r"unsupported GLOBAL ([\w.]+)")
_UNPICKLER_SAID = re.compile(r"WeightsUnpickler error:\s*(.+?)\s*(?:\n\n|$)", re.S)


def _unreadable_reason(exc: BaseException) -> str:
    """Say in a few words why ``torch.load(..., weights_only=True)`` refused a file, without torch's advice to load
    it unsafely (a file is never loaded with ``weights_only=False`` here)."""
    text = str(exc)
    if "Weights only load failed" in text:
        named = _CODE_GLOBAL.search(text)
        if named:
            return f"it names {named.group(1)}, and a file holding code, which is never run, is refused unread"
        said = _UNPICKLER_SAID.search(text)
        detail = f" ({cut(said.group(1).strip())})" if said else ""
        return f"not a PyTorch file, or one holding more than tensors and plain data, which is never read{detail}"
    if isinstance(exc, EOFError):
        return "an empty or truncated file"
    if isinstance(exc, KeyError):
        return "not a PyTorch file (no PyTorch header)"
    if isinstance(exc, RuntimeError | OSError):
        return f"a truncated or damaged PyTorch archive ({cut(text.split('. ')[0] or type(exc).__name__)})"
    return f"corrupt or truncated file ({cut(text or type(exc).__name__)})"


def game_of(payload: dict[str, Any], path: str | Path) -> str:
    """Return the id of the game a checkpoint was made for (files without one: Domain Wheel)."""
    from policies import games

    game = payload.get("game", games.DEFAULT_GAME)
    if not isinstance(game, str) or game not in games.GAMES:
        raise CheckpointError(f"{path}: made for an unknown game {brief(game)}; known: {', '.join(games.GAMES)}")
    return game


def load(
    path: str | Path, options: Any = None, *, map_only: bool = False, game_id: str | None = None
) -> dict[str, Any]:
    """Return a checkpoint's mapping after checking its format and observation layout.

    With ``options``, also refuse a checkpoint made for another map size (or, unless ``map_only``, other
    rules options). With ``game_id``, refuse a checkpoint of another game (None: any game). Raises
    FileNotFoundError for a missing file and :class:`CheckpointError` with a clear message for anything else.
    """
    import torch

    from policies import games

    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"no such checkpoint: {path}")
    try:
        payload = torch.load(p, map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001 - torch raises many types for damaged or code-carrying files
        raise CheckpointError(
            f"{path}: not a readable checkpoint: {_unreadable_reason(exc)}; allowed: a .pt file written by "
            "dw train or dw blend"
        ) from None
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise CheckpointError(f"{path}: not a dw train checkpoint (format {brief(_get(payload, 'format'))})")
    missing = [key for key in REQUIRED_KEYS if key not in payload]
    if missing:
        raise CheckpointError(f"{path}: damaged checkpoint, missing {', '.join(missing)}")
    version = payload["format_version"]
    if type(version) is not int or version not in READABLE_VERSIONS:
        raise CheckpointError(
            f"{path}: checkpoint format version {brief(version)} is not supported; "
            f"this version reads {', '.join(map(str, READABLE_VERSIONS))}"
        )
    game = game_of(payload, path)
    if game_id is not None and game != game_id:
        raise CheckpointError(f"{path}: a checkpoint of {game}, not of {game_id}; play it with --game {game}")
    expected = OBSERVATION_VERSION if game == games.DEFAULT_GAME else games.get(game).observation_version()  # type: ignore[attr-defined]
    if not isinstance(payload["observation_version"], str) or payload["observation_version"] != expected:
        raise CheckpointError(
            f"{path}: made for observation layout {brief(payload['observation_version'])}, but this environment "
            f"produces {expected!r}; retrain, or use the version of the engine the checkpoint was made with"
        )
    saved = saved_options(payload, path)
    if options is not None:
        check_options(payload, options, path, map_only=map_only, saved=saved)
    return payload


def _get(payload: Any, key: str) -> Any:
    return payload.get(key) if isinstance(payload, dict) else type(payload).__name__


def saved_options(payload: dict[str, Any], path: str | Path) -> Any:
    """Return the game options a checkpoint was made for; CheckpointError if they are not valid options."""
    from policies import games

    options = payload["options"]
    game = game_of(payload, path)
    if not isinstance(options, dict) or any(
        isinstance(v, int) and not isinstance(v, bool) and abs(v) > 2**31 for v in options.values()
    ):
        raise CheckpointError(
            f"{path}: damaged checkpoint, options must be a mapping of game options, got {brief(options)}"
        )
    try:
        if game != games.DEFAULT_GAME:
            return games.get(game).options_from_dict(options)
        return GameOptions.from_dict(options)
    except (TypeError, ValueError) as exc:
        raise CheckpointError(f"{path}: damaged checkpoint, its game options are not valid: {cut(str(exc))}") from None


def network_size(payload: dict[str, Any], path: str | Path) -> dict[str, int]:
    """Return the checkpoint's network size keys, checked against :data:`NETWORK_LIMITS`; CheckpointError if not."""
    network = payload["network"]
    allowed = ", ".join(f"{k} ({a}..{b})" for k, (a, b) in NETWORK_LIMITS.items())
    if not isinstance(network, dict):
        raise CheckpointError(
            f"{path}: damaged checkpoint, network must be a mapping of {allowed}; got {brief(network)}"
        )
    for key in network:
        if key not in NETWORK_LIMITS:
            raise CheckpointError(f"{path}: unknown network key {brief(key)}; allowed: {allowed}")
    size: dict[str, int] = {}
    for key, (low, high) in NETWORK_LIMITS.items():
        if key not in network and key in NETWORK_DEFAULTS:
            size[key] = NETWORK_DEFAULTS[key]
            continue
        if key not in network:
            raise CheckpointError(f"{path}: damaged checkpoint, network lacks {key}; it needs {allowed}")
        value = network[key]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise CheckpointError(f"{path}: network.{key} must be an integer in {low}..{high}, got {brief(value)}")
        size[key] = value
    return size


def check_fit(expected: dict[str, Any], payload: dict[str, Any], path: str | Path) -> None:
    """Raise CheckpointError unless ``payload["model"]`` has exactly the tensors of ``expected`` (a state dict).

    Only names, shapes and dtypes are compared, so ``expected`` may come from a network on torch's ``meta``
    device, which allocates nothing (:func:`build_network`).
    """
    import torch

    model = payload["model"]
    if not isinstance(model, dict) or not model:
        raise CheckpointError(
            f"{path}: damaged checkpoint, model must be a non-empty mapping of weights, got {brief(model)}"
        )
    missing = [k for k in expected if k not in model]
    extra = [brief(k) for k in model if k not in expected]
    wrong = [
        f"{k} {tuple(v.shape) if isinstance(v, torch.Tensor) else brief(v)} (needs {tuple(expected[k].shape)})"
        for k, v in model.items()
        if k in expected
        and (not isinstance(v, torch.Tensor) or v.shape != expected[k].shape or not v.dtype.is_floating_point)
    ]
    if missing or extra or wrong:
        parts = [f"missing {_few(missing)}"] if missing else []
        parts += [f"unexpected {_few(extra)}"] if extra else []
        parts += [f"wrong shape or type: {_few(wrong)}"] if wrong else []
        raise CheckpointError(
            f"{path}: the weights do not fit the network the file names ({brief(payload.get('network'))}): "
            + "; ".join(parts)
        )


def load_weights(net: Any, payload: dict[str, Any], path: str | Path) -> None:
    """Load ``payload["model"]`` into ``net``; CheckpointError naming what does not fit (``net`` unchanged then)."""
    import torch

    check_fit(net.state_dict(), payload, path)
    model = payload["model"]
    bad = [k for k, v in model.items() if not bool(torch.isfinite(v).all())]
    if bad:
        raise CheckpointError(f"{path}: the weights hold NaN or infinite values: {_few(bad)}")
    net.load_state_dict(model)


def build_network(payload: dict[str, Any], path: str | Path, options: Any = None) -> Any:
    """Return the network a checkpoint names (its game's kind, size and map) with its weights loaded.

    ``options``: the game options of the map to build it on instead of its own (a network whose weights fit
    any map, such as a warm start's teacher on another table); None: the checkpoint's.

    CheckpointError if the size or the weights do not fit. The claimed network is first made on torch's
    ``meta`` device (shapes, no memory) and compared with the saved tensors: a small file that claims a huge
    network is refused before anything of that size is allocated. Torch's RNG stream is left where it was.
    """
    import torch

    with torch.random.fork_rng(devices=[]), _weights_on_meta():  # fork: building nets must not move torch's RNG
        check_fit(_make_network(payload, path, options).state_dict(), payload, path)
    with torch.random.fork_rng(devices=[]):
        net = _make_network(payload, path, options)
    load_weights(net, payload, path)
    return net


def _make_network(payload: dict[str, Any], path: str | Path, options: Any = None) -> Any:
    """Return the untrained network a checkpoint names (its game's kind and size; its map, or ``options``')."""
    from policies import games

    options = saved_options(payload, path) if options is None else options
    size = network_size(payload, path)
    game = game_of(payload, path)
    if game == games.DEFAULT_GAME:
        from dw_env.geometry import build_geometry
        from policies.domain_wheel.network import HexPolicyNet

        return HexPolicyNet(build_geometry(options.land_radius, options.map_radius), **size)
    if size.pop("turn_trunk"):
        raise CheckpointError(f"{path}: network.turn_trunk must be 0 for {game} (one decision a turn), got 1")
    return games.get(game).make_network(options, size)  # type: ignore[attr-defined]


def _weights_on_meta() -> Any:
    """Return a context (this thread only) in which sized factories make ``meta`` tensors: shapes, no memory.

    Layers make their weights with ``torch.empty`` (or ``zeros``, ``ones``, ...) and fill them in place, which
    a meta tensor skips; the networks' tables made from data (``torch.tensor``) stay real, so constructors
    that read them still work.
    """
    import torch
    from torch.overrides import TorchFunctionMode

    sized = {torch.empty, torch.zeros, torch.ones, torch.full, torch.rand, torch.randn}

    class WeightsOnMeta(TorchFunctionMode):
        def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            kwargs = dict(kwargs or {})
            if func in sized:
                kwargs["device"] = "meta"
            return func(*args, **kwargs)

    return WeightsOnMeta()


def check_playable(payload: dict[str, Any], path: str | Path) -> None:
    """Raise CheckpointError unless the network the file names can be built and its weights fit it."""
    build_network(payload, path)


def _few(names: list[str], shown: int = 4) -> str:
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


def check_options(
    payload: dict[str, Any],
    options: GameOptions,
    path: str | Path,
    *,
    map_only: bool,
    saved: GameOptions | None = None,
) -> None:
    """Raise CheckpointError if the checkpoint was made for another map size (or other rules options).

    Other games than Domain Wheel compare their whole options unless ``map_only`` (their networks run on
    any grid size).
    """
    saved = saved or saved_options(payload, path)
    if not isinstance(saved, GameOptions):
        if not map_only and saved != options:
            here, there = options.to_dict(), saved.to_dict()
            text = ", ".join(f"{k}={v} (here {here.get(k)})" for k, v in there.items() if here.get(k) != v)
            raise CheckpointError(f"{path}: made for other game options: {text}")
        return
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
