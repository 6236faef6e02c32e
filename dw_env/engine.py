"""The rules engine's Python face: a :class:`Game` value over flat arrays.

The rules themselves live in the compiled kernels of :mod:`dw_env.rules`; this
module builds their tables, owns one game's arrays, checks what callers pass
(once for the arrays, at every call for arguments) and turns error codes into
clear exceptions. A game calls the kernels through one compiled handle bound
once to its arrays (:mod:`dw_env.rules.handle`, docs/ENGINE.md). Batched users
(the vector env) call the kernels directly with the same tables.
"""

from __future__ import annotations

import functools
import operator
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from dw_env.errors import brief
from dw_env.geometry import Geometry, build_geometry
from dw_env.info import COUNTDOWN_TURNS, LIBERATION_TURNS, NUM_PLAYERS, PLAYER_NAMES
from dw_env.options import GameOptions
from dw_env.rules import layout as lay
from dw_env.rules.handle import GameHandle, build
from dw_env.rules.territory import score as _score
from dw_env.rules.territory import territory as _territory
from gamecore.arrays import check_layout

KernelTables = tuple[NDArray[np.int32], ...]
Workspace = tuple[NDArray[np.int32] | NDArray[np.int8], ...]


class IllegalActionError(ValueError):
    """An action that the rules do not allow in the current position; the game is unchanged."""


class StateError(ValueError):
    """Arrays that cannot be a game's state: wrong type, dtype, shape or memory layout, or an index out of range."""


class Move(NamedTuple):
    """One action: a piece's move ``src -> dst`` (cell indices), a pass or an end request."""

    src: int
    dst: int = -1

    @property
    def is_pass(self) -> bool:
        return self.src == lay.PASS

    @property
    def is_end_request(self) -> bool:
        return self.src == lay.END_REQUEST_ACTION


PASS_MOVE = Move(lay.PASS)
END_REQUEST_MOVE = Move(lay.END_REQUEST_ACTION)


@functools.lru_cache(maxsize=64)
def kernel_tables(options: GameOptions) -> KernelTables:
    """Return the geometry/options tuple ``G`` that every kernel takes (cached per options)."""
    g = build_geometry(options.land_radius, options.map_radius)
    params = np.zeros(lay.NUM_PARAMS, dtype=np.int32)
    params[lay.P_K] = options.turns_to_conquer
    params[lay.P_FAST] = int(options.fast_knights)
    params[lay.P_ALONE] = int(options.king_may_be_alone)
    params[lay.P_E] = g.end_request_points
    params[lay.P_C] = g.centre_min_points
    params[lay.P_CD] = COUNTDOWN_TURNS
    params[lay.P_KL] = LIBERATION_TURNS
    params[lay.P_MAXR] = options.max_rounds
    params[lay.P_CENTRE] = g.centre_land
    tables = (
        g.cell_neighbors,
        g.cell_land,
        g.cell_q,
        g.cell_r,
        g.is_throne,
        g.land_throne,
        g.land_cells,
        g.land_neighbors,
        g.land_ring,
        g.land_points,
        g.is_start_land,
        g.start_lands,
        params,
    )
    for table in tables:
        table.setflags(write=False)
    return tables


def new_workspace(geometry: Geometry) -> Workspace:
    """Return preallocated scratch arrays ``W`` for the kernels (one per thread)."""
    c, n = geometry.num_cells, geometry.num_lands
    return (
        np.zeros(c, dtype=np.int32),  # 0 cell queue
        np.zeros(c, dtype=np.int32),  # 1 cell marks
        np.zeros(n, dtype=np.int32),  # 2 land queue
        np.zeros(n, dtype=np.int32),  # 3 territory mask
        np.zeros(n, dtype=np.int32),  # 4 distance to territory
        np.zeros((NUM_PLAYERS, n), dtype=np.int32),  # 5 knight counts
        np.zeros(n, dtype=np.int32),  # 6 land marks
        np.zeros(c, dtype=np.int8),  # 7 destination kinds
        np.zeros(c, dtype=np.int32),  # 8 destination list
    )


