"""The Conquer game object: one position plus the compiled rules, in the API every game package shares.

Example::

    game = ConquerGame.new(ConquerOptions.preset("small"))
    game.play(game.point_action(4, 4))     # Red places on (4, 4)
    game.play(game.pass_action)            # Blue passes (rule R-3.1)
    obs, mask = game.observe()             # Red's view, the envs' encoding (conquer_env.encoding)

Seats are 0 (Red, moves first, rule R-2.3) and 1 (Blue). Actions are ints: ``y * W + x`` places a
dot on (x, y), ``W * H`` passes. An illegal action raises :class:`IllegalActionError` naming the
point and why it is refused (rule R-3.4); the state is then unchanged.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
from numpy.typing import NDArray

from conquer_env import kernels
from conquer_env.encoding import num_actions, observation_size
from conquer_env.errors import IllegalActionError, StateError, brief
from conquer_env.layout import (
    BASE_FIRED,
    CAPTURED,
    END_REASON,
    END_REASONS,
    END_TRUNCATED,
    ERR_OCCUPIED,
    ERR_OFF_BOARD,
    ERR_OVER,
    FREE,
    NUM_SCALARS,
    OVER,
    PASSES,
    PLY,
    PLY_LIMIT,
    TO_MOVE,
)
from conquer_env.options import ConquerOptions
from gamecore.arrays import check_layout

#: colour names by colour code (0 = none)
COLOUR_NAMES: tuple[str, ...] = ("nobody", "Red", "Blue")
#: seat names in turn order
SEAT_NAMES: tuple[str, ...] = ("Red", "Blue")
NUM_PLAYERS = 2

__all__ = [
    "END_REASONS",
    "ConquerGame",
    "IllegalActionError",
    "NUM_PLAYERS",
    "SEAT_NAMES",
    "StateError",
    "check_state",
    "initial_arrays",
]

_local = threading.local()


def workspace(num_points: int) -> tuple[NDArray[np.int32], NDArray[np.int32], NDArray[np.int32]]:
    """Return this thread's flood scratch for a board of ``num_points`` (allocated once per size and thread)."""
    cache: dict[int, Any] = getattr(_local, "cache", None) or {}
    _local.cache = cache
    if num_points not in cache:
        cache[num_points] = kernels.new_workspace(num_points)
    return cache[num_points]  # type: ignore[no-any-return]


def initial_arrays(options: ConquerOptions) -> tuple[NDArray[np.int8], NDArray[np.int8], NDArray[np.int32]]:
    """Return (dots, owner, scalars) of the starting position (rule R-2): empty, or the cross of rule R-2.2."""
    n = options.num_points
    dots = np.zeros(n, np.int8)
    owner = np.zeros(n, np.int8)
    if options.start == "cross":
        cx, cy, w = (options.width - 1) // 2, (options.height - 1) // 2, options.width
        dots[cy * w + cx] = dots[(cy + 1) * w + cx + 1] = 1
        dots[cy * w + cx + 1] = dots[(cy + 1) * w + cx] = 2
    scalars = np.zeros(NUM_SCALARS, np.int32)
    scalars[END_REASON] = -1
    scalars[FREE] = int(np.count_nonzero(dots == 0))
    scalars[PLY_LIMIT] = options.ply_limit
    return dots, owner, scalars


