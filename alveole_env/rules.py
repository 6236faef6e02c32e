"""The rules as compiled kernels over the flat state (:mod:`alveole_env.state`): move generation, apply, end checks.

Every kernel takes the geometry tables ``G = (RAYS, LINE_OF, NEIGHBORS)`` (:func:`tables`) and
preallocated arrays, allocates nothing on the hot path and never grows with the game's length.
A move is ``(cell, direction)``, encoded in this module as ``cell * 6 + direction``
(the engine's and the envs' action ints are the grid encoding of :mod:`alveole_env.encoding`).

* :func:`move_target` is R-3.2 to R-3.5 for one (piece, direction);
* :func:`list_moves` / :func:`has_move` are R-3.7 (:func:`alveole_env.encoding.legal_actions` lists action ints);
* :func:`apply_move` is R-3.6 followed by the end checks R-4.2, R-4.4 and the truncation R-4.6;
* :func:`count_groups` is R-4.1's connectivity (edge adjacency, A8);
* :func:`perft` counts move sequences (spec 7.9).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from alveole_env.geometry import LINE_OF, NEIGHBORS, NUM_CELLS, NUM_DIRECTIONS, RAYS
from alveole_env.state import (
    COUNT0,
    END_MOVER_CONNECTED,
    END_NO_LEGAL_MOVE,
    END_OPPONENT_CONNECTED,
    END_REASON,
    END_TRUNCATED,
    LAST_CAPTURE,
    LAST_FROM,
    LAST_TO,
    MAX_PLIES,
    OVER,
    PLY,
    TURN,
    WINNER,
)

#: the most moves a position can have: 9 pieces x 6 directions (R-3.7)
MAX_MOVES = 9 * NUM_DIRECTIONS
#: apply_move's errors (negative, the state unchanged)
ERR_OVER = -1
ERR_NOT_OWN = -2
ERR_ILLEGAL = -3

Tables = tuple[NDArray[np.int16], NDArray[np.int16], NDArray[np.int16]]


def tables() -> Tables:
    """Return the kernels' geometry tables ``(RAYS, LINE_OF, NEIGHBORS)`` (writable copies, one numba type)."""
    return (RAYS.copy(), LINE_OF.copy(), NEIGHBORS.copy())


def new_workspace() -> tuple[NDArray[np.int16], NDArray[np.int8]]:
    """Return the scratch arrays of :func:`count_groups` and :func:`apply_move` (one per thread)."""
    return np.zeros(NUM_CELLS, dtype=np.int16), np.zeros(NUM_CELLS, dtype=np.int8)


@njit(cache=True, nogil=True, inline="always")
def move_target(G, board, lines, c, d, own):  # type: ignore[no-untyped-def]
    """Return the destination of the piece on ``c`` moving along ``d``, or -1 if that move is illegal.

    R-3.2: the distance ``n`` is the number of pieces of both players on the whole line through ``c``
    along ``d``'s axis (the piece itself, pieces behind it, a capture target: A4, A7). R-3.5: the
    destination ``c + n * d`` must be on the board (A5). R-3.3: no enemy strictly between (A6).
    R-3.4: not an own piece.
    """
    rays, line_of = G[0], G[1]
    n = lines[line_of[c, d % 3]]
    if n >= rays.shape[2]:
        return -1
    t = rays[c, d, n]
    if t < 0 or board[t] == own:
        return -1
    for k in range(1, n):
        v = board[rays[c, d, k]]
        if v != 0 and v != own:
            return -1
    return t


@njit(cache=True, nogil=True)
def list_moves(G, board, lines, player, out):  # type: ignore[no-untyped-def]
    """Write the legal moves of ``player`` as ``cell * 6 + direction`` into ``out``, in that order; return the count.

    R-3.7: every (own piece, direction) pair that passes R-3.3 to R-3.5. Ignores whether the game is
    over (the caller checks ``scalars[OVER]``, R-4.3).
    """
    own = player + 1
    count = 0
    for c in range(board.shape[0]):
        if board[c] == own:
            for d in range(6):
                if move_target(G, board, lines, c, d, own) >= 0:
                    out[count] = c * 6 + d
                    count += 1
    return count


@njit(cache=True, nogil=True)
def has_move(G, board, lines, player):  # type: ignore[no-untyped-def]
    """Return True if ``player`` has at least one legal move (R-4.4)."""
    own = player + 1
    for c in range(board.shape[0]):
        if board[c] == own:
            for d in range(6):
                if move_target(G, board, lines, c, d, own) >= 0:
                    return True
    return False


