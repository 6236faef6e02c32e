"""One compiled handle per game: its checked arrays in a single value, so a kernel call costs one argument.

Calling a numba kernel from Python costs little for the work and much for the arguments: the dispatcher
types every argument on every call (a tuple of tables is typed array by array) and unboxes each array.
A :class:`dw_env.engine.Game` passes 25 arrays per call (the 13 tables ``G``, the 9 scratch arrays ``W``,
board, lands, scalars), which took more time than the rules themselves (docs/ENGINE.md, *Speed of the
Python API*). The handle holds those arrays once, checked when the game was built, and the entry
points below take it: the call unboxes one pointer. The engine binds the compiled entry points
of the handle's exact type once, so a call skips the dispatcher's per-call typing too.

The entry points check nothing the handle already guarantees (layout, dtypes, shapes: :func:`check_state`
at the boundary); arguments that come from outside (a cell, an action) are checked by the caller before.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, types
from numba.experimental import structref

from dw_env.rules.layout import OVER
from dw_env.rules.moves import movable_pieces, piece_destinations
from dw_env.rules.turn import apply_action, end_request_legal, move_piece
from gamecore.arrays import EntryPoints, bound_entries

#: the handle's fields: kernel tables, workspace, state arrays, the game's own result buffers, then the
#: destination table's memo, which only these entry points write: ``listed[0]`` the cell whose destinations
#: it holds (-1: none), their kinds, and the state arrays as they were when it was filled (see :func:`play`)
FIELDS = (
    "G", "W", "board", "lands", "scalars", "mask", "movable", "kinds", "dlist",
    "listed", "seen_kinds", "seen_board", "seen_lands", "seen_scalars",
)  # fmt: skip


@structref.register
class GameHandleType(types.StructRef):
    """The numba type of a :class:`GameHandle` (one per combination of array types)."""

    def preprocess_fields(self, fields: Any) -> Any:
        return tuple((name, types.unliteral(t)) for name, t in fields)


class GameHandle(structref.StructRefProxy):  # type: ignore[misc]
    """A game's tables, workspace, state arrays and result buffers as one compiled value (no copies)."""


structref.define_proxy(  # type: ignore[no-untyped-call]
    GameHandle, GameHandleType, list(FIELDS)
)


@njit(cache=True, nogil=True)
def movable_list(h):  # type: ignore[no-untyped-def]
    """List the acting player's movable pieces in ``h.movable``; return their count (0 once the game is over)."""
    if h.scalars[OVER] == 1:
        return 0
    movable_pieces(h.G, h.board, h.lands, h.scalars, h.W, h.mask)
    return _list_marked(h.mask, h.movable)


@njit(cache=True, nogil=True)
def _list_marked(mask, cells):  # type: ignore[no-untyped-def]
    """Write the indices of the non-zero bytes of ``mask`` (int8, C order) to ``cells``; return how many.

    A few pieces among a thousand cells: testing eight bytes at once skips the empty stretches (about a
    quarter of the time of a byte loop on the standard map).
    """
    whole = mask.shape[0] // 8 * 8
    words = mask[:whole].view(np.uint64)
    n = 0
    for w in range(words.shape[0]):
        if words[w] != 0:
            for c in range(8 * w, 8 * w + 8):
                if mask[c] != 0:
                    cells[n] = c
                    n += 1
    for c in range(whole, mask.shape[0]):
        if mask[c] != 0:
            cells[n] = c
            n += 1
    return n


@njit(cache=True, nogil=True)
def movable_mask(h, out):  # type: ignore[no-untyped-def]
    """Set ``out[c] = 1`` on the acting player's movable pieces (all 0 once the game is over)."""
    if h.scalars[OVER] == 1:
        out[:] = 0
        return 0
    return movable_pieces(h.G, h.board, h.lands, h.scalars, h.W, out)


@njit(cache=True, nogil=True)
def destinations(h, cell):  # type: ignore[no-untyped-def]
    """Fill ``h.dlist`` / ``h.kinds`` with the destinations of the piece on ``cell``; return their count (>= 0)."""
    if h.scalars[OVER] == 1:
        h.kinds[:] = 0
        h.listed[0] = -1
        return 0
    count = max(0, piece_destinations(h.G, h.board, h.lands, h.scalars, cell, h.W, h.kinds, h.dlist))
    h.listed[0] = cell if count > 0 else -1
    if count > 0:  # a private copy of the table (callers may write into kinds) and of its position
        _remember(h)
    return count


@njit(cache=True, nogil=True)
def _remember(h):  # type: ignore[no-untyped-def]
    """Copy the destination table's kinds and the state arrays into the handle's memo."""
    kinds, board, seen_kinds, seen_board = h.kinds, h.board, h.seen_kinds, h.seen_board
    for i in range(board.shape[0]):  # element loops: numba's slice assignment costs several times more
        seen_kinds[i] = kinds[i]
        seen_board[i] = board[i]
    lands, seen_lands = h.lands, h.seen_lands
    for r in range(lands.shape[0]):
        for i in range(lands.shape[1]):
            seen_lands[r, i] = lands[r, i]
    scalars, seen_scalars = h.scalars, h.seen_scalars
    for i in range(scalars.shape[0]):
        seen_scalars[i] = scalars[i]


