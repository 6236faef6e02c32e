"""Turn order (R-3): rounds in order0 with a rotating opener, strict alternation between two active players."""

from __future__ import annotations

import copy

from frontera_env.state import ACTIVE, NONE, OVER, SETUP, State


def first_seat(st: State) -> int:
    """Open round 1 with the first active seat of order0 and return it (R-3.1)."""
    p = st.players
    for i in range(p):
        if st.status[st.order0[i]] == ACTIVE:
            st.opener, st.round_pos = i, 0
            return int(st.order0[i])
    return NONE


def next_seat(st: State) -> int:
    """Advance the turn order past the current turn and return the seat that plays next (R-3.2, R-3.3)."""
    active = st.active_seats()
    if len(active) == 2:
        return _alternate(st, active)
    return _rotate(st)


def _rotate(st: State) -> int:
    """Return the next active seat of this round, or open the next round after the previous opener (R-3.2, A13)."""
    p = st.players
    for k in range(st.round_pos + 1, p):
        seat = int(st.order0[(st.opener + k) % p])
        if st.status[seat] == ACTIVE:
            st.round_pos = k
            return seat
    for k in range(1, p + 1):  # the previous opener counts even if it has left
        i = (st.opener + k) % p
        if st.status[st.order0[i]] == ACTIVE:
            st.opener, st.round_pos = i, 0
            return int(st.order0[i])
    return NONE


def _alternate(st: State, active: list[int]) -> int:
    """Return the active player who did not play the turn just ended (R-3.3, A14).

    When the turn just ended was the last of a player who left, both remaining players qualify; the turn then
    goes to the one who did not play the turn before it, so nobody plays twice in a row.
    """
    others = [s for s in active if s != st.current]
    if len(others) == 2:
        others = [s for s in others if s != st.previous] or others
    if len(others) == 2:
        return _rotate(st)
    return others[0]


def turns_until(st: State) -> list[int]:
    """Return, for each seat, how many turns begin before its next turn does if nobody leaves (R-3; public, 13.1).

    The current player reads 0 and the seat that plays next 1; inactive seats, and every seat once the game is
    over, read 0. During the deployment the count is the seat's place in round 1 (1 for the opener, R-3.1).
    Rounds rotate their opener (R-3.2), so with four players a seat waits 7, 3, 3 and 3 turns in turn: the
    current seat and the turn index alone do not say when a rival moves again.
    """
    gaps = [0] * st.players
    if st.phase == OVER:
        return gaps
    if st.phase == SETUP:
        place = 0
        for i in range(st.players):
            seat = int(st.order0[i])
            if st.status[seat] == ACTIVE:
                place += 1
                gaps[seat] = place
        return gaps
    ahead = copy.copy(st)  # next_seat moves only the turn-order fields, which the copy rebinds
    waiting = {s for s in st.active_seats() if s != st.current}
    for k in range(1, 2 * st.players + 1):
        if not waiting:
            break
        seat = next_seat(ahead)
        ahead.previous, ahead.current = ahead.current, seat
        if seat in waiting:
            gaps[seat] = k
            waiting.discard(seat)
    return gaps
