"""Opponents for self-play: the learner itself, frozen past selves and scripted AIs; results and ratings.

Every game has the learner in one seat (rotated game by game) and one opponent kind in the other two seats
("one seat vs two copies", as the arena measures agents). The kind is sampled per game from
``league.weights``:

* ``latest``: the learner's current weights (classic self-play; its moves are not trained on);
* ``past``: a frozen copy of the learner, taken every ``snapshot_every`` updates; the last ``keep`` are kept
  and one is drawn uniformly per game;
* ``start``: the weights the run started from (``network.init_from``), frozen for the whole run and never
  dropped: a fixed yardstick, so that a next stage learns to beat the stage before it;
* ``random``, ``balanced``, ...: the scripted AIs of :mod:`policies`.

**Env groups.** Scripted AIs are Python and slow next to a batched network forward pass, so the env slots
are split once into a *network group* and a *scripted group* in proportion to the weights; a slot only ever
plays opponents of its group. The network group costs one batched forward pass per snapshot in use; the
scripted group calls the AIs only for its own slots, once per turn (the AI's move is replayed as the env's
two actions).

Results are kept per opponent over a sliding window: the win credit (a shared win of ``k`` players counts
``1/k``, truncation 0) and the finishing order, from which a Plackett–Luce rating over the league is fitted
(:mod:`training.evaluation.rating`); and the win credit per opponent kind and seat.

**Seatings.** By default the learner's seat rotates game by game in each slot. With ``league.seat_focus`` > 0
it is drawn per game instead, after the opponent: each seat weighted by ``(1 - r + SEAT_FLOOR) ** focus``,
``r`` the learner's recent win credit in that seat against that opponent kind (uniform until every seat has
:data:`SEAT_MIN_GAMES` games in the window). The turn order makes some seats much harder against some AIs
(their own mirror games show it), and a seat that loses often then gets more of the games.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from dw_env.envs.actions import move_to_actions
from dw_env.errors import brief
from policies import state as st
from training.ppo.config import NETWORK_OPPONENTS, LeagueConfig

LEARNER = "learner"
LATEST = "latest"
PAST = "past"
START = "start"
#: games a seat needs in the window against an opponent kind before seat_focus weighs it
SEAT_MIN_GAMES = 20
#: added to every seat's loss rate, so that a seat the learner always wins still gets games
SEAT_FLOOR = 0.05


def opponent_kind(opponent: str) -> str:
    """Return the kind of an opponent id: "past" for a frozen past self ("past-NNNNNN"), else the id."""
    return PAST if opponent.startswith(f"{PAST}-") else opponent


def seat_probabilities(rates: list[tuple[float, int]], focus: float) -> NDArray[np.float64]:
    """Return the learner's seat probabilities from its (win rate, games) per seat (league.seat_focus).

    Uniform when ``focus`` is 0 or a seat has fewer than :data:`SEAT_MIN_GAMES` games; else each seat weighted
    by ``(1 - rate + SEAT_FLOOR) ** focus``.
    """
    k = len(rates)
    if focus <= 0 or any(games < SEAT_MIN_GAMES for _, games in rates):
        return np.full(k, 1.0 / k)
    w = np.array([(1.0 - rate + SEAT_FLOOR) ** focus for rate, _ in rates])
    return w / w.sum()


def scripted_kinds(weights: dict[str, float]) -> list[str]:
    """Return the scripted opponent kinds of a league's weights (every kind that is not a network), in order."""
    return [k for k in weights if k not in NETWORK_OPPONENTS]


def split_groups(weights: dict[str, float], num_envs: int) -> int:
    """Return how many env slots (the last ones) form the scripted group, in proportion to the weights."""
    net = sum(weights.get(k, 0.0) for k in NETWORK_OPPONENTS)
    scripted = sum(weights.get(k, 0.0) for k in scripted_kinds(weights))
    if scripted <= 0:
        return 0
    if net <= 0:
        return num_envs
    return int(min(num_envs - 1, max(1, round(num_envs * scripted / (net + scripted)))))


