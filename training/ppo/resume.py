"""What ``dw train --resume`` saves beyond the weights, as plain data, and how it is put back where the run stopped.

A training checkpoint (policies/checkpoint.py) holds, under ``training``::

    optimizer   Adam's state dict (tensors and numbers)
    rng         python: [3, 625 words, gauss] (Python's ``random``), numpy: the run's Generator (PCG64 state),
                torch / cuda: torch's generator states (byte tensors)
    league      snapshots: [[id, weights], ...], retired: {id: weights}, results: JSON text (win credits,
                finishing orders and game counts per opponent), start: weights (only in a run whose
                league.weights.start is above 0: the weights it started from)
    table       the games in progress: env (every state array of the vector env as a tensor, its RNG
                state), obs, masks, player, seat, games (tensors), opponent (strings), scripted (JSON text:
                each scripted AI's per-game memory and RNG, :meth:`policies.base.Policy.state_dict`),
                pending (tensor), rollout (the learner's decisions carried over: tensors)

Nothing is pickled: ``torch.load(weights_only=True)`` reads it all without running code. Restoring checks
every entry against what this run built (shapes, dtypes, ranges, names; the games in progress and the env's
last outputs against the engines, :mod:`training.ppo.resume_games`) before changing anything, so a
damaged or hand-made file gives a :class:`CheckpointError` naming the entry and nothing changes; then it puts
everything back, which makes a resumed run continue exactly as the uninterrupted one would have.

The functions take the run's objects (see training/ppo/ppo.py's ``Table`` and ``Rollout``) through the few
attributes named in :class:`TableLike` and :class:`RolloutLike`; this module imports nothing from ppo.py.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from dw_env.errors import brief
from policies import checkpoint
from policies import state as st
from policies.checkpoint import CheckpointError
from training.ppo.config import ConfigError, TrainConfig, from_dict
from training.ppo.league import START, scripted_kinds
from training.ppo.resume_games import check_decisions, check_games, check_outputs, in_range

#: the vector env's per-thread scratch (written before it is read at every step): not part of a game's state
ENV_SCRATCH = ("_rbufs",)
#: the tuple-held arrays of Domain Wheel's vector env, none of them state: the initial position (a constant),
#: the kernels' and the encoder's workspaces (scratch) and the outputs (the same arrays as ``_obs``, ``_masks``,
#: ... saved by name). Files written before tuple-held arrays were saved (for the board games' envs, whose
#: ``_state`` is one) lack them and still resume; the arrays keep what the fresh env holds.
DW_TUPLES_NOT_STATE = ("_init", "_ws", "_xs", "_outputs")
#: the counters every checkpoint carries, and their ranges
COUNTERS: dict[str, tuple[int, int]] = {
    "env_steps": (0, 2**62),
    "updates": (0, 2**62),
    "games": (0, 2**62),
    "decisions": (0, 2**62),
}
_SNAPSHOT_ID = "past-"


class TableLike(Protocol):
    """The games in progress as training/ppo/ppo.py's ``Table`` holds them."""

    env: Any
    league: Any
    scripted: Any
    obs: NDArray[np.int8]
    masks: NDArray[np.int8]
    player: NDArray[np.int64]
    seat: NDArray[np.int64]
    opponent: list[str]
    games: NDArray[np.int64]
    opening: NDArray[np.int64]


class RolloutLike(Protocol):
    """The learner's decisions as training/ppo/ppo.py's ``Rollout`` holds them."""

    ARRAYS: tuple[str, ...]
    count: NDArray[np.int64]
    open: NDArray[np.bool_]


# ---- saving -----------------------------------------------------------------------------------------
def _tensor(array: NDArray[Any]) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(array).copy())


def env_state(env: Any) -> dict[str, Any]:
    """Return copies of the vector env's state arrays (as tensors) and its RNG state (JSON text)."""
    state: dict[str, Any] = {}
    for name, value in env_arrays(env).items():
        if isinstance(value, np.ndarray):
            state[name] = _tensor(value)
        else:
            state[name] = st.to_json(st.generator_state(value))
    return state


