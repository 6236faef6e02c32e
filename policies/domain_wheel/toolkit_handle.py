"""The scripted AIs' kernels over a game's compiled handle: the state checked once, one pointer per call.

The toolkit (:mod:`policies.domain_wheel.toolkit`) calls a handful of compiled kernels per decision
(:mod:`policies.domain_wheel.kernels`, the engine's conquest and liberation conditions). Called with the
game's tables and workspace, numba's dispatcher typed the 13 tables and 9 scratch arrays again at every
call (docs/ENGINE.md, *The compiled handle*), which cost the AIs more than some kernels' work. These
wrappers take the game's handle (:class:`dw_env.rules.handle.GameHandle`, whose arrays the engine checked
when the game was built) and are bound once per handle type (:class:`gamecore.arrays.EntryPoints`), so a
call unboxes the handle and the :class:`~policies.domain_wheel.toolkit.Situation`'s own arrays only.

Pass them only what their bound types say: the Situation's arrays (C-contiguous, allocated by it) and
Python or numpy integers; :func:`fits` tells whether an array from elsewhere may go (the toolkit sends
any other to the kernel itself, through the dispatcher).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, types

from dw_env.rules.handle import GameHandle
from dw_env.rules.territory import conquest_holds as _conquest_holds
from dw_env.rules.territory import liberation_holds as _liberation_holds
from gamecore.arrays import EntryPoints, bound_entries
from policies.domain_wheel import kernels


@njit(cache=True, nogil=True)
def analyse(h, tm, dist, counts, scores, need, libneed, king_land, seated):  # type: ignore[no-untyped-def]
    """Fill the Situation's per-player arrays (:func:`kernels.analyse`) for the handle's position."""
    kernels.analyse(h.G, h.board, h.lands, h.scalars, h.W, tm, dist, counts, scores, need, libneed, king_land, seated)


@njit(cache=True, nogil=True)
def king_turns(h, p, tm_p, radius, hop, mark, queue, out):  # type: ignore[no-untyped-def]
    """Fill ``out`` with p's king's estimated own turns to each land's throne (:func:`kernels.king_turns`)."""
    kernels.king_turns(h.G, h.lands, h.scalars, p, tm_p, radius, hop, mark, queue, out)


@njit(cache=True, nogil=True)
def king_toward(h, kinds, dlist, p, target, tm_p, radius, e, mark, queue):  # type: ignore[no-untyped-def]
    """Return the king's best legal destination toward ``target`` or -1 (:func:`kernels.king_toward`)."""
    G, board, lands, scalars, W = h.G, h.board, h.lands, h.scalars, h.W
    return kernels.king_toward(G, board, lands, scalars, W, kinds, dlist, p, target, tm_p, radius, e, mark, queue)


@njit(cache=True, nogil=True)
def king_into_land(h, kinds, dlist, p, land):  # type: ignore[no-untyped-def]
    """Return a legal king destination inside ``land`` or -1 (:func:`kernels.king_into_land`)."""
    return kernels.king_into_land(h.G, h.board, h.lands, h.scalars, h.W, kinds, dlist, p, land)


@njit(cache=True, nogil=True)
def knight_toward(h, kinds, dlist, p, target, allowed, tm_p, dist_p, radius, out, comp, access, queue):  # type: ignore[no-untyped-def]
    """Write the best allowed knight move toward ``target`` into ``out[0:2]`` (:func:`kernels.knight_toward`)."""
    return kernels.knight_toward(
        h.G, h.board, h.lands, h.scalars, h.W, kinds, dlist, p, target, allowed, tm_p, dist_p, radius, out, comp,
        access, queue,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def knight_entries(h, kinds, dlist, p, allowed, src_cost, best_src, best_dst):  # type: ignore[no-untyped-def]
    """Fill per land an allowed knight move entering it (:func:`kernels.knight_entries`)."""
    G, board, lands, scalars, W = h.G, h.board, h.lands, h.scalars, h.W
    kernels.knight_entries(G, board, lands, scalars, W, kinds, dlist, p, allowed, src_cost, best_src, best_dst)


@njit(cache=True, nogil=True)
def territory_cuts(h, q, tm_q, mark, queue, out):  # type: ignore[no-untyped-def]
    """Mark the lands whose loss cuts q's territory apart (:func:`kernels.territory_cuts`)."""
    kernels.territory_cuts(h.G, h.lands, q, tm_q, mark, queue, out)


@njit(cache=True, nogil=True)
def conquest_holds(h, counts, tmask, dist, p, land, starting, p_score):  # type: ignore[no-untyped-def]
    """Return CQ(p, land) (rules 6.1, 6.2, 6.8) by the engine's kernel."""
    return _conquest_holds(h.G, h.lands, h.scalars, counts, tmask, dist, p, land, starting, p_score)


@njit(cache=True, nogil=True)
def liberation_holds(h, counts, dist, p, land):  # type: ignore[no-untyped-def]
    """Return LB(p, land) (rule 7.1) by the engine's kernel."""
    return _liberation_holds(h.G, h.lands, h.scalars, counts, dist, p, land)


_KERNELS = {
    "analyse": analyse,
    "king_turns": king_turns,
    "king_toward": king_toward,
    "king_into_land": king_into_land,
    "knight_toward": knight_toward,
    "knight_entries": knight_entries,
    "territory_cuts": territory_cuts,
    "conquest_holds": conquest_holds,
    "liberation_holds": liberation_holds,
}

_I64 = types.int64
_V = types.Array(types.int32, 1, "C")  # a Situation's per-land or per-cell row
_M = types.Array(types.int32, 2, "C")  # a Situation's per-player table
_K = types.Array(types.int8, 1, "C")  # kinds, or the allowed-knights mask
_EXTRA_ARGS: dict[str, tuple[types.Type, ...]] = {
    "analyse": (_M, _M, _M, _V, _M, _M, _V, _V),
    "king_turns": (_I64, _V, _I64, _V, _V, _V, _V),
    "king_toward": (_K, _V, _I64, _I64, _V, _I64, _V, _V, _V),
    "king_into_land": (_K, _V, _I64, _I64),
    "knight_toward": (_K, _V, _I64, _I64, _K, _V, _V, _I64, _V, _V, _V, _V),
    "knight_entries": (_K, _V, _I64, _K, _V, _V, _V),
    "territory_cuts": (_I64, _V, _V, _V, _V),
    "conquest_holds": (_M, _V, _V, _I64, _I64, types.boolean, _I64),
    "liberation_holds": (_M, _V, _I64, _I64),
}
_BOUND: dict[Any, EntryPoints] = {}

#: the dtypes :func:`fits` checks against
INT8, INT32 = np.dtype(np.int8), np.dtype(np.int32)


def entries_for(h: GameHandle) -> EntryPoints:
    """Return the wrappers above bound to ``h``'s numba type (one :class:`EntryPoints` per type, shared)."""
    return bound_entries(_BOUND, h, _KERNELS, _EXTRA_ARGS)


def fits(array: Any, dtype: np.dtype[Any], size: int) -> bool:
    """Return True if ``array`` may be passed where a bound wrapper takes a C-contiguous 1-d ``dtype`` row."""
    return (
        isinstance(array, np.ndarray)
        and array.dtype == dtype
        and array.shape == (size,)
        and bool(array.flags.c_contiguous)
    )
