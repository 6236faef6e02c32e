"""Small helpers for the rules tests: build positions from compact dicts, query games by coordinates.

Tests name cells by axial ``(q, r)`` and lands by land coordinates ``(a, b)``, like the
manual's pictures and the JSON position format (``dw_env/position.py``)::

    g = game(
        turn="blue",
        pieces={"blue": {"king": (15, -6), "knights": [(16, -7), (19, -7)]}},
        owners={"red": [(2, 0)]},
        holds=[("blue", (3, 0), 2)],
    )
    assert destinations(g, (16, -7))[(16, -6)] == {"fast_knight"}

Players left out of ``pieces`` keep their initial pieces (spec 1.5). A player's
``first_conquests`` are its conquered lands plus the lands in ``first`` (conquered once,
lost since), so a player owning two conquered lands needs four knights (rule 6.7:
2 + one per first conquest).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from dw_env import position as pos
from dw_env.engine import Game, Move
from dw_env.geometry import Geometry, build_geometry, rotate_120
from dw_env.info import PLAYER_NAMES
from dw_env.options import GameOptions
from dw_env.rules import layout as lay

Cell = tuple[int, int]
Land = tuple[int, int]

BLUE, GREEN, RED = 0, 1, 2
STANDARD: Geometry = build_geometry(2, 4)

#: Standard-map landmarks used throughout the tests (spec 1.4, 1.5).
BLUE_START, GREEN_START, RED_START = (4, 0), (-4, 4), (0, -4)
BLUE_THRONE, GREEN_THRONE, RED_THRONE = (20, -8), (-12, 20), (-8, -12)
CENTRE = (0, 0)
#: Blue's chain from its start land to the ring-1 lands (1,0) and (1,-1): exactly 20 points (rule 6.8).
CENTRE_PATH: list[Land] = [(3, 0), (2, 0), (1, 0), (1, -1), (2, -1), (3, -1)]
#: far lands a player "conquered once and lost since": each one only adds a knight (rule 6.7).
FILLER: dict[str, list[Land]] = {
    "blue": [(-3, 4), (-2, 4), (-1, 4), (0, 4), (1, 3), (2, 2), (-4, 2), (-4, 1)],
    "green": [(4, -4), (3, -4), (2, -4), (4, -3), (3, -3), (1, -4), (4, -2), (2, -3)],
    "red": [(-4, 3), (-3, 2), (-4, 2), (-2, 3), (-1, 3), (0, 3), (1, 2), (2, 1)],
}
INITIAL_PIECES: dict[str, dict[str, Any]] = {
    "blue": {"king": (20, -8), "knights": [(19, -8), (19, -7)]},
    "green": {"king": (-12, 20), "knights": [(-11, 19), (-12, 19)]},
    "red": {"king": (-8, -12), "knights": [(-8, -11), (-7, -12)]},
}


def _name(player: int | str) -> str:
    return player if isinstance(player, str) else PLAYER_NAMES[player]


def _pairs(items: Iterable[Sequence[int]]) -> list[list[int]]:
    return [[int(x[0]), int(x[1])] for x in items]


def position(
    *,
    turn: int | str = "blue",
    pieces: Mapping[str, Mapping[str, Any]] | None = None,
    owners: Mapping[str, Iterable[Land]] | None = None,
    first: Mapping[str, Iterable[Land]] | None = None,
    holds: Iterable[tuple[str, Land, int]] = (),
    liberations: Iterable[tuple[str, Land, int]] = (),
    countdown: tuple[str, int] | None = None,
    round: int = 1,
    **options: Any,
) -> dict[str, Any]:
    """Return a full position mapping (the ``dw_env.position`` JSON format) from a compact description."""
    opts = GameOptions().replace(**options)
    pieces = {**INITIAL_PIECES, **(pieces or {})}
    owners = {name: list((owners or {}).get(name, [])) for name in PLAYER_NAMES}
    extra = first or {}
    first_lands = {
        name: owners[name] + [x for x in extra.get(name, []) if x not in owners[name]] for name in PLAYER_NAMES
    }
    return {
        "format": pos.FORMAT,
        "version": pos.VERSION,
        "options": opts.to_dict(),
        "turn": _name(turn),
        "round": round,
        "ply": 0,
        "countdown": None if countdown is None else {"holder": countdown[0], "turns_left": countdown[1]},
        "owners": {name: _pairs(owners[name]) for name in PLAYER_NAMES},
        "pieces": {
            name: {"king": list(pieces[name]["king"]), "knights": _pairs(pieces[name]["knights"])}
            for name in PLAYER_NAMES
        },
        "holds": [{"player": p, "land": list(land), "turns": t} for p, land, t in holds],
        "liberations": [{"player": p, "land": list(land), "turns": t} for p, land, t in liberations],
        "first_conquests": {name: _pairs(first_lands[name]) for name in PLAYER_NAMES},
        "result": None,
    }


def game(**kwargs: Any) -> Game:
    """Return a validated :class:`Game` built by :func:`position` (same keywords)."""
    return pos.from_dict(position(**kwargs))


# ---- naming cells and lands ------------------------------------------------------------------
def cell(g: Game, c: Cell) -> int:
    """Return the cell index of axial ``c`` in ``g``'s geometry."""
    return g.geometry.cell_index(c[0], c[1])


