"""Compiled helpers of the scripted AIs: one analysis pass and move pickers per decision.

Every kernel takes the engine's geometry tuple ``G`` and state arrays as the
rules kernels do (see :mod:`dw_env.rules.territory`). Moves are only ever taken
from the engine's own destination generator (:func:`piece_destinations`), so
every move these kernels return is legal; what they add is a cheap estimate of
how many own turns a piece still needs to reach a target land.

``kinds``/``dlist`` are the caller's scratch arrays (never the workspace's W[7],
W[8], which the engine uses internally).
"""

from __future__ import annotations

from numba import njit

from dw_env.rules.layout import KING_CELL, NO_OWNER, OWNER, SWAP
from dw_env.rules.moves import piece_destinations
from dw_env.rules.territory import cell_distance, count_knights, distance_to_territory, score, territory

#: an estimate meaning "not reachable by this route"
FAR = 1_000_000


@njit(cache=True, nogil=True)
def analyse(G, board, lands, scalars, W, tm, dist, counts, scores, need, libneed, king_land, seated):  # type: ignore[no-untyped-def]
    """Fill, for every player q: T(q), land distance to T(q), knights per land, score, and the
    conquest need (rule 6.2: N+1, +1 owned, + other knights, +1 centre) and liberation need
    (rule 7.1: N+3 + other knights) of every land; king land and whether the king is seated."""
    cell_land = G[1]
    land_throne = G[5]
    centre = G[12][8]
    queue = W[2]
    num_lands = lands.shape[1]
    count_knights(G, board, counts)
    for q in range(3):
        territory(G, lands, q, tm[q], queue)
        distance_to_territory(G, tm[q], dist[q], queue)
        scores[q] = score(G, lands, q)
        kc = scalars[KING_CELL + q]
        king_land[q] = cell_land[kc]
        seated[q] = 1 if land_throne[cell_land[kc]] == kc else 0
    for q in range(3):
        for land in range(num_lands):
            others = counts[0, land] + counts[1, land] + counts[2, land] - counts[q, land]
            owned = 1 if lands[OWNER, land] != NO_OWNER else 0
            centre_extra = 1 if land == centre else 0
            # dist = N + 1 (0 inside the territory)
            need[q, land] = dist[q, land] + owned + others + centre_extra
            libneed[q, land] = dist[q, land] + 2 + others


@njit(cache=True, nogil=True)
def _territory_bfs(G, tm_p, sources, out, queue):  # type: ignore[no-untyped-def]
    """Fill ``out[M]`` with the land steps inside T from the marked source lands (-1 elsewhere)."""
    land_nbr = G[7]
    tail = 0
    for land in range(tm_p.shape[0]):
        if tm_p[land] == 1 and sources[land] == 1:
            out[land] = 0
            queue[tail] = land
            tail += 1
        else:
            out[land] = -1
    head = 0
    while head < tail:
        here = queue[head]
        head += 1
        for d in range(6):
            m = land_nbr[here, d]
            if m >= 0 and tm_p[m] == 1 and out[m] < 0:
                out[m] = out[here] + 1
                queue[tail] = m
                tail += 1


@njit(cache=True, nogil=True)
def _inner_turns(lands, land, d, radius):  # type: ignore[no-untyped-def]
    """Return the king's turns from a cell ``d`` away to the throne, walking inside ``land``.

    Unowned land allows the double step (rule 4.8); an owned land only steps (or a jump).
    """
    if lands[OWNER, land] == NO_OWNER:
        return (d + 1) // 2
    return d


@njit(cache=True, nogil=True)
def king_turns(G, lands, scalars, p, tm_p, radius, hop, mark, queue, out):  # type: ignore[no-untyped-def]
    """Fill ``out[L]``: estimated own turns for p's king to stand on L's throne (0 if seated there).

    Routes: walking (steps and double steps, rules 4.2/4.8) or, from inside T(p), fast moves
    (rule 4.4: each reaches the current land's one-hop area and the cells touching it) to the
    border of L, then walking inside L.
    """
    cell_land = G[1]
    land_throne = G[5]
    land_nbr = G[7]
    kc = scalars[KING_CELL + p]
    kl = cell_land[kc]
    num_lands = lands.shape[1]
    in_territory = tm_p[kl] == 1
    if in_territory:
        mark[:] = 0
        mark[kl] = 1
        _territory_bfs(G, tm_p, mark, hop, queue)
    for land in range(num_lands):
        throne = land_throne[land]
        d = cell_distance(G, kc, throne)
        if d == 0:
            out[land] = 0
            continue
        if land == kl:
            out[land] = _inner_turns(lands, land, d, radius)
            continue
        inner = _inner_turns(lands, land, radius, radius)
        best = (max(0, d - radius) + 1) // 2 + inner
        if in_territory:
            if tm_p[land] == 1:
                best = min(best, max(1, hop[land]))
            else:
                m = FAR
                for k in range(6):
                    nb = land_nbr[land, k]
                    if nb >= 0 and tm_p[nb] == 1 and hop[nb] >= 0 and hop[nb] < m:
                        m = hop[nb]
                if m < FAR:
                    best = min(best, max(1, m) + inner)
        out[land] = best


