"""The rules' second copy as a slow, literal oracle, compared with the engine on seeded games.

``SpecOracle`` re-implements, straight from the spec's wording and in plain Python, the
destinations of every piece (rules 4.2-4.12 with the entry ban 5.1) and the end of turn
(rule 3.3: counters of 6.4/7.3, completions of 6.6/6.7/7.4, the centre countdown of 9.2,
rounds and truncation) and the end request (9.3-9.4). Biased seeded games (``conftest``)
then drive the engine through conquests, liberations, exiles, countdowns and end requests,
and every action's outcome must match the oracle's.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest
from conftest import BiasedPlayer, play_biased_game

from dw_env.engine import Game, Move
from dw_env.geometry import Geometry
from dw_env.info import COUNTDOWN_TURNS, LIBERATION_TURNS
from dw_env.options import GameOptions
from dw_env.rules import layout as lay

KIND = {name: 1 << bit for bit, name in enumerate(lay.MOVE_KIND_NAMES)}


class SpecOracle:
    """Plain-Python rules of one map, on a game's arrays (cells and lands by index)."""

    def __init__(self, g: Geometry) -> None:
        self.g = g
        self.nbrs = [[int(y) for y in row if y >= 0] for row in g.cell_neighbors]
        self.land = [int(x) for x in g.cell_land]
        self.throne_of = [int(t) for t in g.land_throne]
        self.thrones = set(self.throne_of)
        self.cells_of = [[int(c) for c in row] for row in g.land_cells]
        self.land_nbrs = [[int(m) for m in row if m >= 0] for row in g.land_neighbors]
        self.qr = [(int(q), int(r)) for q, r in zip(g.cell_q, g.cell_r, strict=True)]
        self.ab = [(int(a), int(b)) for a, b in zip(g.land_a, g.land_b, strict=True)]

    # ---- geometry and derived sets (R-0.6) ----------------------------------------------------------
    @staticmethod
    def hexdist(a: tuple[int, int], b: tuple[int, int]) -> int:
        dq, dr = a[0] - b[0], a[1] - b[1]
        return (abs(dq) + abs(dr) + abs(dq + dr)) // 2

    def territory(self, game: Game, p: int) -> set[int]:
        owner = game.lands[lay.OWNER]
        start = int(self.g.start_lands[p])
        seen, todo = {start}, [start]
        while todo:
            x = todo.pop()
            for m in self.land_nbrs[x]:
                if m not in seen and owner[m] == p:
                    seen.add(m)
                    todo.append(m)
        return seen

    def n_factor(self, terr: set[int], land: int) -> int:
        return min(self.hexdist(self.ab[land], self.ab[m]) for m in terr) - 1

    @staticmethod
    def piece(game: Game, cell: int) -> tuple[int, int] | None:
        v = int(game.board[cell])
        return None if v == 0 else ((v - 1) // 2, (v - 1) % 2)

    def knights_in(self, game: Game, player: int, land: int) -> int:
        code = lay.piece_code(player, lay.KNIGHT)
        return sum(1 for c in self.cells_of[land] if game.board[c] == code)

    def kings_in(self, game: Game, land: int) -> list[int]:
        return [q for q in range(3) if self.land[game.king_cell(q)] == land]

    # ---- rule 4: destinations --------------------------------------------------------------------
    def destinations(self, game: Game, src: int) -> dict[int, int]:
        p = game.turn
        who = self.piece(game, src)
        assert who is not None and who[0] == p
        free = lambda c: game.board[c] == 0  # noqa: E731
        owner = game.lands[lay.OWNER]
        terr = self.territory(game, p)
        out: dict[int, int] = {}

        def add(c: int, kind: str) -> None:
            out[c] = out.get(c, 0) | KIND[kind]

        def hop_area() -> set[int]:  # 4.4: the land plus adjacent own lands, then outside cells touching them
            here = self.land[src]
            hop = {here} | {m for m in self.land_nbrs[here] if owner[m] == p}
            area = {c for m in hop for c in self.cells_of[m]}
            return {c for c in area | {y for x in area for y in self.nbrs[x]} if free(c)}

        if who[1] == lay.KNIGHT:
            for y in self.nbrs[src]:  # 4.2, 4.3
                if free(y) and y not in self.thrones:
                    add(y, "step")
            if self.land[src] in terr:
                if game.options.fast_knights:  # 4.5, 4.6
                    tc = {c for m in terr for c in self.cells_of[m]}
                    reach, todo = {src}, [src]
                    while todo:
                        x = todo.pop()
                        for y in self.nbrs[x]:
                            if y in tc and free(y) and y not in reach:
                                reach.add(y)
                                todo.append(y)
                    for c in reach - {src} - self.thrones:
                        add(c, "fast_knight")
                    for x in reach:
                        for y in self.nbrs[x]:
                            if y not in tc and free(y) and y not in self.thrones:
                                add(y, "fast_knight")
                else:  # 4.7
                    for c in hop_area() - self.thrones:
                        add(c, "fast_knight")
            if not game.options.king_may_be_alone:  # 4.11: the last knight stays with the king
                k0 = self.land[game.king_cell(p)]
                if self.land[src] == k0 and self.knights_in(game, p, k0) == 1:
                    out = {c: f for c, f in out.items() if self.land[c] == k0}
            return out

        if game.countdown is not None and game.countdown[0] == p:  # 4.12
            return {}
        for y in self.nbrs[src]:  # 4.2
            if free(y):
                add(y, "step")
        if self.land[src] in terr:  # 4.4
            for c in hop_area():
                add(c, "king_move")
        for m in self.nbrs[src]:
            if free(m) and owner[self.land[m]] == lay.NO_OWNER:  # 4.8
                for d in self.nbrs[m]:
                    if d != src and free(d):
                        add(d, "double_step")
            if self.piece(game, m) == (p, lay.KNIGHT):
                for d in self.nbrs[m]:  # 4.9
                    if d != src and free(d):
                        add(d, "jump")
                if src not in self.thrones:  # 4.10
                    add(m, "swap")
        kept: dict[int, int] = {}
        for d, flags in out.items():
            target = self.land[d]
            entering = self.land[src] != target
            rivals = [q for q in self.kings_in(game, target) if q != p]
            if entering and rivals and owner[target] != p:  # 5.1
                seated = any(game.king_cell(q) == self.throne_of[target] for q in rivals)
                if seated or owner[target] in rivals:
                    continue
            if not game.options.king_may_be_alone:  # 4.11 as the spec words it
                k0, k1 = self.land[src], target
                after = self.knights_in(game, p, k1)
                if flags & KIND["swap"]:
                    after += (k0 == k1) - 1
                if after == 0 and (k1 != k0 or self.knights_in(game, p, k0) > 0):
                    continue
            kept[d] = flags
        return kept

    # ---- rules 6.1-6.3, 6.8 and 7.1-7.2 -----------------------------------------------------------
    def conquest_holds(self, game: Game, p: int, land: int, starting: bool) -> bool:
        g = self.g
        owner = int(game.lands[lay.OWNER, land])
        if g.is_start_land[land] or owner == p or game.king_cell(p) != self.throne_of[land]:
            return False
        if any(q != p for q in self.kings_in(game, land)):  # 6.1, 5.4
            return False
        terr = self.territory(game, p)
        rivals = sum(self.knights_in(game, q, land) for q in range(3) if q != p)
        centre = land == g.centre_land
        need = self.n_factor(terr, land) + 1 + (owner != lay.NO_OWNER) + rivals + centre
        if self.knights_in(game, p, land) < need:
            return False
        if centre:
            if not any(g.land_ring[m] == 1 for m in terr):  # 6.8(a)
                return False
            if starting and game.score(p) < g.centre_min_points:  # 6.8(b), A44
                return False
        return True

    def liberation_holds(self, game: Game, p: int, land: int) -> bool:
        owner = int(game.lands[lay.OWNER, land])
        if owner in (lay.NO_OWNER, p) or self.g.is_start_land[land] or self.kings_in(game, land):
            return False
        rivals = sum(self.knights_in(game, q, land) for q in range(3) if q != p)
        return self.knights_in(game, p, land) >= self.n_factor(self.territory(game, p), land) + 3 + rivals

    # ---- rule 3.3: the end of turn, on the state after the move and its exiles ---------------------
    def end_of_turn(self, mid: Game) -> Game:
        """Return the expected state after EOT(p), applied to a copy of ``mid``."""
        g, out = self.g, mid.copy()
        p, lands = mid.turn, out.lands
        centre = g.centre_land
        for land in range(g.num_lands):  # step 1
            starting = mid.lands[lay.HOLD + p, land] == 0
            cq = self.conquest_holds(mid, p, land, bool(starting))
            lands[lay.HOLD + p, land] = mid.lands[lay.HOLD + p, land] + 1 if cq else 0
            lb = self.liberation_holds(mid, p, land)
            lands[lay.LIB + p, land] = mid.lands[lay.LIB + p, land] + 1 if lb else 0
        # step 2: completions are decided on one state and applied together (A43)
        done_lib = [x for x in range(g.num_lands) if lands[lay.LIB + p, x] >= LIBERATION_TURNS]
        done_cq = [x for x in range(g.num_lands) if lands[lay.HOLD + p, x] >= mid.options.turns_to_conquer]
        for land in done_lib + done_cq:
            lands[lay.OWNER, land] = p if land in done_cq else lay.NO_OWNER
            lands[lay.HOLD : lay.HOLD + 3, land] = 0  # docs/RULES.md decision 2
            lands[lay.LIB : lay.LIB + 3, land] = 0
        for land in done_cq:
            if land == centre:  # 9.1
                out.scalars[lay.OVER], out.scalars[lay.END_REASON] = 1, lay.END_CENTRE
                return self._winners(out)
            if not mid.lands[lay.FIRST + p, land]:  # 6.7
                lands[lay.FIRST + p, land] = 1
                out.board[self.new_knight_cell(out, p, land)] = lay.piece_code(p, lay.KNIGHT)
        if mid.countdown is None:  # step 3 (A46)
            for h in range(3):
                held = out.king_cell(h) == self.throne_of[centre] and lands[lay.HOLD + h, centre] >= 1
                if h != p and held and not self.conquest_holds(out, h, centre, False):
                    out.scalars[lay.CD_HOLDER], out.scalars[lay.CD_LEFT] = h, COUNTDOWN_TURNS
        if out.countdown is not None and out.countdown[0] == p:  # step 4 (A47)
            out.scalars[lay.CD_LEFT] -= 1
            if out.scalars[lay.CD_LEFT] == 0:
                out.scalars[lay.OVER], out.scalars[lay.END_REASON] = 1, lay.END_COUNTDOWN
                return self._winners(out)
        out.scalars[lay.TURN] = (p + 1) % 3  # step 5
        if p == 2:
            if out.round == mid.options.max_rounds:  # A57, docs/RULES.md decision 3
                out.scalars[lay.OVER], out.scalars[lay.END_REASON] = 1, lay.END_TRUNCATION
            else:
                out.scalars[lay.ROUND] += 1
        return out

    def new_knight_cell(self, game: Game, p: int, land: int) -> int:
        """Rule 6.7 / A38: nearest the throne, then nearest p's start throne, then r, then q."""
        home, t = self.qr[self.throne_of[int(self.g.start_lands[p])]], self.qr[self.throne_of[land]]
        pool = [c for c in self.cells_of[land] if game.board[c] == 0 and c not in self.thrones]
        pool = pool or [c for c in range(self.g.num_cells) if game.board[c] == 0 and c not in self.thrones]
        return min(pool, key=lambda c: (self.hexdist(self.qr[c], t), self.hexdist(self.qr[c], home), c))

    @staticmethod
    def _winners(game: Game) -> Game:
        scores = game.scores()
        game.scalars[lay.WINNERS] = sum(1 << p for p in range(3) if scores[p] == max(scores))
        return game

    # ---- rules 9.3-9.4 ------------------------------------------------------------------------------
    def end_request(self, before: Game) -> Game:
        g, out, p = self.g, before.copy(), before.turn
        assert before.score(p) >= g.end_request_points
        assert before.owner(self.land[before.king_cell(p)]) == p
        changes: dict[int, int] = {}
        for q in range(3):
            if q == p:
                continue
            seat = self.land[before.king_cell(q)]
            starting = before.lands[lay.HOLD + q, seat] == 0
            if self.conquest_holds(before, q, seat, bool(starting)):
                changes[seat] = q
            for land in range(g.num_lands):
                if self.liberation_holds(before, q, land):
                    changes[land] = lay.NO_OWNER
        king_land = self.land[before.king_cell(p)]
        if not g.is_start_land[king_land]:
            changes[king_land] = lay.NO_OWNER
        for land, new in changes.items():
            out.lands[lay.OWNER, land] = new
            out.lands[lay.HOLD : lay.LIB + 3, land] = 0
        out.scalars[lay.OVER], out.scalars[lay.END_REASON] = 1, lay.END_REQUEST
        return self._winners(out)


@functools.cache
def oracle_for(options: GameOptions) -> SpecOracle:
    return SpecOracle(Game.new(options).geometry)


def mid_turn_state(before: Game, move: Move, after: Game) -> Game:
    """Return the state after ``move`` and its exiles but before the end of turn."""
    mid = before.copy()
    p = before.turn
    if move.src < 0:
        return mid
    mid.board[:] = after.board
    for q in range(3):
        mid.scalars[lay.KING_CELL + q] = after.king_cell(q)
    # the end of turn only adds first-conquest knights: remove them
    expected = set(before.pieces(p)[1])
    if before.board[move.src] == lay.piece_code(p, lay.KNIGHT):
        expected = expected - {move.src} | {move.dst}
    elif before.board[move.dst] == lay.piece_code(p, lay.KNIGHT):  # a swap
        expected = expected - {move.dst} | {move.src}
    for c in set(after.pieces(p)[1]) - expected:
        mid.board[c] = 0
    return mid


def differences(expected: Game, actual: Game) -> list[str]:
    out = []
    for name, a, b in (("board", expected.board, actual.board), ("lands", expected.lands, actual.lands)):
        for idx in zip(*np.nonzero(a != b), strict=True):
            out.append(f"{name}{tuple(int(i) for i in idx)}: spec {a[idx]}, engine {b[idx]}")
    keep = [lay.TURN, lay.ROUND, lay.CD_HOLDER, lay.CD_LEFT, lay.OVER, lay.END_REASON, lay.WINNERS]
    keep += [lay.KING_CELL + q for q in range(3)]
    for i in keep:
        if expected.scalars[i] != actual.scalars[i]:
            out.append(f"scalars[{i}]: spec {expected.scalars[i]}, engine {actual.scalars[i]}")
    return out


#: name -> (options, games). Small maps make conquests, liberations, exiles and countdowns quick.
OPTION_SETS: dict[str, tuple[GameOptions, int]] = {
    "standard": (GameOptions(max_rounds=40), 4),
    "n1R2": (GameOptions(land_radius=1, map_radius=2, max_rounds=60), 30),
    "slow-knights-n2R2": (GameOptions(land_radius=2, map_radius=2, fast_knights=False, max_rounds=40), 8),
    "never-alone-K2-n1R2": (GameOptions(land_radius=1, map_radius=2, king_may_be_alone=False, turns_to_conquer=2), 8),
    "K1-n1R3": (GameOptions(land_radius=1, map_radius=3, turns_to_conquer=1, max_rounds=40), 6),
}


@pytest.mark.parametrize("name", list(OPTION_SETS))
def test_rules_3_to_9_engine_agrees_with_the_spec_oracle_on_seeded_games(name: str) -> None:
    options, games = OPTION_SETS[name]
    oracle = oracle_for(options)
    problems: list[str] = []
    checked = {"moves": 0, "pieces": 0}

    def hook(before: Game, move: Move, after: Game, _events: object) -> None:
        if len(problems) > 5:
            return
        where = f"{name} ply {int(before.scalars[lay.PLY])} {move}"
        checked["moves"] += 1
        if checked["moves"] % 4 == 0:  # destinations of every piece of the player to act
            king_cell, knight_cells = before.pieces(before.turn)
            for src in [king_cell, *knight_cells]:
                engine = before.destinations(src)
                spec = oracle.destinations(before, src)
                checked["pieces"] += 1
                if engine != spec:
                    problems.append(f"{where}: piece {src} destinations differ: {sorted(set(engine) ^ set(spec))}")
        expected = (
            oracle.end_request(before)
            if move.is_end_request
            else oracle.end_of_turn(mid_turn_state(before, move, after))
        )
        diff = differences(expected, after)
        if diff:
            problems.append(f"{where}: " + "; ".join(diff[:6]))

    for i in range(games):
        seed = 7000 + 97 * i + len(name)
        player = BiasedPlayer(seed, end_prob=(0.0, 0.2, 1.0)[i % 3], block=(20, 0)[i // 3 % 2])
        play_biased_game(options, seed, player, hook=hook)
    assert not problems, "\n".join(problems)
    assert checked["pieces"] > 50