def env_arrays(env: Any) -> dict[str, Any]:
    """Return the vector env's state: its writable arrays and RNGs by name, those in a tuple as ``name.i``.

    The objects are the env's own (restoring writes into them in place).
    """
    found: dict[str, Any] = {}
    for name, value in vars(env).items():
        if name in ENV_SCRATCH:
            continue
        if (isinstance(value, np.ndarray) and value.flags.writeable) or isinstance(value, np.random.Generator):
            found[name] = value
        elif isinstance(value, tuple) and value and all(isinstance(v, np.ndarray) for v in value):
            for i, array in enumerate(value):
                if array.flags.writeable:
                    found[f"{name}.{i}"] = array
    return found


def training_state(
    table: TableLike,
    rollout: RolloutLike,
    optimizer: Any,
    rng: np.random.Generator,
    more: Sequence[tuple[str, TableLike, RolloutLike]] = (),
) -> dict[str, Any]:
    """Return what ``--resume`` needs beyond the weights, as plain data (see the module docstring).

    ``more``: a run of several tables' other tables (name, table, rollout), saved under ``tables``; the first
    table's league holds the snapshots they share.
    """
    league = table.league
    state = {
        "optimizer": optimizer.state_dict(),
        "rng": {
            "python": st.to_json(st.python_random_state()),
            "numpy": st.to_json(st.generator_state(rng)),
            "torch": torch.get_rng_state(),
            "cuda": list(torch.cuda.get_rng_state_all()) if torch.cuda.is_available() else [],
        },
        "league": {
            "snapshots": [[sid, dict(weights)] for sid, weights in league.snapshots],
            "retired": {sid: dict(weights) for sid, weights in league.retired.items()},
            "results": st.to_json(league.results.state_dict()),
            **({} if league.start is None else {START: dict(league.start)}),
        },
        "table": table_state(table, rollout),
    }
    if more:
        state["tables"] = [
            {"name": name, "results": st.to_json(other.league.results.state_dict()), "table": table_state(other, roll)}
            for name, other, roll in more
        ]
    return state


def table_state(table: TableLike, rollout: RolloutLike) -> dict[str, Any]:
    """Return one table's games in progress and its rollout's open decisions, as plain data (``table`` above)."""
    scripted = [
        {"slot": slot, "seat": seat, "kind": kind, "state": policy.state_dict()}
        for (slot, seat, kind), policy in sorted(table.scripted.policies.items(), key=lambda item: item[0])
    ]  # in key order: the same list whichever process holds the AIs (training/ppo/scripted_processes.py)
    return {
        "env": env_state(table.env),
        "obs": _tensor(table.obs),
        "masks": _tensor(table.masks),
        "player": _tensor(table.player),
        "seat": _tensor(table.seat),
        "opponent": list(table.opponent),
        "games": _tensor(table.games),
        "opening": _tensor(table.opening),
        "scripted": st.to_json(scripted),
        "pending": _tensor(table.scripted.pending),
        "rollout": {
            "open_decisions": {name: _tensor(getattr(rollout, name)[0]) for name in rollout.ARRAYS},
            "count": _tensor(rollout.count),
            "open": _tensor(rollout.open),
        },
    }


def save_checkpoint(path: Path, net: nn.Module, config: TrainConfig, counters: dict[str, Any], extra: Any) -> None:
    """Save the weights, the config and the counters, plus the training state ``extra`` unless it is None."""
    payload = {
        "format": checkpoint.FORMAT,
        "format_version": checkpoint.FORMAT_VERSION,
        "observation_version": net.observation_version,
        "options": config.options.to_dict(),
        **({"game": config.game_id} if config.game_id != "domain_wheel" else {}),
        "network": dict(getattr(net, "hparams")),  # noqa: B009 - HexPolicyNet's size keys
        "model": {k: v.detach().cpu() for k, v in net.state_dict().items()},
        "config": config.to_dict(),
        "counters": dict(counters),
    }
    if extra is not None:
        payload["training"] = extra
    checkpoint.save(path, payload)


