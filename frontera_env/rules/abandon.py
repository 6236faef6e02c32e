"""Abandonment and ownerless territories (R-11): an engine event, at any moment, on or off turn."""

from __future__ import annotations

from frontera_env.rules.context import Context
from frontera_env.rules.order import first_seat
from frontera_env.rules.reinforce import start_turn
from frontera_env.rules.setup import all_ready, reveal_deployment, setup_seat
from frontera_env.rules.turn_end import pass_turn
from frontera_env.rules.winning import check_win
from frontera_env.state import ABANDONED, NONE, SETUP, State


def abandon(ctx: Context, st: State, seat: int) -> None:
    """Remove ``seat`` for good: territories ownerless with their armies, hand to discard (R-11.1, A24, A43).

    During the deployment its provisional placements are dropped; on its own turn the turn ends at once with
    no draw. The win check follows (R-11.2, A37).
    """
    st.status[seat] = ABANDONED
    st.owner[st.owner == seat] = NONE
    for c in st.hand_of(seat):
        st.discard[st.discard_len] = c
        st.discard_len += 1
        st.paid[c] = False
    st.set_hand(seat, [])
    if st.phase == SETUP:
        st.placed[seat] = 0
        st.deploy_left[seat] = 0
        st.ready[seat] = False
        if check_win(ctx, st):
            return
        st.current = setup_seat(st)
        if all_ready(st):
            start_game(ctx, st)
        return
    if check_win(ctx, st):
        return
    if seat == st.current:
        pass_turn(ctx, st)


def start_game(ctx: Context, st: State) -> None:
    """Apply every placement at once and start turn 1 with the first active seat of order0 (R-2.7, R-3.1)."""
    reveal_deployment(st)
    st.ready[:] = False
    st.previous = NONE
    start_turn(ctx, st, first_seat(st))