def coord(g: Game, index: int) -> Cell:
    return g.geometry.cell_coord(index)


def land(g: Game, ab: Land) -> int:
    return g.geometry.land_index(ab[0], ab[1])


def land_of(c: Cell, geometry: Geometry = STANDARD) -> Land:
    """Return the land coordinate of the land holding cell ``c``."""
    return geometry.land_coord(int(geometry.cell_land[geometry.cell_index(*c)]))


def throne(ab: Land, geometry: Geometry = STANDARD) -> Cell:
    return geometry.cell_coord(int(geometry.land_throne[geometry.land_index(*ab)]))


def guard_cell(ab: Land, geometry: Geometry = STANDARD) -> Cell:
    """Return the cell east of a land's throne: a handy non-throne cell inside the land."""
    t = throne(ab, geometry)
    return t[0] + 1, t[1]


def rotate(c: tuple[int, int], times: int = 1) -> tuple[int, int]:
    """Rotate a cell or land coordinate by ``times`` x 120 degrees (Blue -> Green -> Red, spec 1.4)."""
    for _ in range(times % 3):
        c = rotate_120(*c)
    return c


def land_cells(ab: Land, geometry: Geometry = STANDARD) -> set[Cell]:
    return {geometry.cell_coord(int(c)) for c in geometry.land_cells[geometry.land_index(*ab)]}


def neighbours(c: Cell, geometry: Geometry = STANDARD) -> list[Cell]:
    """Return the on-map neighbours of ``c`` in direction order D (spec 1.1)."""
    row = geometry.cell_neighbors[geometry.cell_index(*c)]
    return [geometry.cell_coord(int(x)) for x in row if x >= 0]


def adjacent_lands(ab: Land, geometry: Geometry = STANDARD) -> list[Land]:
    """Return the on-map lands that touch land ``ab``."""
    row = geometry.land_neighbors[geometry.land_index(*ab)]
    return [geometry.land_coord(int(m)) for m in row if m >= 0]


def all_thrones(geometry: Geometry = STANDARD) -> set[Cell]:
    return {geometry.cell_coord(int(c)) for c in geometry.land_throne}


def hexdist(a: Cell, b: Cell) -> int:
    dq, dr = a[0] - b[0], a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


# ---- queries ---------------------------------------------------------------------------------
def kind_names(flags: int) -> set[str]:
    """Return the move-kind names ("step", "king_move", ...) of a flag set."""
    return {name for bit, name in enumerate(lay.MOVE_KIND_NAMES) if flags >> bit & 1}


def destinations(g: Game, src: Cell) -> dict[Cell, set[str]]:
    """Return {destination: move kinds} of the acting player's piece on ``src``."""
    return {coord(g, d): kind_names(f) for d, f in g.destinations(cell(g, src)).items()}


def play(g: Game, src: Cell, dst: Cell) -> set[str]:
    """Play a move between axial cells; return its move kinds."""
    return kind_names(g.play(Move(cell(g, src), cell(g, dst))))


def passes(g: Game, count: int) -> None:
    """Let the next ``count`` players pass."""
    for _ in range(count):
        g.pass_turn()


def king(g: Game, player: int) -> Cell:
    return coord(g, g.king_cell(player))


def knights(g: Game, player: int) -> set[Cell]:
    return {coord(g, c) for c in g.pieces(player)[1]}


def owner(g: Game, ab: Land) -> str | None:
    """Return the owner's name of a land, or None."""
    o = g.owner(land(g, ab))
    return None if o < 0 else PLAYER_NAMES[o]


def hold(g: Game, player: int, ab: Land) -> int:
    """Return the conquest counter hold[player][land] (rule 6.4)."""
    return int(g.lands[lay.HOLD + player, land(g, ab)])


def lib(g: Game, player: int, ab: Land) -> int:
    """Return the liberation counter lib[player][land] (rule 7.3)."""
    return int(g.lands[lay.LIB + player, land(g, ab)])


def first_conquered(g: Game, player: int) -> set[Land]:
    return {g.geometry.land_coord(int(x)) for x in np.flatnonzero(g.lands[lay.FIRST + player])}


def territory(g: Game, player: int) -> set[Land]:
    return {g.geometry.land_coord(x) for x in g.territory(player)}


def occupied(g: Game) -> set[Cell]:
    """Return every cell that holds a piece."""
    return {coord(g, int(c)) for c in np.flatnonzero(g.board)}


def snapshot(g: Game) -> tuple[bytes, bytes, bytes]:
    """Return the whole state as bytes, to assert that something left it unchanged."""
    return g.board.tobytes(), g.lands.tobytes(), g.scalars.tobytes()