@dataclass
class Results:
    """Win credits and finishing orders of the learner's recent games, per opponent."""

    window: int
    players: int = 3
    credit: dict[str, deque[float]] = field(default_factory=dict)
    orders: deque[tuple[str, tuple[tuple[int, ...], ...]]] = field(default_factory=deque)
    games: dict[str, int] = field(default_factory=dict)
    seats: dict[str, list[deque[float]]] = field(default_factory=dict)  # opponent kind -> credits per seat

    def add(self, opponent: str, credit: float, order: tuple[tuple[int, ...], ...], seat: int | None = None) -> None:
        """Record a game: the learner's win credit and the finishing order (tiers of seats: 0 the learner).

        With ``seat`` (the learner's), the credit also counts for that seat against the opponent's kind.
        """
        self.credit.setdefault(opponent, deque(maxlen=self.window)).append(credit)
        if seat is not None:
            kind = opponent_kind(opponent)
            if kind not in self.seats:
                self.seats[kind] = [deque(maxlen=self.window) for _ in range(self.players)]
            self.seats[kind][seat].append(credit)
        self.games[opponent] = self.games.get(opponent, 0) + 1
        self.orders.append((opponent, order))
        while len(self.orders) > self.window * max(1, len(self.credit)):
            self.orders.popleft()

    def win_rates(self) -> dict[str, tuple[float, int]]:
        """Return {opponent: (win rate over the window, games in the window)}."""
        return {k: (float(np.mean(v)), len(v)) for k, v in self.credit.items() if v}

    def seat_rates(self, kind: str) -> list[tuple[float, int]]:
        """Return [(win rate, games)] per seat of the learner against opponent kind ``kind`` over the window."""
        per_seat = self.seats.get(kind) or [deque() for _ in range(self.players)]
        return [(float(np.mean(v)) if v else 0.0, len(v)) for v in per_seat]

    def state_dict(self) -> dict[str, Any]:
        """Return the results as plain data (JSON-able), in the order they were recorded."""
        return {
            "window": self.window,
            "credit": {opp: list(v) for opp, v in self.credit.items()},
            "orders": [[opp, [list(tier) for tier in order]] for opp, order in self.orders],
            "games": dict(self.games),
            "seats": {kind: [list(v) for v in per_seat] for kind, per_seat in self.seats.items()},
        }

    def from_state(self, value: Any, where: str) -> Results:
        """Return new Results with this window from :meth:`state_dict`'s data; StateError if it does not fit."""
        keys = ("window", "credit", "orders", "games")
        # "seats" came with league.seat_focus; checkpoints written before it have none
        with_seats = isinstance(value, dict) and "seats" in value
        saved = st.check_keys(value, (*keys, "seats") if with_seats else keys, where)
        st.read_int(saved["window"], f"{where}.window", self.window, self.window)
        out = Results(self.window, self.players)
        k = self.players
        credit = saved["credit"]
        if not isinstance(credit, dict) or len(credit) > 10_000:
            raise st.StateError(f"{where}.credit: must be a mapping of opponent -> win credits, got {brief(credit)}")
        for opp, values in credit.items():
            key = st.read_str(opp, f"{where}.credit key", max_len=40)
            items = st.read_list(values, f"{where}.credit[{key}]", self.window)
            if not all(_is_credit(x) for x in items):
                raise st.StateError(f"{where}.credit[{key}]: must be numbers in 0..1, got {brief(items)}")
            out.credit[key] = deque((float(x) for x in items), maxlen=self.window)
        limit = self.window * max(1, len(out.credit))
        for i, item in enumerate(st.read_list(saved["orders"], f"{where}.orders", limit)):
            pair = st.read_list(item, f"{where}.orders[{i}]", 2)
            if len(pair) != 2:
                raise st.StateError(f"{where}.orders[{i}]: must be [opponent, tiers], got {brief(pair)}")
            tiers = st.read_list(pair[1], f"{where}.orders[{i}][1]", k)
            order = tuple(
                tuple(
                    st.read_int(s, f"{where}.orders[{i}][1]", 0, k - 1) for s in st.read_list(t, f"{where}.orders", k)
                )
                for t in tiers
            )
            if sorted(s for tier in order for s in tier) != list(range(k)):
                seats = ", ".join(map(str, range(k)))
                raise st.StateError(f"{where}.orders[{i}][1]: tiers must hold seats {seats} once each, got {order}")
            out.orders.append((st.read_str(pair[0], f"{where}.orders[{i}][0]", max_len=40), order))
        games = saved["games"]
        if not isinstance(games, dict) or len(games) > 10_000:
            raise st.StateError(f"{where}.games: must be a mapping of opponent -> games, got {brief(games)}")
        for opp, count in games.items():
            key = st.read_str(opp, f"{where}.games key", max_len=40)
            out.games[key] = st.read_int(count, f"{where}.games[{key}]", 0, 2**62)
        seats = saved.get("seats", {})
        if not isinstance(seats, dict) or len(seats) > 10_000:
            raise st.StateError(f"{where}.seats: must be a mapping of opponent kind -> credits, got {brief(seats)}")
        for kind, per_seat in seats.items():
            key = st.read_str(kind, f"{where}.seats key", max_len=40)
            lists = st.read_list(per_seat, f"{where}.seats[{key}]", k)
            if len(lists) != k:
                raise st.StateError(f"{where}.seats[{key}]: must hold {k} lists (one a seat), got {len(lists)}")
            out.seats[key] = []
            for seat, values in enumerate(lists):
                items = st.read_list(values, f"{where}.seats[{key}][{seat}]", self.window)
                if not all(_is_credit(x) for x in items):
                    raise st.StateError(f"{where}.seats[{key}][{seat}]: must be numbers in 0..1, got {brief(items)}")
                out.seats[key].append(deque((float(x) for x in items), maxlen=self.window))
        return out


