"""Compiled turn logic: apply an action, the exile law, the end of turn and the end request.

Rules 3.3, 5.2-5.3, 6.4-6.8, 7.3-7.4 and 9.1-9.5. Each function works in place on
one game's ``board``/``lands``/``scalars`` and never allocates.
"""

from __future__ import annotations

from numba import njit

from dw_env.rules.layout import (
    CD_HOLDER,
    CD_LEFT,
    END_CENTRE,
    END_COUNTDOWN,
    END_REASON,
    END_REQUEST,
    END_REQUEST_ACTION,
    END_TRUNCATION,
    ERR_BAD_CELL,
    ERR_END_REQUEST,
    ERR_GAME_OVER,
    ERR_ILLEGAL_DESTINATION,
    ERR_NOT_YOUR_PIECE,
    FIRST,
    HOLD,
    KING_CELL,
    LIB,
    NO_OWNER,
    OVER,
    OWNER,
    PASS,
    PLY,
    ROUND,
    SWAP,
    TURN,
    WINNERS,
)
from dw_env.rules.moves import piece_destinations
from dw_env.rules.territory import (
    cell_distance,
    conquest_holds,
    count_knights,
    distance_to_territory,
    king_in_land,
    liberation_holds,
    score,
    territory,
)


@njit(cache=True, nogil=True)
def finish(G, lands, scalars, reason):  # type: ignore[no-untyped-def]
    """End the game; winners are all players with the top score (rule 9.5), none on truncation (A57)."""
    scalars[OVER] = 1
    scalars[END_REASON] = reason
    scalars[WINNERS] = 0
    if reason == END_TRUNCATION:
        return
    best = -1
    for p in range(3):
        s = score(G, lands, p)
        if s > best:
            best = s
    for p in range(3):
        if score(G, lands, p) == best:
            scalars[WINNERS] |= 1 << p


@njit(cache=True, nogil=True)
def place_exiled_king(G, board, lands, scalars, q, expelled_from, W):  # type: ignore[no-untyped-def]
    """Move q's expelled king to its exile cell (rule 5.3, resolution A28); return that cell."""
    cell_land = G[1]
    cell_r = G[3]
    cell_q = G[2]
    is_throne = G[4]
    land_throne = G[5]
    start_lands = G[11]
    tmask, queue_l = W[3], W[2]
    territory(G, lands, q, tmask, queue_l)
    x = scalars[KING_CELL + q]
    home = land_throne[start_lands[q]]
    best = -1
    bk0 = bk1 = bk2 = bk3 = bk4 = 0
    for relaxed in range(2):
        for y in range(board.shape[0]):
            land = cell_land[y]
            if board[y] != 0 or land == expelled_from or is_throne[y] == 1:
                continue
            if relaxed == 0 and king_in_land(G, scalars, land, q):
                continue
            k0 = cell_distance(G, x, y)
            k1 = 0 if tmask[land] == 1 else 1
            k2 = cell_distance(G, y, home)
            k3 = cell_r[y]
            k4 = cell_q[y]
            if best < 0 or (k0, k1, k2, k3, k4) < (bk0, bk1, bk2, bk3, bk4):
                best = y
                bk0, bk1, bk2, bk3, bk4 = k0, k1, k2, k3, k4
        if best >= 0:
            break
    # the relaxed pass (lands holding other kings allowed) only matters on a board with no other free cell
    board[best] = board[x]
    board[x] = 0
    scalars[KING_CELL + q] = best
    return best


@njit(cache=True, nogil=True)
def apply_exile_law(G, board, lands, scalars, p, src, dst, W):  # type: ignore[no-untyped-def]
    """Expel rival kings after p's king moved from src to dst (rule 5.2, A29: in turn order after p)."""
    cell_land = G[1]
    land_throne = G[5]
    target = cell_land[dst]
    entered = cell_land[src] != target
    if not ((entered and lands[OWNER, target] == p) or dst == land_throne[target]):
        return
    for k in range(1, 3):
        q = (p + k) % 3
        if cell_land[scalars[KING_CELL + q]] == target:
            place_exiled_king(G, board, lands, scalars, q, target, W)


