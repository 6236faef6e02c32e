"""Argument checks every batched vector env shares: counts, threads, seeds and a batch of actions.

A vector env steps N games in one compiled call, so it checks everything a caller hands it before any
kernel runs: a bad argument or one illegal action raises ValueError naming what was wrong, the value
received (:func:`gamecore.errors.brief`) and what is allowed, and no game is stepped. What an illegal row
means is the game's to say (its phases, its rule numbers), so :func:`check_action_batch` finds the first
bad row and asks the env to explain it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from gamecore.errors import brief

__all__ = ["MAX_ENVS", "check_action_batch", "check_count", "check_base_seed", "shown", "thread_limit"]

#: the most games one vector env steps together (a million rows: far beyond any machine's memory budget)
MAX_ENVS = 1 << 20


def check_count(name: str, value: Any, high: int) -> int:
    """Return ``value`` as an int in ``1..high``; ValueError naming ``name``, the value and the range."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer) or not 1 <= value <= high:
        raise ValueError(f"{name} must be an integer in 1..{high}, got {brief(value)}")
    return int(value)


def thread_limit() -> int:
    """Return the most threads a compiled batch may use on this machine (numba's thread pool size)."""
    import numba

    return int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]


def check_base_seed(seed: Any) -> int:
    """Return ``seed`` as an int >= 0; ValueError naming the value otherwise."""
    if isinstance(seed, bool | np.bool_) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {brief(seed)}")
    return int(seed)


def check_action_batch(
    actions: Any, masks: NDArray[np.int8], explain: Callable[[int, int], str], described: str = ""
) -> NDArray[Any]:
    """Return ``actions`` as an integer array with one legal action per row of ``masks``.

    ValueError if it is not an integer array of shape ``(N,)`` (``described`` says how the env names it),
    or ``explain(row, action)``'s message for the first row whose action is out of range or masked out.
    """
    n, num_actions = masks.shape
    a = np.asarray(actions)
    if a.shape != (n,) or not np.issubdtype(a.dtype, np.integer):
        what = described or f"an integer array of shape ({n},)"
        raise ValueError(f"actions must be {what}; got {brief(actions)} (shape {a.shape}, dtype {a.dtype})")
    in_range = (a >= 0) & (a < num_actions)
    legal = np.zeros(n, dtype=bool)
    rows = np.flatnonzero(in_range)
    legal[rows] = masks[rows, a[rows]] == 1
    if not legal.all():
        i = int(np.flatnonzero(~legal)[0])
        raise ValueError(explain(i, int(a[i])))
    return a


def shown(mask: NDArray[np.int8], limit: int, names: dict[int, str] | None = None) -> str:
    """Return the legal actions of one mask row as text, the first ``limit`` of them then "..."."""
    legal = [int(x) for x in np.flatnonzero(mask)]
    names = names or {}
    return ", ".join(names.get(x, str(x)) for x in legal[:limit]) + (" ..." if len(legal) > limit else "")
