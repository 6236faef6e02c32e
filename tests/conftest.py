"""Shared test support: a seeded, biased random player that drives games into every rule.

A uniform random player almost never conquers a land (it must bring knights into
a land and then sit on its throne for K own turns), so property tests built on it
would never exercise conquests, liberations, exiles, countdowns or end requests.
:class:`BiasedPlayer` keeps a target land per player and weights each legal move
by how much it helps: the king walks to the target's throne and stays there,
knights gather in the king's land or in a rival land to liberate, some knights
barge into lands where a rival is holding a position, and end requests are taken
with a per-game probability. Every choice uses one ``random.Random(seed)``, so a
game is a pure function of (options, seed). The golden numbers in
``test_properties.py`` (perft positions, the golden transcript) depend on this
player: changing its heuristics means regenerating them, and says so in the diff.
"""

from __future__ import annotations

import bisect
import os
import random
import shutil
import signal
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pytest
from numba import njit

from dw_env.engine import END_REQUEST_MOVE, PASS_MOVE, Game, Move, kernel_tables, new_workspace
from dw_env.options import GameOptions
from dw_env.rules import layout as lay
from dw_env.rules.moves import movable_pieces, piece_destinations
from dw_env.rules.territory import count_knights, distance_to_territory, territory
from dw_env.rules.turn import end_request_legal


def pytest_configure(config: pytest.Config) -> None:
    """Give the whole run (and every command it starts) a data folder of its own.

    ``dw play`` keeps its room database and records under ``$XDG_DATA_HOME/domain-wheel`` by default: a test
    that starts it without ``--db`` must not write into the user's folder, nor share one database with
    another test run.
    """
    os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="dw-test-data-")
    # pytest-xdist's workers start with SIGINT ignored, and an ignored signal stays ignored in every process
    # they start: the Ctrl-C and signal tests' commands would never see their SIGINT. A terminal's commands
    # start with the default handler, so the tests' commands must too.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_unconfigure(config: pytest.Config) -> None:
    """Remove the run's data folder (:func:`pytest_configure`)."""
    shutil.rmtree(os.environ.get("XDG_DATA_HOME", ""), ignore_errors=True)