# ---- reading: config and counters -------------------------------------------------------------------
def saved_config(payload: dict[str, Any], path: str | Path, overrides: list[str] | None = None) -> TrainConfig:
    """Return the training config saved in a checkpoint (with ``overrides``); CheckpointError if it has none."""
    from training.ppo.config import apply_overrides

    data = payload.get("config")
    if not isinstance(data, dict) or not data:
        raise CheckpointError(f"{path}: has no saved training config (got {brief(data)}); it cannot be resumed")
    network = data.get("network")
    if isinstance(network, dict) and "turn_trunk" not in network:  # saved before the option: every input in the trunk
        data = {**data, "network": {**network, "turn_trunk": False}}
    run = data.get("run")
    if isinstance(run, dict) and "conv_precision" not in run:  # saved before the option: float32 convolutions
        data = {**data, "run": {**run, "conv_precision": "float32"}}
    env = data.get("env")
    if isinstance(env, dict) and "truncation_reward" not in env:  # saved before the option: truncation paid 0
        data = {**data, "env": {**env, "truncation_reward": 0.0}}
    env = data.get("env")
    if isinstance(env, dict) and "fog_spread" not in env:  # saved before the option: the fog in the last rows
        data = {**data, "env": {**env, "fog_spread": False}}
    merged = apply_overrides(data, overrides or [])  # a bad override is the user's ConfigError, not the file's
    try:
        return from_dict(merged)
    except ConfigError as exc:
        raise CheckpointError(f"{path}: its saved training config is not valid: {exc}") from None


def saved_counters(payload: dict[str, Any], path: str | Path) -> dict[str, Any]:
    """Return the checkpoint's counters, checked: whole numbers >= 0 and seconds finite >= 0."""
    try:
        raw = st.check_keys(payload.get("counters"), [*COUNTERS, "seconds"], "counters")
        counters: dict[str, Any] = {k: st.read_int(raw[k], f"counters.{k}", *r) for k, r in COUNTERS.items()}
        seconds = raw["seconds"]
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 <= seconds < math.inf:
            raise st.StateError(f"counters.seconds: must be a finite number >= 0, got {brief(seconds)}")
    except st.StateError as exc:
        raise CheckpointError(f"{path}: damaged checkpoint: {exc}") from None
    counters["seconds"] = float(seconds)
    return counters


def check_resumable(payload: dict[str, Any], path: str | Path) -> dict[str, Any]:
    """Return the checkpoint's training state if it can be resumed; CheckpointError saying why otherwise."""
    if "training" not in payload:
        raise CheckpointError(f"{path}: a policy file without training state; it cannot be resumed")
    if payload["format_version"] != checkpoint.FORMAT_VERSION:
        raise CheckpointError(
            f"{path}: a format version {brief(payload['format_version'])} checkpoint, whose training state was "
            f"stored as pickled bytes; for safety those are never read, so it cannot be resumed (its weights "
            f"still play as a policy)"
        )
    state = payload["training"]
    try:
        st.check_keys(state, _state_keys(state), "training")
    except st.StateError as exc:
        raise CheckpointError(f"{path}: damaged training state: {exc}") from None
    return dict(state)


def _state_keys(state: Any) -> tuple[str, ...]:
    """Return the keys a training state holds: a run of several tables' has ``tables`` too."""
    keys = ("optimizer", "rng", "league", "table")
    return (*keys, "tables") if isinstance(state, dict) and "tables" in state else keys


# ---- restoring --------------------------------------------------------------------------------------
def _array(value: Any, like: NDArray[Any], where: str) -> NDArray[Any]:
    """Return tensor ``value`` as a numpy array with ``like``'s dtype and shape; StateError otherwise."""
    if not isinstance(value, torch.Tensor) or value.layout != torch.strided or value.is_quantized:
        raise st.StateError(f"{where}: must be a tensor, got {brief(value)}")
    try:
        array = value.detach().cpu().numpy()
    except (TypeError, RuntimeError) as exc:
        raise st.StateError(f"{where}: an unreadable tensor ({st.cut(str(exc))})") from None
    if array.dtype != like.dtype or array.shape != like.shape:
        raise st.StateError(
            f"{where}: must be {like.dtype} of shape {tuple(like.shape)} for this run, "
            f"got {array.dtype} of shape {tuple(array.shape)}"
        )
    return array.copy()


