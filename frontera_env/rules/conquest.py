"""Conquest, the adjust window, elimination and the forced trade (R-6)."""

from __future__ import annotations

from frontera_env.rules.cards import HAND_LIMIT
from frontera_env.rules.context import Context
from frontera_env.rules.winning import check_win
from frontera_env.state import ATTACK, ELIMINATED, FORCED, NONE, WINDOW, State


def conquer(ctx: Context, st: State, source: int, target: int, ad: int) -> None:
    """Take ``target`` after a roll left it empty: move ``ad`` armies, eliminate, check the win, open the window.

    R-6.1: the automatic move is the conquering roll's dice (A28); an eliminated player's hand passes to the
    conqueror in order with its ``paid`` flags (A16, A22); the win check comes before any window (R-10.2).
    """
    seat = st.current
    prev = int(st.owner[target])
    st.owner[target] = seat
    st.armies[target] = ad
    st.armies[source] -= ad
    st.conquests += 1
    if prev != NONE and st.territory_count(prev) == 0:
        st.status[prev] = ELIMINATED
        taken = st.hand_of(prev)
        st.set_hand(seat, st.hand_of(seat) + taken)
        st.set_hand(prev, [])
    if check_win(ctx, st):
        return
    hi = ad + min(st.quota_left, int(st.armies[source]) - 1)
    if hi > 1:  # with hi = 1 there is no choice, so no window opens (R-6.2 "MAY skip")
        st.window[:] = (source, target, ad, 1, hi)
        st.phase = WINDOW
    else:
        close_window(st)


def occupy(st: State, garrison: int) -> None:
    """Set the window's garrison x in [lo, hi]: move the difference, charge max(0, x - a) quota, close (R-6.2)."""
    source, target, a = int(st.window[0]), int(st.window[1]), int(st.window[2])
    st.armies[source] += a - garrison
    st.armies[target] = garrison
    st.quota_left -= max(0, garrison - a)
    close_window(st)


def close_window(st: State) -> None:
    """Close the window keeping the garrison it has; go to the forced trade if the hand holds 5+ (R-6.1 step 5)."""
    st.window[:] = -1
    st.phase = FORCED if st.hand_len[st.current] >= HAND_LIMIT else ATTACK


def forced_done(st: State) -> None:
    """Leave the forced trade for the attack phase once the hand holds <= 4 and the pool is placed (R-6.4)."""
    if st.hand_len[st.current] < HAND_LIMIT and st.pool == 0:
        st.phase = ATTACK
