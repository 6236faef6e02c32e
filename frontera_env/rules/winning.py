"""Winning (R-10): 70 % of the map, W(N) = ceil(7N/10) counted over all territories, or the last active player."""

from __future__ import annotations

from frontera_env.rules.context import Context
from frontera_env.state import ACTIVE, OVER, State


def check_win(ctx: Context, st: State) -> bool:
    """End the game if the current player owns >= W(N) or one active player is left; return True if over.

    Runs after every conquest and every abandonment (R-10.1, A36, A37); the game ends inside that action.
    """
    active = st.active_seats()
    if len(active) == 1:
        winner = active[0]
    elif st.current >= 0 and st.status[st.current] == ACTIVE and st.territory_count(st.current) >= ctx.win:
        winner = st.current
    else:
        return False
    st.winner = winner
    st.phase = OVER
    st.window[:] = -1
    return True