def _weights(value: Any, template: dict[str, torch.Tensor], where: str) -> dict[str, torch.Tensor]:
    """Return a snapshot's weights if they have exactly the network's names and shapes; StateError otherwise."""
    got = st.check_keys(value, template, where)
    out = {}
    for name, like in template.items():
        t = got[name]
        if not isinstance(t, torch.Tensor) or t.shape != like.shape or t.dtype != like.dtype:
            raise st.StateError(
                f"{where}.{name}: must be a {like.dtype} tensor of shape {tuple(like.shape)}, got {brief(t)}"
            )
        out[name] = t.detach().to("cpu", copy=True)
    return out


def _snapshot_id(value: Any, where: str) -> str:
    sid = st.read_str(value, where, max_len=40)
    if not sid.startswith(_SNAPSHOT_ID) or not sid[len(_SNAPSHOT_ID) :].isdigit():
        raise st.StateError(f"{where}: must be a snapshot id like past-000010, got {brief(sid)}")
    return sid


def _read_optimizer(value: Any, optimizer: Any) -> dict[str, Any]:
    """Return Adam's saved state if it fits this run's parameters; StateError otherwise."""
    mine = optimizer.state_dict()
    saved = st.check_keys(value, ("state", "param_groups"), "optimizer")
    groups = st.read_list(saved["param_groups"], "optimizer.param_groups", len(mine["param_groups"]))
    if len(groups) != len(mine["param_groups"]):
        raise st.StateError(
            f"optimizer.param_groups: must hold {len(mine['param_groups'])} group(s), got {len(groups)}"
        )
    for i, (group, ours) in enumerate(zip(groups, mine["param_groups"], strict=True)):
        where = f"optimizer.param_groups[{i}]"
        st.check_keys(group, ours, where)
        for key, like in ours.items():
            value = group[key]
            same = type(value) is type(like)
            if same and key == "params":
                same = len(value) == len(like) and all(
                    type(x) is int and x == y for x, y in zip(value, like, strict=True)
                )
            elif same and isinstance(like, (list, tuple)):
                same = len(value) == len(like) and all(type(x) is type(y) for x, y in zip(value, like, strict=True))
            if same and isinstance(value, float):
                same = math.isfinite(value)
            if not same:
                raise st.StateError(f"{where}.{key}: must be like {brief(like)}, got {brief(value)}")
    params = [p for g in optimizer.param_groups for p in g["params"]]
    if not isinstance(saved["state"], dict):
        raise st.StateError(f"optimizer.state: must be a mapping, got {brief(saved['state'])}")
    for index, entry in saved["state"].items():
        where = f"optimizer.state[{brief(index)}]"
        i = st.read_int(index, where, 0, len(params) - 1)
        entry = st.check_keys(entry, ("step", "exp_avg", "exp_avg_sq"), where)
        for key in ("exp_avg", "exp_avg_sq"):
            t = entry[key]
            shape = params[i].shape
            if not isinstance(t, torch.Tensor) or t.shape != shape or not t.dtype.is_floating_point:
                raise st.StateError(f"{where}.{key}: must be a float tensor of shape {tuple(shape)}, got {brief(t)}")
            if not bool(torch.isfinite(t).all()):
                raise st.StateError(f"{where}.{key}: holds NaN or infinite values")
        step = entry["step"]
        if not isinstance(step, torch.Tensor) or step.numel() != 1 or not 0 <= float(step) < 2**53:
            raise st.StateError(f"{where}.step: must be a tensor holding one whole number >= 0, got {brief(step)}")
    return dict(saved)


def _read_rngs(value: Any) -> dict[str, Any]:
    rngs = st.check_keys(value, ("python", "numpy", "torch", "cuda"), "rng")
    like = torch.get_rng_state()
    t = rngs["torch"]
    if not isinstance(t, torch.Tensor) or t.dtype != torch.uint8 or t.shape != like.shape:
        raise st.StateError(f"rng.torch: must be a uint8 tensor of shape {tuple(like.shape)}, got {brief(t)}")
    cuda = st.read_list(rngs["cuda"], "rng.cuda", 1024)
    if not all(isinstance(c, torch.Tensor) and c.dtype == torch.uint8 for c in cuda):
        raise st.StateError(f"rng.cuda: must be a list of uint8 tensors, got {brief(cuda)}")
    return {
        "python": st.read_python_random_state(st.from_json(rngs["python"], "rng.python"), "rng.python"),
        "numpy": st.generator_from_state(st.from_json(rngs["numpy"], "rng.numpy"), "rng.numpy"),
        "torch": t.clone(),
        "cuda": [c.clone() for c in cuda],
    }


