"""The heuristic seat's compiled evaluation and its 1-2 ply look-ahead over the engine's kernels.

The evaluation of a position for ``player`` is ``f(player) - f(opponent)`` with, per side (the
classic Lines of Action terms, adapted to the hex board):

* ``groups``: the number of groups beyond the first (R-4.1: one group wins);
* ``spread``: the mean hex distance of the pieces to their centre of mass (concentration);
* ``centre``: the mean hex distance of the pieces to the board centre (centralisation);
* ``links``: adjacent own pairs per piece (connectivity);
* ``mobility``: legal moves (R-3.7).

A finished game scores ``+WIN`` / ``-WIN``, so the search takes a winning move at once and, at
depth 2, avoids moves that let the opponent win (or that connect the opponent by a capture, R-4.2).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from alveole_env import rules
from alveole_env.geometry import CELLS
from alveole_env.state import MAX_PLIES, OVER, TURN, WINNER

WIN = 1.0e6
#: weights of (groups, spread, centre, links, mobility)
WEIGHTS = np.array([-1.0, -3.0, -0.6, 1.0, 0.02], dtype=np.float64)


def cube_table() -> NDArray[np.float64]:
    """Return ``[61, 3]`` cube coordinates (q, r, s) of every cell."""
    return np.array([(q, r, -q - r) for q, r in CELLS], dtype=np.float64)


@njit(cache=True, nogil=True)
def _side(G, cube, board, lines, player, weights, moves, stack, seen):  # type: ignore[no-untyped-def]
    neighbors = G[2]
    own = player + 1
    n = 0
    cq = 0.0
    cr = 0.0
    centre = 0.0
    links = 0
    for c in range(board.shape[0]):
        if board[c] == own:
            n += 1
            cq += cube[c, 0]
            cr += cube[c, 1]
            centre += max(abs(cube[c, 0]), abs(cube[c, 1]), abs(cube[c, 2]))
            for d in range(3):  # each adjacent pair once
                x = neighbors[c, d]
                if x >= 0 and board[x] == own:
                    links += 1
    if n == 0:
        return 0.0
    cq /= n
    cr /= n
    cs = -cq - cr
    spread = 0.0
    for c in range(board.shape[0]):
        if board[c] == own:
            dq = abs(cube[c, 0] - cq)
            dr = abs(cube[c, 1] - cr)
            ds = abs(cube[c, 2] - cs)
            spread += max(dq, max(dr, ds))
    groups = rules.count_groups(G, board, player, stack, seen) - 1
    mobility = rules.list_moves(G, board, lines, player, moves)
    return (
        weights[0] * groups
        + weights[1] * spread / n
        + weights[2] * centre / n
        + weights[3] * links / n
        + weights[4] * mobility
    )


@njit(cache=True, nogil=True)
def evaluate(G, cube, board, lines, scalars, player, weights, moves, stack, seen):  # type: ignore[no-untyped-def]
    """Return the value of the position for ``player`` (``+-WIN`` once the game is over)."""
    if scalars[OVER]:
        w = scalars[WINNER]
        if w < 0:
            return 0.0
        return WIN if w == player else -WIN
    mine = _side(G, cube, board, lines, player, weights, moves, stack, seen)
    theirs = _side(G, cube, board, lines, 1 - player, weights, moves, stack, seen)
    return mine - theirs


@njit(cache=True, nogil=True)
def score_moves(G, cube, board, lines, scalars, weights, depth, out):  # type: ignore[no-untyped-def]
    """Write the look-ahead value of each legal move (``cell * 6 + dir`` order) into ``out``; return the count.

    Depth 1: the evaluation after the move. Depth 2: the worst evaluation over the opponent's replies.
    """
    player = scalars[TURN]
    n = board.shape[0]
    root = np.empty(rules.MAX_MOVES, dtype=np.int32)
    replies = np.empty(rules.MAX_MOVES, dtype=np.int32)
    scratch = np.empty(rules.MAX_MOVES, dtype=np.int32)
    stack = np.empty(n, dtype=np.int16)
    seen = np.empty(n, dtype=np.int8)
    b1 = np.empty_like(board)
    l1 = np.empty_like(lines)
    s1 = np.empty_like(scalars)
    b2 = np.empty_like(board)
    l2 = np.empty_like(lines)
    s2 = np.empty_like(scalars)
    count = rules.list_moves(G, board, lines, player, root)
    for i in range(count):
        b1[:] = board
        l1[:] = lines
        s1[:] = scalars
        s1[MAX_PLIES] = 2**30  # the look-ahead never stops at the ply limit
        rules.apply_move(G, b1, l1, s1, root[i] // 6, root[i] % 6, stack, seen)
        if depth <= 1 or s1[OVER]:
            out[i] = evaluate(G, cube, b1, l1, s1, player, weights, scratch, stack, seen)
            continue
        worst = WIN * 10
        m = rules.list_moves(G, b1, l1, s1[TURN], replies)
        for j in range(m):
            b2[:] = b1
            l2[:] = l1
            s2[:] = s1
            rules.apply_move(G, b2, l2, s2, replies[j] // 6, replies[j] % 6, stack, seen)
            v = evaluate(G, cube, b2, l2, s2, player, weights, scratch, stack, seen)
            if v < worst:
                worst = v
                if worst <= -WIN:
                    break
        out[i] = worst
    return count
