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
from conquer_env.errors import IllegalActionError, brief
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

#: colour names by colour code (0 = none)
COLOUR_NAMES: tuple[str, ...] = ("nobody", "Red", "Blue")
#: seat names in turn order
SEAT_NAMES: tuple[str, ...] = ("Red", "Blue")
NUM_PLAYERS = 2

__all__ = ["END_REASONS", "ConquerGame", "IllegalActionError", "NUM_PLAYERS", "SEAT_NAMES", "initial_arrays"]

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


class ConquerGame:
    """A Conquer position and its rules: ``new``, ``play``, ``legal_actions``, ``scores``, ``observe``."""

    __slots__ = ("options", "dots", "owner", "scalars")

    def __init__(
        self, options: ConquerOptions, dots: NDArray[np.int8], owner: NDArray[np.int8], scalars: NDArray[np.int32]
    ) -> None:
        """Wrap state arrays (no checks: use :meth:`new` or :mod:`conquer_env.position` to build games)."""
        self.options = options
        self.dots = dots
        self.owner = owner
        self.scalars = scalars

    @classmethod
    def new(cls, options: ConquerOptions | None = None) -> ConquerGame:
        """Return a game at the starting position of ``options`` (default: 15 x 15, dots scoring)."""
        options = options if options is not None else ConquerOptions()
        if not isinstance(options, ConquerOptions):
            raise TypeError(f"options must be ConquerOptions or None, got {type(options).__name__}")
        return cls(options, *initial_arrays(options))

    def copy(self) -> ConquerGame:
        """Return an independent copy."""
        return ConquerGame(self.options, self.dots.copy(), self.owner.copy(), self.scalars.copy())

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
        """Return the action placing on (x, y); ValueError if off the board."""
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise ValueError(f"point ({x}, {y}) is off the {self.width} x {self.height} board")
        return y * self.width + x

    def action_point(self, action: int) -> tuple[int, int] | None:
        """Return (x, y) of a placement action, None for the pass."""
        if action == self.pass_action:
            return None
        return action % self.width, action // self.width

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
        xy = self.action_point(action)
        return "pass" if xy is None else [xy[0], xy[1]]

    def dot(self, x: int, y: int) -> int:
        """Return the colour of the dot on (x, y): 0 none, 1 Red, 2 Blue."""
        return int(self.dots[y * self.width + x])

    def owner_of(self, x: int, y: int) -> int:
        """Return whose sealed territory (x, y) is: 0 nobody, 1 Red, 2 Blue."""
        return int(self.owner[y * self.width + x])

    def is_dead(self, x: int, y: int) -> bool:
        """Return True iff (x, y) holds a dead dot: a dot on the other colour's territory (rule R-4.1)."""
        q = y * self.width + x
        return bool(self.dots[q] != 0 and self.owner[q] == 3 - self.dots[q])

    def live_mask(self, seat: int) -> NDArray[np.bool_]:
        """Return a bool array [W*H]: True where ``seat`` has a live dot (its walls, rule R-5.1)."""
        colour = seat + 1
        return (self.dots == colour) & (self.owner != 3 - colour)  # type: ignore[no-any-return]

    def dead_mask(self, seat: int) -> NDArray[np.bool_]:
        """Return a bool array [W*H]: True where ``seat`` has a dead dot (rule R-4.1)."""
        colour = seat + 1
        return (self.dots == colour) & (self.owner == 3 - colour)  # type: ignore[no-any-return]

    def regions(self, seat: int) -> NDArray[np.int32]:
        """Return labels int32[W*H] of ``seat``'s enclosed regions (rule R-5.2): k > 0 per region, 0 elsewhere.

        A whole-board pass, for analysis and drawing; the rules themselves never need it.
        """
        labels = np.zeros(self.options.num_points, np.int32)
        queue = np.zeros(self.options.num_points, np.int32)
        kernels.region_labels(self.width, self.height, self.dots, self.owner, seat + 1, labels, queue)
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
        if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
            raise IllegalActionError(
                f"action must be an integer, got {brief(action)}; {self._allowed()}", action, self._allowed()
            )
        a = int(action)
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