def _read_league(
    value: Any, league: Any, template: dict[str, torch.Tensor], slots: int, plays_start: bool
) -> dict[str, Any]:
    """Return the league's snapshots, retired snapshots (at most one per game ``slots``), results and start
    weights (present exactly when a table of the run plays them: ``plays_start``)."""
    keys = ("snapshots", "retired", "results", *((START,) if isinstance(value, dict) and START in value else ()))
    saved = st.check_keys(value, keys, "league")
    snapshots = []
    for i, item in enumerate(st.read_list(saved["snapshots"], "league.snapshots", league.config.keep)):
        pair = st.read_list(item, f"league.snapshots[{i}]", 2)
        if len(pair) != 2:
            raise st.StateError(f"league.snapshots[{i}]: must be [id, weights], got {brief(pair)}")
        sid = _snapshot_id(pair[0], f"league.snapshots[{i}][0]")
        snapshots.append((sid, _weights(pair[1], template, f"league.snapshots[{i}][1]")))
    retired_in = saved["retired"]
    if not isinstance(retired_in, dict) or len(retired_in) > slots:
        raise st.StateError(f"league.retired: must be a mapping of at most {slots} snapshots")
    retired = {
        _snapshot_id(sid, "league.retired"): _weights(w, template, f"league.retired[{brief(sid)}]")
        for sid, w in retired_in.items()
    }
    results = league.results.from_state(st.from_json(saved["results"], "league.results"), "league.results")
    start = None if START not in saved else _weights(saved[START], template, "league.start")
    if (start is not None) != plays_start:
        plays = "plays" if start is None else "does not play"
        raise st.StateError(
            f"league.start: the run {plays} its start weights (league.weights.start) but the checkpoint "
            f"{'has none' if start is None else 'holds them'}; allowed: the start weight the run was made with"
        )
    return {"snapshots": snapshots, "retired": retired, "results": results, "start": start}


def _read_scripted(value: Any, table: TableLike, first_scripted: int) -> dict[tuple[int, int, str], Any]:
    n = len(table.opponent)
    geometry = getattr(table.env, "geometry", None)
    num_lands = geometry.num_lands if geometry is not None else 2**15
    kinds = tuple(scripted_kinds(table.league.config.weights))
    players = table.scripted.players
    entries = st.read_list(st.from_json(value, "table.scripted"), "table.scripted", players * n * len(kinds))
    policies: dict[tuple[int, int, str], Any] = {}
    for i, entry in enumerate(entries):
        where = f"table.scripted[{i}]"
        item = st.check_keys(entry, ("slot", "seat", "kind", "state"), where)
        slot = st.read_int(item["slot"], f"{where}.slot", first_scripted, n - 1)
        seat = st.read_int(item["seat"], f"{where}.seat", 0, players - 1)
        kind = st.read_str(item["kind"], f"{where}.kind", kinds)
        policy = table.scripted.make(kind)
        policy.load_state_dict(item["state"], num_lands=num_lands)
        policies[(slot, seat, kind)] = policy
    return policies


