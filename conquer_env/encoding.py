"""The observation and action encoding shared by the engine, both envs, the seats and the network.

The board *is* the grid: a W x H board is embedded as an H x W grid, cell ``(row y, column x)`` = point
``y * W + x``; no padding, so every cell is on the board (9 x 9 -> 9 x 9, 15 x 15 -> 15 x 15,
39 x 32 -> 32 rows x 39 columns). ``PLANES = (C, H, W)``; the observation is int8 flat ``[C * H * W]``
(plane-major, row-major) and egocentric: "own" is the seat to act.

====  ======================================================================
plane  meaning (1 on the point, else 0)
====  ======================================================================
0      own live dot (rule R-4.1)
1      opponent live dot
2      own dead dot (on the opponent's territory)
3      opponent dead dot (on own territory)
4      own sealed territory (rule R-7.1)
5      opponent sealed territory
6      the opponent's last action was a pass (1 everywhere): passing now ends the game (rule R-9.2)
7      on board (1 everywhere)
====  ======================================================================

Actions are absolute (never mirrored): ``ACTION_PLANES = 1`` plane of placements, action ``a < W * H``
places on point ``a`` (x = a % W, y = a // W); ``EXTRA_ACTIONS = 1``: action ``W * H`` is the pass
(rule R-3.1). ``A = W * H + 1``; the mask is int8 ``[A]``, 1 = legal (rule R-3.3; pass is legal while
the game runs, rule R-3.2).
"""

from __future__ import annotations

from conquer_env.options import ConquerOptions

#: number of observation planes and their names, in order
NUM_PLANES = 8
PLANE_NAMES: tuple[str, ...] = (
    "own_live",
    "opponent_live",
    "own_dead",
    "opponent_dead",
    "own_territory",
    "opponent_territory",
    "opponent_passed",
    "on_board",
)
#: placement planes and extra actions (pass)
ACTION_PLANES = 1
EXTRA_ACTIONS = 1
#: version of this layout, recorded by exported agents
OBSERVATION_VERSION = "conquer-obs-v1"


def planes(options: ConquerOptions) -> tuple[int, int, int]:
    """Return ``PLANES = (C, H, W)`` of the observation for a board size."""
    return (NUM_PLANES, options.height, options.width)


def observation_size(options: ConquerOptions) -> int:
    """Return D, the length of the flat observation."""
    return NUM_PLANES * options.num_points


def num_actions(options: ConquerOptions) -> int:
    """Return A = W * H + 1: one action per point plus the pass."""
    return ACTION_PLANES * options.num_points + EXTRA_ACTIONS


def pass_action(options: ConquerOptions) -> int:
    """Return the pass action, ``W * H``."""
    return options.num_points


def point_action(options: ConquerOptions, x: int, y: int) -> int:
    """Return the action placing a dot on (x, y); ValueError if off the board."""
    if not (0 <= x < options.width and 0 <= y < options.height):
        raise ValueError(f"point ({x}, {y}) is off the {options.width} x {options.height} board")
    return y * options.width + x


def action_point(options: ConquerOptions, action: int) -> tuple[int, int] | None:
    """Return (x, y) of a placement action, or None for the pass; ValueError if out of range."""
    if not 0 <= action <= options.num_points:
        raise ValueError(f"action {action} is out of range; allowed: 0..{options.num_points}")
    if action == options.num_points:
        return None
    return action % options.width, action // options.width
