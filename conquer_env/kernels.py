"""Compiled rules (numba): placement and its resolution (rule R-6), pass, the endings, scores, the encoder.

The enclosure machinery (sectors, lockstep floods, sealing) is :mod:`conquer_env.enclosure`; this module
is the turn on top of it, and re-exports what the engine, the envs and the seats call.
"""

from __future__ import annotations

from numba import njit

from conquer_env.enclosure import (
    CONTROL_SIZE,
    DONE,
    MAX_FLOODS,
    START,
    capture_around,
    flood_together,
    is_wall,
    new_workspace,
    next_marks,
    rays_blocked,
    region_labels,
    seal_group,
)
from conquer_env.layout import (
    BASE_FIRED,
    CAPTURED,
    END_BOARD_FULL,
    END_REASON,
    END_TRUNCATED,
    END_TWO_PASSES,
    ERR_OCCUPIED,
    ERR_OFF_BOARD,
    ERR_OVER,
    ERR_SEALED,
    FREE,
    OVER,
    PASSES,
    PLACED,
    PLY,
    PLY_LIMIT,
    TO_MOVE,
)

__all__ = [
    "CONTROL_SIZE",
    "apply_action",
    "encode",
    "flood_together",
    "is_wall",
    "new_workspace",
    "pass_turn",
    "place",
    "rays_blocked",
    "region_labels",
    "scores",
]


@njit(cache=True, nogil=True)
def _finish(scalars):  # type: ignore[no-untyped-def]
    """Hand the turn over and apply the endings of rule R-9 (and the ply limit)."""
    scalars[TO_MOVE] = 1 - scalars[TO_MOVE]
    scalars[PLY] += 1
    if scalars[PASSES] >= 2:
        scalars[OVER] = 1
        scalars[END_REASON] = END_TWO_PASSES
    elif scalars[FREE] == 0:
        scalars[OVER] = 1
        scalars[END_REASON] = END_BOARD_FULL
    elif scalars[PLY] >= scalars[PLY_LIMIT]:
        scalars[OVER] = 1
        scalars[END_REASON] = END_TRUNCATED


@njit(cache=True, nogil=True)
def place(width, height, dots, owner, scalars, p, stamp, control, queue):  # type: ignore[no-untyped-def]
    """Place the mover's dot at point p and resolve it (rule R-6); return PLACED|CAPTURED|BASE_FIRED or ERR_*."""
    if scalars[OVER]:
        return ERR_OVER
    if p < 0 or p >= width * height:
        return ERR_OFF_BOARD
    if dots[p] != 0:
        return ERR_OCCUPIED
    if owner[p] != 0:
        return ERR_SEALED
    colour = scalars[TO_MOVE] + 1
    other = 3 - colour
    dots[p] = colour
    scalars[FREE] -= 1
    flags = PLACED
    low = next_marks(stamp, control)
    if capture_around(width, height, dots, owner, scalars, p, colour, stamp, low, queue, control) > 0:
        flags |= CAPTURED
    elif rays_blocked(width, height, dots, owner, p % width, p // width, other):
        control[START] = p
        flood_together(width, height, dots, owner, other, 1, stamp, low + MAX_FLOODS, queue, control, False)
        if control[DONE] == 2:
            seal_group(dots, owner, scalars, queue, width * height, control, 1, 0, other)
            flags |= BASE_FIRED
    scalars[PASSES] = 0
    _finish(scalars)
    return flags


@njit(cache=True, nogil=True)
def pass_turn(scalars):  # type: ignore[no-untyped-def]
    """Play a pass (rule R-3.1, R-9.2); return 0 or ERR_OVER."""
    if scalars[OVER]:
        return ERR_OVER
    scalars[PASSES] += 1
    _finish(scalars)
    return 0


@njit(cache=True, nogil=True)
def apply_action(width, height, dots, owner, scalars, action, stamp, control, queue):  # type: ignore[no-untyped-def]
    """Apply an action (a point, or ``width * height`` for pass); return its flags or a negative ERR_*."""
    if action == width * height:
        return pass_turn(scalars)
    return place(width, height, dots, owner, scalars, action, stamp, control, queue)


@njit(cache=True, nogil=True)
def scores(dots, owner, territory, out):  # type: ignore[no-untyped-def]
    """Write both seats' scores into out[2]: dots scoring (rule R-10.1) or territory scoring (rule R-10.2)."""
    out[0] = 0
    out[1] = 0
    for q in range(dots.shape[0]):
        w = owner[q]
        if w == 0:
            continue
        if territory or dots[q] == 3 - w:
            out[w - 1] += 1


@njit(cache=True, nogil=True)
def encode(dots, owner, scalars, obs, mask):  # type: ignore[no-untyped-def]
    """Write the acting seat's egocentric observation and action mask (layout in conquer_env.encoding)."""
    n = dots.shape[0]
    me = scalars[TO_MOVE] + 1
    op = 3 - me
    passed = scalars[PASSES] == 1
    running = scalars[OVER] == 0
    obs[:] = 0
    for q in range(n):
        d = dots[q]
        w = owner[q]
        if d == me:
            if w == op:
                obs[2 * n + q] = 1
            else:
                obs[q] = 1
        elif d == op:
            if w == me:
                obs[3 * n + q] = 1
            else:
                obs[n + q] = 1
        if w == me:
            obs[4 * n + q] = 1
        elif w == op:
            obs[5 * n + q] = 1
        if passed:
            obs[6 * n + q] = 1
        obs[7 * n + q] = 1
        mask[q] = 1 if running and d == 0 and w == 0 else 0
    mask[n] = 1 if running else 0
