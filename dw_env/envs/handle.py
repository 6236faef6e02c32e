"""One compiled handle per AEC env: its tables, scratch and arrays in a single value (see :mod:`dw_env.rules.handle`).

The AEC env's step passed 14 arguments to the compiled step, four of them tuples of arrays, and numba typed
every array on every call; the handle holds them once and the entry points below take it, bound to its
type (:class:`gamecore.arrays.EntryPoints`), so a step's compiled call unboxes one pointer.
"""

from __future__ import annotations

from typing import Any

from numba import njit, types
from numba.experimental import structref

from dw_env.envs.observation import encode_observation
from dw_env.envs.transition import step_and_observe
from gamecore.arrays import EntryPoints, bound_entries

#: kernel tables, frame tables, engine and encoder scratch, the game's arrays, the env's control row,
#: reward buffer, and the acting agent's observation and mask
FIELDS = ("G", "F", "W", "X", "board", "lands", "scalars", "ctrl", "rewards", "obs", "mask")


@structref.register
class EnvHandleType(types.StructRef):
    """The numba type of an :class:`EnvHandle`."""

    def preprocess_fields(self, fields: Any) -> Any:
        return tuple((name, types.unliteral(t)) for name, t in fields)  # type: ignore[no-untyped-call]


class EnvHandle(structref.StructRefProxy):
    """An AEC env's compiled state as one value (the arrays are shared, not copied)."""


structref.define_proxy(  # type: ignore[no-untyped-call]
    EnvHandle, EnvHandleType, list(FIELDS)
)


@njit(cache=True, nogil=True)
def new_env_handle(G, F, W, X, board, lands, scalars, ctrl, rewards, obs, mask):  # type: ignore[no-untyped-def]
    """Return a new handle over the given arrays, in :data:`FIELDS` order.

    Call this, not ``EnvHandle(...)``: the proxy's own constructor is compiled anew in every process (about
    2 s), where this one is cached on disk with the kernels.
    """
    return EnvHandle(G, F, W, X, board, lands, scalars, ctrl, rewards, obs, mask)  # type: ignore[no-untyped-call]


@njit(cache=True, nogil=True)
def step(h, action, shaping, truncation_reward):  # type: ignore[no-untyped-def]
    """Play one masked-legal env action and write the next acting player's observation; return the status."""
    return step_and_observe(
        h.G, h.F, h.board, h.lands, h.scalars, h.ctrl, action, h.W, h.X,
        shaping, truncation_reward, h.rewards, h.obs, h.mask,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def encode(h, viewer, obs, mask):  # type: ignore[no-untyped-def]
    """Write ``viewer``'s observation and action mask into ``obs`` and ``mask``; return the legal actions."""
    return encode_observation(h.G, h.F, h.board, h.lands, h.scalars, h.ctrl, viewer, h.W, h.X, obs, mask)


_I8 = types.Array(types.int8, 1, "C")
_BOUND: dict[Any, EntryPoints] = {}


def entries_for(h: EnvHandle) -> EntryPoints:
    """Return the entry points bound to ``h``'s type.

    ``step(h, action, shaping, truncation_reward)`` and ``encode(h, viewer, obs, mask)``.
    """
    kernels = {"step": step, "encode": encode}
    extra = {"step": (types.int64, types.boolean, types.float64), "encode": (types.int64, _I8, _I8)}
    return bound_entries(_BOUND, h, kernels, extra)