@njit(cache=True, nogil=True)
def count_groups(G, board, player, stack, seen):  # type: ignore[no-untyped-def]
    """Return the number of groups of ``player``'s pieces under edge adjacency (R-4.1, A8); 0 with no pieces."""
    neighbors = G[2]
    own = player + 1
    seen[:] = 0
    groups = 0
    for start in range(board.shape[0]):
        if board[start] != own or seen[start]:
            continue
        groups += 1
        seen[start] = 1
        stack[0] = start
        top = 1
        while top > 0:
            top -= 1
            c = stack[top]
            for d in range(6):
                x = neighbors[c, d]
                if x >= 0 and board[x] == own and not seen[x]:
                    seen[x] = 1
                    stack[top] = x
                    top += 1
    return groups


@njit(cache=True, nogil=True)
def apply_move(G, board, lines, scalars, c, d, stack, seen):  # type: ignore[no-untyped-def]
    """Play the piece on ``c`` along ``d`` and run the end checks; return ``2 * destination + captured`` or ERR_*.

    On an error (game over, not the mover's piece, illegal direction) nothing changes. Otherwise:
    R-3.6 moves the piece and removes a captured one (R-3.4); R-4.2 checks the mover's connection
    first, then the opponent's (A9, A12); R-4.4 makes a next player without a legal move lose (A10);
    R-4.6 truncates a game still undecided after ``scalars[MAX_PLIES]`` plies.
    """
    if scalars[OVER]:
        return ERR_OVER
    line_of = G[1]
    player = scalars[TURN]
    own = player + 1
    if c < 0 or c >= board.shape[0] or board[c] != own:
        return ERR_NOT_OWN
    if d < 0 or d >= 6:
        return ERR_ILLEGAL
    t = move_target(G, board, lines, c, d, own)
    if t < 0:
        return ERR_ILLEGAL
    opponent = 1 - player
    captured = 1 if board[t] != 0 else 0
    board[c] = 0
    for a in range(3):
        lines[line_of[c, a]] -= 1
    if captured:
        scalars[COUNT0 + opponent] -= 1
    else:
        for a in range(3):
            lines[line_of[t, a]] += 1
    board[t] = own
    scalars[PLY] += 1
    scalars[LAST_FROM] = c
    scalars[LAST_TO] = t
    scalars[LAST_CAPTURE] = captured
    if count_groups(G, board, player, stack, seen) == 1:
        scalars[OVER] = 1
        scalars[WINNER] = player
        scalars[END_REASON] = END_MOVER_CONNECTED
    elif captured and count_groups(G, board, opponent, stack, seen) == 1:
        # only a capture can connect the opponent (R-4.2 step 2)
        scalars[OVER] = 1
        scalars[WINNER] = opponent
        scalars[END_REASON] = END_OPPONENT_CONNECTED
    else:
        scalars[TURN] = opponent
        if not has_move(G, board, lines, opponent):
            scalars[OVER] = 1
            scalars[WINNER] = player
            scalars[END_REASON] = END_NO_LEGAL_MOVE
        elif scalars[PLY] >= scalars[MAX_PLIES]:
            scalars[OVER] = 1
            scalars[WINNER] = -1
            scalars[END_REASON] = END_TRUNCATED
    return 2 * t + captured


@njit(cache=True, nogil=True)
def perft(G, board, lines, scalars, depth):  # type: ignore[no-untyped-def]
    """Return the number of legal move sequences of length ``depth`` (a finished game has no moves; spec 7.9).

    Truncation is ignored (R-4.6): the copies played here never stop at the ply limit.
    """
    if depth <= 0:
        return np.int64(1)
    if scalars[OVER]:
        return np.int64(0)
    n = board.shape[0]
    boards = np.empty((depth, n), dtype=board.dtype)
    liness = np.empty((depth, lines.shape[0]), dtype=lines.dtype)
    scals = np.empty((depth, scalars.shape[0]), dtype=scalars.dtype)
    moves = np.empty((depth, MAX_MOVES), dtype=np.int32)
    counts = np.zeros(depth, dtype=np.int32)
    index = np.zeros(depth, dtype=np.int32)
    stack = np.empty(n, dtype=np.int16)
    seen = np.empty(n, dtype=np.int8)
    boards[0] = board
    liness[0] = lines
    scals[0] = scalars
    scals[0, MAX_PLIES] = 2**30
    counts[0] = list_moves(G, boards[0], liness[0], scals[0, TURN], moves[0])
    if depth == 1:
        return np.int64(counts[0])
    total = np.int64(0)
    level = 0
    while level >= 0:
        if index[level] >= counts[level]:
            level -= 1
            continue
        m = moves[level, index[level]]
        index[level] += 1
        child = level + 1
        boards[child] = boards[level]
        liness[child] = liness[level]
        scals[child] = scals[level]
        apply_move(G, boards[child], liness[child], scals[child], m // 6, m % 6, stack, seen)
        if scals[child, OVER]:
            continue
        if child == depth - 1:
            total += list_moves(G, boards[child], liness[child], scals[child, TURN], moves[child])
            continue
        counts[child] = list_moves(G, boards[child], liness[child], scals[child, TURN], moves[child])
        index[child] = 0
        level = child
    return total
