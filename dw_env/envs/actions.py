"""Env actions and map cells: the acting player's rotated frame.

The action space is ``Discrete(C + 2)`` for a map of ``C`` cells::

    0 .. C-1   a cell, named in the acting player's frame (a piece to choose, then its destination)
    C          pass (rule 3.2b)
    C + 1      end request (rules 9.3-9.4)

The frame of player ``p`` is the map turned by the map's own 120-degree symmetry
(``Geometry.rotation_power``) ``(3 - p) % 3`` times, which carries p's start land onto
Blue's. Blue's frame is the map itself; Green's and Red's are rotations of it. Frame cell
``i`` is the map cell that lands on cell ``i`` after the rotation, so frame indices keep the
map's ``(r, q)`` numbering and every player sees its own start land in the same corner
(as PettingZoo's chess mirrors the board for black).
"""

from __future__ import annotations

import functools
import operator
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dw_env.engine import END_REQUEST_MOVE, PASS_MOVE, IllegalActionError, Move, check_action
from dw_env.errors import brief
from dw_env.geometry import Geometry, build_geometry
from dw_env.info import NUM_PLAYERS
from dw_env.rules import layout as lay

I32 = NDArray[np.int32]


@dataclass(frozen=True, eq=False)
class Frames:
    """Per-player rotation tables between map indices and frame indices (int32, read-only)."""

    cell_to_frame: I32  # [3, C] map cell -> frame cell of each player
    cell_from_frame: I32  # [3, C] frame cell -> map cell
    land_to_frame: I32  # [3, L]
    land_from_frame: I32  # [3, L]

    def kernel_tables(self) -> tuple[I32, I32, I32, I32]:
        """Return the tables as the tuple ``F`` the env kernels take."""
        return self.cell_to_frame, self.cell_from_frame, self.land_to_frame, self.land_from_frame


@functools.cache
def frames(land_radius: int, map_radius: int) -> Frames:
    """Return the (cached) frame tables of a map."""
    g = build_geometry(land_radius, map_radius)
    to_c = np.zeros((NUM_PLAYERS, g.num_cells), dtype=np.int32)
    from_c = np.zeros_like(to_c)
    to_l = np.zeros((NUM_PLAYERS, g.num_lands), dtype=np.int32)
    from_l = np.zeros_like(to_l)
    for p in range(NUM_PLAYERS):
        # rotation_power(k) maps start land q to start land q + k, so 3 - p brings p's onto Blue's
        to_c[p], to_l[p] = g.rotation_power((NUM_PLAYERS - p) % NUM_PLAYERS)
        from_c[p], from_l[p] = g.rotation_power(p)
    for table in (to_c, from_c, to_l, from_l):
        table.setflags(write=False)
    return Frames(to_c, from_c, to_l, from_l)


def frames_of(geometry: Geometry) -> Frames:
    """Return the frame tables of a geometry."""
    return frames(geometry.land_radius, geometry.map_radius)


def num_actions(geometry: Geometry) -> int:
    """Return the size of the action space: the cells, pass and end request."""
    return geometry.num_cells + 2


def pass_action(geometry: Geometry) -> int:
    """Return the pass action (rule 3.2b)."""
    return geometry.num_cells


def end_request_action(geometry: Geometry) -> int:
    """Return the end-request action (rules 9.3-9.4)."""
    return geometry.num_cells + 1


def _integer(value: Any, what: str) -> int:
    """Return ``value`` as an int if it is an integer (numpy integers too, never a bool), else raise ValueError."""
    if type(value) is int:
        return int(value)
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise ValueError(f"{what} must be an integer, got {brief(value)}")
    return operator.index(value)


def _check_player(player: Any) -> int:
    seat = _integer(player, "player")
    if not 0 <= seat < NUM_PLAYERS:
        raise ValueError(f"player {brief(seat)} is not a seat; allowed: 0..{NUM_PLAYERS - 1}")
    return seat


def action_to_cell(geometry: Geometry, player: int, action: int) -> int:
    """Return the map cell an action names in ``player``'s frame.

    The pass and end-request actions return the engine codes ``layout.PASS`` and
    ``layout.END_REQUEST_ACTION``.
    """
    player = _check_player(player)
    action = _integer(action, "action")
    c = geometry.num_cells
    if not 0 <= action < c + 2:
        raise ValueError(f"action {brief(action)} is out of range; allowed: 0..{c + 1} ({c} pass, {c + 1} end request)")
    if action == c:
        return lay.PASS
    if action == c + 1:
        return lay.END_REQUEST_ACTION
    return int(frames_of(geometry).cell_from_frame[player, action])


def cell_to_action(geometry: Geometry, player: int, cell: int) -> int:
    """Return the action that names map cell ``cell`` in ``player``'s frame (or pass / end request codes)."""
    player = _check_player(player)
    cell = _integer(cell, "cell")
    c = geometry.num_cells
    if cell == lay.PASS:
        return c
    if cell == lay.END_REQUEST_ACTION:
        return c + 1
    if not 0 <= cell < c:
        raise ValueError(f"cell {brief(cell)} is not on the map; allowed: 0..{c - 1}, or the pass/end-request codes")
    return int(frames_of(geometry).cell_to_frame[player, cell])


def land_to_frame(geometry: Geometry, player: int, land: int) -> int:
    """Return the index of map land ``land`` in ``player``'s frame (the row of the observation's land block)."""
    player = _check_player(player)
    land = _integer(land, "land")
    if not 0 <= land < geometry.num_lands:
        raise ValueError(f"land {brief(land)} is not on the map; allowed: 0..{geometry.num_lands - 1}")
    return int(frames_of(geometry).land_to_frame[player, land])


def move_to_actions(geometry: Geometry, player: int, move: Move | tuple[int, int]) -> list[int]:
    """Return the env actions that play an engine move: ``[piece, destination]``, ``[pass]`` or ``[end request]``."""
    try:
        src, dst = check_action(move, geometry.num_cells)
    except IllegalActionError as exc:
        raise ValueError(str(exc)) from None
    if src < 0:
        return [cell_to_action(geometry, player, src)]
    return [cell_to_action(geometry, player, src), cell_to_action(geometry, player, dst)]


def actions_to_move(geometry: Geometry, player: int, actions: list[int]) -> Move:
    """Return the engine move played by one or two env actions of ``player`` (inverse of move_to_actions)."""
    if not isinstance(actions, list | tuple) or not 1 <= len(actions) <= 2:
        raise ValueError(f"actions must be a list of one or two env actions, got {brief(actions)}")
    cells = [action_to_cell(geometry, player, a) for a in actions]
    if len(cells) == 1 and cells[0] == lay.PASS:
        return PASS_MOVE
    if len(cells) == 1 and cells[0] == lay.END_REQUEST_ACTION:
        return END_REQUEST_MOVE
    if len(cells) == 2 and cells[0] >= 0 and cells[1] >= 0:
        return Move(cells[0], cells[1])
    raise ValueError(f"actions {brief(actions)} are not a move: expected [pass], [end request] or [piece, destination]")
