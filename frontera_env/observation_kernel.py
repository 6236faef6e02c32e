"""The observation of spec 6.4 compiled (numba): ``observation.encode(view(...))`` on a :mod:`frontera_env.arrays` row.

It reads what ``frontera_env.view`` shows a seat (R-13) and nothing else: with fog, owner and armies only on
V(p) (own territories and their neighbours, 13.4); the own hand, paid flags and provisional placements only for
the observer (13.2); the turn counters and the window only for the current player. The layout, offsets and
static one-hots are ``observation.ObservationLayout``'s; the lock-step test checks this against the Python
builder after every action of its games, for the acting seat and a seat that waits.
"""

from __future__ import annotations

from numba import njit

from frontera_env.arrays import (
    CONQUESTS,
    CURRENT,
    DISCARD_LEN,
    DRAW_LEN,
    MOVES,
    OPENER,
    P_CARDS,
    P_N,
    PHASE,
    POOL,
    PREVIOUS,
    QUOTA,
    ROUND_POS,
    SEL_DEST,
    SEL_SOURCE,
    TURN,
)
from frontera_env.kernels import alternate, rotate_from
from frontera_env.rules.cards import HAND_LIMIT
from frontera_env.state import ACTIVE, ATTACK, FORCED, NONE, OVER, REINFORCE, SETUP, WINDOW

_SLOTS_AT, _PER_SLOT, _GAPS_AT = 25, 7, 72


@njit(cache=True, nogil=True)
def observe(T, static, S, g, me, fog, max_turns, out, work):  # type: ignore[no-untyped-def]
    """Fill ``out`` with seat ``me``'s observation of row g (spec 6.4) and return it; ``static`` is the layout's.

    ``fog`` and ``max_turns`` are the game's options; ``work`` is ``kernels.workspace``'s (rows 1 and 2 used).
    """
    n = T.params[P_N]
    players = S.status.shape[1]
    row = static.shape[1]
    r = row - 19
    phase, cur = S.sc[g, PHASE], S.sc[g, CURRENT]
    seen = _visible(T, S, g, me, fog, work[1])
    out[:] = 0
    for t in range(n):
        base = t * row
        out[base : base + row] = static[t]
        o = S.owner[g, t]
        out[base] = seen[t]
        if not seen[t]:
            out[base + 8] = 1  # unknown owner (slot 7)
            continue
        out[base + 1 + ((o - me) % players if o >= 0 else 6)] = 1
        out[base + 9] = S.armies[g, t] + (S.placed[g, me, t] if phase == SETUP else 0)
    for k in range(S.hand_len[g, me]):
        c = S.hand[g, me, k]
        if c < n:
            out[c * row + 13 + r] = 1
            out[c * row + 14 + r] = S.paid[g, c]
    acting = me == cur
    if acting:
        for col, t in ((15, S.sc[g, SEL_SOURCE]), (16, S.sc[g, SEL_DEST])):
            if t != NONE:
                out[t * row + col + r] = 1
    mine = acting and phase != SETUP  # the view's turn counters (13.2)
    if mine and S.window[g, 0] >= 0:
        out[S.window[g, 0] * row + 17 + r] = 1
        out[S.window[g, 1] * row + 18 + r] = 1
    _globals(T, S, g, me, fog, max_turns, mine, out[n * row :], work[2])
    return out


@njit(cache=True, nogil=True)
def _visible(T, S, g, me, fog, seen):  # type: ignore[no-untyped-def]
    """Fill ``seen[:N]`` with V(me): everything without fog, else own territories and their neighbours (13.4)."""
    n = T.params[P_N]
    for t in range(n):
        seen[t] = 0 if fog else 1
    if fog:
        for t in range(n):
            if S.owner[g, t] == me:
                seen[t] = 1
                for k in range(T.nbr_off[t], T.nbr_off[t + 1]):
                    seen[T.nbr[k]] = 1
    return seen


@njit(cache=True, nogil=True)
def _decision(S, g, me):  # type: ignore[no-untyped-def]
    """Return the index of ``observation.DECISIONS`` of me's decision state (spec 6.3)."""
    phase = S.sc[g, PHASE]
    if S.sc[g, CURRENT] != me or phase == OVER:
        return 9
    if phase == SETUP:
        return 0
    if phase == REINFORCE:
        return 1
    if phase == ATTACK:
        return 2
    if phase == WINDOW:
        return 3
    if phase == FORCED:
        return 4 if S.hand_len[g, me] >= HAND_LIMIT else 5
    if S.sc[g, SEL_SOURCE] == NONE:
        return 6
    return 7 if S.sc[g, SEL_DEST] == NONE else 8