def _is_credit(x: Any) -> bool:
    return not isinstance(x, bool) and isinstance(x, (int, float)) and math.isfinite(x) and 0 <= x <= 1


class League:
    """Samples an opponent per game, keeps the frozen past selves and tracks results."""

    def __init__(self, config: LeagueConfig, num_envs: int, players: int = 3) -> None:
        self.config = config
        self.num_envs = num_envs
        self.num_scripted = split_groups(config.weights, num_envs)
        self.snapshots: list[tuple[str, dict[str, Any]]] = []  # (id, CPU state dict), oldest first
        self.retired: dict[str, dict[str, Any]] = {}  # dropped snapshots still playing a running game
        self.start: dict[str, Any] | None = None  # the run's initial weights (CPU), where a table plays them
        self.results = Results(config.rating_window, players)

    def group_weights(self, slot: int) -> tuple[list[str], NDArray[np.float64]]:
        """Return (kinds, probabilities) of the opponents slot ``slot`` can play."""
        scripted = slot >= self.num_envs - self.num_scripted
        kinds = scripted_kinds(self.config.weights) if scripted else list(NETWORK_OPPONENTS)
        w = np.array([self.config.weights.get(k, 0.0) for k in kinds])
        if not scripted:
            if not self.snapshots:
                w[kinds.index(PAST)] = 0.0  # no past self yet
            if self.start is None:
                w[kinds.index(START)] = 0.0
            if w.sum() <= 0:
                w = np.array([1.0 if k == LATEST else 0.0 for k in kinds])
        return kinds, w / w.sum()

    def sample(self, slot: int, rng: np.random.Generator) -> str:
        """Return the opponent id for a new game in ``slot``: latest, past-NNNNNN, start or a scripted AI's name."""
        kinds, p = self.group_weights(slot)
        kind = kinds[int(rng.choice(len(kinds), p=p))]
        if kind == PAST:
            return self.snapshots[int(rng.integers(len(self.snapshots)))][0]
        return kind

    def draw_seat(self, opponent: str, rng: np.random.Generator) -> int:
        """Return the learner's seat for a new game against ``opponent`` (league.seat_focus > 0)."""
        p = seat_probabilities(self.results.seat_rates(opponent_kind(opponent)), self.config.seat_focus)
        return int(rng.choice(len(p), p=p))

    def snapshot(self, update: int, state_dict: dict[str, Any]) -> str:
        """Freeze a copy of the learner's weights; drop the oldest beyond ``keep``. Return its id."""
        sid = f"past-{update:06d}"
        self.snapshots.append((sid, {k: v.detach().to("cpu", copy=True) for k, v in state_dict.items()}))
        dropped = self.snapshots[: max(0, len(self.snapshots) - self.config.keep)]
        del self.snapshots[: len(dropped)]
        self.retired.update(dropped)
        return sid

    def prune(self, in_use: set[str]) -> None:
        """Forget dropped snapshots that no running game plays any more."""
        for sid in [s for s in self.retired if s not in in_use]:
            del self.retired[sid]

    def set_start(self, state_dict: dict[str, Any]) -> None:
        """Freeze the run's initial weights as the ``start`` opponent (a CPU copy)."""
        self.start = {k: v.detach().to("cpu", copy=True) for k, v in state_dict.items()}

    def known(self) -> set[str]:
        """Return the ids of every frozen network a game may seat: kept and retired snapshots, and ``start``."""
        return {s for s, _ in self.snapshots} | set(self.retired) | ({START} if self.start is not None else set())

    def snapshot_state(self, sid: str) -> dict[str, Any] | None:
        """Return the weights of a snapshot (kept, or dropped but still in a running game), or None."""
        if sid == START:
            return self.start
        return next((state for s, state in self.snapshots if s == sid), self.retired.get(sid))

    def ratings(self) -> dict[str, float]:
        """Return Plackett–Luce ratings (Elo scale) of the learner and its recent opponents."""
        from training.evaluation.rating import fit_plackett_luce, to_elo

        if not self.results.orders:
            return {}
        names = [LEARNER, *sorted({opp for opp, _ in self.results.orders})]
        index = {name: i for i, name in enumerate(names)}
        rankings = [
            [[0 if seat == 0 else index[opp] for seat in tier] for tier in order] for opp, order in self.results.orders
        ]
        elo = to_elo(fit_plackett_luce(rankings, len(names)))
        return {name: float(elo[i]) for i, name in enumerate(names)}


