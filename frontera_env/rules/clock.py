"""Clock timeouts (R-12) as engine calls: the auto-deploy AD, the auto-trade AT, and the expiry procedures."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from frontera_env.rules.abandon import start_game
from frontera_env.rules.cards import HAND_LIMIT, auto_trade_set, trade
from frontera_env.rules.conquest import close_window, forced_done
from frontera_env.rules.context import Context
from frontera_env.rules.reinforce import deploy
from frontera_env.rules.turn_end import end_turn
from frontera_env.state import ACTIVE, FORCED, REINFORCE, WINDOW, State


def auto_deploy(ctx: Context, owner: NDArray[np.int8], armies: NDArray[np.int32], seat: int, count: int) -> list[int]:
    """Return AD's territory for each of ``count`` armies, one at a time (R-12.4, A40).

    Each army goes to the own territory with the largest (front, pressure, -t): front is 1 with a neighbour not
    owned by ``seat``; pressure is those neighbours' armies minus the territory's own. ``armies`` is what the
    player may see (committed armies plus its own provisional ones) and is updated as armies are placed.
    """
    armies = armies.copy()
    own = [int(t) for t in np.flatnonzero(owner == seat)]
    picks = []
    for _ in range(count):
        best_key: tuple[int, int, int] | None = None
        best = -1
        for t in own:
            hostile = [u for u in ctx.neighbours[t] if owner[u] != seat]
            key = (1 if hostile else 0, int(sum(int(armies[u]) for u in hostile)) - int(armies[t]), -t)
            if best_key is None or key > best_key:
                best_key, best = key, t
        armies[best] += 1
        picks.append(best)
    return picks


def timeout_turn(ctx: Context, st: State) -> None:
    """Finish the current player's turn on clock expiry (R-12.2, A42): trade, close, place, end with the draw.

    An open window closes first: closing it moves no army, and the forced trade it may lead to is then made by
    AT like a reinforce-phase one, so no hand ends the turn with more than 5 cards.
    """
    seat = st.current
    if st.phase == WINDOW:
        close_window(st)
    if st.phase in (REINFORCE, FORCED):
        while st.hand_len[seat] >= HAND_LIMIT:
            trade(ctx, st, seat, auto_trade_set(ctx, st, seat))
    for t in auto_deploy(ctx, st.owner, st.armies, seat, st.pool):
        deploy(st, t, 1)
    if st.phase == FORCED:
        forced_done(st)
    end_turn(ctx, st)


def timeout_deployment(ctx: Context, st: State) -> None:
    """Place every unready player's remaining armies with AD, then start the game (R-12.3)."""
    for seat in st.active_seats():
        if st.status[seat] != ACTIVE or st.ready[seat]:
            continue
        seen = st.armies + st.placed[seat]  # committed armies plus only this player's own placements
        for t in auto_deploy(ctx, st.owner, seen, seat, int(st.deploy_left[seat])):
            st.placed[seat, t] += 1
        st.deploy_left[seat] = 0
        st.ready[seat] = True
    start_game(ctx, st)