@njit(cache=True, nogil=True)
def place_new_knight(G, board, p, land):  # type: ignore[no-untyped-def]
    """Create p's first-conquest knight next to the land's throne (rule 6.7, A38); return its cell."""
    cell_q, cell_r = G[2], G[3]
    is_throne = G[4]
    land_throne = G[5]
    land_cells = G[6]
    start_lands = G[11]
    throne = land_throne[land]
    home = land_throne[start_lands[p]]
    best = -1
    bk0 = bk1 = bk2 = bk3 = 0
    for scope in range(2):  # the land's own cells first, then the whole map (A38)
        size = land_cells.shape[1] if scope == 0 else board.shape[0]
        for i in range(size):
            y = land_cells[land, i] if scope == 0 else i
            if board[y] != 0 or is_throne[y] == 1:
                continue
            key = (cell_distance(G, y, throne), cell_distance(G, y, home), cell_r[y], cell_q[y])
            if best < 0 or key < (bk0, bk1, bk2, bk3):
                best = y
                bk0, bk1, bk2, bk3 = key
        if best >= 0:
            break
    if best >= 0:
        board[best] = 2 + 2 * p
    return best


@njit(cache=True, nogil=True)
def end_of_turn(G, board, lands, scalars, W):  # type: ignore[no-untyped-def]
    """Run the end-of-turn procedure EOT(p) for the player to act (rule 3.3 steps 1-5)."""
    cell_land = G[1]
    land_throne = G[5]
    params = G[12]
    queue_l, tmask, dist, counts = W[2], W[3], W[4], W[5]
    conquer_turns, lib_turns, centre = params[0], params[6], params[8]
    p = scalars[TURN]
    num_lands = lands.shape[1]

    # step 1: evaluate p's positions only (A35), counters +1 or reset
    territory(G, lands, p, tmask, queue_l)
    distance_to_territory(G, tmask, dist, queue_l)
    count_knights(G, board, counts)
    p_score = score(G, lands, p)
    king = scalars[KING_CELL + p]
    seat_land = cell_land[king] if land_throne[cell_land[king]] == king else -1
    for land in range(num_lands):
        if land == seat_land:
            starting = lands[HOLD + p, land] == 0
            if conquest_holds(G, lands, scalars, counts, tmask, dist, p, land, starting, p_score):
                lands[HOLD + p, land] += 1
            else:
                lands[HOLD + p, land] = 0
        else:
            lands[HOLD + p, land] = 0
        # only a rival's land can be liberated (rule 7.1); testing that here skips a kernel call
        # per land, whose array-argument reference counting dominated the end of turn
        owner = lands[OWNER, land]
        if owner != NO_OWNER and owner != p and liberation_holds(G, lands, scalars, counts, dist, p, land):
            lands[LIB + p, land] += 1
        else:
            lands[LIB + p, land] = 0

    # step 2: completions, decided on this state and applied together (A43)
    for land in range(num_lands):
        if lands[LIB + p, land] >= lib_turns:  # rule 7.4
            lands[OWNER, land] = NO_OWNER
            for q in range(3):
                lands[HOLD + q, land] = 0
                lands[LIB + q, land] = 0
    if seat_land >= 0 and lands[HOLD + p, seat_land] >= conquer_turns:  # rule 6.6
        lands[OWNER, seat_land] = p
        for q in range(3):
            lands[HOLD + q, seat_land] = 0
            lands[LIB + q, seat_land] = 0
        if seat_land == centre:  # rule 9.1: the game ends at once
            scalars[PLY] += 1
            finish(G, lands, scalars, END_CENTRE)
            return
        if lands[FIRST + p, seat_land] == 0:  # rule 6.7, once per (player, land) (A39)
            lands[FIRST + p, seat_land] = 1
            place_new_knight(G, board, p, seat_land)

    # step 3: a rival's seated centre position with a count that this turn broke (A46)
    if scalars[CD_HOLDER] < 0:
        for k in range(1, 3):
            h = (p + k) % 3
            if scalars[KING_CELL + h] == land_throne[centre] and lands[HOLD + h, centre] >= 1:
                territory(G, lands, h, tmask, queue_l)
                distance_to_territory(G, tmask, dist, queue_l)
                count_knights(G, board, counts)
                h_score = score(G, lands, h)
                if not conquest_holds(G, lands, scalars, counts, tmask, dist, h, centre, False, h_score):
                    scalars[CD_HOLDER] = h
                    scalars[CD_LEFT] = params[5]

    # step 4: the holder's own turns tick the countdown (A47)
    scalars[PLY] += 1
    if scalars[CD_HOLDER] == p:
        scalars[CD_LEFT] -= 1
        if scalars[CD_LEFT] <= 0:
            scalars[CD_LEFT] = 0
            finish(G, lands, scalars, END_COUNTDOWN)
            return

    # step 5: next player; a round ends after Red (rule 3.1); truncation (A57)
    scalars[TURN] = (p + 1) % 3
    if p == 2:
        scalars[ROUND] += 1
        if scalars[ROUND] > params[7]:
            scalars[ROUND] = params[7]
            finish(G, lands, scalars, END_TRUNCATION)