def initial_arrays(options: GameOptions) -> tuple[NDArray[np.int8], NDArray[np.int16], NDArray[np.int32]]:
    """Return (board, lands, scalars) of the initial position (rules 2.1-2.3, spec 1.4-1.5)."""
    g = build_geometry(options.land_radius, options.map_radius)
    board = np.zeros(g.num_cells, dtype=np.int8)
    lands = np.zeros((lay.LAND_ROWS, g.num_lands), dtype=np.int16)
    lands[lay.OWNER] = lay.NO_OWNER
    scalars = np.zeros(lay.NUM_SCALARS, dtype=np.int32)
    for p in range(NUM_PLAYERS):
        start = g.start_lands[p]
        lands[lay.OWNER, start] = p
        throne = g.land_throne[start]
        board[throne] = lay.piece_code(p, lay.KING)
        scalars[lay.KING_CELL + p] = throne
        for cell in g.initial_knights[p]:
            board[cell] = lay.piece_code(p, lay.KNIGHT)
    scalars[lay.TURN] = 0
    scalars[lay.ROUND] = 1
    scalars[lay.CD_HOLDER] = -1
    return board, lands, scalars


_ERRORS = {
    lay.ERR_GAME_OVER: "the game is over; no action is allowed",
    lay.ERR_END_REQUEST: "an end request needs at least {e} points and the king on an own land (rule 9.3)",
}
_ACTION_SYNTAX = "a Move or a (src, dst) pair of integer cell indices"


def _in_range(values: NDArray[Any], what: str, low: int, high: int) -> None:
    if values.size and (int(values.min()) < low or int(values.max()) > high):
        bad = values[(values < low) | (values > high)].flat[0]
        raise StateError(f"{what} holds {int(bad)}; allowed: {low}..{high}")


def check_state(options: Any, board: Any, lands: Any, scalars: Any) -> Geometry:
    """Return the geometry of ``options`` if the arrays can be a game's state, else raise :class:`StateError`.

    This is the boundary of the compiled kernels, which trust their inputs: every array has
    the layout of :mod:`dw_env.rules.layout` (dtype, shape, C order) and every value a kernel
    uses as an index is in range (piece codes, owners, the turn, each king's cell, the
    countdown holder). It does not check the rules (position files do: :mod:`dw_env.position`).
    """
    if not isinstance(options, GameOptions):
        raise StateError(f"options must be a GameOptions, got {brief(options)}")
    g = build_geometry(options.land_radius, options.map_radius)
    c, n = g.num_cells, g.num_lands
    check_layout(board, "board", np.int8, (c,), StateError)
    check_layout(lands, "lands", np.int16, (lay.LAND_ROWS, n), StateError)
    check_layout(scalars, "scalars", np.int32, (lay.NUM_SCALARS,), StateError)
    _in_range(board, "board", 0, lay.piece_code(NUM_PLAYERS - 1, lay.KNIGHT))
    _in_range(lands[lay.OWNER], "lands[OWNER]", lay.NO_OWNER, NUM_PLAYERS - 1)
    _in_range(lands[lay.HOLD : lay.FIRST], "lands[HOLD/LIB] counters", 0, 2**15 - 1)
    _in_range(lands[lay.FIRST : lay.FIRST + NUM_PLAYERS], "lands[FIRST]", 0, 1)
    values = scalars.tolist()
    for index, what, low, high in (
        (lay.TURN, "TURN", 0, NUM_PLAYERS - 1),
        (lay.ROUND, "ROUND", 1, options.max_rounds),
        (lay.CD_HOLDER, "CD_HOLDER", -1, NUM_PLAYERS - 1),
        (lay.CD_LEFT, "CD_LEFT", 0, COUNTDOWN_TURNS),
        (lay.OVER, "OVER", 0, 1),
        (lay.END_REASON, "END_REASON", 0, len(lay.END_REASON_NAMES) - 1),
        (lay.WINNERS, "WINNERS", 0, 2**NUM_PLAYERS - 1),
        (lay.PLY, "PLY", 0, 2**31 - 1),
    ):
        if not low <= values[index] <= high:
            raise StateError(f"scalars[{what}] holds {values[index]}; allowed: {low}..{high}")
    pieces = np.bincount(board, minlength=lay.piece_code(NUM_PLAYERS - 1, lay.KNIGHT) + 1).tolist()
    for p in range(NUM_PLAYERS):
        king = values[lay.KING_CELL + p]
        if not 0 <= king < c:
            raise StateError(f"scalars[KING_CELL + {p}] holds {king}; allowed: a cell 0..{c - 1}")
        code = lay.piece_code(p, lay.KING)
        if board[king] != code or pieces[code] != 1:
            raise StateError(f"{PLAYER_NAMES[p]}'s king must stand once on the board, on cell {king} (KING_CELL)")
    return g


