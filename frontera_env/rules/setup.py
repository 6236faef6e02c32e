"""Setup (R-2): first player, the deal with and without fog, the deck and the simultaneous deployment.

The PRNG is consumed in this order (R-2.6): the first player, the deal, the deck; dice and reshuffles follow.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from frontera_env.rules.context import Context
from frontera_env.rules_errors import brief
from frontera_env.state import ACTIVE, NONE, SETUP, State

#: armies each player places in the deployment, and the second player's of a two-player game (R-2.7, A12)
DEPLOY_ARMIES, DEPLOY_ARMIES_SECOND_OF_TWO = 15, 20


def new_game(ctx: Context, players: int, seed: int) -> State:
    """Return the state after the lot, the deal and the deck, ready for the simultaneous deployment (R-2)."""
    if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 6:
        raise ValueError(f"a game has 2 to 6 players (an integer), got {brief(players)}")
    if ctx.n < 2 * players:
        raise ValueError(f"the map has {ctx.n} territories; {players} players need at least {2 * players} (R-2.1)")
    st = State.empty(players, ctx.n, seed)
    first = st.rng.below(players)
    st.order0[:] = [(first + i) % players for i in range(players)]
    owner = deal_fog(ctx, st) if ctx.fog else deal_plain(ctx, st)
    st.owner[:] = owner
    st.armies[:] = 1
    if ctx.cards:  # with cards off there is no deck
        deck = list(range(ctx.n + 2))
        st.rng.shuffle(deck)
        st.set_draw(deck)
    for i, seat in enumerate(st.order0):
        second_of_two = players == 2 and i == 1
        st.deploy_left[seat] = DEPLOY_ARMIES_SECOND_OF_TWO if second_of_two else DEPLOY_ARMIES
    st.phase = SETUP
    st.current = int(st.order0[0])
    return st


def shares(n: int, order0: list[int]) -> dict[int, int]:
    """Return each seat's number of territories: q, or q + 1 for the last r seats of order0 (R-2.3, A7)."""
    p = len(order0)
    q, r = divmod(n, p)
    return {seat: q + (1 if i >= p - r else 0) for i, seat in enumerate(order0)}


def deal_plain(ctx: Context, st: State) -> list[int]:
    """Return the owners of a deal without fog: shuffled ids, position k to reversed(order0)[k mod P] (R-2.4)."""
    ids = list(range(ctx.n))
    st.rng.shuffle(ids)
    rev = [int(s) for s in st.order0[::-1]]
    owner = [NONE] * ctx.n
    for k, t in enumerate(ids):
        owner[t] = rev[k % len(rev)]
    return owner


def hops(ctx: Context, sources: list[int]) -> list[int]:
    """Return each territory's hop distance to the nearest of ``sources`` on the land-and-sea graph."""
    dist = [-1] * ctx.n
    queue = deque(sources)
    for s in sources:
        dist[s] = 0
    while queue:
        u = queue.popleft()
        for v in ctx.neighbours[u]:
            if dist[v] < 0:
                dist[v] = dist[u] + 1
                queue.append(v)
    return dist


def deal_fog(ctx: Context, st: State) -> list[int]:
    """Return the owners of a fog deal: 2-3 connected zones per player, algorithm F-1..F-5 (R-2.5, A8)."""
    return fog_zones(ctx, st)[0]