class BiasedPlayer:
    """Chooses moves at random, weighted towards the rules' events (see the module docstring).

    It enumerates moves with the compiled kernels directly (one call per piece) and
    weighs them in one compiled loop (:func:`_move_weights`), which keeps thousands of
    property-test games fast. Knobs: ``end_prob`` (take a legal end request),
    ``block`` (bonus for knights that break a rival's position), ``explore`` (uniform
    move), ``raid`` and ``centre`` (chance that a seat liberates first / aims at the centre).
    """

    def __init__(
        self,
        seed: int,
        end_prob: float = 0.3,
        block: int = 20,
        explore: float = 0.05,
        raid: float = 0.3,
        centre: float = 0.5,
    ) -> None:
        self.rng = random.Random(seed)
        self.end_prob = end_prob
        self.block = block
        self.explore = explore
        self.raider = [self.rng.random() < raid for _ in range(3)]  # knights prefer liberations
        self.centrist = [self.rng.random() < centre for _ in range(3)]  # the others never aim at the centre
        self.goal = [-1, -1, -1]  # conquest target land per player
        self.lib_goal = [-1, -1, -1]  # liberation target land per player
        self._options: GameOptions | None = None

    def _prepare(self, game: Game) -> None:
        if self._options == game.options:
            return
        g = game.geometry
        self._options = game.options
        self.tables = kernel_tables(game.options)
        self.work = new_workspace(g)
        self.kinds = np.zeros(g.num_cells, dtype=np.int8)
        self.dlist = np.zeros(g.num_cells, dtype=np.int32)
        self.out = np.zeros(g.num_cells, dtype=np.int8)
        self.tmask = np.zeros(g.num_lands, dtype=np.int32)
        self.dist = np.zeros(g.num_lands, dtype=np.int32)
        self.queue = np.zeros(g.num_lands, dtype=np.int32)
        self.counts = np.zeros((3, g.num_lands), dtype=np.int32)
        self.ring1 = np.flatnonzero(g.land_ring == 1)
        dq = g.cell_q[:, None] - g.cell_q[g.land_throne][None, :]
        dr = g.cell_r[:, None] - g.cell_r[g.land_throne][None, :]
        self.to_throne = (np.abs(dq) + np.abs(dr) + np.abs(dq + dr)) // 2  # [cell, land]

    def piece_moves(self, game: Game) -> tuple[np.ndarray, np.ndarray]:
        """Return (sources, destinations) of every legal piece move, in engine order."""
        self._prepare(game)
        G, W = self.tables, self.work
        board, lands, scalars = game.board, game.lands, game.scalars
        movable_pieces(G, board, lands, scalars, W, self.out)
        cells = np.flatnonzero(self.out)
        counts, dsts = [], []
        for cell in cells:
            n = piece_destinations(G, board, lands, scalars, cell, W, self.kinds, self.dlist)
            counts.append(n)
            dsts.append(self.dlist[:n].copy())
        if not dsts:
            return np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int32)
        return np.repeat(cells, counts), np.concatenate(dsts)

    # ---- targets ---------------------------------------------------------------------------
    def _weighted(self, weights: np.ndarray) -> int:
        cum = np.cumsum(weights).tolist()
        if not cum or cum[-1] <= 0:
            return -1
        return bisect.bisect_right(cum, self.rng.randrange(int(cum[-1])))

    def _update_goals(self, game: Game, p: int, to_terr: np.ndarray, knights: int) -> None:
        g = game.geometry
        owner = game.lands[lay.OWNER]
        kings = [game.king_cell(q) for q in range(3)]
        king_lands = [int(g.cell_land[k]) for k in kings]
        king_land = king_lands[p]
        rival_lands = {king_lands[q] for q in range(3) if q != p}
        rival_seats = {king_lands[q] for q in range(3) if q != p and g.is_throne[kings[q]]}
        centre = g.centre_land
        centre_ok = (
            self.centrist[p]
            and int(to_terr[self.ring1].min()) == 0
            and int(g.land_points[owner == p].sum()) >= g.centre_min_points
        )

        def conquerable(land: int) -> bool:
            return (
                not g.is_start_land[land]
                and owner[land] != p
                and land not in rival_seats
                and (land != centre or centre_ok)
            )

        goal = self.goal[p]
        seat_ok = to_terr[king_land] + int(owner[king_land] >= 0) <= knights
        seat_ok = seat_ok and (to_terr[king_land] <= 1 or self.rng.random() < 0.2)  # N = 0 conquers fastest
        if kings[p] == g.land_throne[king_land] and conquerable(king_land) and seat_ok and self.rng.random() > 0.04:
            goal = king_land  # seated on a conquerable throne: hold it
        elif goal < 0 or not conquerable(goal) or self.rng.random() < 0.05 or (centre_ok and goal != centre):
            cand = (g.is_start_land == 0) & (owner != p)
            cand[list(rival_seats)] = False
            cand[centre] &= centre_ok
            if (cand & (to_terr == 1)).any():
                cand &= to_terr <= 1
            spread = 1 + 8 * (to_terr - 1) ** 2 + 2 * g.land_distance[king_land]
            weights = np.where(cand, (g.land_points + 1) * 64 // spread, 0)
            if centre_ok:
                weights[centre] *= 20
            goal = self._weighted(weights)
        self.goal[p] = goal
        lib = self.lib_goal[p]
        valid = lib >= 0 and not g.is_start_land[lib] and owner[lib] not in (-1, p) and lib not in rival_lands
        if not valid or self.rng.random() < 0.03:
            lib_cand = (g.is_start_land == 0) & (owner >= 0) & (owner != p)
            lib_cand[list(rival_lands)] = False
            lib = self._weighted(np.where(lib_cand, 64 // to_terr.clip(1) ** 2, 0))
        self.lib_goal[p] = lib

    # ---- choice ----------------------------------------------------------------------------
    def choose(self, game: Game) -> Move:
        """Return the next action for the player to act (the game is not changed)."""
        self._prepare(game)
        rng = self.rng
        G, board, lands, scalars = self.tables, game.board, game.lands, game.scalars
        can_end = bool(end_request_legal(G, lands, scalars))
        if can_end and rng.random() < self.end_prob:
            return END_REQUEST_MOVE
        src, dst = self.piece_moves(game)
        if rng.random() < self.explore:  # uniform over every legal action
            i = rng.randrange(len(src) + 1 + can_end)
            return Move(int(src[i]), int(dst[i])) if i < len(src) else (PASS_MOVE, END_REQUEST_MOVE)[i - len(src)]
        if len(src) == 0:
            return PASS_MOVE
        p = game.turn
        g = game.geometry
        territory(G, lands, p, self.tmask, self.queue)
        distance_to_territory(G, self.tmask, self.dist, self.queue)
        count_knights(G, board, self.counts)
        to_terr, counts = self.dist, self.counts  # N_p(L) + 1, knights per player and land
        self._update_goals(game, p, to_terr, int(counts[p].sum()))
        goal, lib = self.goal[p], self.lib_goal[p]
        king = game.king_cell(p)
        king_land = int(g.cell_land[king])
        seated = goal >= 0 and king_land == goal and king == g.land_throne[goal]
        owner = lands[lay.OWNER]
        if goal < 0:
            goal = king_land
        rivals = int(counts[:, goal].sum() - counts[p, goal])
        need_goal = to_terr[goal] + (owner[goal] >= 0) + rivals + (goal == g.centre_land)
        # rival kings: where they stand, where they sit, where they hold a conquest
        held, sat = np.zeros(g.num_lands, dtype=np.bool_), np.zeros(g.num_lands, dtype=np.bool_)
        rival_lands = []
        for q in range(3):
            if q != p:
                seat = int(g.cell_land[game.king_cell(q)])
                rival_lands.append(seat)
                if game.king_cell(q) == g.land_throne[seat]:
                    sat[seat] = True
                    held[seat] = lands[lay.HOLD + q, seat] > 0
        weight = np.zeros(len(src) + 1, dtype=np.int64)
        _move_weights(
            src, dst, board, g.cell_land, g.land_throne, g.is_throne, owner, self.to_throne,
            p, goal, lib, lib >= 0 and (counts[p, goal] >= need_goal or self.raider[p]), seated,
            rival_lands[0], rival_lands[1], held, sat, self.block, weight,
        )  # fmt: skip
        weight[-1] = (60 if counts[p, goal] >= need_goal else 3) if seated else 1  # pass
        index = self._weighted(weight)
        return PASS_MOVE if index in (-1, len(src)) else Move(int(src[index]), int(dst[index]))


@njit(cache=True)
def _move_weights(  # type: ignore[no-untyped-def]
    src, dst, board, cell_land, land_throne, is_throne, owner, to_throne,
    p, goal, lib, lib_first, seated, rival_a, rival_b, held, sat, block, weight,
):  # fmt: skip
    """Fill ``weight[i]`` for each piece move ``src[i] -> dst[i]`` (see :class:`BiasedPlayer`)."""
    king_code = 1 + 2 * p
    for i in range(src.shape[0]):
        s, d = src[i], dst[i]
        is_king = board[s] == king_code
        from_land, to_land = cell_land[s], cell_land[d]
        # the king heads for the goal; knights in a target land stay, the others fill the goal,
        # then the liberation target
        target = goal
        if not is_king and ((lib >= 0 and from_land == lib) or (from_land != goal and lib_first)):
            target = lib
        progress = max(to_throne[s, target] - to_throne[d, target], 0)
        if from_land == target:
            w = 2 if to_land == target else 0
        else:
            w = 1 + 4 * progress + (30 if to_land == target else 0)
        if is_king:
            w += 60 * (d == land_throne[target]) + 20 * (progress > 0) + 4 * progress
            if seated:
                w = 0
            # exile law (rule 5.2): reach a throne, or enter an own land, where a rival king stands
            near = to_land == rival_a or to_land == rival_b  # noqa: SIM109 - no tuple `in` in compiled code
            if near and (is_throne[d] == 1 or owner[to_land] == p):
                w += 40
        elif block > 0:
            # blocking: barge into a land where a rival king holds a conquest, and stay while it sits
            # there (at the centre this starts the countdown and can run it out, rule 9.2)
            if held[to_land] and not sat[from_land]:
                w += block
            if sat[from_land] and not sat[to_land]:
                w = 0
        weight[i] = w


@dataclass
class Events:
    """What happened in one or more games: counts per rule event and per move kind played."""

    conquests: int = 0
    first_conquests: int = 0
    liberations: int = 0
    exiles: int = 0
    countdowns: int = 0
    end_requests: int = 0
    concretised: int = 0
    moves: int = 0
    games: int = 0
    endings: dict[str, int] = field(default_factory=dict)
    move_kinds: dict[str, int] = field(default_factory=lambda: dict.fromkeys(lay.MOVE_KIND_NAMES, 0))

    def add(self, other: Events) -> None:
        for name in (
            "conquests",
            "first_conquests",
            "liberations",
            "exiles",
            "countdowns",
            "end_requests",
            "concretised",
            "moves",
            "games",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for key, value in other.endings.items():
            self.endings[key] = self.endings.get(key, 0) + value
        for key, value in other.move_kinds.items():
            self.move_kinds[key] += value


#: called after every action with (game before, action, game after, events so far)
MoveHook = Callable[[Game, Move, Game, Events], None]


def play_biased_game(
    options: GameOptions, seed: int, player: BiasedPlayer | None = None, hook: MoveHook | None = None
) -> tuple[Game, list[Move], Events]:
    """Play one seeded game to its end; return the final game, its actions and its events."""
    game = Game.new(options)
    player = player or BiasedPlayer(seed)
    moves: list[Move] = []
    events = Events(games=1)
    limit = 3 * options.max_rounds + 1
    while not game.over and len(moves) < limit:
        before = game.copy()
        move = player.choose(game)
        flags = game.play(move)
        moves.append(move)
        for bit, kind in enumerate(lay.MOVE_KIND_NAMES):  # rules 4.2-4.10
            events.move_kinds[kind] += flags >> bit & 1
        _count_events(before, move, game, events)
        if hook is not None:
            hook(before, move, game, events)
    if game.over:
        events.endings[game.end_reason] = events.endings.get(game.end_reason, 0) + 1
    events.moves = len(moves)
    return game, moves, events


def _count_events(before: Game, move: Move, after: Game, events: Events) -> None:
    p = before.turn
    was, now = before.lands[lay.OWNER], after.lands[lay.OWNER]
    changed = np.flatnonzero(was != now)
    if move.is_end_request:
        events.end_requests += 1
        events.concretised += int(sum(1 for land in changed if now[land] not in (-1, p)))
        return
    for land in changed:
        if now[land] == p:
            events.conquests += 1
        elif now[land] == lay.NO_OWNER:
            events.liberations += 1
    events.first_conquests += int(after.lands[lay.FIRST + p].sum() - before.lands[lay.FIRST + p].sum())
    events.exiles += sum(1 for q in range(3) if q != p and before.king_cell(q) != after.king_cell(q))
    if before.countdown is None and after.countdown is not None:
        events.countdowns += 1


@pytest.fixture(scope="session")
def biased_game() -> Callable[..., tuple[Game, list[Move], Events]]:
    """Return :func:`play_biased_game` (seeded, biased random play to the end of a game)."""
    return play_biased_game


@pytest.fixture(scope="session")
def biased_player() -> type[BiasedPlayer]:
    """Return the :class:`BiasedPlayer` class."""
    return BiasedPlayer