def _cell_index(value: Any, what: str) -> int:
    """Return ``value`` as an int if it is an integer (numpy integers too, never a bool), else raise."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise IllegalActionError(f"{what} must be an integer cell index, got {brief(value)}")
    return operator.index(value)


def check_action(move: Any, num_cells: int) -> tuple[int, int]:
    """Return ``move`` as ``(src, dst)`` ints if it is a well-formed action on a map of ``num_cells`` cells.

    Well formed: a :class:`Move` or a pair of integers (numpy integers too, never bools), either
    two cells ``0..num_cells-1``, or ``(PASS, -1)`` / ``(END_REQUEST_ACTION, -1)``. Whether the
    action is legal is the rules' business (:meth:`Game.play`). Raises IllegalActionError.
    """
    try:
        src, dst = move
    except (TypeError, ValueError):
        raise IllegalActionError(f"an action must be {_ACTION_SYNTAX}, got {brief(move)}") from None
    if type(src) is not int:
        src = _cell_index(src, "the action's source")
    if type(dst) is not int:
        dst = _cell_index(dst, "the action's destination")
    if 0 <= src < num_cells:
        if not 0 <= dst < num_cells:
            raise IllegalActionError(f"destination cell {brief(dst)} is not on the map; allowed: 0..{num_cells - 1}")
    elif src == lay.PASS or src == lay.END_REQUEST_ACTION:
        if dst != -1:
            what = "a pass" if src == lay.PASS else "an end request"
            raise IllegalActionError(f"{what} has no destination: dst must be -1, got {brief(dst)}")
    elif src >= num_cells:
        raise IllegalActionError(
            f"source cell {brief(src)} is not on the map; allowed: 0..{num_cells - 1}, "
            f"{lay.PASS} (pass) or {lay.END_REQUEST_ACTION} (end request)"
        )
    else:
        raise IllegalActionError(
            f"unknown action source {brief(src)}; allowed: a cell index 0..{num_cells - 1}, "
            f"{lay.PASS} (pass) or {lay.END_REQUEST_ACTION} (end request)"
        )
    return src, dst


_STATE_FIELDS = frozenset({"options", "board", "lands", "scalars"})
_I8, _I16, _I32 = np.dtype(np.int8), np.dtype(np.int16), np.dtype(np.int32)


def _standard(array: NDArray[Any], ndim: int, dtype: np.dtype[Any]) -> bool:
    """Return True if ``array`` has the layout :func:`check_state` demands (its handle type is then known)."""
    flags = array.flags
    return flags.c_contiguous and flags.writeable and array.ndim == ndim and array.dtype == dtype


def standard_layout(board: NDArray[Any], lands: NDArray[Any], scalars: NDArray[Any]) -> bool:
    """Return True if the state arrays have the memory layout :func:`check_state` demands.

    Every such state has one numba type, so a kernel compiled for it may be called directly, without the
    dispatcher typing the arrays at each call (docs/ENGINE.md); any other layout must go through the dispatcher.
    """
    return _standard(board, 1, _I8) and _standard(lands, 2, _I16) and _standard(scalars, 1, _I32)


@dataclass(eq=False)
class Game:
    """One game of Domain Wheel: options plus the state arrays; actions mutate it in place.

    Cells and lands are indices into :attr:`geometry`'s tables; use
    ``geometry.cell_index(q, r)`` to name a cell by its axial coordinate. The constructor
    checks the arrays (:func:`check_state`); they cannot be replaced afterwards. Writing
    into them directly bypasses every check. Two games are equal when their options and
    arrays are.
    """

    options: GameOptions
    board: NDArray[np.int8]
    lands: NDArray[np.int16]
    scalars: NDArray[np.int32]

    def __post_init__(self) -> None:
        geometry = check_state(self.options, self.board, self.lands, self.scalars)
        self._setup(geometry)

    def _setup(self, geometry: Geometry, tables: KernelTables | None = None) -> None:
        self.geometry = geometry
        self._num_cells = geometry.num_cells
        self._tables = kernel_tables(self.options) if tables is None else tables  # a copy passes its own
        self._work = new_workspace(self.geometry)
        self._kinds = np.zeros(self.geometry.num_cells, dtype=np.int8)
        self._dlist = np.zeros(self.geometry.num_cells, dtype=np.int32)
        self._mask = np.zeros(self.geometry.num_cells, dtype=np.int8)
        self._movable = np.zeros(self.geometry.num_cells, dtype=np.int32)
        self._views: tuple[dict[int, Any], dict[int, Any]] = ({}, {})  # slices of _movable, _dlist by length
        self._handle: GameHandle | None = None  # built on the first kernel call: many games never make one
        self._entries: Any = None

    def _bind(self) -> tuple[GameHandle, Any]:
        """Return this game's compiled handle and its entry points, building them on first use.

        The handle is typed by numba's dispatcher once, from the arrays :func:`check_state` accepted;
        every later kernel call passes it to an entry point bound to that exact type.
        """
        h = self._handle
        if h is None:
            board, lands, scalars = self.board, self.lands, self.scalars
            memo = (  # the destination table's memo (dw_env.rules.handle.play): its cell, kinds and position
                np.full(1, -1, dtype=np.int32), np.zeros_like(self._kinds), np.zeros(board.shape, np.int8),
                np.zeros(lands.shape, np.int16), np.zeros(scalars.shape, np.int32),
            )  # fmt: skip
            fields = (
                self._tables, self._work, board, lands, scalars,
                self._mask, self._movable, self._kinds, self._dlist, *memo,
            )  # fmt: skip
            h, entries = build(fields, standard_layout(board, lands, scalars))
            object.__setattr__(self, "_handle", h)
            object.__setattr__(self, "_entries", entries)
        return h, self._entries

    def handle(self) -> GameHandle:
        """Return this game's compiled handle over its checked arrays (built on first use, then the same).

        For internal callers with compiled kernels of their own (the scripted AIs' toolkit): a kernel
        that takes the handle reads the arrays :func:`check_state` accepted without numba typing them
        again (docs/ENGINE.md). Anything that does not come from the handle is the caller's to check.
        """
        return self._handle or self._bind()[0]

    def __getstate__(self) -> dict[str, Any]:
        """Return the state to pickle or deep-copy: the options and the three arrays, nothing derived.

        The geometry and the kernels' tables are shared by every game of the same options and read-only;
        a copy that carried its own (writeable) copies of them would hold a second geometry and give the
        compiled kernels a handle of another type, so that its first move compiled them again.
        """
        return {"options": self.options, "board": self.board, "lands": self.lands, "scalars": self.scalars}

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Rebuild a game from :meth:`__getstate__`'s state (or an older pickle's, which held more).

        The arrays are checked as the constructor checks them (:func:`check_state`).
        """
        options, board, lands, scalars = state["options"], state["board"], state["lands"], state["scalars"]
        geometry = check_state(options, board, lands, scalars)
        self.__dict__.update(options=options, board=board, lands=lands, scalars=scalars)
        self._setup(geometry)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _STATE_FIELDS and "geometry" in self.__dict__:
            raise AttributeError(
                f"a Game's {name} cannot be replaced; build a new Game(options, board, lands, scalars)"
            )
        object.__setattr__(self, name, value)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return (
            self.options == other.options
            and np.array_equal(self.board, other.board)
            and np.array_equal(self.lands, other.lands)
            and np.array_equal(self.scalars, other.scalars)
        )

    __hash__ = None  # type: ignore[assignment]  # mutable

    @classmethod
    def new(cls, options: GameOptions | None = None, **kwargs: object) -> Game:
        """Return a game at its initial position; keyword options override ``options``."""
        opts = options or GameOptions()
        if kwargs:
            opts = opts.replace(**kwargs)
        return cls(opts, *initial_arrays(opts))

    def copy(self) -> Game:
        """Return an independent copy of this game (its arrays were checked when it was built)."""
        new = object.__new__(Game)
        board, lands, scalars = self.board.copy(), self.lands.copy(), self.scalars.copy()
        new.__dict__.update(options=self.options, board=board, lands=lands, scalars=scalars)
        new._setup(self.geometry, self._tables)  # the tables are this game's: no cache lookup by options
        return new

    @classmethod
    def of_checked_arrays(
        cls,
        options: GameOptions,
        geometry: Geometry,
        board: NDArray[np.int8],
        lands: NDArray[np.int16],
        scalars: NDArray[np.int32],
    ) -> Game:
        """Return a game over state arrays that passed :func:`check_state` or that the kernels made from such.

        For the engine's own containers (:meth:`copy`, the vector env's games), which hold only such arrays:
        a scripted AI asks the vector env for a game at every move, and the check took half of that.
        """
        new = object.__new__(cls)
        new.__dict__.update(options=options, board=board, lands=lands, scalars=scalars)
        new._setup(geometry)
        return new

    # ---- state queries -------------------------------------------------------------------
    @property
    def turn(self) -> int:
        """Return the seat index of the player to act (0 Blue, 1 Green, 2 Red)."""
        return int(self.scalars[lay.TURN])

    @property
    def round(self) -> int:
        return int(self.scalars[lay.ROUND])

    @property
    def over(self) -> bool:
        return bool(self.scalars[lay.OVER])

    @property
    def truncated(self) -> bool:
        """Return True if the engine stopped the game at ``max_rounds`` (A57, not a rule)."""
        return int(self.scalars[lay.END_REASON]) == lay.END_TRUNCATION

    @property
    def end_reason(self) -> str:
        """Return why the game ended: none, centre, countdown, end_request or truncation."""
        return lay.END_REASON_NAMES[int(self.scalars[lay.END_REASON])]

    @property
    def winners(self) -> list[int]:
        """Return the winners' seat indices (rule 9.5); empty while playing or when truncated."""
        mask = int(self.scalars[lay.WINNERS])
        return [p for p in range(NUM_PLAYERS) if mask >> p & 1]

    @property
    def countdown(self) -> tuple[int, int] | None:
        """Return (holder, own turns left) of the centre countdown (rule 9.2), or None."""
        holder = int(self.scalars[lay.CD_HOLDER])
        return None if holder < 0 else (holder, int(self.scalars[lay.CD_LEFT]))

    def king_cell(self, player: int) -> int:
        """Return the cell of a player's king."""
        return int(self.scalars[lay.KING_CELL + _player(player)])

    def owner(self, land: int) -> int:
        """Return the owner's seat index of a land, or -1 when it has none."""
        return int(self.lands[lay.OWNER, self._land(land)])

    def score(self, player: int) -> int:
        """Return the player's score (rule 8.3)."""
        return int(_score(self._tables, self.lands, _player(player)))

    def scores(self) -> list[int]:
        return [int(_score(self._tables, self.lands, p)) for p in range(NUM_PLAYERS)]

    def leaders(self) -> list[int]:
        """Return the players with the top score now (for truncated games, A57)."""
        s = self.scores()
        return [p for p in range(NUM_PLAYERS) if s[p] == max(s)]

    def territory(self, player: int) -> list[int]:
        """Return the land indices of T(player) (R-0.6)."""
        _territory(self._tables, self.lands, _player(player), self._work[3], self._work[2])
        return [int(x) for x in np.flatnonzero(self._work[3])]

    def pieces(self, player: int) -> tuple[int, list[int]]:
        """Return (king cell, sorted knight cells) of a player."""
        knights = np.flatnonzero(self.board == lay.piece_code(_player(player), lay.KNIGHT))
        return self.king_cell(player), [int(c) for c in knights]

    # ---- legal actions -------------------------------------------------------------------
    def movable_pieces(self) -> list[int]:
        """Return the cells of the acting player's pieces that have at least one legal move."""
        return [int(c) for c in self.movable_cells()]

    def movable_mask(self, out: NDArray[np.int8] | None = None) -> NDArray[np.int8]:
        """Return an int8 mask over cells of the acting player's movable pieces (no Python lists)."""
        if out is None:
            out = np.zeros(self.geometry.num_cells, dtype=np.int8)
        else:
            check_layout(out, "out", np.int8, (self.geometry.num_cells,), StateError)
        h, entry = self._bind()
        entry.movable_mask(h, out)
        return out

    def movable_cells(self) -> NDArray[np.int32]:
        """Return the cells of the acting player's movable pieces as an array, valid until the next call."""
        h = self._handle or self._bind()[0]  # the hot path: no call or tuple once bound
        n = self._entries.movable_list(h)
        view = self._views[0].get(n)  # a dict look-up costs a third of slicing a new view
        if view is None:
            view = self._views[0][n] = self._movable[:n]
        return view

    def destination_cells(self, cell: int) -> tuple[NDArray[np.int32], NDArray[np.int8]]:
        """Return (destination cells, kind flags per cell) of a piece as arrays, valid until the next call.

        No destinations when the cell holds no piece of the player to act or the game is over.
        """
        if type(cell) is not int:
            cell = _cell_index(cell, "cell")
        if not 0 <= cell < self._num_cells:
            self._check_cell(cell, "cell")  # raises, naming the cell
        h = self._handle or self._bind()[0]
        n = self._entries.destinations(h, cell)
        view = self._views[1].get(n)
        if view is None:
            view = self._views[1][n] = self._dlist[:n]
        return view, self._kinds

    def destinations(self, cell: int) -> dict[int, int]:
        """Return {destination cell: move-kind flags} for the acting player's piece on ``cell``.

        Flags are ``layout.STEP | KING_MOVE | FAST_KNIGHT | DOUBLE_STEP | JUMP | SWAP``.
        """
        if type(cell) is not int:
            cell = _cell_index(cell, "cell")
        self._check_cell(cell, "cell")
        h, entry = self._bind()
        n = entry.destinations(h, cell)
        return {int(c): int(self._kinds[c]) for c in sorted(self._dlist[:n])}

    def can_request_end(self) -> bool:
        """Return True if the acting player may request the end now (rule 9.3)."""
        h, entry = self._bind()
        return bool(entry.can_request_end(h))

    def legal_moves(self) -> list[Move]:
        """Return every legal action: each (piece, destination), pass, and end request if legal."""
        moves = [Move(src, dst) for src in self.movable_pieces() for dst in self.destinations(src)]
        if not self.over:
            moves.append(PASS_MOVE)
            if self.can_request_end():
                moves.append(END_REQUEST_MOVE)
        return moves

    # ---- actions -------------------------------------------------------------------------
    def play(self, move: Move | tuple[int, int]) -> int:
        """Play one action and its end of turn; return its move-kind flags (0 for pass/end).

        ``move`` is a :class:`Move` or a ``(src, dst)`` pair of integers (numpy integers too;
        never bools): two cells, or ``(-1, -1)`` pass, ``(-2, -1)`` end request. Raises
        :class:`IllegalActionError` naming the problem; the game is then unchanged.
        """
        try:  # the hot path: a pair of ints on the map passes check_action's tests here, without its call
            src, dst = move
        except (TypeError, ValueError):
            src = dst = -3  # not a cell: check_action below names what is wrong
        n = self._num_cells
        if type(src) is not int or type(dst) is not int or not (0 <= src < n and 0 <= dst < n):
            src, dst = check_action(move, n)  # passes, end requests, numpy integers; raises on the rest
        h = self._handle or self._bind()[0]
        code: int = self._entries.play(h, src, dst)
        if code < 0:  # the kernel changed nothing; say why
            raise IllegalActionError(self._explain(code, src, dst))
        return code

    def pass_turn(self) -> None:
        """Pass (rule 3.2b): the end of turn still runs."""
        self.play(PASS_MOVE)

    def request_end(self) -> None:
        """Request the end of the game (rules 9.3-9.4)."""
        self.play(END_REQUEST_MOVE)

    # ---- helpers -------------------------------------------------------------------------
    def _land(self, land: Any) -> int:
        if type(land) is int and 0 <= land < self.geometry.num_lands:
            return land
        if isinstance(land, bool | np.bool_) or not isinstance(land, int | np.integer):
            raise ValueError(f"land must be an integer land index, got {brief(land)}")
        if not 0 <= land < self.geometry.num_lands:
            raise ValueError(f"land {brief(land)} is not on the map; allowed: 0..{self.geometry.num_lands - 1}")
        return operator.index(land)

    def _check_cell(self, cell: int, what: str) -> None:
        if not 0 <= cell < self.geometry.num_cells:
            raise IllegalActionError(
                f"{what} {brief(cell)} is not on the map; allowed: 0..{self.geometry.num_cells - 1}"
            )

    def _explain(self, code: int, src: int, dst: int) -> str:
        name = PLAYER_NAMES[self.turn]
        if code == lay.ERR_BAD_CELL:
            for cell, what in ((src, "source cell"), (dst, "destination cell")):
                self._check_cell(cell, what)
        if code == lay.ERR_NOT_YOUR_PIECE:
            return f"cell {self.geometry.cell_coord(src)} holds no piece of {name}, the player to act"
        if code == lay.ERR_ILLEGAL_DESTINATION:
            allowed = [self.geometry.cell_coord(c) for c in self.destinations(src)]
            return (
                f"{name}'s piece on {self.geometry.cell_coord(src)} cannot move to "
                f"{self.geometry.cell_coord(dst)}; legal destinations: {allowed or 'none'}"
            )
        if code == lay.ERR_END_REQUEST:
            return f"{name} may not request the end: " + _ERRORS[code].format(e=self.geometry.end_request_points)
        return _ERRORS.get(code, f"illegal action (code {code})")


def _player(player: Any) -> int:
    """Return ``player`` as a seat index 0..2, or raise ValueError naming the value."""
    if type(player) is int and 0 <= player < NUM_PLAYERS:
        return player
    if isinstance(player, bool | np.bool_) or not isinstance(player, int | np.integer):
        raise ValueError(
            f"player must be a seat index 0..{NUM_PLAYERS - 1} (0 Blue, 1 Green, 2 Red), got {brief(player)}"
        )
    if not 0 <= player < NUM_PLAYERS:
        raise ValueError(
            f"player {brief(player)} is not a seat; allowed: 0..{NUM_PLAYERS - 1} (0 Blue, 1 Green, 2 Red)"
        )
    return operator.index(player)
