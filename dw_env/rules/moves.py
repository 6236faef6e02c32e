"""Compiled move generation: every legal destination of a piece, with its kind (rule 4).

Destinations are written to ``kinds[C]`` as bit flags (``STEP``, ``KING_MOVE``,
``FAST_KNIGHT``, ``DOUBLE_STEP``, ``JUMP``, ``SWAP``) and listed in ``dlist``; the
functions return how many there are. A cell reached by several kinds is one
action (rule 11.1: "two moves to the same cell are the same action"); only a
swap lands on an occupied cell, so it never collides with another kind.
"""

from __future__ import annotations

from numba import njit

from dw_env.rules.layout import (
    CD_HOLDER,
    CD_LEFT,
    DOUBLE_STEP,
    FAST_KNIGHT,
    JUMP,
    KING_CELL,
    KING_MOVE,
    NO_OWNER,
    OWNER,
    STEP,
    SWAP,
    TURN,
)
from dw_env.rules.territory import count_knights, territory


@njit(cache=True, nogil=True, inline="always")
def _mark(kinds, dlist, count, cell, flag):  # type: ignore[no-untyped-def]
    if kinds[cell] == 0:
        dlist[count] = cell
        count += 1
    kinds[cell] |= flag
    return count


@njit(cache=True, nogil=True)
def _hop_area(G, lands, p, here, landmark):  # type: ignore[no-untyped-def]
    """Mark the one-hop area A of rule 4.4 (A13): the land ``here`` plus adjacent own lands."""
    land_nbr = G[7]
    landmark[:] = 0
    landmark[here] = 1
    for d in range(6):
        m = land_nbr[here, d]
        if m >= 0 and lands[OWNER, m] == p:
            landmark[m] = 1


@njit(cache=True, nogil=True)
def _area_destinations(G, board, landmark, allow_thrones, flag, kinds, dlist, count):  # type: ignore[no-untyped-def]
    """Add the free cells of the marked lands and the free outside cells touching them (4.4, 4.7)."""
    nbr = G[0]
    cell_land = G[1]
    is_throne = G[4]
    land_cells = G[6]
    for land in range(landmark.shape[0]):
        if landmark[land] == 0:
            continue
        for i in range(land_cells.shape[1]):
            x = land_cells[land, i]
            if board[x] == 0 and (allow_thrones or is_throne[x] == 0):
                count = _mark(kinds, dlist, count, x, flag)
            for d in range(6):
                y = nbr[x, d]
                if y >= 0 and board[y] == 0 and landmark[cell_land[y]] == 0 and (allow_thrones or is_throne[y] == 0):
                    count = _mark(kinds, dlist, count, y, flag)
    return count


@njit(cache=True, nogil=True)
def king_entry_allowed(G, lands, scalars, p, src, dst):  # type: ignore[no-untyped-def]
    """Return False if the exile law's entry ban forbids p's king from src to dst (rule 5.1, A26, A27)."""
    cell_land = G[1]
    land_throne = G[5]
    target = cell_land[dst]
    if cell_land[src] == target or lands[OWNER, target] == p:
        return True
    for q in range(3):
        if q == p:
            continue
        kc = scalars[KING_CELL + q]
        if cell_land[kc] == target:
            if kc == land_throne[target]:  # (i) a rival king sits on the throne
                return False
            if lands[OWNER, target] == q:  # (ii) the land's owner has its king inside
                return False
    return True


@njit(cache=True, nogil=True)
def king_destinations(G, board, lands, scalars, p, src, W, kinds, dlist):  # type: ignore[no-untyped-def]
    """Fill the destinations of p's king at ``src`` (rules 4.2, 4.4, 4.8-4.12, 5.1); return their count."""
    nbr = G[0]
    cell_land = G[1]
    is_throne = G[4]
    params = G[12]
    tmask, queue_l, landmark, counts = W[3], W[2], W[6], W[5]
    kinds[:] = 0
    if scalars[CD_LEFT] > 0 and scalars[CD_HOLDER] == p:  # rule 4.12: the locked king
        return 0
    knight = 2 + 2 * p
    count = 0
    for d in range(6):  # 4.2 step
        y = nbr[src, d]
        if y >= 0 and board[y] == 0:
            count = _mark(kinds, dlist, count, y, STEP)
    territory(G, lands, p, tmask, queue_l)
    here = cell_land[src]
    if tmask[here] == 1:  # 4.4 king in own territory (A12, A13, A11: no blocking)
        _hop_area(G, lands, p, here, landmark)
        count = _area_destinations(G, board, landmark, True, KING_MOVE, kinds, dlist, count)
    for d in range(6):
        m = nbr[src, d]
        if m < 0:
            continue
        if board[m] == 0 and lands[OWNER, cell_land[m]] == NO_OWNER:  # 4.8 double step (A14-A16)
            for e in range(6):
                y = nbr[m, e]
                if y >= 0 and y != src and board[y] == 0:
                    count = _mark(kinds, dlist, count, y, DOUBLE_STEP)
        elif board[m] == knight:
            for e in range(6):  # 4.9 jump (A22)
                y = nbr[m, e]
                if y >= 0 and y != src and board[y] == 0:
                    count = _mark(kinds, dlist, count, y, JUMP)
            if is_throne[src] == 0:  # 4.10 swap, never from a throne
                count = _mark(kinds, dlist, count, m, SWAP)
    alone_rule = params[2] == 0
    if alone_rule:
        count_knights(G, board, counts)
    home = cell_land[src]
    kept = 0
    for i in range(count):
        y = dlist[i]
        ok = king_entry_allowed(G, lands, scalars, p, src, y)
        if ok and alone_rule:  # rule 4.11 (A24)
            target = cell_land[y]
            after = counts[p, target]
            if kinds[y] & SWAP:
                after -= 1  # the swapped knight leaves for the king's old cell
                if home == target:
                    after += 1
            if after == 0 and target != home:
                ok = False
        if ok:
            dlist[kept] = y
            kept += 1
        else:
            kinds[y] = 0
    return kept