@njit(cache=True, nogil=True)
def _globals(T, S, g, me, fog, max_turns, mine, out, regions):  # type: ignore[no-untyped-def]
    """Fill the 78 globals (spec 6.4's 72 and the turn-order gaps, ``observation._globals``) as ``me`` sees them."""
    players = S.status.shape[1]
    out[_decision(S, g, me)] = 1
    trades = S.trades[g, me]
    need = 1 if trades < 3 else 2
    if S.sc[g, PHASE] == SETUP and S.sc[g, CURRENT] == me:
        out[10] = S.deploy_left[g, me]
    if mine:
        conquests = S.sc[g, CONQUESTS]
        out[10], out[11], out[12], out[13] = S.sc[g, POOL], S.sc[g, QUOTA], S.sc[g, MOVES], conquests
        out[15] = 1.0 if T.params[P_CARDS] and conquests >= need else 0.0
        if S.window[g, 0] >= 0:
            out[16], out[17], out[18] = S.window[g, 2], S.window[g, 3], S.window[g, 4]
    out[14] = need
    out[19] = trades
    k = trades + 1
    out[20] = (4, 7, 10)[k - 1] if k <= 3 else 10 + 5 * (k - 3)  # v(trades + 1)
    for c in range(S.hand_len[g, me]):
        out[21 + T.symbol[S.hand[g, me, c]]] += 1
    _region_owners(T, S, g, regions)
    for slot in range(players):
        seat = (me + slot) % players
        at = _SLOTS_AT + slot * _PER_SLOT
        count = 0
        for t in range(T.params[P_N]):
            count += S.owner[g, t] == seat
        held = 0
        for q in range(T.bonus.shape[0]):
            held += regions[q] == seat
        out[at] = 1
        out[at + 1] = S.status[g, seat] == ACTIVE
        out[at + 2] = count
        out[at + 3] = S.hand_len[g, seat]
        out[at + 4] = S.trades[g, seat]
        out[at + 5] = held
        out[at + 6] = S.sc[g, CURRENT] == seat
    out[67], out[68], out[69] = S.sc[g, DRAW_LEN], S.sc[g, DISCARD_LEN], S.sc[g, TURN]
    out[70], out[71] = max_turns, fog
    _turn_gaps(S, g, me, out[_GAPS_AT : _GAPS_AT + players])


@njit(cache=True, nogil=True)
def _turn_gaps(S, g, me, out):  # type: ignore[no-untyped-def]
    """Fill ``out[slot]`` with the turns that begin before that seat's next one (``rules.order.turns_until``).

    The turn order is played ahead on local copies of its counters, as ``kernels.next_seat`` would advance them.
    """
    players = S.status.shape[1]
    phase = S.sc[g, PHASE]
    if phase == OVER:
        return
    if phase == SETUP:
        place = 0
        for i in range(players):
            seat = S.order0[g, i]
            if S.status[g, seat] == ACTIVE:
                place += 1
                out[(seat - me) % players] = place
        return
    now = S.sc[g, CURRENT]
    cur, prev, opener, pos = now, S.sc[g, PREVIOUS], S.sc[g, OPENER], S.sc[g, ROUND_POS]
    active = 0
    waiting = 0
    for p in range(players):
        if S.status[g, p] == ACTIVE:
            active += 1
            waiting += p != now
    k = 0
    while waiting > 0 and k < 2 * players:
        k += 1
        seat = alternate(S, g, cur, prev) if active == 2 else NONE
        if seat == NONE:
            seat, opener, pos = rotate_from(S, g, opener, pos)
        prev, cur = cur, seat
        if seat != NONE and seat != now and out[(seat - me) % players] == 0:
            out[(seat - me) % players] = k
            waiting -= 1


@njit(cache=True, nogil=True)
def _region_owners(T, S, g, regions):  # type: ignore[no-untyped-def]
    """Fill ``regions[:K]`` with each region's sole owner, NONE if shared or with an ownerless territory (1.3)."""
    for q in range(T.bonus.shape[0]):
        first = S.owner[g, T.reg_mem[T.reg_off[q]]]
        for k in range(T.reg_off[q], T.reg_off[q + 1]):
            if S.owner[g, T.reg_mem[k]] != first:
                first = NONE
                break
        regions[q] = first