@njit(cache=True, nogil=True)
def _unchanged(h):  # type: ignore[no-untyped-def]
    """Return True if the state arrays hold what they held when the destination table was filled."""
    # No early exit, and a boolean accumulator: LLVM then compares 64 bytes per instruction (the board in
    # about 15 ns; an int accumulator, or uint64 views, cost 100 to 150 ns)
    board, seen_board = h.board, h.seen_board
    diff = False
    for i in range(board.shape[0]):
        diff |= board[i] != seen_board[i]
    lands, seen_lands = h.lands, h.seen_lands
    for r in range(lands.shape[0]):
        for i in range(lands.shape[1]):
            diff |= lands[r, i] != seen_lands[r, i]
    scalars, seen_scalars = h.scalars, h.seen_scalars
    for i in range(scalars.shape[0]):
        diff |= scalars[i] != seen_scalars[i]
    return not diff


@njit(cache=True, nogil=True)
def play(h, src, dst):  # type: ignore[no-untyped-def]
    """Play ``(src, dst)`` and its end of turn; return the move-kind flags or a negative ``ERR_*`` code.

    A move from the destination table that :func:`destinations` filled for ``src`` is legal while the
    position is the one the table was computed from (rule 4: legality depends on the position only), so
    it is played without computing the piece's destinations again; any other action, or any change to the
    state arrays since (a move, a direct write, another game over the same arrays), takes the full check
    of :func:`dw_env.rules.turn.apply_action`. Every action played forgets the table.
    """
    listed = h.listed[0]
    h.listed[0] = -1
    seen = h.seen_kinds
    if listed >= 0 and src == listed and 0 <= dst < seen.shape[0] and seen[dst] != 0 and _unchanged(h):
        return move_piece(h.G, h.board, h.lands, h.scalars, src, dst, seen[dst], h.W)
    return apply_action(h.G, h.board, h.lands, h.scalars, src, dst, h.W)


@njit(cache=True, nogil=True)
def can_request_end(h):  # type: ignore[no-untyped-def]
    """Return True if the acting player may request the end now (rule 9.3)."""
    return end_request_legal(h.G, h.lands, h.scalars)


_KERNELS = {
    "movable_list": movable_list,
    "movable_mask": movable_mask,
    "destinations": destinations,
    "play": play,
    "can_request_end": can_request_end,
}


#: the arguments after the handle, as numba types (ints arrive as Python ints, unboxed as int64)
_EXTRA_ARGS: dict[str, tuple[types.Type, ...]] = {
    "movable_mask": (types.Array(types.int8, 1, "C"),),
    "destinations": (types.int64,),
    "play": (types.int64, types.int64),
}
_BOUND: dict[Any, EntryPoints] = {}


@njit(cache=True, nogil=True)
def new_handle(G, W, board, lands, scalars, mask, movable, kinds, dlist, listed, sk, sb, sl, ss):  # type: ignore[no-untyped-def]
    """Return a new handle over the given arrays (compiled once per handle type; see :func:`build`)."""
    return GameHandle(G, W, board, lands, scalars, mask, movable, kinds, dlist, listed, sk, sb, sl, ss)


#: per kernel tables ``G`` (one tuple per options, cached by the engine): the tables, the compiled
#: constructor of the handle type of a game in the standard layout, and that type's entry points
_BY_TABLES: dict[int, tuple[Any, Any, EntryPoints]] = {}


def build(fields: tuple[Any, ...], standard: bool) -> tuple[GameHandle, EntryPoints]:
    """Return a new handle over ``fields`` (in :data:`FIELDS` order) and the entry points of its type.

    ``standard`` says the state arrays are in the layout :func:`dw_env.engine.check_state` demands
    (writeable, C-contiguous, the layout's dtypes and ranks) and the other fields are the engine's own
    (its cached tables, a fresh workspace and buffers): then every such handle over the same tables has
    one numba type, so from the second on the constructor compiled for that type is called directly,
    without the dispatcher typing the 25 arrays again (a game copied per decision paid that at every copy).
    Any other layout goes through the dispatcher, which types it and compiles for it.
    """
    known = _BY_TABLES.get(id(fields[0])) if standard else None
    if known is not None and known[0] is fields[0]:
        h: GameHandle = known[1](*fields)
        return h, known[2]
    h = new_handle(*fields)  # not GameHandle(*fields): numba compiles the proxy's constructor in every process
    entries = entries_for(h)
    if standard:
        signature = tuple(h._type.field_dict.values())  # type: ignore[attr-defined]
        new_handle.compile(signature)
        _BY_TABLES[id(fields[0])] = (fields[0], new_handle.get_overload(signature), entries)
    return h, entries


def entries_for(h: GameHandle) -> EntryPoints:
    """Return the entry points bound to ``h``'s numba type (one :class:`EntryPoints` per type, shared).

    Its attributes ``movable_list``, ``movable_mask``, ``destinations``, ``play`` and ``can_request_end``
    are the kernels above, taking ``h`` first.
    """
    return bound_entries(_BOUND, h, _KERNELS, _EXTRA_ARGS)