@njit(cache=True, nogil=True)
def knight_destinations(G, board, lands, scalars, p, src, W, kinds, dlist):  # type: ignore[no-untyped-def]
    """Fill the destinations of p's knight at ``src`` (rules 4.2, 4.3, 4.5-4.7, 4.11); return their count."""
    nbr = G[0]
    cell_land = G[1]
    is_throne = G[4]
    params = G[12]
    queue_c, mark_c, queue_l, tmask, counts, landmark = W[0], W[1], W[2], W[3], W[5], W[6]
    kinds[:] = 0
    count = 0
    for d in range(6):  # 4.2 step, never onto a throne (4.3)
        y = nbr[src, d]
        if y >= 0 and board[y] == 0 and is_throne[y] == 0:
            count = _mark(kinds, dlist, count, y, STEP)
    territory(G, lands, p, tmask, queue_l)
    if tmask[cell_land[src]] == 1:
        if params[1] == 1:  # 4.5 fast knight: flood fill over free territory cells
            mark_c[:] = 0
            mark_c[src] = 1
            queue_c[0] = src
            head, tail = 0, 1
            while head < tail:
                x = queue_c[head]
                head += 1
                for d in range(6):
                    y = nbr[x, d]
                    if y >= 0 and mark_c[y] == 0 and board[y] == 0 and tmask[cell_land[y]] == 1:
                        mark_c[y] = 1
                        queue_c[tail] = y
                        tail += 1
            for i in range(tail):
                x = queue_c[i]
                if i > 0 and is_throne[x] == 0:  # free thrones are crossed, never a destination
                    count = _mark(kinds, dlist, count, x, FAST_KNIGHT)
                for d in range(6):  # outside cells touching the path (A17)
                    y = nbr[x, d]
                    if y >= 0 and board[y] == 0 and tmask[cell_land[y]] == 0 and is_throne[y] == 0:
                        count = _mark(kinds, dlist, count, y, FAST_KNIGHT)
        else:  # 4.7: like the king's one-hop area, never thrones (A21)
            _hop_area(G, lands, p, cell_land[src], landmark)
            count = _area_destinations(G, board, landmark, False, FAST_KNIGHT, kinds, dlist, count)
    if params[2] == 0:  # rule 4.11: the last knight may not leave the king's land
        king_land = cell_land[scalars[KING_CELL + p]]
        if cell_land[src] == king_land:
            count_knights(G, board, counts)
            if counts[p, king_land] == 1:
                kept = 0
                for i in range(count):
                    y = dlist[i]
                    if cell_land[y] == king_land:
                        dlist[kept] = y
                        kept += 1
                    else:
                        kinds[y] = 0
                count = kept
    return count


@njit(cache=True, nogil=True)
def piece_destinations(G, board, lands, scalars, src, W, kinds, dlist):  # type: ignore[no-untyped-def]
    """Fill the destinations of the current player's piece at ``src``; return -1 if it is not theirs."""
    p = scalars[TURN]
    v = board[src]
    if v == 1 + 2 * p:
        return king_destinations(G, board, lands, scalars, p, src, W, kinds, dlist)
    if v == 2 + 2 * p:
        return knight_destinations(G, board, lands, scalars, p, src, W, kinds, dlist)
    kinds[:] = 0
    return -1


@njit(cache=True, nogil=True)
def movable_pieces(G, board, lands, scalars, W, out):  # type: ignore[no-untyped-def]
    """Set ``out[c] = 1`` for each of the current player's pieces with a legal move; return their count."""
    nbr = G[0]
    is_throne = G[4]
    params = G[12]
    kinds, dlist = W[7], W[8]
    p = scalars[TURN]
    knight = 2 + 2 * p
    out[:] = 0
    total = 0
    quick = params[2] == 1  # with rule 4.11 off, one legal step proves a piece can move
    for c in range(board.shape[0]):
        v = board[c]
        if v == knight:
            movable = False
            if quick:
                for d in range(6):
                    y = nbr[c, d]
                    if y >= 0 and board[y] == 0 and is_throne[y] == 0:
                        movable = True
                        break
            if not movable:
                movable = knight_destinations(G, board, lands, scalars, p, c, W, kinds, dlist) > 0
        elif v == knight - 1:
            movable = False
            locked = scalars[CD_LEFT] > 0 and scalars[CD_HOLDER] == p
            if quick and not locked:  # a step the exile law allows proves the king can move
                for d in range(6):
                    y = nbr[c, d]
                    if y >= 0 and board[y] == 0 and king_entry_allowed(G, lands, scalars, p, c, y):
                        movable = True
                        break
            if not movable:
                movable = king_destinations(G, board, lands, scalars, p, c, W, kinds, dlist) > 0
        else:
            continue
        if movable:
            out[c] = 1
            total += 1
    return total


@njit(cache=True, nogil=True)
def movable_piece_list(G, board, lands, scalars, W, out, cells):  # type: ignore[no-untyped-def]
    """Like :func:`movable_pieces`, also listing the movable cells in ``cells``; return their count."""
    total = movable_pieces(G, board, lands, scalars, W, out)
    n = 0
    for c in range(out.shape[0]):
        if out[c]:
            cells[n] = c
            n += 1
    return total
