"""End of turn (R-8): the card draw, truncation at max_turns, and the next player's start of turn."""

from __future__ import annotations

from frontera_env.rules.cards import conquests_to_draw, draw_card
from frontera_env.rules.context import Context
from frontera_env.rules.order import next_seat
from frontera_env.rules.reinforce import start_turn
from frontera_env.state import OVER, State


def end_turn(ctx: Context, st: State, *, draw: bool = True) -> None:
    """End the current turn: draw one card if the conquests earn it (R-8.1, A21), then truncate or pass on."""
    seat = st.current
    if draw and ctx.cards and st.conquests >= conquests_to_draw(int(st.trades[seat])):
        draw_card(st, seat)
    pass_turn(ctx, st)


def pass_turn(ctx: Context, st: State) -> None:
    """End the game as truncated at max_turns (R-8.3, A39), or start the next player's turn (R-8.4)."""
    st.window[:] = -1
    st.pool = 0
    if ctx.max_turns and st.turn_index >= ctx.max_turns:
        st.phase = OVER
        st.truncated = True
        return
    nxt = next_seat(st)
    st.previous = st.current
    start_turn(ctx, st, nxt)