def fog_zones(ctx: Context, st: State) -> tuple[list[int], list[tuple[int, list[int]]], list[int]]:
    """Return (owners, zones as (seat, territories) in zone order as F-4 left them, leftovers) of a fog deal."""
    order = [int(s) for s in st.order0]
    share = shares(ctx.n, order)
    owner = [NONE] * ctx.n
    zone_of = [NONE] * ctx.n
    zones: list[tuple[int, list[int]]] = []  # (seat, territories), in zone order
    count = {seat: (1 if share[seat] < 4 else 2 if share[seat] < 9 else 3) for seat in order}  # F-1
    for j in range(3):  # F-2, F-3
        for seat in order:
            if j >= count[seat]:
                continue
            free = [t for t in range(ctx.n) if owner[t] == NONE]
            if not zones:
                seed = free[st.rng.below(len(free))]
            else:
                dist = hops(ctx, [z[1][0] for z in zones])
                far = max(dist[t] for t in free)
                best = [t for t in free if dist[t] == far]
                seed = best[st.rng.below(len(best))]
            owner[seed], zone_of[seed] = seat, len(zones)
            zones.append((seat, [seed]))
    _grow_zones(ctx, st, order, share, owner, zone_of, zones)
    owned = {seat: owner.count(seat) for seat in order}
    leftovers = [t for t in range(ctx.n) if owner[t] == NONE]
    for t in leftovers:  # F-5
        near = {owner[u] for u in ctx.neighbours[t]} - {NONE}
        pool = [s for s in order if s in near and share[s] > owned[s]] or order
        seat = max(pool, key=lambda s: (share[s] - owned[s], -order.index(s)))
        owner[t] = seat
        owned[seat] += 1
    return owner, zones, leftovers


def _grow_zones(
    ctx: Context,
    st: State,
    order: list[int],
    share: dict[int, int],
    owner: list[int],
    zone_of: list[int],
    zones: list[tuple[int, list[int]]],
) -> None:
    """Grow the zones until no player can (F-4): largest shortfall first, then its smallest bordering zone."""

    def frontier(z: int) -> list[int]:
        return sorted({u for t in zones[z][1] for u in ctx.neighbours[t] if owner[u] == NONE})

    owned = {seat: len([z for z in zones if z[0] == seat]) for seat in order}
    while True:
        best: tuple[int, int] | None = None  # (seat, zone)
        for seat in order:
            if owned[seat] >= share[seat]:
                continue
            mine = [z for z, (s, _) in enumerate(zones) if s == seat and frontier(z)]
            if not mine:
                continue
            if best is None or share[seat] - owned[seat] > share[best[0]] - owned[best[0]]:
                best = (seat, min(mine, key=lambda z: (len(zones[z][1]), z)))
        if best is None:
            return
        seat, z = best
        cands = frontier(z)
        others = {zz for zz, (s, _) in enumerate(zones) if s == seat and zz != z}
        preferred = [t for t in cands if not any(zone_of[u] in others for u in ctx.neighbours[t])]
        pick_from = preferred or cands
        t = pick_from[st.rng.below(len(pick_from))]
        owner[t], zone_of[t] = seat, z
        zones[z][1].append(t)
        owned[seat] += 1


def setup_seat(st: State) -> int:
    """Return the seat the sequential deployment model asks next: the first active, unready seat in order0."""
    for seat in st.order0:
        if st.status[seat] == ACTIVE and not st.ready[seat]:
            return int(seat)
    return NONE


def place(st: State, seat: int, territory: int, count: int) -> None:
    """Place ``count`` of seat's deployment armies provisionally on its own ``territory`` (R-2.7)."""
    st.placed[seat, territory] += count
    st.deploy_left[seat] -= count
    st.current = setup_seat(st)


def take_back(st: State, seat: int, territory: int, count: int) -> None:
    """Return ``count`` provisional armies from ``territory``; this cancels seat's ready state (R-2.7)."""
    st.placed[seat, territory] -= count
    st.deploy_left[seat] += count
    st.ready[seat] = False
    st.current = setup_seat(st)


def all_ready(st: State) -> bool:
    """Return True when every active player has declared ready (R-2.7)."""
    return bool(np.all(st.ready[st.status == ACTIVE]))


def reveal_deployment(st: State) -> None:
    """Apply every active player's placements at once and clear them (R-2.7)."""
    for seat in st.active_seats():
        st.armies += st.placed[seat]
    st.placed[:] = 0