def _read_table(value: Any, table: TableLike, rollout: RolloutLike, known: set[str]) -> dict[str, Any]:
    saved = st.check_keys(
        value,
        ("env", "obs", "masks", "player", "seat", "opponent", "games", "scripted", "pending", "rollout")
        + (("opening",) if isinstance(value, dict) and "opening" in value else ()),  # older files: no openings
        "table",
    )
    env = table.env
    ours = env_arrays(env)
    given = saved["env"]
    tuples = [k for k in ours if "." in k]
    if (
        isinstance(given, dict)
        and not any(isinstance(k, str) and "." in k for k in given)
        and all(k.split(".")[0] in DW_TUPLES_NOT_STATE for k in tuples)
    ):  # a file from before tuple-held arrays were saved: Domain Wheel's hold no state
        ours = {k: v for k, v in ours.items() if k not in tuples}
    env_in = st.check_keys(given, ours, "table.env")
    env_out: dict[str, Any] = {}
    for name in ours:
        target = ours[name]
        if isinstance(target, np.random.Generator):
            env_out[name] = st.generator_from_state(
                st.from_json(env_in[name], f"table.env.{name}"), f"table.env.{name}"
            )
        else:
            env_out[name] = _array(env_in[name], target, f"table.env.{name}")
    check_games(env, env_out)
    n = len(table.opponent)
    out: dict[str, Any] = {"env": env_out}
    for name in ("obs", "masks", "player", "seat", "games"):
        out[name] = _array(saved[name], getattr(table, name), f"table.{name}")
    players = table.scripted.players
    kinds = tuple(scripted_kinds(table.league.config.weights))
    in_range(out["player"], "table.player", 0, players - 1)
    in_range(out["seat"], "table.seat", 0, players - 1)
    in_range(out["games"], "table.games", 0, 2**62)
    if "opening" in saved:
        out["opening"] = in_range(_array(saved["opening"], table.opening, "table.opening"), "table.opening", 0, 30)
    else:
        out["opening"] = np.zeros_like(table.opening)
    first_scripted = table.league.num_envs - table.league.num_scripted
    opponents = st.read_list(saved["opponent"], "table.opponent", n)
    if len(opponents) != n:
        raise st.StateError(f"table.opponent: must name {n} opponents (one per game slot), got {len(opponents)}")
    for slot, opp in enumerate(opponents):
        allowed = kinds if slot >= first_scripted else ("latest", *sorted(known))
        st.read_str(opp, f"table.opponent[{slot}]", allowed, max_len=40)
    out["opponent"] = list(opponents)
    policies = _read_scripted(saved["scripted"], table, first_scripted)
    for slot in range(first_scripted, n):
        for seat in range(players):
            if (slot, seat, opponents[slot]) not in policies:
                raise st.StateError(f"table.scripted: no saved {opponents[slot]} AI for seat {seat} of slot {slot}")
    out["scripted"] = policies
    pending = _array(saved["pending"], table.scripted.pending, "table.pending")
    out["pending"] = in_range(pending, "table.pending", -1, table.masks.shape[1] - 1)
    roll = st.check_keys(saved["rollout"], ("open_decisions", "count", "open"), "table.rollout")
    decisions = st.check_keys(roll["open_decisions"], rollout.ARRAYS, "table.rollout.open_decisions")
    out["open_decisions"] = {
        name: _array(decisions[name], getattr(rollout, name)[0], f"table.rollout.open_decisions.{name}")
        for name in rollout.ARRAYS
    }
    out["count"] = in_range(_array(roll["count"], rollout.count, "table.rollout.count"), "table.rollout.count", 0, 1)
    out["open"] = _array(roll["open"], rollout.open, "table.rollout.open")
    if np.any(out["open"] & (out["count"] != 1)):
        raise st.StateError("table.rollout: a slot with an open decision must hold exactly one (count 1)")
    check_outputs(env, env_out, out, players)
    check_decisions(out["open_decisions"], out["open"])
    return out


