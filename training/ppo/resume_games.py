"""The games in progress of a resumed run, checked against their engines before anything is restored.

A checkpoint's table holds each vector env's state arrays and its last outputs (observations, masks,
players to act, rewards, winners, step counters), plus the learner's open decisions. The compiled kernels
trust the state and the learner samples from the masks, so :mod:`training.ppo.resume` runs these checks on
every restored array: a game slot must be a position its engine accepts and still in progress, every float
finite, every counter in range, and the outputs exactly what the env's encoder gives for the restored
games. Each refusal is a :class:`policies.state.StateError` naming the array, the slot and the value.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from dw_env.engine import Game
from dw_env.envs.observation import CTRL_PHASE, CTRL_SELECTED
from policies import state as st

#: what a vector env's last outputs may hold, by name (a game's env maps its own names onto these: OUTPUT_NAMES);
#: ``_acting`` (a seat) and ``_actions`` (an action) are bounded by the run's own figures
OUTPUT_BOUNDS: dict[str, tuple[int, int]] = {
    "_winners": (0, 1),
    "_steps": (0, 2**31 - 1),
    "_episode_steps": (0, 2**31 - 1),
    "_final_round": (0, 2**31 - 1),
    "_final_scores": (0, 2**31 - 1),
}


def in_range(array: NDArray[Any], where: str, low: int, high: int) -> NDArray[Any]:
    """Return ``array`` if every value is in ``low..high``; StateError naming the range found otherwise."""
    if array.size and (array.min() < low or array.max() > high):
        raise st.StateError(f"{where}: values must be in {low}..{high}, got {array.min()}..{array.max()}")
    return array


def check_games(env: Any, saved: dict[str, Any]) -> None:
    """Raise StateError unless every saved game slot is a position the engine accepts (the compiled kernels
    index tables by its values) and its control row names a phase 0/1 and a cell of the map or -1."""
    check = getattr(env, "check_state", None)
    if check is not None:  # another game's env checks its own arrays (ValueError naming the slot)
        try:
            check(saved)
        except ValueError as exc:
            raise st.StateError(f"table.env: {exc}") from None
        return
    boards, lands, scalars = (saved.get(name) for name in ("_boards", "_lands", "_scalars"))
    if getattr(env, "geometry", None) is None or boards is None or lands is None or scalars is None:
        return  # an env without game arrays of its own: nothing to check here
    for i in range(len(boards)):
        try:
            Game(env.options, boards[i].copy(), lands[i].copy(), scalars[i].copy())
        except ValueError as exc:
            raise st.StateError(f"table.env: game slot {i} is not a valid position: {exc}") from None
    ctrls = saved.get("_ctrls")
    if ctrls is not None:
        in_range(ctrls[:, CTRL_PHASE], "table.env._ctrls (phase)", 0, 1)
        in_range(ctrls[:, CTRL_SELECTED], "table.env._ctrls (selected cell)", -1, env.geometry.num_cells - 1)


def _finite(array: NDArray[Any], where: str) -> None:
    """Raise StateError naming the first NaN or infinite value of a float array."""
    if array.dtype.kind == "f" and not np.isfinite(array).all():
        index = tuple(int(i) for i in np.argwhere(~np.isfinite(array))[0])
        raise st.StateError(f"{where}: holds {array[index]} at {list(index)}; allowed: finite numbers")


def _same(saved: NDArray[Any], expected: NDArray[Any], where: str, what: str) -> None:
    """Raise StateError naming the first slot where ``saved`` differs from what the restored games show."""
    differs = (saved.reshape(len(saved), -1) != expected.reshape(len(expected), -1)).any(axis=1)
    if differs.any():
        i = int(np.flatnonzero(differs)[0])
        if saved.ndim == 1:
            got = f"holds {saved[i]}; its game's {what} is {expected[i]}"
        elif what == "legal actions":
            got = f"allows {int(saved[i].sum())} actions; its game's legal actions are {int(expected[i].sum())}"
        else:
            got = f"is not its game's {what}"
        raise st.StateError(f"{where}: slot {i} {got} (the restored games are the truth)")


def _dw_observe(env: Any, saved: dict[str, Any]) -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]] | None:
    """Return (obs, masks, acting) Domain Wheel's env shows for restored games; StateError if a game is over."""
    from dw_env.engine import new_workspace
    from dw_env.envs.observation import encode_observation, new_encoder_workspace
    from dw_env.rules import layout as lay

    names = ("_boards", "_lands", "_scalars", "_ctrls", "_obs", "_masks", "_acting")
    if getattr(env, "geometry", None) is None or not all(name in saved for name in names):
        return None
    boards, lands, scalars, ctrls = (saved[name] for name in names[:4])
    cells = env.geometry.num_cells
    selected = ctrls[:, CTRL_SELECTED]
    bad = np.flatnonzero((ctrls[:, CTRL_PHASE] == 1) & ((selected < 0) | (selected >= cells)))
    if len(bad):
        raise st.StateError(
            f"table.env._ctrls: slot {int(bad[0])} is in phase 2 without a selected cell 0..{cells - 1}"
        )
    over = np.flatnonzero(scalars[:, lay.OVER])
    if len(over):
        raise st.StateError(
            f"table.env._scalars: slot {int(over[0])} holds a finished game; a slot's game is in progress"
        )
    obs, masks = np.zeros_like(saved["_obs"]), np.zeros_like(saved["_masks"])
    acting = scalars[:, lay.TURN].astype(saved["_acting"].dtype)
    work, scratch = new_workspace(env.geometry), new_encoder_workspace(cells)
    for i in range(len(boards)):
        encode_observation(
            env._tables, env._frames, boards[i], lands[i], scalars[i], ctrls[i], int(acting[i]), work, scratch,
            obs[i], masks[i],
        )  # fmt: skip
    return obs, masks, acting