@njit(cache=True, nogil=True)
def _king_estimate(G, lands, tm_p, e, target, throne, radius, inner, y):  # type: ignore[no-untyped-def]
    cell_land = G[1]
    if y == throne:
        return 0
    d = cell_distance(G, y, throne)
    here = cell_land[y]
    if here == target:
        return _inner_turns(lands, target, d, radius)
    best = (max(0, d - radius) + 1) // 2 + inner
    if tm_p[here] == 1 and e[here] >= 0:
        best = min(best, max(1, e[here]) + inner)
    return best


@njit(cache=True, nogil=True)
def king_toward(G, board, lands, scalars, W, kinds, dlist, p, target, tm_p, radius, e, mark, queue):  # type: ignore[no-untyped-def]
    """Return the legal destination of p's king that best approaches ``target``'s throne, or -1.

    The best destination lowers the estimated turns to the throne, then the cell distance;
    a destination that improves neither is not returned. Swaps are never chosen (they would
    pull a knight out of place).
    """
    land_throne = G[5]
    land_nbr = G[7]
    kc = scalars[KING_CELL + p]
    throne = land_throne[target]
    if kc == throne:
        return -1
    n = piece_destinations(G, board, lands, scalars, kc, W, kinds, dlist)
    if n <= 0:
        return -1
    # e[M]: land steps inside T from M to a T-land touching the target
    mark[:] = 0
    for k in range(6):
        nb = land_nbr[target, k]
        if nb >= 0:
            mark[nb] = 1
    _territory_bfs(G, tm_p, mark, e, queue)
    inner = _inner_turns(lands, target, radius, radius)
    best = -1
    best_est = _king_estimate(G, lands, tm_p, e, target, throne, radius, inner, kc)
    best_d = cell_distance(G, kc, throne)
    for i in range(n):
        y = dlist[i]
        if kinds[y] == SWAP:
            continue
        est = _king_estimate(G, lands, tm_p, e, target, throne, radius, inner, y)
        d = cell_distance(G, y, throne)
        if est < best_est or (est == best_est and d < best_d):
            best, best_est, best_d = y, est, d
    return best


@njit(cache=True, nogil=True)
def king_into_land(G, board, lands, scalars, W, kinds, dlist, p, land):  # type: ignore[no-untyped-def]
    """Return a legal destination of p's king inside ``land`` (the one nearest its throne), or -1."""
    cell_land = G[1]
    land_throne = G[5]
    kc = scalars[KING_CELL + p]
    n = piece_destinations(G, board, lands, scalars, kc, W, kinds, dlist)
    best, best_d = -1, FAR
    for i in range(n):
        y = dlist[i]
        if cell_land[y] != land or kinds[y] == SWAP:
            continue
        d = cell_distance(G, y, land_throne[land])
        if d < best_d:
            best, best_d = y, d
    return best


@njit(cache=True, nogil=True)
def _fast_access(G, board, tm_p, target, comp, access, queue):  # type: ignore[no-untyped-def]
    """Label the free cells of T(p) by connected component (``comp``, -1 elsewhere) and set
    ``access[k] = 1`` for components touching a free non-throne cell of ``target``: a fast knight
    (rule 4.5) standing next to such a component can enter the target in one move."""
    nbr = G[0]
    cell_land = G[1]
    is_throne = G[4]
    num_cells = board.shape[0]
    for c in range(num_cells):
        comp[c] = -1
    k = 0
    for c in range(num_cells):
        if comp[c] >= 0 or board[c] != 0 or tm_p[cell_land[c]] == 0:
            continue
        access[k] = 0
        comp[c] = k
        queue[0] = c
        head, tail = 0, 1
        while head < tail:
            x = queue[head]
            head += 1
            for d in range(6):
                y = nbr[x, d]
                if y < 0 or board[y] != 0:
                    continue
                if tm_p[cell_land[y]] == 1:
                    if comp[y] < 0:
                        comp[y] = k
                        queue[tail] = y
                        tail += 1
                elif cell_land[y] == target and is_throne[y] == 0:
                    access[k] = 1
        k += 1