def restore_training(
    state: dict[str, Any],
    table: TableLike,
    rollout: RolloutLike,
    optimizer: Any,
    rng: np.random.Generator,
    net: nn.Module,
    path: str | Path,
    more: Sequence[tuple[str, TableLike, RolloutLike]] = (),
) -> None:
    """Check the whole training state against this run, then restore optimizer, RNGs, league and games.

    ``more``: a run of several tables' other tables (name, table, rollout), as :func:`training_state` saved
    them; they share the first table's snapshots. Raises CheckpointError naming the entry that does not fit;
    nothing is changed then.
    """
    template = {k: v.detach().cpu() for k, v in net.state_dict().items()}
    try:
        st.check_keys(state, _state_keys(state), "training")
        optim = _read_optimizer(state["optimizer"], optimizer)
        rngs = _read_rngs(state["rng"])
        slots = len(table.opponent) + sum(len(other.opponent) for _, other, _ in more)
        plays_start = any(t.league.config.plays_start() for t in (table, *(o for _, o, _ in more)))
        league = _read_league(state["league"], table.league, template, slots, plays_start)
        known = {sid for sid, _ in league["snapshots"]} | set(league["retired"])
        known |= {START} if league["start"] is not None else set()
        tables = _read_table(state["table"], table, rollout, known)
        others = _read_more_tables(state.get("tables"), more, known)
    except st.StateError as exc:
        raise CheckpointError(f"{path}: damaged training state: {exc}") from None
    try:
        optimizer.load_state_dict(optim)
    except (ValueError, KeyError, TypeError, RuntimeError) as exc:
        raise CheckpointError(f"{path}: damaged training state: optimizer: {st.cut(str(exc))}") from None
    # everything fits: put it back
    random.setstate(rngs["python"])
    rng.bit_generator.state = rngs["numpy"].bit_generator.state
    torch.set_rng_state(rngs["torch"])
    if rngs["cuda"] and torch.cuda.is_available() and len(rngs["cuda"]) == torch.cuda.device_count():
        torch.cuda.set_rng_state_all(rngs["cuda"])
    table.league.snapshots, table.league.retired = league["snapshots"], league["retired"]
    table.league.start = league["start"]
    table.league.results = league["results"]
    _put_table(tables, table, rollout)
    for (_, other, roll), (results, saved) in zip(more, others, strict=True):
        other.league.snapshots, other.league.retired = league["snapshots"], league["retired"]  # shared
        other.league.start = league["start"]
        other.league.results = results
        _put_table(saved, other, roll)


def _read_more_tables(
    value: Any, more: Sequence[tuple[str, TableLike, RolloutLike]], known: set[str]
) -> list[tuple[Any, dict[str, Any]]]:
    """Return (results, table) of each of the other tables of a run of several; StateError if they do not fit."""
    names = [name for name, _, _ in more]
    if value is None and not more:
        return []
    if value is None or not more:  # a run of several tables resumed as one, or the other way round
        saved = 0 if value is None else len(value) if isinstance(value, list) else brief(value, 60)
        raise st.StateError(
            f"tables: the checkpoint holds {saved} tables besides the first, this run {len(more)} "
            f"({', '.join(names) or 'none'}); resume with the run's own tables"
        )
    entries = st.read_list(value, "tables", len(more))
    if len(entries) != len(more):
        raise st.StateError(
            f"tables: must hold the run's {len(more)} other tables ({', '.join(names)}), got {len(entries)}"
        )
    out = []
    for i, (entry, (name, other, roll)) in enumerate(zip(entries, more, strict=True)):
        item = st.check_keys(entry, ("name", "results", "table"), f"tables[{i}]")
        st.read_str(item["name"], f"tables[{i}].name", [name], max_len=60)
        results = other.league.results.from_state(
            st.from_json(item["results"], f"tables[{i}].results"), f"tables[{i}].results"
        )
        try:
            out.append((results, _read_table(item["table"], other, roll, known)))
        except st.StateError as exc:
            raise st.StateError(f"tables[{i}] ({name}): {exc}") from None
    return out


def _put_table(tables: dict[str, Any], table: TableLike, rollout: RolloutLike) -> None:
    """Restore one table's games and its rollout's open decisions (checked by :func:`_read_table`)."""
    live = env_arrays(table.env)
    for name, value in tables["env"].items():
        target = live[name]
        if isinstance(target, np.random.Generator):
            target.bit_generator.state = value.bit_generator.state
        else:
            np.copyto(target, value)
    table.obs, table.masks, table.player = tables["obs"], tables["masks"], tables["player"]
    table.seat, table.opponent, table.games = tables["seat"], tables["opponent"], tables["games"]
    table.opening = tables["opening"]
    table.scripted.policies = tables["scripted"]
    table.scripted.pending[:] = tables["pending"]
    for name, value in tables["open_decisions"].items():
        getattr(rollout, name)[0] = value
    rollout.count[:], rollout.open[:] = tables["count"], tables["open"]