def check_outputs(env: Any, env_out: dict[str, Any], out: dict[str, Any], players: int) -> None:
    """Raise StateError unless the env's last outputs and the table's copies are what the restored games show.

    Every float is finite, every output is in its range (:data:`OUTPUT_BOUNDS`), and the observations, masks
    and players to act, the env's and the table's, are exactly what the env's encoder gives for the restored
    games: a mask that allowed an illegal action would otherwise fail much later, in the env's step.
    """
    names = getattr(env, "OUTPUT_NAMES", {})
    actions = out["masks"].shape[1]
    for name, value in env_out.items():
        if not isinstance(value, np.ndarray):
            continue
        where, role = f"table.env.{name}", names.get(name, name)
        _finite(value, where)
        low, high = {"_acting": (0, players - 1), "_actions": (0, actions - 1)}.get(
            role, OUTPUT_BOUNDS.get(role, (0, -1))
        )
        if low <= high:
            in_range(value, where, low, high)
    try:
        observe = getattr(env, "observe_state", None)
        expected = observe(env_out) if observe is not None else _dw_observe(env, env_out)
    except ValueError as exc:
        raise st.StateError(f"table.env: {exc}") from None
    if expected is None:
        return
    shown = dict(zip(("_obs", "_masks", "_acting"), expected, strict=True))
    what = {"_obs": "observation", "_masks": "legal actions", "_acting": "player to act"}
    table_obs = "_obs"
    packing = getattr(env, "packing", None)
    if packing is not None:  # the env hands out packed observations (env.packed_observations): so does the table
        shown["_packed"], what["_packed"], table_obs = packing.pack(shown["_obs"]), "packed observation", "_packed"
    for name, value in env_out.items():
        role = names.get(name, name)
        if role in shown:
            _same(value, shown[role], f"table.env.{name}", what[role])
    for name, role in (("obs", table_obs), ("masks", "_masks"), ("player", "_acting")):
        _same(out[name], shown[role], f"table.{name}", what[role])


def check_decisions(decisions: dict[str, NDArray[Any]], open_slots: NDArray[np.bool_]) -> None:
    """Raise StateError unless the learner's open decisions are finite and each took an action its mask allowed."""
    for name, value in decisions.items():
        _finite(value, f"table.rollout.open_decisions.{name}")
    if "logprobs" in decisions:
        in_range(decisions["logprobs"], "table.rollout.open_decisions.logprobs", -(2**31), 0)
    masks, actions = decisions.get("masks"), decisions.get("actions")
    if masks is None or actions is None:
        return
    in_range(masks, "table.rollout.open_decisions.masks", 0, 1)
    for slot in np.flatnonzero(open_slots):
        a = int(actions[slot])
        if not 0 <= a < masks.shape[1] or masks[slot, a] != 1:
            raise st.StateError(
                f"table.rollout.open_decisions.actions: slot {int(slot)} took action {a}, which its mask does not allow"
            )
