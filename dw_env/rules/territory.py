"""Compiled helpers for territory, distance factor N, knight counts and scores.

``G`` is the geometry tuple built by ``dw_env.engine.kernel_tables``; ``W`` the
workspace tuple of preallocated scratch arrays (``dw_env.engine.Workspace``).
"""

from __future__ import annotations

from numba import njit

from dw_env.rules.layout import KING_CELL, NO_OWNER, OWNER


@njit(cache=True, nogil=True)
def cell_distance(G, a, b):  # type: ignore[no-untyped-def]
    """Return the hex distance between cells ``a`` and ``b`` (spec 1.1)."""
    cell_q, cell_r = G[2], G[3]
    dq = cell_q[a] - cell_q[b]
    dr = cell_r[a] - cell_r[b]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


@njit(cache=True, nogil=True)
def territory(G, lands, p, tmask, queue):  # type: ignore[no-untyped-def]
    """Mark T(p) in ``tmask`` (R-0.6): owned lands connected to p's start land."""
    land_nbr = G[7]
    start_lands = G[11]
    tmask[:] = 0
    s = start_lands[p]
    tmask[s] = 1
    queue[0] = s
    head, tail = 0, 1
    while head < tail:
        here = queue[head]
        head += 1
        for d in range(6):
            m = land_nbr[here, d]
            if m >= 0 and tmask[m] == 0 and lands[OWNER, m] == p:
                tmask[m] = 1
                queue[tail] = m
                tail += 1
    return tail


@njit(cache=True, nogil=True)
def distance_to_territory(G, tmask, dist, queue):  # type: ignore[no-untyped-def]
    """Fill ``dist[L]`` with the land distance from L to T(p); N_p(L) = dist - 1 (rule 6.3, A32)."""
    land_nbr = G[7]
    num_lands = tmask.shape[0]
    tail = 0
    for land in range(num_lands):
        if tmask[land]:
            dist[land] = 0
            queue[tail] = land
            tail += 1
        else:
            dist[land] = -1
    head = 0
    while head < tail:
        here = queue[head]
        head += 1
        for d in range(6):
            m = land_nbr[here, d]
            if m >= 0 and dist[m] < 0:
                dist[m] = dist[here] + 1
                queue[tail] = m
                tail += 1


@njit(cache=True, nogil=True)
def count_knights(G, board, counts):  # type: ignore[no-untyped-def]
    """Fill ``counts[player, land]`` with the knights each player has on each land."""
    cell_land = G[1]
    counts[:, :] = 0
    for c in range(board.shape[0]):
        v = board[c]
        if v > 0 and (v - 1) % 2 == 1:
            counts[(v - 1) // 2, cell_land[c]] += 1


@njit(cache=True, nogil=True)
def score(G, lands, p):  # type: ignore[no-untyped-def]
    """Return p's score: the points of every land p owns, connected or not (rule 8.3)."""
    land_points = G[9]
    total = 0
    for land in range(land_points.shape[0]):
        if lands[OWNER, land] == p:
            total += land_points[land]
    return total


@njit(cache=True, nogil=True)
def king_in_land(G, scalars, land, exclude):  # type: ignore[no-untyped-def]
    """Return True if a king of a player other than ``exclude`` stands in ``land``."""
    cell_land = G[1]
    for q in range(3):
        if q != exclude and cell_land[scalars[KING_CELL + q]] == land:
            return True
    return False


@njit(cache=True, nogil=True)
def conquest_holds(G, lands, scalars, counts, tmask, dist, p, land, starting, p_score):  # type: ignore[no-untyped-def]
    """Return CQ(p, land): the conquest condition of rules 6.1, 6.2 and 6.8.

    ``starting`` selects the starting form (the centre's point minimum applies,
    resolution A44); ``tmask``/``dist`` must describe T(p).
    """
    land_throne = G[5]
    land_ring = G[8]
    is_start = G[10]
    params = G[12]
    centre = params[8]
    owner = lands[OWNER, land]
    if is_start[land] == 1 or owner == p:
        return False
    if scalars[KING_CELL + p] != land_throne[land]:
        return False
    if king_in_land(G, scalars, land, p):  # rule 5.4
        return False
    others = 0
    for q in range(3):
        if q != p:
            others += counts[q, land]
    need = dist[land] + (1 if owner != NO_OWNER else 0) + others + (1 if land == centre else 0)
    if counts[p, land] < need:
        return False
    if land == centre:
        has_ring1 = False
        for m in range(tmask.shape[0]):
            if tmask[m] == 1 and land_ring[m] == 1:
                has_ring1 = True
                break
        if not has_ring1:  # rule 6.8(a): a path of own lands to ring 1
            return False
        if starting and p_score < params[4]:  # rule 6.8(b): the point minimum to start
            return False
    return True


@njit(cache=True, nogil=True)
def liberation_holds(G, lands, scalars, counts, dist, p, land):  # type: ignore[no-untyped-def]
    """Return LB(p, land): the liberation condition of rules 7.1-7.2 (A41)."""
    is_start = G[10]
    owner = lands[OWNER, land]
    if owner == NO_OWNER or owner == p or is_start[land] == 1:
        return False
    if king_in_land(G, scalars, land, -1):
        return False
    others = 0
    for q in range(3):
        if q != p:
            others += counts[q, land]
    return counts[p, land] >= dist[land] - 1 + 3 + others