def check_state(options: Any, dots: Any, owner: Any, scalars: Any) -> None:
    """Raise StateError unless the arrays can be a game's state under ``options``.

    This is the boundary of the compiled kernels, which trust their inputs (no bounds checks): each array
    has the layout the options imply (dtype, shape ``W * H``, C order, writeable) and every value a kernel
    reads is in range: colour codes, no territory on the border (rule R-5.4), the seat to act, the passes,
    the ending, the ply against the options' limit and the free-point count. It does not check what only
    a game could have produced (positions do: :mod:`conquer_env.position`).
    """
    if not isinstance(options, ConquerOptions):
        raise StateError(f"options must be ConquerOptions, got {brief(options)}")
    n = options.num_points
    check_layout(dots, "dots", np.int8, (n,), StateError)
    check_layout(owner, "owner", np.int8, (n,), StateError)
    check_layout(scalars, "scalars", np.int32, (NUM_SCALARS,), StateError)
    for array, what in ((dots, "dots"), (owner, "owner")):
        bad = (array < 0) | (array > 2)
        if bad.any():
            raise StateError(f"{what} must be 0 (none), 1 (red) or 2 (blue), got {int(array[bad][0])}")
    border = np.ones((options.height, options.width), dtype=bool)
    border[1:-1, 1:-1] = False
    if owner[border.ravel()].any():
        raise StateError("a border point is owned; the border is never sealed territory (rule R-5.4)")
    for entry, what, low, high in (
        (TO_MOVE, "TO_MOVE", 0, 1),
        (PASSES, "PASSES", 0, 2),
        (OVER, "OVER", 0, 1),
        (END_REASON, "END_REASON", -1, len(END_REASONS) - 1),
        (PLY, "PLY", 0, options.ply_limit),
    ):
        if not low <= int(scalars[entry]) <= high:
            raise StateError(f"scalars[{what}] holds {int(scalars[entry])}; allowed: {low}..{high}")
    if (int(scalars[OVER]) == 1) != (int(scalars[END_REASON]) >= 0):
        raise StateError("a game is over exactly when it has an end reason (scalars[OVER], scalars[END_REASON])")
    free = int(np.count_nonzero((dots == 0) & (owner == 0)))
    if int(scalars[FREE]) != free:
        raise StateError(f"scalars[FREE] holds {int(scalars[FREE])}; the position has {free} free points")
    if int(scalars[PLY_LIMIT]) != options.ply_limit:
        raise StateError(f"scalars[PLY_LIMIT] holds {int(scalars[PLY_LIMIT])}; the options' is {options.ply_limit}")