def game_result(
    winners: NDArray[np.integer[Any]], scores: NDArray[np.integer[Any]], learner_seat: int
) -> tuple[float, tuple[tuple[int, ...], ...]]:
    """Return (learner's win credit, finishing order) of a finished game, as the arena scores it.

    ``winners`` [P] marks the winners (rule 9.5; none on truncation) and ``scores`` [P] the final scores, for
    P players (3 in Domain Wheel). A shared win of ``k`` players is worth ``1/k``; a truncated game 0. The
    order lists tiers of seats relative to the learner (0 the learner, 1, 2 ... the opponents after it in
    turn order): the winners first, then the others by score (a truncated game by score alone).
    """
    players = len(winners)
    rel = [(learner_seat + k) % players for k in range(players)]
    won = [bool(winners[p]) for p in rel]
    points = [int(scores[p]) for p in rel]
    credit = 1.0 / sum(won) if won[0] else 0.0
    key = [(not won[k], -points[k]) for k in range(players)]
    tiers = [tuple(k for k in range(players) if key[k] == level) for level in sorted(set(key))]
    return credit, tuple(tiers)


def start_seats(
    policies: dict[tuple[int, int, str], Any], make: Any, slot: int, kind: str, seed: int, players: int
) -> None:
    """Make (if new) and reseed the AIs of ``kind`` in every seat of slot ``slot`` for a new game: seat ``s``'s
    from ``seed + s``. ``policies``: ``{(slot, seat, kind): AI}``, updated; ``make(kind, seed=...)``: a new AI.

    The one place the seeding lives, for the AIs on the trainer's thread (:class:`ScriptedSeats`) and in
    worker processes (training/ppo/scripted_processes.py), whose runs are the same for any number of workers.
    """
    for seat in range(players):
        key = (slot, seat, kind)
        if key not in policies:
            policies[key] = make(kind, seed=seed + seat)
        policies[key].reset(seed + seat)


class ScriptedSeats:
    """Plays the scripted AIs' seats: one policy object per slot, seat and kind, reset every game.

    Each seat has its own object because a scripted AI keeps per-game memory for the seat it plays (its
    plan, banned lands, turn count): two seats sharing one object would overwrite each other's plans.
    A Domain Wheel AI chooses a whole move on its turn (:meth:`policies.base.Policy.act`); the env takes it
    as one or two actions (piece, destination), so the second action waits here until the next step. The
    other games' seats (``game`` given: a :mod:`policies.games` adapter) return the env's action itself.
    """

    def __init__(self, env: Any, game: Any = None) -> None:
        from policies.registry import make

        self._make = make if game is None else game.make_seat
        self.two_phase = game is None
        self.players = 3 if game is None else game.num_players
        self.env = env
        self.geometry = getattr(env, "geometry", None)
        self.policies: dict[tuple[int, int, str], Any] = {}
        self.pending = np.full(env.num_envs, -1, dtype=np.int64)

    def make(self, kind: str, seed: int | None = None) -> Any:
        """Return a new scripted AI of ``kind`` (a registered policy name)."""
        return self._make(kind, seed=seed)

    def start_game(self, slot: int, kind: str, seed: int) -> None:
        """Prepare slot ``slot``'s AIs of ``kind`` (one per seat) for a new game: reseeded, memory cleared."""
        start_seats(self.policies, self.make, slot, kind, seed, self.players)
        self.pending[slot] = -1

    def action(self, slot: int, kind: str, seat: int) -> int:
        """Return the env action of the AI of ``kind`` playing ``seat`` (the seat to act) in ``slot``."""
        if self.pending[slot] >= 0:
            a, self.pending[slot] = int(self.pending[slot]), -1
            return a
        move = self.policies[(slot, seat, kind)].act(self.env.game(slot), seat)
        if not self.two_phase:
            return int(move)
        actions = move_to_actions(self.geometry, seat, move)
        if len(actions) == 2:
            self.pending[slot] = actions[1]
        return actions[0]

    def close(self) -> None:
        """Release nothing: the AIs live in this process (training/ppo/scripted_processes.py's do not)."""

    def actions(self, slots: Any, kinds: list[str], seats: Any) -> list[int]:
        """Return the env actions of the AIs to act in ``slots`` (``kinds[i]`` playing ``seats[i]``), in order."""
        return [self.action(int(s), k, int(seat)) for s, k, seat in zip(slots, kinds, seats, strict=True)]
