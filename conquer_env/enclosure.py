"""Enclosure (rule R-5.2), compiled: bounded per-move detection of the regions a new dot closes, and sealing.

Enclosure (rule R-5.2) is an N4 flood from the frame over the points that are not the player's walls
(live dots). Only regions bounded by the new dot can appear when a dot is placed (spec R-6, verified
fact I2), so a placement never rescans the board:

1. Around the new dot ``p`` the eight neighbours, in cyclic order, split its non-wall orthogonal
   neighbours into *sectors* (two orthogonal neighbours are in one sector when the diagonal point
   between them is no wall either, so an N4 path joins them right beside ``p``)::

        NW  N  NE        a sector: a run of non-wall orthogonals joined
         W  p  E         through non-wall diagonals; off-board points
        SW  S  SE        count as non-wall and as outside (the frame)

   One sector or none: every point the new wall touches is still joined, so nothing closed.
2. With two or more sectors they are flooded together, one step each in turn (``flood_together``):
   each flood is a depth-first search trying the direction of the nearest edge first; floods that
   meet merge; a flood touching the border is open (the border reaches the frame, rule R-5.4); a
   flood that runs dry is enclosed. Before the move the frame reached ``p``, so some sector is open:
   once every group but one is decided and none is open, the last one is the open one and the search
   stops. The enclosed groups cost their size, the open ones no more steps than that.
3. A closed sector holding a live opponent dot is sealed (rule R-7); otherwise it is an open base
   (rule R-8) and nothing changes.
4. Step 3 of rule R-6 floods the opponent's walls from ``p`` only when step 2 sealed nothing: only
   the placed dot can have entered an opponent's base (verified fact I6). A cheap necessary test runs
   first: a point is enclosed only if each of the four straight rays from it meets a wall before the
   edge (a link crossing a grid line always has an end on it).

A closed flood costs the region's size; an open one heads for the nearest edge. Visited marks are a
generation-stamped array, never cleared.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from conquer_env.layout import FREE

# the eight neighbours in cyclic order N, NE, E, SE, S, SW, W, NW: even indices are orthogonal
RING_DX = (0, 1, 1, 1, 0, -1, -1, -1)
RING_DY = (-1, -1, 0, 1, 1, 1, 0, -1)
# the four orthogonal directions: 0 up, 1 right, 2 down, 3 left
DX4 = (0, 1, 0, -1)
DY4 = (-1, 0, 1, 0)
# push order relative to the preferred direction: the preferred one is pushed last, so popped first
PUSH_ORDER = (2, 1, 3, 0)
#: marks one placement uses in the stamp array (4 sector floods + the opponent's flood)
MARKS_PER_MOVE = 5
MAX_FLOODS = 4
_STAMP_RESET = 1 << 30
# slots of the control array (int32[CONTROL_SIZE]): slot 0 is the stamp generation
_SP, _VC, _PARENT, _OPEN, DONE, START = 1, 5, 9, 13, 17, 21
CONTROL_SIZE = 32


def new_workspace(num_points: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return (stamp int32[n], control int32[32], queue int32[8n]): the floods' scratch, one per thread."""
    control = np.zeros(CONTROL_SIZE, np.int32)
    control[0] = 1
    return np.zeros(num_points, np.int32), control, np.zeros(2 * MAX_FLOODS * num_points, np.int32)


@njit(cache=True, nogil=True)
def is_wall(dots, owner, q, colour):  # type: ignore[no-untyped-def]
    """Return True iff point q holds a live dot of ``colour`` (rule R-4.1, R-5.1)."""
    return dots[q] == colour and owner[q] != 3 - colour


@njit(cache=True, nogil=True)
def rays_blocked(width, height, dots, owner, x, y, colour):  # type: ignore[no-untyped-def]
    """Return True iff each straight ray from (x, y) meets a wall of ``colour`` before leaving the board."""
    for d in range(4):
        dx = DX4[d]
        dy = DY4[d]
        cx = x + dx
        cy = y + dy
        hit = False
        while 0 <= cx < width and 0 <= cy < height:
            q = cy * width + cx
            if dots[q] == colour and owner[q] != 3 - colour:
                hit = True
                break
            cx += dx
            cy += dy
        if not hit:
            return False
    return True


@njit(cache=True, nogil=True)
def _root(control, i):  # type: ignore[no-untyped-def]
    while control[_PARENT + i] != i:
        i = control[_PARENT + i]
    return i


