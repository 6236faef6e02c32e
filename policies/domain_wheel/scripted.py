"""The turn flow shared by the five scripted AIs (spec section 6): end request, plan, execution.

Every turn a scripted AI:

1. requests the end if that wins (rules 9.3-9.4, :func:`toolkit.can_win_by_request`), or
   steps its king onto a cheaper own land first when only the loss of the land under the
   king (rule 9.4 step 3) stands between it and the win;
2. runs its strategy's :meth:`ScriptedPolicy.decide`, which usually picks a plan (conquer or
   liberate one land) with :meth:`ScriptedPolicy.update_plan` and executes it with
   :meth:`ScriptedPolicy.pursue`: knights into the land first, then the king onto the
   throne (Paso 4), then hold, reinforcing against intruders (rule 6.5);
3. uses spare turns (while the king holds) to send free knights into the next land
   (:meth:`ScriptedPolicy.prepare`), and passes otherwise (rule 3.2b).

A plan that makes no progress within its budget is dropped and its land avoided for a while,
and an AI that has only passed for a few turns frees the knights it keeps as guards or
blockers, so a blocked AI never loops or waits until truncation (A57).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dw_env.engine import END_REQUEST_MOVE, PASS_MOVE, Game, Move
from dw_env.errors import brief
from dw_env.info import NUM_PLAYERS
from dw_env.rules import layout as lay
from policies import state as st
from policies.base import Policy
from policies.domain_wheel import toolkit as tk

CONQUER = "conquer"
LIBERATE = "liberate"
F64 = NDArray[np.float64]
#: no plan may take more own turns than this without a counter running
MAX_BUDGET = 24
#: own turns of idle passing after which guards and blockers are freed (see ScriptedPolicy.stalled)
IDLE_LIMIT = 3


@dataclass
class Plan:
    """One land to take: ``kind`` is CONQUER (king, rule 6) or LIBERATE (knights only, rule 7)."""

    kind: str
    land: int
    since: int  # the own-turn index when it was chosen
    budget: int  # own turns allowed before it is dropped, unless a counter runs


class ScriptedPolicy(Policy):
    """Base of the scripted AIs: shared turn flow; subclasses implement :meth:`decide`."""

    name = "scripted"
    display_name = "Scripted"
    #: a plan is kept while its value is at least this share of the best one (spec 6.1: within 25 %)
    keep_ratio = 0.75
    #: keep knights standing in lands where a rival king is seated (they raise its need, rule 6.2)
    keep_blockers = True
    #: own turns a dropped land is avoided
    ban_turns = 12
    #: relative noise on plan values, drawn from the seeded generator (variety between games)
    jitter = 0.03
    #: weight of what a land opens up (:func:`toolkit.opening_value`) next to its own points
    opening_weight = 0.5

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self._sit: tk.Situation | None = None
        self._allowed: NDArray[np.int8] | None = None
        self.plan: Plan | None = None
        self.raid: Plan | None = None  # a side liberation run by knights only (Raider)
        self.banned: dict[int, int] = {}
        self.prep_land = -1  # the land spare knights are being sent to (see prepare)
        self.idle_turns = 0
        self.turn_index = 0
        self.turns_to_conquer = 4

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.plan = None
        self.raid = None
        self.prep_land = -1
        self.idle_turns = 0
        self.banned = {}
        self.turn_index = 0

    # ---- saved state (dw train --resume) ----------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """Return the per-game memory as plain data: RNG, plans, banned lands, turn counts.

        The analysis arrays (``Situation``) are recomputed at every decision and are not part of it.
        """
        return {
            **super().state_dict(),
            "plan": None if self.plan is None else asdict(self.plan),
            "raid": None if self.raid is None else asdict(self.raid),
            "banned": [[land, until] for land, until in self.banned.items()],
            "prep_land": self.prep_land,
            "idle_turns": self.idle_turns,
            "turn_index": self.turn_index,
            "turns_to_conquer": self.turns_to_conquer,
        }

    def _read_state(self, state: Mapping[str, Any], num_lands: int) -> dict[str, Any]:
        where = type(self).__name__
        turns = 2**31 - 1
        banned: dict[int, int] = {}
        for i, pair in enumerate(st.read_list(state["banned"], f"{where}.banned", num_lands)):
            item = st.read_list(pair, f"{where}.banned[{i}]", 2)
            if len(item) != 2:
                raise st.StateError(f"{where}.banned[{i}]: must be [land, until], got {brief(item)}")
            banned[st.read_int(item[0], f"{where}.banned[{i}][0]", 0, num_lands - 1)] = st.read_int(
                item[1], f"{where}.banned[{i}][1]", -turns, turns
            )
        return {
            **super()._read_state(state, num_lands),
            "plan": _read_plan(state["plan"], f"{where}.plan", num_lands),
            "raid": _read_plan(state["raid"], f"{where}.raid", num_lands),
            "banned": banned,
            "prep_land": st.read_int(state["prep_land"], f"{where}.prep_land", -1, num_lands - 1),
            "idle_turns": st.read_int(state["idle_turns"], f"{where}.idle_turns", 0, turns),
            "turn_index": st.read_int(state["turn_index"], f"{where}.turn_index", 0, turns),
            "turns_to_conquer": st.read_int(state["turns_to_conquer"], f"{where}.turns_to_conquer", 1, 1000),
        }

    # ---- the turn --------------------------------------------------------------------------
    def act(self, game: Game, seat: int) -> Move:
        if game.over:
            return PASS_MOVE
        if game.turn != seat:
            raise ValueError(f"{self.name} was asked to play seat {seat}, but seat {game.turn} is to act")
        sit = self._situation(game).update(game, seat)
        self.turn_index += 1
        self.turns_to_conquer = game.options.turns_to_conquer
        if game.can_request_end():
            if self.wants_end(game, sit):
                return END_REQUEST_MOVE
            move = self.retreat(game, sit)
            if move is not None:
                return move
        allowed = self.allowed_knights(sit)
        move = self.decide(game, sit, allowed)
        if move is None:
            move = PASS_MOVE
        running = sit.seated[seat] and sit.hold(seat)[int(sit.king_land[seat])] >= 1
        self.idle_turns = self.idle_turns + 1 if move.is_pass and not running else 0
        return move

    @property
    def stalled(self) -> bool:
        """Return True after :data:`IDLE_LIMIT` own turns of passing with no position running.

        A stalled AI frees its guards and blockers for its plan, so that a board where every
        free knight is tied down still moves on (games should end by a rule, not truncation).
        """
        return self.idle_turns >= IDLE_LIMIT

    def decide(self, game: Game, sit: tk.Situation, allowed: NDArray[np.int8]) -> Move | None:
        """Return the strategy's move, or None to pass."""
        raise NotImplementedError

    def wants_end(self, game: Game, sit: tk.Situation) -> bool:
        """Return True to request the end now (spec 6: only when it wins)."""
        return tk.can_win_by_request(game, sit.seat, strict=True)

    def _situation(self, game: Game) -> tk.Situation:
        if self._sit is None or self._sit.geometry is not game.geometry:
            self._sit = tk.Situation(game.geometry)
            self._allowed = np.zeros(game.geometry.num_cells, dtype=np.int8)
        return self._sit

    # ---- the end request -------------------------------------------------------------------
    def retreat(self, game: Game, sit: tk.Situation) -> Move | None:
        """Return a king move to a cheaper own land when only the land under the king spoils the win.

        An end request costs the requester the land holding its king unless it is the start
        land (rule 9.4 step 3); from a land worth less the same request may win.
        """
        p = sit.seat
        final = tk.request_outcome(game)
        best_other = max(final[q] for q in range(NUM_PLAYERS) if q != p)
        kl = int(sit.king_land[p])
        kept = final[p] + int(sit.points[kl])
        if kept <= best_other:
            return None
        own = [int(m) for m in np.flatnonzero(sit.owner == p)]
        for m in sorted(own, key=lambda m: (int(sit.points[m]), int(sit.land_distance[kl, m]))):
            if m == kl or kept - int(sit.points[m]) <= best_other:
                continue
            move = tk.king_into(sit, m)
            if move is not None:
                return move
        return None

    # ---- knights ---------------------------------------------------------------------------
    def allowed_knights(self, sit: tk.Situation) -> NDArray[np.int8]:
        """Return a mask over cells of the seat's knights that may move this turn; sets src_cost."""
        assert sit.game is not None and self._allowed is not None
        p = sit.seat
        board = sit.game.board
        allowed = self._allowed
        np.equal(board, lay.piece_code(p, lay.KNIGHT), out=allowed, casting="unsafe")
        locked = self.locked_lands(sit)
        if locked:
            allowed[np.isin(sit.cell_land, list(locked))] = 0
        cells = self.locked_cells(sit)
        if cells:
            allowed[cells] = 0
        # knights inside the territory are the mobile ones (rule 4.5): spend them first
        sit.src_cost[:] = 1 - sit.territory[p][sit.cell_land]
        return allowed

    def locked_lands(self, sit: tk.Situation) -> set[int]:
        """Return lands whose knights stay put: the plan's land and, if kept, blockers' lands."""
        p = sit.seat
        locked = {plan.land for plan in (self.plan, self.raid) if plan is not None}
        if self.keep_blockers and not self.stalled:
            for q in range(NUM_PLAYERS):
                kl = int(sit.king_land[q])
                if q != p and sit.seated[q] and sit.counts[p, kl] > 0:
                    locked.add(kl)
        return locked

    def locked_cells(self, sit: tk.Situation) -> list[int]:
        """Return single knights that stay put (guards); none by default."""
        return []

    @staticmethod
    def free_knights(allowed: NDArray[np.int8]) -> int:
        return int(np.count_nonzero(allowed))

    # ---- plans -----------------------------------------------------------------------------
    def update_plan(self, sit: tk.Situation, conquer: F64, liberate: F64 | None = None) -> Plan | None:
        """Keep or replace the plan given per-land values (higher is better, -inf infeasible).

        The knights' mask (``self._allowed``, shared with :meth:`decide`) is refreshed so that
        the plan's land keeps its knights.
        """
        self.plan = self._choose_plan(sit, self.plan, conquer, liberate)
        self.allowed_knights(sit)
        sit.entries_ready = False
        return self.plan

    def _choose_plan(self, sit: tk.Situation, plan: Plan | None, conquer: F64, liberate: F64 | None) -> Plan | None:
        """Return ``plan`` if it is still worth keeping, else the best-valued new plan (or None)."""
        p = sit.seat
        running = False
        if plan is not None:
            running = self._counter(sit, plan) >= 1
            if plan.kind == CONQUER and sit.owner[plan.land] == p:
                plan = None
            elif not running and self.turn_index - plan.since > plan.budget:
                self.banned[plan.land] = self.turn_index + self.ban_turns
                plan = None
        values = {CONQUER: conquer.copy()}
        if liberate is not None:
            values[LIBERATE] = liberate.copy()
        for land, until in list(self.banned.items()):
            if until <= self.turn_index:
                del self.banned[land]
                continue
            for v in values.values():
                v[land] = -math.inf
        best_kind, best_land, best_value = CONQUER, -1, -math.inf
        for kind, v in values.items():
            if self.jitter:  # seeded variety between games; never turns -inf finite
                v *= 1.0 + self.jitter * self.rng.random(v.shape[0])
            land = int(np.argmax(v))
            if v[land] > best_value:
                best_kind, best_land, best_value = kind, land, float(v[land])
        if plan is not None:
            current = float(values[plan.kind][plan.land]) if plan.kind in values else -math.inf
            if current > -math.inf and (running or current >= self.keep_ratio * best_value):
                return plan
        if best_value == -math.inf:
            return None
        eta = self._plan_eta(sit, best_kind, best_land)
        return Plan(best_kind, best_land, self.turn_index, min(MAX_BUDGET, int(2 * eta) + 6))

    def _plan_eta(self, sit: tk.Situation, kind: str, land: int) -> float:
        free = int(np.count_nonzero(self._allowed)) if self._allowed is not None else 0
        if kind == CONQUER:
            eta = tk.conquest_eta(sit, sit.seat, free, self.turns_to_conquer)[land]
        else:
            eta = tk.liberation_eta(sit, sit.seat, free)[land]
        return float(eta) if math.isfinite(eta) else 10.0

    def _counter(self, sit: tk.Situation, plan: Plan) -> int:
        if plan.kind == CONQUER:
            return int(sit.hold(sit.seat)[plan.land])
        return int(sit.lib(sit.seat)[plan.land])

    # ---- executing a plan ------------------------------------------------------------------
    def pursue(self, sit: tk.Situation, allowed: NDArray[np.int8], plan: Plan | None = None) -> Move | None:
        """Return the next move of a plan (the main one by default): knights in, then the king onto
        the throne; None while holding or stuck."""
        plan = plan or self.plan
        if plan is None:
            return None
        p, land = sit.seat, plan.land
        if plan.kind == LIBERATE:
            if sit.counts[p, land] < sit.libneed[p, land]:
                return tk.knight_into(sit, land, allowed) or tk.knight_toward(sit, land, allowed)
            return None
        missing = int(sit.need[p, land] - sit.counts[p, land])
        if missing > 0:
            move = tk.knight_into(sit, land, allowed)
            if move is not None:
                return move
        if not sit.seated_on(p, land):
            move = tk.king_toward(sit, land)
            if move is not None:
                return move
        if missing > 0:
            return tk.knight_toward(sit, land, allowed)
        return None

    def prepare(self, sit: tk.Situation, allowed: NDArray[np.int8]) -> Move | None:
        """Return a spare knight's move into the land most likely to be the next target, or None.

        Lands are valued by :meth:`conquest_values` as if the current plan's land were already
        in the territory (N measured to T(p) plus that land, rule 6.3).
        """
        p = sit.seat
        dist = sit.dist[p].copy()
        plan_land = -1
        if self.plan is not None:
            plan_land = self.plan.land
            if self.plan.kind == CONQUER and dist[plan_land] == 1:
                np.minimum(dist, sit.land_distance[plan_land], out=dist)
        need = sit.need[p] - (sit.dist[p] - dist)
        missing = np.maximum(0, need - sit.counts[p])
        if self.plan is not None and self.plan.kind == CONQUER:
            # the king will start from the plan's throne
            base = sit.land_distance[plan_land]
            king = np.maximum(1, base - 1) + np.where(sit.owner < 0, (sit.radius + 1) // 2, sit.radius)
        else:
            king = sit.king_turns
        eta = (missing + king + self.turns_to_conquer - 1).astype(np.float64)
        eta[tk.entry_blocked(sit, p)] = tk.INFEASIBLE
        eta[sit.centre] = tk.INFEASIBLE
        eta[dist != 1] = tk.INFEASIBLE
        values = self.conquest_values(sit, eta)
        if plan_land >= 0:
            values[plan_land] = -math.inf
        for land in self.banned:
            values[land] = -math.inf
        target = int(np.argmax(values))
        if values[target] == -math.inf:
            return None
        kept = self.prep_land
        if kept >= 0 and values[kept] > -math.inf and values[kept] >= self.keep_ratio * values[target]:
            target = kept  # a sticky choice: knights do not chase a target that flips every turn
        self.prep_land = target
        if missing[target] <= 0:
            return None
        return tk.knight_into(sit, target, allowed) or tk.knight_toward(sit, target, allowed)

    def conquest_values(self, sit: tk.Situation, eta: F64) -> F64:
        """Return per-land values of conquering: ``(points + w * opening) / eta`` (higher is better)."""
        gain = sit.points + self.opening_weight * tk.opening_value(sit, sit.seat, tk.land_potential(sit.geometry))
        return np.where(np.isfinite(eta), gain / np.maximum(eta, 1.0), -math.inf)

    # ---- blocking --------------------------------------------------------------------------
    def block(self, sit: tk.Situation, allowed: NDArray[np.int8], horizon: int, order: str) -> Move | None:
        """Return a knight move into a rival position (counter >= 1) completing within ``horizon`` turns.

        Each knight entering raises the rival's need by one (rules 6.2, 7.1). ``order`` ranks
        the candidates: "urgency" (centre first, then points x urgency) or "counter" (highest
        counter first, then points); positions one knight breaks come before the others.
        """
        p = sit.seat
        found: list[tuple[float, tk.Threat]] = []
        for q in range(NUM_PLAYERS):
            if q == p:
                continue
            for t in tk.threats(sit, q, self.turns_to_conquer):
                if t.turns_left > horizon:
                    continue
                points = float(sit.points[t.land])
                if order == "urgency":
                    key = (1e6 if t.land == sit.centre else 0.0) + points / max(1, t.turns_left)
                else:
                    key = t.counter * 100.0 + points
                key += 1e7 if t.to_break == 1 else 0.0
                found.append((key, t))
        found.sort(key=lambda kt: -kt[0])
        for _, t in found:
            move = tk.knight_into(sit, t.land, allowed)
            if move is not None:
                return move
        return None


def _read_plan(value: Any, where: str, num_lands: int) -> Plan | None:
    """Return the Plan saved as a mapping (or None); StateError if it does not fit a map of ``num_lands``."""
    if value is None:
        return None
    plan = st.check_keys(value, ("kind", "land", "since", "budget"), where)
    return Plan(
        st.read_str(plan["kind"], f"{where}.kind", (CONQUER, LIBERATE)),
        st.read_int(plan["land"], f"{where}.land", 0, num_lands - 1),
        st.read_int(plan["since"], f"{where}.since", 0, 2**31 - 1),
        st.read_int(plan["budget"], f"{where}.budget", 0, 2**31 - 1),
    )


def would_win_with_centre(sit: tk.Situation, p: int) -> bool:
    """Return True if p leads strictly once the centre's points are added (rule 9.1 ends the game)."""
    mine = int(sit.scores[p]) + int(sit.points[sit.centre])
    return all(mine > int(sit.scores[q]) for q in range(NUM_PLAYERS) if q != p)
