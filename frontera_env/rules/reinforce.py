"""Start of turn and reinforcements (R-4): card-territory bonus, base(T) plus region bonuses, DEPLOY."""

from __future__ import annotations

from frontera_env.rules.cards import card_territory_bonus
from frontera_env.rules.context import Context
from frontera_env.state import MOVES_PER_TURN, REINFORCE, State


def base(territories: int) -> int:
    """Return base(T) = max(3, floor(T/2)), the reinforcements for owning T territories (R-4.1)."""
    return max(3, territories // 2)


def owned_regions(ctx: Context, st: State, seat: int) -> list[int]:
    """Return the regions ``seat`` owns entirely; an ownerless territory blocks a region like a rival (1.3)."""
    return [r for r, members in enumerate(ctx.regions) if all(st.owner[t] == seat for t in members)]


def reinforcements(ctx: Context, st: State, seat: int) -> int:
    """Return base(T) plus the bonus of every region seat owns entirely (R-4.1 step 3)."""
    return base(st.territory_count(seat)) + sum(ctx.bonus[r] for r in owned_regions(ctx, st, seat))


def start_turn(ctx: Context, st: State, seat: int) -> None:
    """Start seat's turn: count it, pay card bonuses, set pool = Q, reset conquests and moves (R-4.1, A15, A30)."""
    st.current = seat
    st.turn_index += 1
    if ctx.cards:
        card_territory_bonus(ctx, st, seat)
    st.pool = st.quota_left = reinforcements(ctx, st, seat)
    st.conquests = 0
    st.moves_left = MOVES_PER_TURN
    st.window[:] = -1
    st.phase = REINFORCE


def deploy(st: State, territory: int, count: int) -> None:
    """Place ``count`` armies from the pool on an own territory (R-4.2 DEPLOY, R-6.4)."""
    st.armies[territory] += count
    st.pool -= count