@njit(cache=True, nogil=True)
def end_request_legal(G, lands, scalars):  # type: ignore[no-untyped-def]
    """Return True if the player to act may request the end (rule 9.3, A54, A55)."""
    cell_land = G[1]
    params = G[12]
    if scalars[OVER] == 1:
        return False
    p = scalars[TURN]
    if lands[OWNER, cell_land[scalars[KING_CELL + p]]] != p:
        return False
    return score(G, lands, p) >= params[3]


@njit(cache=True, nogil=True)
def end_request(G, board, lands, scalars, W):  # type: ignore[no-untyped-def]
    """Apply an end request by the player to act (rule 9.4, A51-A53); the caller checked legality."""
    cell_land = G[1]
    land_throne = G[5]
    is_start = G[10]
    queue_l, tmask, dist, counts, landmark = W[2], W[3], W[4], W[5], W[6]
    p = scalars[TURN]
    num_lands = lands.shape[1]
    count_knights(G, board, counts)
    # 1. snapshot every other player's complete position, whatever its counter (A52)
    landmark[:] = -2  # new owner per land, -2 = unchanged
    for k in range(1, 3):
        q = (p + k) % 3
        territory(G, lands, q, tmask, queue_l)
        distance_to_territory(G, tmask, dist, queue_l)
        q_score = score(G, lands, q)
        king = scalars[KING_CELL + q]
        seat = cell_land[king]
        if land_throne[seat] == king:
            starting = lands[HOLD + q, seat] == 0
            if conquest_holds(G, lands, scalars, counts, tmask, dist, q, seat, starting, q_score):
                landmark[seat] = q
        for land in range(num_lands):
            if liberation_holds(G, lands, scalars, counts, dist, q, land):
                landmark[land] = NO_OWNER
    # 2. apply them all (no new knights); like a completion (6.6, 7.4) this clears the land's counters
    for land in range(num_lands):
        if landmark[land] != -2:
            lands[OWNER, land] = landmark[land]
            for q in range(3):
                lands[HOLD + q, land] = 0
                lands[LIB + q, land] = 0
    # 3. the requester loses the land holding its king, unless it is the start land
    king_land = cell_land[scalars[KING_CELL + p]]
    if is_start[king_land] == 0:
        lands[OWNER, king_land] = NO_OWNER
        for q in range(3):
            lands[HOLD + q, king_land] = 0
            lands[LIB + q, king_land] = 0
    scalars[PLY] += 1
    finish(G, lands, scalars, END_REQUEST)


@njit(cache=True, nogil=True)
def apply_action(G, board, lands, scalars, src, dst, W):  # type: ignore[no-untyped-def]
    """Play one action for the player to act and run its end of turn (rule 3.2).

    ``src`` is a cell, ``PASS`` or ``END_REQUEST_ACTION``; ``dst`` the destination cell.
    Returns the move-kind flags of the move (0 for pass or end request), or a
    negative ``ERR_*`` code, in which case nothing changed.
    """
    if scalars[OVER] == 1:
        return ERR_GAME_OVER
    if src == PASS:
        end_of_turn(G, board, lands, scalars, W)
        return 0
    if src == END_REQUEST_ACTION:
        if not end_request_legal(G, lands, scalars):
            return ERR_END_REQUEST
        end_request(G, board, lands, scalars, W)
        return 0
    num_cells = board.shape[0]
    if src < 0 or src >= num_cells or dst < 0 or dst >= num_cells:
        return ERR_BAD_CELL
    kinds, dlist = W[7], W[8]
    if piece_destinations(G, board, lands, scalars, src, W, kinds, dlist) < 0:
        return ERR_NOT_YOUR_PIECE
    flags = kinds[dst]
    if flags == 0:
        return ERR_ILLEGAL_DESTINATION
    return move_piece(G, board, lands, scalars, src, dst, flags, W)


@njit(cache=True, nogil=True)
def move_piece(G, board, lands, scalars, src, dst, flags, W):  # type: ignore[no-untyped-def]
    """Move the acting player's piece ``src -> dst`` (a legal move of kinds ``flags``), end the turn; return ``flags``.

    Checks nothing: :func:`apply_action` calls it once the move is legal, and a caller holding the move's
    destinations computed from this very position (``dw_env.rules.handle.play``) may call it directly.
    """
    p = scalars[TURN]
    piece = board[src]
    if flags & SWAP:  # rule 4.10: the knight takes the king's old cell
        board[src] = board[dst]
    else:
        board[src] = 0
    board[dst] = piece
    if piece == 1 + 2 * p:
        scalars[KING_CELL + p] = dst
        apply_exile_law(G, board, lands, scalars, p, src, dst, W)
    end_of_turn(G, board, lands, scalars, W)
    return flags
