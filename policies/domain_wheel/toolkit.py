"""The scripted AIs' shared toolkit (spec section 6): what a land costs, who threatens what, how to move.

One :class:`Situation` is computed per decision by a single compiled pass over the
state (:func:`policies.domain_wheel.kernels.analyse`): every player's territory T(q), distance
factor N, knights per land, score, and the conquest and liberation needs, computed
exactly as the engine's rules do (rules 6.2, 6.3, 7.1). The functions below read it:

* :func:`conquest_eta` / :func:`liberation_eta`: ``setup + K - 1`` and ``setup + 1``
  own turns (spec 6, toolkit), with ``setup`` the knights still to bring plus the king's
  estimated route (:func:`policies.domain_wheel.kernels.king_turns`);
* :func:`threats`: rivals' positions with a counter >= 1 and the turns they still need;
* :func:`can_win_by_request`: the end request (rules 9.3-9.4) simulated on a copy;
* :func:`king_toward`, :func:`knight_toward`, :func:`knight_entries`: legal moves, taken
  from the engine's move generator, that bring a piece closest to a target land.

Nothing here re-implements legality: every move comes from the engine's destinations.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dw_env.engine import Game, Move
from dw_env.geometry import Geometry
from dw_env.info import LIBERATION_TURNS, NUM_PLAYERS
from dw_env.rules import layout as lay
from policies.domain_wheel import kernels
from policies.domain_wheel import toolkit_handle as th

I32 = NDArray[np.int32]
F64 = NDArray[np.float64]

#: a cost meaning "cannot be done now"
INFEASIBLE = float("inf")


class Situation:
    """The analysis of one position for one seat; arrays are reused between decisions.

    Per player ``q`` and land ``L``: ``territory[q, L]`` (1 in T(q), R-0.6), ``dist[q, L]``
    (land distance to T(q); ``N = dist - 1``, rule 6.3), ``counts[q, L]`` (knights),
    ``need[q, L]`` (rule 6.2) and ``libneed[q, L]`` (rule 7.1); ``scores[q]`` (rule 8.3),
    ``king_land[q]``, ``seated[q]`` (king on its land's throne). For the seat ``p`` also
    ``king_turns[L]``: the estimated own turns for p's king to stand on L's throne.
    """

    def __init__(self, geometry: Geometry) -> None:
        self.geometry = geometry
        g = geometry
        num_lands, num_cells = g.num_lands, g.num_cells
        self.territory = np.zeros((NUM_PLAYERS, num_lands), dtype=np.int32)
        self.dist = np.zeros((NUM_PLAYERS, num_lands), dtype=np.int32)
        self.counts = np.zeros((NUM_PLAYERS, num_lands), dtype=np.int32)
        self.need = np.zeros((NUM_PLAYERS, num_lands), dtype=np.int32)
        self.libneed = np.zeros((NUM_PLAYERS, num_lands), dtype=np.int32)
        self.scores = np.zeros(NUM_PLAYERS, dtype=np.int32)
        self.king_land = np.zeros(NUM_PLAYERS, dtype=np.int32)
        self.seated = np.zeros(NUM_PLAYERS, dtype=np.int32)
        self.king_turns = np.zeros(num_lands, dtype=np.int32)
        self.entry_src = np.zeros(num_lands, dtype=np.int32)
        self.entry_dst = np.zeros(num_lands, dtype=np.int32)
        self.src_cost = np.zeros(num_cells, dtype=np.int32)
        self.kinds = np.zeros(num_cells, dtype=np.int8)
        self.dlist = np.zeros(num_cells, dtype=np.int32)
        self._hop = np.zeros(num_lands, dtype=np.int32)
        self._mark = np.zeros(num_lands, dtype=np.int32)
        self._queue = np.zeros(num_lands, dtype=np.int32)
        self._pair = np.zeros(2, dtype=np.int32)
        self._comp = np.zeros(num_cells, dtype=np.int32)
        self._access = np.zeros(num_cells, dtype=np.int32)
        self._cqueue = np.zeros(num_cells, dtype=np.int32)
        # static tables
        self.points = g.land_points
        self.ring = g.land_ring
        self.is_start = g.is_start_land.astype(bool)
        self.throne = g.land_throne
        self.cell_land = g.cell_land
        self.land_distance = g.land_distance
        self.centre = g.centre_land
        self.radius = g.land_radius
        self.game: Game | None = None
        self.handle: Any = None  # the game's compiled handle, and the toolkit's kernels bound to its type
        self.kernels: Any = None
        self.seat = 0
        self.owner: NDArray[np.int16] = np.zeros(num_lands, dtype=np.int16)
        self.entries_ready = False

    def update(self, game: Game, seat: int) -> Situation:
        """Analyse ``game`` for ``seat`` (one compiled pass plus the king's route estimates)."""
        self.game = game
        self.seat = seat
        self.owner = game.lands[lay.OWNER]
        h = self.handle = game.handle()
        k = self.kernels = th.entries_for(h)
        k.analyse(
            h,
            self.territory,
            self.dist,
            self.counts,
            self.scores,
            self.need,
            self.libneed,
            self.king_land,
            self.seated,
        )
        k.king_turns(
            h,
            seat,
            self.territory[seat],
            self.radius,
            self._hop,
            self._mark,
            self._queue,
            self.king_turns,
        )
        self.entries_ready = False
        return self

    # ---- simple reads ----------------------------------------------------------------------
    @property
    def king_cell(self) -> int:
        assert self.game is not None
        return int(self.game.scalars[lay.KING_CELL + self.seat])

    def king_cell_of(self, q: int) -> int:
        assert self.game is not None
        return int(self.game.scalars[lay.KING_CELL + q])

    def hold(self, q: int) -> NDArray[np.int16]:
        """Return q's conquest counters per land (rule 6.4)."""
        assert self.game is not None
        row: NDArray[np.int16] = self.game.lands[lay.HOLD + q]
        return row

    def lib(self, q: int) -> NDArray[np.int16]:
        """Return q's liberation counters per land (rule 7.3)."""
        assert self.game is not None
        row: NDArray[np.int16] = self.game.lands[lay.LIB + q]
        return row

    def seated_on(self, q: int, land: int) -> bool:
        """Return True if q's king sits on ``land``'s throne."""
        return self.king_cell_of(q) == int(self.throne[land])

    def kings_in(self, land: int, exclude: int = -1) -> bool:
        """Return True if a king of a player other than ``exclude`` stands in ``land``."""
        return any(q != exclude and self.king_land[q] == land for q in range(NUM_PLAYERS))

    def own_knight_cells(self, p: int | None = None) -> I32:
        """Return the cells of a player's knights (the seat's by default)."""
        assert self.game is not None
        code = lay.piece_code(self.seat if p is None else p, lay.KNIGHT)
        return np.flatnonzero(self.game.board == code).astype(np.int32)

    def rival_seated_lands(self, p: int) -> set[int]:
        """Return the lands whose throne holds a king of a player other than ``p``."""
        return {int(self.king_land[q]) for q in range(NUM_PLAYERS) if q != p and self.seated[q]}

    def distance_factor(self, p: int, land: int) -> int:
        """Return N_p(land) (rule 6.3): land distance to T(p) minus 1."""
        return int(self.dist[p, land]) - 1


# ---- conditions and costs -------------------------------------------------------------------
def need(sit: Situation, p: int, land: int) -> int:
    """Return need(p, land) (rule 6.2): N + 1, +1 if owned, + every other player's knights, +1 for the centre."""
    return int(sit.need[p, land])


def liberation_need(sit: Situation, p: int, land: int) -> int:
    """Return the knights p needs to liberate ``land`` (rule 7.1): N + 3 + every other player's knights."""
    return int(sit.libneed[p, land])


def conquest_holds(sit: Situation, p: int, land: int, starting: bool) -> bool:
    """Return CQ(p, land) (rules 6.1, 6.2, 6.8) by the engine's own kernel on the analysed state."""
    return bool(
        sit.kernels.conquest_holds(
            sit.handle, sit.counts, sit.territory[p], sit.dist[p], p, land, bool(starting), int(sit.scores[p])
        )
    )


def liberation_holds(sit: Situation, p: int, land: int) -> bool:
    """Return LB(p, land) (rule 7.1) by the engine's own kernel on the analysed state."""
    return bool(sit.kernels.liberation_holds(sit.handle, sit.counts, sit.dist[p], p, land))


def centre_open(sit: Situation, p: int) -> bool:
    """Return True if p could hold the centre now: T(p) reaches ring 1 and, to start, score >= C (rule 6.8)."""
    game = sit.game
    assert game is not None
    if sit.dist[p, sit.centre] != 1:  # N = 0 for the centre iff a ring-1 land is in T(p)
        return False
    return int(sit.hold(p)[sit.centre]) >= 1 or int(sit.scores[p]) >= sit.geometry.centre_min_points


def entry_blocked(sit: Situation, p: int) -> NDArray[np.bool_]:
    """Return, per land, whether p's king may not conquer there now (rules 5.1, 5.4, 6.1).

    Blocked: start lands, own lands, a land whose throne holds a rival king, a rival-owned
    land holding its owner's king.
    """
    blocked: NDArray[np.bool_] = sit.is_start | (sit.owner == p)
    for q in range(NUM_PLAYERS):
        if q == p:
            continue
        kl = int(sit.king_land[q])
        if sit.seated[q] or sit.owner[kl] == q:
            blocked[kl] = True
    return blocked


def knight_turns(sit: Situation, p: int) -> I32:
    """Return, per land, the own turns one more knight of p needs to get in.

    One fast move (rule 4.5) when the land touches T(p); otherwise a fast move to the edge of
    the territory and then steps (rule 4.2), about ``2n + 1`` cells per land in between.
    """
    dist = sit.dist[p]
    return np.where(dist <= 1, 1, 1 + (dist - 1) * (2 * sit.radius + 1)).astype(np.int32)


def conquest_eta(sit: Situation, p: int, knights_free: int, turns_to_conquer: int) -> F64:
    """Return, per land, p's estimated own turns to conquer it (``setup + K - 1``), inf if not now.

    ``setup`` = missing knights (one fast move each from a territory touching the land,
    rule 4.5; more when walking) plus the king's route (:func:`kernels.king_turns`). The
    land where p's king already holds a counter costs only the turns left.
    """
    missing = np.maximum(0, sit.need[p] - sit.counts[p])
    setup = missing * knight_turns(sit, p) + sit.king_turns
    eta: F64 = (setup + turns_to_conquer - 1).astype(np.float64)
    hold = sit.hold(p)
    seat_land = int(sit.king_land[p])
    if sit.seated[p] and hold[seat_land] >= 1:
        eta[seat_land] = missing[seat_land] + turns_to_conquer - int(hold[seat_land])
    eta[entry_blocked(sit, p)] = INFEASIBLE
    eta[missing > knights_free] = INFEASIBLE
    if not centre_open(sit, p):
        eta[sit.centre] = INFEASIBLE
    return eta


def liberation_eta(sit: Situation, p: int, knights_free: int) -> F64:
    """Return, per land, p's estimated own turns to liberate it (``setup + 1``, rule 7.3), inf if not now.

    Only rival-owned non-start lands with no king inside qualify (rule 7.1).
    """
    missing = np.maximum(0, sit.libneed[p] - sit.counts[p])
    eta: F64 = (missing * knight_turns(sit, p) + 1).astype(np.float64)
    ok = (sit.owner >= 0) & (sit.owner != p) & ~sit.is_start & (missing <= knights_free)
    for q in range(NUM_PLAYERS):
        ok[int(sit.king_land[q])] = False
    eta[~ok] = INFEASIBLE
    lib = sit.lib(p)
    eta[(lib >= 1) & ok] = np.maximum(0, missing[(lib >= 1) & ok]) + 1
    return eta


@functools.lru_cache(maxsize=32)
def land_potential(geometry: Geometry, discount: float = 0.5) -> F64:
    """Return per land the discounted points of the best chain of lands starting there.

    ``V(L) = points(L) + discount * max V(neighbour)`` over non-start lands, the centre
    excluded (it ends the game, rule 9.1): how much a land is worth as a way in towards the
    valuable rings (rule 8.1: 6 points in ring 1, 3 in ring 2).
    """
    g = geometry
    points = g.land_points.astype(np.float64).copy()
    points[g.centre_land] = 0.0
    usable = (g.is_start_land == 0) & (np.arange(g.num_lands) != g.centre_land)
    nb = np.where(g.land_neighbors >= 0, g.land_neighbors, g.num_lands)
    value = points.copy()
    for _ in range(4 * g.map_radius + 8):
        ext = np.append(np.where(usable, value, 0.0), 0.0)
        value = points + discount * ext[nb].max(axis=1)
    value[~usable] = 0.0
    value.setflags(write=False)
    return value


def opening_value(sit: Situation, p: int, potential: F64) -> F64:
    """Return per land the best potential among the lands its conquest would newly bring next to T(p)."""
    g = sit.geometry
    nb = g.land_neighbors
    safe = np.where(nb >= 0, nb, 0)
    fresh = (nb >= 0) & (sit.dist[p][safe] >= 2) & (sit.owner[safe] != p)
    best: F64 = np.where(fresh, potential[safe], 0.0).max(axis=1)
    return best


@dataclass(frozen=True)
class Threat:
    """A rival position with a counter >= 1 (spec 6 toolkit ``threat(q)``)."""

    player: int
    land: int
    kind: str  # "conquest" or "liberation"
    counter: int
    turns_left: int  # own EOTs of the rival until it completes
    surplus: int  # rival knights above the need: knights we must add to break it

    @property
    def to_break(self) -> int:
        return self.surplus + 1


def threats(sit: Situation, q: int, turns_to_conquer: int) -> list[Threat]:
    """Return q's positions with a counter >= 1 that still hold now (rules 6.4, 7.3)."""
    out: list[Threat] = []
    hold = sit.hold(q)
    kl = int(sit.king_land[q])
    if sit.seated[q] and hold[kl] >= 1 and conquest_holds(sit, q, kl, starting=False):
        surplus = int(sit.counts[q, kl] - sit.need[q, kl])
        out.append(Threat(q, kl, "conquest", int(hold[kl]), turns_to_conquer - int(hold[kl]), surplus))
    lib = sit.lib(q)
    for index in np.flatnonzero(lib >= 1):
        land = int(index)
        if liberation_holds(sit, q, land):
            surplus = int(sit.counts[q, land] - sit.libneed[q, land])
            out.append(Threat(q, land, "liberation", int(lib[land]), LIBERATION_TURNS - int(lib[land]), surplus))
    return out


# ---- the end request --------------------------------------------------------------------------
def request_outcome(game: Game) -> list[int]:
    """Return every player's score after an end request by the player to act (rule 9.4), on a copy."""
    sim = game.copy()
    sim.request_end()
    return sim.scores()


def can_win_by_request(game: Game, p: int, strict: bool = True) -> bool:
    """Return True if p may request the end now (rule 9.3) and would then win (9.4-9.5).

    ``strict`` requires a sole win; otherwise a tie at the top counts (rule 9.5).
    """
    if game.over or game.turn != p or not game.can_request_end():
        return False
    final = request_outcome(game)
    best_other = max(final[q] for q in range(NUM_PLAYERS) if q != p)
    return final[p] > best_other if strict else final[p] >= best_other


# ---- moves ------------------------------------------------------------------------------------
def king_toward(sit: Situation, land: int) -> Move | None:
    """Return the legal king move that best approaches ``land``'s throne, or None (rules 4.4, 4.8, 4.9)."""
    dst = sit.kernels.king_toward(
        sit.handle,
        sit.kinds,
        sit.dlist,
        sit.seat,
        land,
        sit.territory[sit.seat],
        sit.radius,
        sit._hop,
        sit._mark,
        sit._queue,
    )
    return Move(sit.king_cell, int(dst)) if dst >= 0 else None


def king_into(sit: Situation, land: int) -> Move | None:
    """Return a legal king move into ``land`` (nearest its throne), or None."""
    dst = sit.kernels.king_into_land(sit.handle, sit.kinds, sit.dlist, sit.seat, land)
    return Move(sit.king_cell, int(dst)) if dst >= 0 else None


def knight_toward(sit: Situation, land: int, allowed: NDArray[np.int8], dist: I32 | None = None) -> Move | None:
    """Return the allowed knight move that best approaches ``land`` (rules 4.2, 4.5), or None.

    ``dist`` overrides the seat's land distance to its territory (to plan for a territory
    about to grow).
    """
    game = sit.game
    assert game is not None
    p = sit.seat
    dist_p = sit.dist[p] if dist is None else dist
    if th.fits(allowed, th.INT8, sit.geometry.num_cells) and th.fits(dist_p, th.INT32, sit.geometry.num_lands):
        call, first = sit.kernels.knight_toward, (sit.handle,)
    else:  # an array of another layout: the dispatcher types it (and refuses a wrong one)
        call, first = kernels.knight_toward, (game._tables, game.board, game.lands, game.scalars, game._work)
    call(
        *first,
        sit.kinds,
        sit.dlist,
        p,
        land,
        allowed,
        sit.territory[p],
        dist_p,
        sit.radius,
        sit._pair,
        sit._comp,
        sit._access,
        sit._cqueue,
    )
    src, dst = int(sit._pair[0]), int(sit._pair[1])
    return Move(src, dst) if src >= 0 else None


def knight_entries(sit: Situation, allowed: NDArray[np.int8]) -> tuple[I32, I32]:
    """Return (src, dst) per land: an allowed knight move entering it this turn (-1 where none).

    Sources with a lower ``sit.src_cost`` are preferred, then destinations near the throne.
    Computed once per decision (call :meth:`Situation.update` again after changing ``allowed``).
    """
    game = sit.game
    assert game is not None
    if not sit.entries_ready:
        if th.fits(allowed, th.INT8, sit.geometry.num_cells):
            call, first = sit.kernels.knight_entries, (sit.handle,)
        else:  # an array of another layout: the dispatcher types it (and refuses a wrong one)
            call, first = kernels.knight_entries, (game._tables, game.board, game.lands, game.scalars, game._work)
        call(
            *first,
            sit.kinds,
            sit.dlist,
            sit.seat,
            allowed,
            sit.src_cost,
            sit.entry_src,
            sit.entry_dst,
        )
        sit.entries_ready = True
    return sit.entry_src, sit.entry_dst


def knight_into(sit: Situation, land: int, allowed: NDArray[np.int8]) -> Move | None:
    """Return an allowed knight move that enters ``land`` this turn, or None."""
    src, dst = knight_entries(sit, allowed)
    return Move(int(src[land]), int(dst[land])) if src[land] >= 0 else None
