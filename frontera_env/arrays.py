"""The compiled engine's layout: a batch of game states as arrays with a leading game axis, and the map's tables.

:class:`Batch` holds :class:`frontera_env.state.State`'s arrays for ``G`` games (``owner[g]`` is game ``g``'s
``State.owner``), its small ints in one ``int64 [G, SCALARS]`` array (the column constants below) and its
SplitMix64 state in ``uint64 [G]``. The env's regroup selection (``frontera_env.encoding.Selection``) lives in
two more columns, so one row is everything ``frontera_v0`` needs to step. :func:`store` and :func:`load` copy
one game both ways, field for field; :func:`state_view` returns a State whose arrays *are* a row's (the
vector env reads its observations through it without copying).

:class:`Tables` is one map's adjacency as CSR arrays (the neighbours of ``t`` are ``nbr[nbr_off[t]:
nbr_off[t + 1]]``, ascending, which is also the order of spec 6.2's edges, so edge ``e`` is ``nbr`` entry
``e``), its regions, bonuses, card symbols and the options the kernels read (``PARAMS`` columns).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from frontera_env.encoding import PATTERN_NEED, Selection
from frontera_env.prng import SplitMix64
from frontera_env.rules.context import Context
from frontera_env.state import NONE, State

#: columns of ``Batch.sc``: State's small ints, then the env's regroup selection
DRAW_LEN, DISCARD_LEN, OPENER, ROUND_POS, PREVIOUS, CURRENT, PHASE, POOL = range(8)
QUOTA, CONQUESTS, MOVES, TURN, WINNER, TRUNCATED, SEL_SOURCE, SEL_DEST = range(8, 16)
SCALARS = 16
#: State's int fields in the column order above (the selection is not State's)
_STATE_INTS: tuple[str, ...] = (
    "draw_len",
    "discard_len",
    "opener",
    "round_pos",
    "previous",
    "current",
    "phase",
    "pool",
    "quota_left",
    "conquests",
    "moves_left",
    "turn_index",
    "winner",
    "truncated",
)
#: State's array fields, stored in Batch under the same names
ARRAY_FIELDS: tuple[str, ...] = (
    "owner",
    "armies",
    "status",
    "trades",
    "hand",
    "hand_len",
    "paid",
    "draw",
    "discard",
    "order0",
    "deploy_left",
    "placed",
    "ready",
    "window",
    "last_roll",
)
#: columns of ``Tables.params``
P_N, P_E, P_BUCKETS, P_CARDS, P_MAX_TURNS, P_BLITZ, P_WIN = range(7)


class Batch(NamedTuple):
    """``G`` game states (and env selections) as arrays with a leading game axis; see the module docs."""

    owner: NDArray[np.int8]
    armies: NDArray[np.int32]
    status: NDArray[np.int8]
    trades: NDArray[np.int32]
    hand: NDArray[np.int16]
    hand_len: NDArray[np.int16]
    paid: NDArray[np.bool_]
    draw: NDArray[np.int16]
    discard: NDArray[np.int16]
    order0: NDArray[np.int8]
    deploy_left: NDArray[np.int32]
    placed: NDArray[np.int32]
    ready: NDArray[np.bool_]
    window: NDArray[np.int32]
    last_roll: NDArray[np.int32]
    sc: NDArray[np.int64]
    rng: NDArray[np.uint64]


class Tables(NamedTuple):
    """One map's tables and the game options the kernels read, built once by :func:`tables`."""

    nbr_off: NDArray[np.int64]  # [N + 1]
    nbr: NDArray[np.int64]  # [E] neighbour ids, ascending per territory: edge e's target
    src: NDArray[np.int64]  # [E] edge e's source
    reg_off: NDArray[np.int64]  # [K + 1]
    reg_mem: NDArray[np.int64]  # [N] territories of each region
    bonus: NDArray[np.int64]  # [K]
    symbol: NDArray[np.int64]  # [N + 2] 0..2, 3 for a wildcard
    need: NDArray[np.int64]  # [13, 4] the TRADE patterns (spec 6.2)
    params: NDArray[np.int64]  # P_* columns


def tables(ctx: Context, buckets: int = 5, blitz: bool = True) -> Tables:
    """Return ``ctx``'s map as CSR arrays with its options (cards, max_turns) and the env's buckets and blitz."""
    counts = [len(nb) for nb in ctx.neighbours]
    nbr_off = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    nbr = np.array([u for nb in ctx.neighbours for u in nb], np.int64)
    src = np.repeat(np.arange(ctx.n, dtype=np.int64), counts)
    reg_off = np.concatenate([[0], np.cumsum([len(r) for r in ctx.regions])]).astype(np.int64)
    reg_mem = np.array([t for r in ctx.regions for t in r], np.int64)
    params = np.zeros(7, np.int64)
    params[[P_N, P_E, P_BUCKETS, P_CARDS, P_MAX_TURNS, P_BLITZ, P_WIN]] = (
        ctx.n,
        len(nbr),
        buckets,
        int(ctx.cards),
        ctx.max_turns,
        int(blitz),
        ctx.win,
    )
    bonus = np.array(ctx.bonus, np.int64)
    return Tables(nbr_off, nbr, src, reg_off, reg_mem, bonus, ctx.symbol.astype(np.int64), PATTERN_NEED, params)


def empty_batch(games: int, players: int, territories: int) -> Batch:
    """Return ``games`` zeroed rows for ``players`` seats on ``territories`` territories."""
    template = State.empty(players, territories, 0)
    arrays = {
        name: np.zeros((games, *getattr(template, name).shape), getattr(template, name).dtype) for name in ARRAY_FIELDS
    }
    return Batch(**arrays, sc=np.zeros((games, SCALARS), np.int64), rng=np.zeros(games, np.uint64))


def store(st: State, batch: Batch, g: int, sel: Selection | None = None) -> None:
    """Copy ``st`` (and the env's regroup selection, none by default) into row ``g`` of ``batch``."""
    for name in ARRAY_FIELDS:
        getattr(batch, name)[g] = getattr(st, name)
    for col, name in enumerate(_STATE_INTS):
        batch.sc[g, col] = int(getattr(st, name))
    batch.sc[g, SEL_SOURCE] = NONE if sel is None else sel.source
    batch.sc[g, SEL_DEST] = NONE if sel is None else sel.dest
    batch.rng[g] = np.uint64(st.rng.state)


def load(batch: Batch, g: int) -> State:
    """Return row ``g`` of ``batch`` as an independent :class:`State`."""
    st = state_view(batch, g)
    for name in ARRAY_FIELDS:
        setattr(st, name, getattr(st, name).copy())
    return st


def state_view(batch: Batch, g: int) -> State:
    """Return a State whose arrays are views of row ``g`` (its ints are copies: call :func:`sync` after a step)."""
    st = State.empty(batch.status.shape[1], batch.owner.shape[1], 0)
    for name in ARRAY_FIELDS:
        setattr(st, name, getattr(batch, name)[g])
    sync(batch, g, st)
    return st


def sync(batch: Batch, g: int, st: State) -> None:
    """Refresh ``st``'s small ints and PRNG from row ``g`` (its arrays are views and need nothing)."""
    row = batch.sc[g]
    for col, name in enumerate(_STATE_INTS):
        setattr(st, name, bool(row[col]) if name == "truncated" else int(row[col]))
    st.rng = SplitMix64(int(batch.rng[g]))


def selection(batch: Batch, g: int) -> Selection:
    """Return row ``g``'s env regroup selection."""
    return Selection(int(batch.sc[g, SEL_SOURCE]), int(batch.sc[g, SEL_DEST]))