@njit(cache=True, nogil=True)
def _knight_estimate(G, board, tm_p, dist_p, target, radius, comp, access, y, here):  # type: ignore[no-untyped-def]
    """Return a knight's estimated turns from cell ``y`` into ``target``; ``here`` is its current cell
    (-1 when ``y`` is a destination: it then stands on ``y`` and its own cell is free)."""
    nbr = G[0]
    cell_land = G[1]
    is_throne = G[4]
    land = cell_land[y]
    if land == target:
        return 0
    if tm_p[land] == 1 and dist_p[target] == 1:
        # one fast move if the free territory around y touches the target (rule 4.5)
        for d in range(6):
            z = nbr[y, d]
            if z < 0:
                continue
            if z == here or (board[z] == 0 and comp[z] >= 0 and access[comp[z]] == 1):
                return 1
            if board[z] == 0 and cell_land[z] == target and is_throne[z] == 0:
                return 1
        if here < 0 and comp[y] >= 0 and access[comp[y]] == 1:
            return 1
    return max(1, cell_distance(G, y, G[5][target]) - radius)


@njit(cache=True, nogil=True)
def knight_toward(  # type: ignore[no-untyped-def]
    G, board, lands, scalars, W, kinds, dlist, p, target, allowed, tm_p, dist_p, radius, out, comp, access, queue
):
    """Write into ``out[0:2]`` the allowed knight move (src, dst) that best approaches ``target``.

    The best move lowers the knight's estimated turns into the land the most, then ends
    nearest the throne (which also lets the king jump in, rule 4.9). A territory cell counts
    as one move away only if the free territory around it touches the target (fast knights
    are blocked by any piece, rule 4.5). ``out[0] = -1`` when no allowed knight gets closer.
    ``comp``/``access``/``queue`` are int32 cell-sized scratch arrays (not the workspace's,
    which the move generator overwrites). Returns the estimate of the chosen destination.
    """
    cell_land = G[1]
    throne = G[5][target]
    knight = 2 + 2 * p
    _fast_access(G, board, tm_p, target, comp, access, queue)
    out[0] = -1
    out[1] = -1
    best_gain, best_est, best_d = 0, FAR, FAR
    for c in range(board.shape[0]):
        if board[c] != knight or allowed[c] == 0 or cell_land[c] == target:
            continue
        here = _knight_estimate(G, board, tm_p, dist_p, target, radius, comp, access, c, c)
        n = piece_destinations(G, board, lands, scalars, c, W, kinds, dlist)
        for i in range(n):
            y = dlist[i]
            est = _knight_estimate(G, board, tm_p, dist_p, target, radius, comp, access, y, -1)
            gain = here - est
            if gain <= 0:
                continue
            d = cell_distance(G, y, throne)
            if est < best_est or (est == best_est and (gain > best_gain or (gain == best_gain and d < best_d))):
                best_gain, best_est, best_d = gain, est, d
                out[0] = c
                out[1] = y
    return best_est


@njit(cache=True, nogil=True)
def knight_entries(G, board, lands, scalars, W, kinds, dlist, p, allowed, src_cost, best_src, best_dst):  # type: ignore[no-untyped-def]
    """For every land, the allowed knight move of p that enters it this turn (``best_src = -1`` if none).

    Among several, the source with the lowest ``src_cost`` wins, then the destination
    nearest the land's throne.
    """
    cell_land = G[1]
    land_throne = G[5]
    knight = 2 + 2 * p
    num_lands = best_src.shape[0]
    for land in range(num_lands):
        best_src[land] = -1
        best_dst[land] = FAR
    for c in range(board.shape[0]):
        if board[c] != knight or allowed[c] == 0:
            continue
        n = piece_destinations(G, board, lands, scalars, c, W, kinds, dlist)
        home = cell_land[c]
        for i in range(n):
            y = dlist[i]
            land = cell_land[y]
            if land == home:
                continue
            key = src_cost[c] * 1000 + cell_distance(G, y, land_throne[land])
            if best_src[land] < 0:
                best_src[land] = c
                best_dst[land] = y
            else:
                old = best_src[land]
                old_key = src_cost[old] * 1000 + cell_distance(G, best_dst[land], land_throne[land])
                if key < old_key:
                    best_src[land] = c
                    best_dst[land] = y
    for land in range(num_lands):
        if best_src[land] < 0:
            best_dst[land] = -1


@njit(cache=True, nogil=True)
def territory_cuts(G, lands, q, tm_q, mark, queue, out):  # type: ignore[no-untyped-def]
    """Fill ``out[L]`` for each non-start land L of T(q): how many T(q) lands losing L would disconnect."""
    land_nbr = G[7]
    is_start = G[10]
    start = G[11][q]
    num_lands = tm_q.shape[0]
    size = 0
    for land in range(num_lands):
        size += tm_q[land]
        out[land] = 0
    for cut in range(num_lands):
        if tm_q[cut] == 0 or is_start[cut] == 1:
            continue
        mark[:] = 0
        mark[start] = 1
        queue[0] = start
        head, tail = 0, 1
        while head < tail:
            here = queue[head]
            head += 1
            for d in range(6):
                m = land_nbr[here, d]
                if m >= 0 and m != cut and mark[m] == 0 and tm_q[m] == 1:
                    mark[m] = 1
                    queue[tail] = m
                    tail += 1
        out[cut] = size - 1 - tail