@njit(cache=True, nogil=True)
def _preferred(x, y, width, height):  # type: ignore[no-untyped-def]
    """Return the direction (0 up, 1 right, 2 down, 3 left) of the nearest edge from (x, y)."""
    best = y
    d = 0
    if width - 1 - x < best:
        best = width - 1 - x
        d = 1
    if height - 1 - y < best:
        best = height - 1 - y
        d = 2
    if x < best:
        d = 3
    return d


@njit(cache=True, nogil=True)
def _undecided_groups(control, count):  # type: ignore[no-untyped-def]
    """Return how many groups are neither open nor run dry (some flood of theirs still has points to visit)."""
    undecided = 0
    for i in range(count):
        if _root(control, i) != i or control[_OPEN + i]:
            continue
        for j in range(count):
            if _root(control, j) == i and control[DONE + j] == 0:
                undecided += 1
                break
    return undecided


@njit(cache=True, nogil=True)
def _any_open(control, count):  # type: ignore[no-untyped-def]
    """Return True iff some group is known to reach the frame."""
    for i in range(count):  # noqa: SIM110 - compiled code: no generators
        if _root(control, i) == i and control[_OPEN + i]:
            return True
    return False


@njit(cache=True, nogil=True)
def flood_together(width, height, dots, owner, colour, count, stamp, low, queue, control, last_is_open):  # type: ignore[no-untyped-def]
    """Flood ``count`` (<= 4) starts (control[START + i]) over non-walls of ``colour`` in lockstep (rule R-5.2).

    Each flood is a depth-first search that tries the direction of the nearest edge first, so an open
    flood usually reaches the border in about as many steps as the edge is far. Floods that meet are
    merged (union-find); a flood that reaches the border makes its group open; a group whose floods all
    ran dry is enclosed. With ``last_is_open`` the search stops as soon as one undecided group is left
    and no group is open: it is the open one (the caller knows one exists). On return, flood i's group is
    enclosed iff ``control[DONE + i] == 2``; its visited points are
    ``queue[(4 + i) * n : (4 + i) * n + control[_VC + i]]``.
    """
    n = width * height
    other = 3 - colour
    for i in range(count):
        start = control[START + i]
        stamp[start] = low + i
        queue[i * n] = start
        control[_SP + i] = 1
        control[_VC + i] = 0
        control[_PARENT + i] = i
        control[_OPEN + i] = 0
        control[DONE + i] = 0
    while True:
        for i in range(count):
            if control[DONE + i]:
                continue
            r0 = _root(control, i)
            sp = control[_SP + i]
            if control[_OPEN + r0] or sp == 0:
                control[DONE + i] = 1
                continue
            sp -= 1
            q = queue[i * n + sp]
            control[_SP + i] = sp
            queue[(MAX_FLOODS + i) * n + control[_VC + i]] = q
            control[_VC + i] += 1
            x = q % width
            y = q // width
            if x == 0 or y == 0 or x == width - 1 or y == height - 1:
                control[_OPEN + r0] = 1
                control[DONE + i] = 1
                continue
            pd = _preferred(x, y, width, height)
            for k in range(4):
                d = (pd + PUSH_ORDER[k]) % 4
                r = q + DX4[d] + DY4[d] * width
                s = stamp[r]
                if low <= s < low + MAX_FLOODS:
                    rj = _root(control, s - low)
                    ri = _root(control, i)
                    if ri != rj:
                        control[_PARENT + rj] = ri
                        if control[_OPEN + rj]:
                            control[_OPEN + ri] = 1
                    continue
                if dots[r] == colour and owner[r] != other:
                    continue
                stamp[r] = low + i
                queue[i * n + control[_SP + i]] = r
                control[_SP + i] += 1
        undecided = _undecided_groups(control, count)
        if undecided == 0 or (last_is_open and undecided == 1 and not _any_open(control, count)):
            break
    # a group with a flood still running is the open one (or, in an own base, captures nothing): mark it
    # open first, then write every flood's result, so no flood's result is read after it was overwritten
    for i in range(count):
        if control[DONE + i] == 0:
            control[_OPEN + _root(control, i)] = 1
    for i in range(count):
        control[DONE + i] = 1 if control[_OPEN + _root(control, i)] else 2


@njit(cache=True, nogil=True)
def next_marks(stamp, control):  # type: ignore[no-untyped-def]
    low = control[0]
    if low > _STAMP_RESET:
        stamp[:] = 0
        low = 1
    control[0] = low + MARKS_PER_MOVE
    return low


@njit(cache=True, nogil=True)
def seal_group(dots, owner, scalars, queue, n, control, count, root, colour):  # type: ignore[no-untyped-def]
    """Seal the visited points of every flood in group ``root`` for ``colour`` (rule R-7.1)."""
    for i in range(count):
        if _root(control, i) != root:
            continue
        base = (MAX_FLOODS + i) * n
        for k in range(control[_VC + i]):
            r = queue[base + k]
            if dots[r] == 0 and owner[r] == 0:
                scalars[FREE] -= 1
            owner[r] = colour