class ConquerGame:
    """A Conquer position and its rules: ``new``, ``play``, ``legal_actions``, ``scores``, ``observe``."""

    __slots__ = ("options", "dots", "owner", "scalars")
    options: ConquerOptions
    dots: NDArray[np.int8]
    owner: NDArray[np.int8]
    scalars: NDArray[np.int32]

    def __init__(
        self, options: ConquerOptions, dots: NDArray[np.int8], owner: NDArray[np.int8], scalars: NDArray[np.int32]
    ) -> None:
        """Wrap state arrays after checking them against the options (:func:`check_state`): StateError if not.

        Positions are built by :meth:`new` or :mod:`conquer_env.position` (which also check the rules' facts).
        """
        check_state(options, dots, owner, scalars)
        self._wrap(options, dots, owner, scalars)

    def _wrap(
        self, options: ConquerOptions, dots: NDArray[np.int8], owner: NDArray[np.int8], scalars: NDArray[np.int32]
    ) -> None:
        for name, value in zip(self.__slots__, (options, dots, owner, scalars), strict=True):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        """Refuse replacing a state array once built: the compiled rules trust the arrays checked at construction."""
        raise AttributeError(
            f"a ConquerGame's {name} cannot be replaced; build a new ConquerGame(options, dots, owner, scalars)"
        )

    @classmethod
    def of_checked_arrays(
        cls, options: ConquerOptions, dots: NDArray[np.int8], owner: NDArray[np.int8], scalars: NDArray[np.int32]
    ) -> ConquerGame:
        """Return a game over arrays already checked (copies of a checked game's or env's); no checks, fast."""
        game = cls.__new__(cls)
        game._wrap(options, dots, owner, scalars)
        return game

    @classmethod
    def new(cls, options: ConquerOptions | None = None) -> ConquerGame:
        """Return a game at the starting position of ``options`` (default: 15 x 15, dots scoring)."""
        options = options if options is not None else ConquerOptions()
        if not isinstance(options, ConquerOptions):
            raise TypeError(f"options must be ConquerOptions or None, got {type(options).__name__}")
        return cls(options, *initial_arrays(options))

    def copy(self) -> ConquerGame:
        """Return an independent copy."""
        return ConquerGame.of_checked_arrays(self.options, self.dots.copy(), self.owner.copy(), self.scalars.copy())

    # ---- state -------------------------------------------------------------------------------------
    @property
    def width(self) -> int:
        return self.options.width

    @property
    def height(self) -> int:
        return self.options.height

    @property
    def turn(self) -> int:
        """Return the seat to act: 0 Red, 1 Blue (after the end: the seat that would act next)."""
        return int(self.scalars[TO_MOVE])

    @property
    def passes(self) -> int:
        """Return the number of consecutive passes just played (rule R-9.2)."""
        return int(self.scalars[PASSES])

    @property
    def ply(self) -> int:
        """Return the number of actions played so far."""
        return int(self.scalars[PLY])

    @property
    def over(self) -> bool:
        """Return True once the game has ended (board full, two passes, or truncated)."""
        return bool(self.scalars[OVER])

    @property
    def truncated(self) -> bool:
        """Return True if the game stopped at the ply limit (``max_plies``), not by a rule."""
        return self.over and int(self.scalars[END_REASON]) == END_TRUNCATED

    @property
    def end_reason(self) -> str | None:
        """Return why the game ended, one of ``END_REASONS``, or None while it runs."""
        return END_REASONS[int(self.scalars[END_REASON])] if self.over else None

    @property
    def pass_action(self) -> int:
        """Return the pass action, ``W * H``."""
        return self.options.num_points

    @property
    def num_actions(self) -> int:
        """Return A = W * H + 1."""
        return num_actions(self.options)

    def point_action(self, x: int, y: int) -> int:
        """Return the action placing on (x, y); ValueError if (x, y) is no point of the board."""
        return self._point(x, y)

    def action_point(self, action: int) -> tuple[int, int] | None:
        """Return (x, y) of a placement action, None for the pass; ValueError if it is no action."""
        a = self._action(action, ValueError)
        if a == self.pass_action:
            return None
        return a % self.width, a // self.width

    def _point(self, x: Any, y: Any) -> int:
        """Return the point index of (x, y); ValueError naming them unless both are integers on the board."""
        for v in (x, y):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise ValueError(f"a point's x and y must be integers, got ({brief(x)}, {brief(y)})")
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise ValueError(
                f"point ({brief(x)}, {brief(y)}) is off the {self.width} x {self.height} board; "
                f"allowed: x in 0..{self.width - 1}, y in 0..{self.height - 1}"
            )
        return int(y) * self.width + int(x)

    def _action(self, action: Any, error: type[ValueError]) -> int:
        """Return ``action`` as an int in 0..pass_action; ``error`` naming it and the allowed range otherwise."""
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise error(f"action must be an integer, got {brief(action)}; {self._allowed()}")
        if not 0 <= action <= self.pass_action:
            raise error(
                f"action {brief(action)} is off the {self.width} x {self.height} board; "
                f"{self._allowed() if not self.over else f'actions are 0..{self.pass_action}'}"
            )
        return int(action)

    def _seat(self, seat: Any) -> int:
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < NUM_PLAYERS:
            raise ValueError(f"seat must be 0 (Red) or 1 (Blue), got {brief(seat)}")
        return int(seat)

    def parse_action(self, value: Any) -> int:
        """Return the action of a move in the spec's notation (section 7): ``[x, y]`` or ``"pass"``.

        ValueError naming the value and what is allowed; legality is :meth:`play`'s business.
        """
        if value == "pass":
            return self.pass_action
        if (
            isinstance(value, (list, tuple))
            and len(value) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        ):
            return self.point_action(int(value[0]), int(value[1]))
        raise ValueError(f'a move must be [x, y] or "pass", got {brief(value)}')

    def format_action(self, action: int) -> list[int] | str:
        """Return an action in the spec's notation: ``[x, y]`` for a placement, ``"pass"`` for the pass."""
        xy = self.action_point(action)  # ValueError if it is no action
        return "pass" if xy is None else [xy[0], xy[1]]

    def dot(self, x: int, y: int) -> int:
        """Return the colour of the dot on (x, y): 0 none, 1 Red, 2 Blue; ValueError if (x, y) is off the board."""
        return int(self.dots[self._point(x, y)])

    def owner_of(self, x: int, y: int) -> int:
        """Return whose sealed territory (x, y) is: 0 nobody, 1 Red, 2 Blue; ValueError if it is off the board."""
        return int(self.owner[self._point(x, y)])

    def is_dead(self, x: int, y: int) -> bool:
        """Return True iff (x, y) holds a dead dot: a dot on the other colour's territory (rule R-4.1)."""
        q = self._point(x, y)
        return bool(self.dots[q] != 0 and self.owner[q] == 3 - self.dots[q])

    def live_mask(self, seat: int) -> NDArray[np.bool_]:
        """Return a bool array [W*H]: True where ``seat`` has a live dot (its walls, rule R-5.1)."""
        colour = self._seat(seat) + 1
        return (self.dots == colour) & (self.owner != 3 - colour)  # type: ignore[no-any-return]

    def dead_mask(self, seat: int) -> NDArray[np.bool_]:
        """Return a bool array [W*H]: True where ``seat`` has a dead dot (rule R-4.1)."""
        colour = self._seat(seat) + 1
        return (self.dots == colour) & (self.owner == 3 - colour)  # type: ignore[no-any-return]

    def regions(self, seat: int) -> NDArray[np.int32]:
        """Return labels int32[W*H] of ``seat``'s enclosed regions (rule R-5.2): k > 0 per region, 0 elsewhere.

        A whole-board pass, for analysis and drawing; the rules themselves never need it.
        """
        colour = self._seat(seat) + 1
        labels = np.zeros(self.options.num_points, np.int32)
        queue = np.zeros(self.options.num_points, np.int32)
        kernels.region_labels(self.width, self.height, self.dots, self.owner, colour, labels, queue)
        return labels

    def open_bases(self, seat: int) -> NDArray[np.bool_]:
        """Return a bool array [W*H]: True on the points of ``seat``'s open bases (rule R-8, empty rings)."""
        return self.regions(seat) > 0

    # ---- scores and result ----------------------------------------------------------------------------
    def dots_scores(self) -> list[int]:
        """Return each seat's dots score: opponent dots dead on its territory (rule R-10.1)."""
        out = np.zeros(2, np.int32)
        kernels.scores(self.dots, self.owner, False, out)
        return [int(v) for v in out]

    def territory_scores(self) -> list[int]:
        """Return each seat's territory score: the intersections it owns (rule R-10.2)."""
        out = np.zeros(2, np.int32)
        kernels.scores(self.dots, self.owner, True, out)
        return [int(v) for v in out]

    def scores(self, method: str | None = None) -> list[int]:
        """Return each seat's score under ``method`` ("dots" or "territory"; default: the game's option)."""
        method = self.options.scoring if method is None else method
        if method == "dots":
            return self.dots_scores()
        if method == "territory":
            return self.territory_scores()
        raise ValueError(f"unknown scoring method {brief(method)}; allowed: dots, territory")

    def leaders(self, method: str | None = None) -> list[int]:
        """Return the seats with the top score (both on a tie)."""
        s = self.scores(method)
        return [i for i in range(NUM_PLAYERS) if s[i] == max(s)]

    def result(self, method: str | None = None) -> list[int]:
        """Return the seats that win under ``method`` once the game is over: one, or none on a draw (rule R-10.4)."""
        if not self.over or self.truncated:
            return []
        leaders = self.leaders(method)
        return leaders if len(leaders) == 1 else []

    @property
    def winners(self) -> list[int]:
        """Return the winning seat as a one-element list; empty while running, on a draw or on truncation."""
        return self.result()

    # ---- actions ----------------------------------------------------------------------------------------
    def legal_points(self) -> NDArray[np.intp]:
        """Return the legal points, sorted: empty and unsealed (rule R-3.3); none once the game is over."""
        if self.over:
            return np.zeros(0, np.intp)
        return np.flatnonzero((self.dots == 0) & (self.owner == 0))

    def legal_actions(self) -> list[int]:
        """Return the legal actions, sorted: the legal points, then the pass (rule R-3.2)."""
        if self.over:
            return []
        return [int(a) for a in self.legal_points()] + [self.pass_action]

    def is_legal(self, action: Any) -> bool:
        """Return True iff ``action`` is a legal action now."""
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)) or self.over:
            return False
        a = int(action)
        if a == self.pass_action:
            return True
        return 0 <= a < self.pass_action and self.dots[a] == 0 and self.owner[a] == 0

    def play(self, action: int) -> int:
        """Play one action of the seat to act (rule R-3, R-6); return its flags (layout.PLACED/CAPTURED/BASE_FIRED).

        Raises :class:`IllegalActionError` naming the action, why it is refused and what is allowed; the
        state is then unchanged.
        """
        try:
            a = self._action(action, IllegalActionError)
        except IllegalActionError as err:
            raise IllegalActionError(str(err), action, self._allowed()) from None
        stamp, control, queue = workspace(self.options.num_points)
        flags = int(
            kernels.apply_action(self.width, self.height, self.dots, self.owner, self.scalars, a, stamp, control, queue)
        )
        if flags < 0:
            raise IllegalActionError(self._refusal(a, flags), a, self._allowed())
        return flags

    def captured(self, flags: int) -> bool:
        """Return True if a placement's flags say it sealed a region for the mover (rule R-6 step 2)."""
        return bool(flags & CAPTURED)

    def base_fired(self, flags: int) -> bool:
        """Return True if a placement's flags say the dot fell into an opponent's open base (rule R-8.3)."""
        return bool(flags & BASE_FIRED)

    def _allowed(self) -> str:
        if self.over:
            return "nothing: the game is over"
        free = int(self.scalars[FREE])
        return (
            f"allowed: an empty, unsealed point 0..{self.pass_action - 1} ({free} of them, action = y * {self.width}"
            f" + x) or {self.pass_action} = pass"
        )

    def _refusal(self, action: int, code: int) -> str:
        if code == ERR_OVER:
            return f"action {action} refused: the game is over ({self.end_reason})"
        if code == ERR_OFF_BOARD:
            return f"action {action} is off the {self.width} x {self.height} board; {self._allowed()}"
        x, y = action % self.width, action // self.width
        if code == ERR_OCCUPIED:
            who = COLOUR_NAMES[int(self.dots[action])]
            return f"action {action}: point ({x}, {y}) is occupied by a {who} dot (rule R-3.3); {self._allowed()}"
        who = COLOUR_NAMES[int(self.owner[action])]
        return (
            f"action {action}: point ({x}, {y}) is sealed territory of {who}; nobody may play there"
            f" (rule R-3.3); {self._allowed()}"
        )

    # ---- encoding ---------------------------------------------------------------------------------------
    def observe(self) -> tuple[NDArray[np.int8], NDArray[np.int8]]:
        """Return (obs int8[D], mask int8[A]) of the seat to act, the envs' encoding (conquer_env.encoding)."""
        obs = np.zeros(observation_size(self.options), np.int8)
        mask = np.zeros(num_actions(self.options), np.int8)
        kernels.encode(self.dots, self.owner, self.scalars, obs, mask)
        return obs, mask

    def __repr__(self) -> str:
        state = self.end_reason if self.over else f"{SEAT_NAMES[self.turn]} to move"
        return f"ConquerGame({self.width}x{self.height}, ply {self.ply}, {state}, scores {self.scores()})"