@njit(cache=True, nogil=True)
def _group_captures(dots, owner, queue, n, control, count, root, colour):  # type: ignore[no-untyped-def]
    """Return True iff group ``root`` holds a live dot of the other colour (rule R-5.5)."""
    other = 3 - colour
    for i in range(count):
        if _root(control, i) != root:
            continue
        base = (MAX_FLOODS + i) * n
        for k in range(control[_VC + i]):
            r = queue[base + k]
            if dots[r] == other and owner[r] != colour:
                return True
    return False


@njit(cache=True, nogil=True)
def capture_around(width, height, dots, owner, scalars, p, colour, stamp, low, queue, control):  # type: ignore[no-untyped-def]
    """Seal every capturing region the new wall at p closed for ``colour`` (rule R-6 step 2); return the count."""
    x = p % width
    y = p // width
    nonwall = 0
    for k in range(8):
        cx = x + RING_DX[k]
        cy = y + RING_DY[k]
        if not (0 <= cx < width and 0 <= cy < height) or not is_wall(dots, owner, cy * width + cx, colour):
            nonwall |= 1 << k
    # a sector starts at orthogonal i when i is no wall and is not joined to the previous orthogonal
    count = 0
    sectors = 0
    outside = False
    for i in range(4):
        k = 2 * i
        if not nonwall & (1 << k):
            continue
        prev = (k + 6) % 8
        if (nonwall & (1 << prev)) and (nonwall & (1 << (k + 7) % 8)):
            continue
        sectors += 1
        cx = x + RING_DX[k]
        cy = y + RING_DY[k]
        if 0 <= cx < width and 0 <= cy < height:
            control[START + count] = cy * width + cx
            count += 1
        else:
            outside = True
    if sectors <= 1 or count == 0:
        return 0
    # one sector at least is open (the frame reached p before it became a wall), unless p lay in an own
    # open base, whose parts hold no live rival (fact I2): so the last undecided group may be taken as open
    flood_together(width, height, dots, owner, colour, count, stamp, low, queue, control, not outside)
    n = width * height
    sealed = 0
    for i in range(count):
        if control[DONE + i] != 2 or _root(control, i) != i:
            continue
        if _group_captures(dots, owner, queue, n, control, count, i, colour):
            seal_group(dots, owner, scalars, queue, n, control, count, i, colour)
            sealed += 1
    return sealed


@njit(cache=True, nogil=True)
def _spread(width, height, dots, owner, colour, labels, queue, tail, mark):  # type: ignore[no-untyped-def]
    """Flood 4-connected from ``queue[:tail]`` (already marked) over unlabelled non-wall points, marking ``mark``.

    A wall is a live dot of ``colour`` (on a point the other colour does not own).
    """
    other = 3 - colour
    head = 0
    while head < tail:
        q = queue[head]
        head += 1
        x = q % width
        y = q // width
        for d in range(4):
            cx = x + DX4[d]
            cy = y + DY4[d]
            if 0 <= cx < width and 0 <= cy < height:
                r = cy * width + cx
                if labels[r] == 0 and not (dots[r] == colour and owner[r] != other):
                    labels[r] = mark
                    queue[tail] = r
                    tail += 1


@njit(cache=True, nogil=True)
def region_labels(width, height, dots, owner, colour, labels, queue):  # type: ignore[no-untyped-def]
    """Label the enclosed regions of ``colour`` on the whole board (rule R-5.2); return how many there are.

    labels[q] = k > 0 for the k-th enclosed region, 0 for walls and for points the frame reaches. A
    whole-board pass: for loading, validating and drawing positions, never on the per-move path.
    """
    n = width * height
    other = 3 - colour
    labels[:] = 0
    # flood from the frame: every non-wall border point, marked -1
    tail = 0
    for q in range(n):
        x = q % width
        y = q // width
        border = x == 0 or y == 0 or x == width - 1 or y == height - 1
        if border and not (dots[q] == colour and owner[q] != other):
            labels[q] = -1
            queue[tail] = q
            tail += 1
    _spread(width, height, dots, owner, colour, labels, queue, tail, -1)
    count = 0
    for s in range(n):
        if labels[s] != 0 or (dots[s] == colour and owner[s] != other):
            continue
        count += 1
        labels[s] = count
        queue[0] = s
        _spread(width, height, dots, owner, colour, labels, queue, 1, count)
    for q in range(n):
        if labels[q] < 0:
            labels[q] = 0
    return count
