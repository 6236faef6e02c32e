"""A slow, plain-Python second copy of the rules, written from the spec's text (R-3 to R-9).

It shares only the geometry tables with the engine (and those are checked against the
spec's tables in ``test_geometry.py``), never its kernels, so the property tests can
play every action on both and compare: the legal destinations with their move kinds,
and the whole state after the action. Clarity beats speed here; each function follows
one numbered rule and says which.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from dw_env.engine import Game, Move
from dw_env.geometry import Geometry
from dw_env.info import COUNTDOWN_TURNS, LIBERATION_TURNS
from dw_env.rules import layout as lay

STEP, KING_MOVE, FAST_KNIGHT, DOUBLE_STEP, JUMP, SWAP = (lay.STEP, lay.KING_MOVE, lay.FAST_KNIGHT, lay.DOUBLE_STEP,
                                                       lay.JUMP, lay.SWAP)  # fmt: skip
NONE = -1  # no owner / no countdown


@dataclass(frozen=True)
class Tables:
    """Plain-list views of one geometry."""

    nbr: list[list[int]]  # on-map neighbours of each cell
    land: list[int]
    throne: list[int]  # land -> throne cell
    is_throne: list[bool]
    land_cells: list[list[int]]
    land_nbr: list[list[int]]
    land_dist: list[list[int]]
    ring: list[int]
    points: list[int]
    is_start: list[bool]
    start: list[int]
    q: list[int]
    r: list[int]
    centre: int


@functools.cache
def tables(g: Geometry) -> Tables:
    return Tables(
        nbr=[[int(y) for y in row if y >= 0] for row in g.cell_neighbors],
        land=g.cell_land.tolist(),
        throne=g.land_throne.tolist(),
        is_throne=[bool(x) for x in g.is_throne],
        land_cells=g.land_cells.tolist(),
        land_nbr=[[int(m) for m in row if m >= 0] for row in g.land_neighbors],
        land_dist=g.land_distance.tolist(),
        ring=g.land_ring.tolist(),
        points=g.land_points.tolist(),
        is_start=[bool(x) for x in g.is_start_land],
        start=g.start_lands.tolist(),
        q=g.cell_q.tolist(),
        r=g.cell_r.tolist(),
        centre=g.centre_land,
    )


class Model:
    """One game's state as Python lists, with the rules as methods."""

    def __init__(self, game: Game) -> None:
        self.t = tables(game.geometry)
        self.options = game.options
        self.e_points = game.geometry.end_request_points
        self.c_points = game.geometry.centre_min_points
        self.board: list[int] = game.board.tolist()
        lands = game.lands
        self.owner: list[int] = lands[lay.OWNER].tolist()
        self.hold: list[list[int]] = [lands[lay.HOLD + p].tolist() for p in range(3)]
        self.lib: list[list[int]] = [lands[lay.LIB + p].tolist() for p in range(3)]
        self.first: list[list[int]] = [lands[lay.FIRST + p].tolist() for p in range(3)]
        s = game.scalars
        self.turn, self.round, self.ply = int(s[lay.TURN]), int(s[lay.ROUND]), int(s[lay.PLY])
        self.cd_holder, self.cd_left = int(s[lay.CD_HOLDER]), int(s[lay.CD_LEFT])
        self.over, self.reason, self.winners = bool(s[lay.OVER]), int(s[lay.END_REASON]), int(s[lay.WINNERS])
        self._territories: dict[int, set[int]] = {}  # T(p) for the current owners
        self.kings = [self.board.index(1 + 2 * p) for p in range(3)]

    # ---- derived sets (R-0.6) ------------------------------------------------------------------
    def king(self, p: int) -> int:
        return self.kings[p]

    def territory(self, p: int) -> set[int]:
        """T(p): owned lands connected to p's start land."""
        if p in self._territories:
            return self._territories[p]
        start = self.t.start[p]
        seen, todo = {start}, [start]
        while todo:
            here = todo.pop()
            for m in self.t.land_nbr[here]:
                if m not in seen and self.owner[m] == p:
                    seen.add(m)
                    todo.append(m)
        self._territories[p] = seen
        return seen

    def set_owner(self, land: int, who: int) -> None:
        self.owner[land] = who
        self._territories.clear()

    def n_factor(self, p: int, land: int, terr: set[int]) -> int:
        """N_p(L) = min land distance to T(p), minus 1 (rule 6.3, A32)."""
        return min(self.t.land_dist[land][m] for m in terr) - 1

    def knights(self, p: int, land: int) -> int:
        code = 2 + 2 * p
        return sum(1 for c in self.t.land_cells[land] if self.board[c] == code)

    def score(self, p: int) -> int:
        """Rule 8.3: every owned land counts, connected or not."""
        return sum(pts for pts, o in zip(self.t.points, self.owner, strict=True) if o == p)

    def kings_in(self, land: int) -> list[int]:
        return [q for q in range(3) if self.t.land[self.king(q)] == land]

    # ---- conditions (R-6.1, R-6.2, R-6.8, R-7.1) ---------------------------------------------------
    def conquest_holds(self, p: int, land: int, starting: bool) -> bool:
        t = self.t
        if t.is_start[land] or self.owner[land] == p:
            return False
        if self.king(p) != t.throne[land] or self.kings_in(land) != [p]:
            return False
        terr = self.territory(p)
        need = self.n_factor(p, land, terr) + 1
        need += 1 if self.owner[land] != NONE else 0
        need += sum(self.knights(q, land) for q in range(3) if q != p)
        need += 1 if land == t.centre else 0
        if self.knights(p, land) < need:
            return False
        if land == t.centre:
            if not any(t.ring[m] == 1 for m in terr):  # 6.8(a) a path to ring 1
                return False
            if starting and self.score(p) < self.c_points:  # 6.8(b) only to start
                return False
        return True

    def liberation_holds(self, p: int, land: int) -> bool:
        if self.owner[land] in (NONE, p) or self.t.is_start[land] or self.kings_in(land):
            return False
        need = self.n_factor(p, land, self.territory(p)) + 3
        need += sum(self.knights(q, land) for q in range(3) if q != p)
        return self.knights(p, land) >= need

    # ---- movement (R-4, R-5.1) ---------------------------------------------------------------------
    def _free(self, c: int) -> bool:
        return self.board[c] == 0

    def _area(self, p: int, here: int) -> set[int]:
        """The one-hop set A of rule 4.4 (A13): the land plus adjacent own lands."""
        return {here} | {m for m in self.t.land_nbr[here] if self.owner[m] == p}

    def _area_cells(self, area: set[int], thrones: bool) -> set[int]:
        """Free cells of the lands in A plus free cells outside A touching them (4.4, 4.7)."""
        t = self.t
        out = set()
        for land in area:
            for x in t.land_cells[land]:
                if self._free(x) and (thrones or not t.is_throne[x]):
                    out.add(x)
                for y in t.nbr[x]:
                    if t.land[y] not in area and self._free(y) and (thrones or not t.is_throne[y]):
                        out.add(y)
        return out

    def entry_allowed(self, p: int, src: int, dst: int) -> bool:
        """Rule 5.1 (A26, A27): the entry ban for kings."""
        t = self.t
        target = t.land[dst]
        if t.land[src] == target or self.owner[target] == p:
            return True
        for q in self.kings_in(target):
            if q == p:
                continue
            if self.king(q) == t.throne[target] or self.owner[target] == q:
                return False
        return True

    def king_destinations(self, p: int, c: int) -> dict[int, int]:
        t = self.t
        if self.cd_holder == p and self.cd_left > 0:  # 4.12 the locked king
            return {}
        dest: dict[int, int] = {}

        def add(y: int, flag: int) -> None:
            dest[y] = dest.get(y, 0) | flag

        for y in t.nbr[c]:  # 4.2
            if self._free(y):
                add(y, STEP)
        if t.land[c] in self.territory(p):  # 4.4 (A11-A13)
            for y in self._area_cells(self._area(p, t.land[c]), thrones=True):
                add(y, KING_MOVE)
        for m in t.nbr[c]:
            if self._free(m) and self.owner[t.land[m]] == NONE:  # 4.8 (A14-A16)
                for y in t.nbr[m]:
                    if y != c and self._free(y):
                        add(y, DOUBLE_STEP)
            if self.board[m] == 2 + 2 * p:  # 4.9 (A22)
                for y in t.nbr[m]:
                    if y != c and self._free(y):
                        add(y, JUMP)
                if not t.is_throne[c]:  # 4.10 (A25)
                    add(m, SWAP)
        legal = {}
        for y, flags in dest.items():
            if not self.entry_allowed(p, c, y):
                continue
            if not self.options.king_may_be_alone and not self._king_not_alone(p, c, y, flags):
                continue
            legal[y] = flags
        return legal

    def _king_not_alone(self, p: int, c: int, y: int, flags: int) -> bool:
        """Rule 4.11 (A24) for a king move c -> y."""
        k0, k1 = self.t.land[c], self.t.land[y]
        after = self.knights(p, k1)
        if flags & SWAP:  # the knight on y goes to c
            after += (1 if k0 == k1 else 0) - 1
        return not (after == 0 and (k1 != k0 or self.knights(p, k0) > 0))

    def knight_destinations(self, p: int, c: int) -> dict[int, int]:
        t = self.t
        dest: dict[int, int] = {}

        def add(y: int, flag: int) -> None:
            dest[y] = dest.get(y, 0) | flag

        for y in t.nbr[c]:  # 4.2, never onto a throne (4.3)
            if self._free(y) and not t.is_throne[y]:
                add(y, STEP)
        terr = self.territory(p)
        if t.land[c] in terr:
            if self.options.fast_knights:  # 4.5: BFS over free territory cells (A17-A20)
                seen, todo = {c}, [c]
                while todo:
                    x = todo.pop()
                    for y in t.nbr[x]:
                        if y not in seen and self._free(y) and t.land[y] in terr:
                            seen.add(y)
                            todo.append(y)
                for x in seen:
                    if x != c and not t.is_throne[x]:
                        add(x, FAST_KNIGHT)
                    for y in t.nbr[x]:
                        if self._free(y) and t.land[y] not in terr and not t.is_throne[y]:
                            add(y, FAST_KNIGHT)
            else:  # 4.7 (A21)
                for y in self._area_cells(self._area(p, t.land[c]), thrones=False):
                    add(y, FAST_KNIGHT)
        if not self.options.king_may_be_alone:  # 4.11: the last knight may not leave the king's land
            king_land = t.land[self.king(p)]
            before = self.knights(p, king_land)
            for y in list(dest):
                after = before - (t.land[c] == king_land) + (t.land[y] == king_land)
                if after == 0 and before > 0:
                    del dest[y]
        return dest

    def destinations(self, cell: int) -> dict[int, int]:
        p = self.turn
        if self.board[cell] == 1 + 2 * p:
            return self.king_destinations(p, cell)
        if self.board[cell] == 2 + 2 * p:
            return self.knight_destinations(p, cell)
        return {}

    def can_request_end(self) -> bool:
        """Rule 9.3 (A54, A55)."""
        p = self.turn
        return not self.over and self.owner[self.t.land[self.king(p)]] == p and self.score(p) >= self.e_points

    def legal_moves(self) -> dict[tuple[int, int], int]:
        """Return {(src, dst): flags} for every piece move, plus pass (-1, -1) and end (-2, -1) with flag 0."""
        if self.over:
            return {}
        moves = {}
        for cell, v in enumerate(self.board):
            if v and (v - 1) // 2 == self.turn:
                for y, flags in self.destinations(cell).items():
                    moves[(cell, y)] = flags
        moves[(lay.PASS, -1)] = 0
        if self.can_request_end():
            moves[(lay.END_REQUEST_ACTION, -1)] = 0
        return moves

    # ---- actions ----------------------------------------------------------------------------------
    def play(self, move: Move) -> None:
        """Play a legal action and its end of turn (rules 3.2-3.3, 9.4)."""
        src, dst = move
        p = self.turn
        if src == lay.END_REQUEST_ACTION:
            self.end_request()
            return
        if src >= 0:
            piece = self.board[src]
            swap = self.board[dst] != 0
            self.board[src] = self.board[dst] if swap else 0  # 4.10: the knight takes the king's old cell
            self.board[dst] = piece
            if piece == 1 + 2 * p:
                self.kings[p] = dst
                self.exile(p, src, dst)
        self.end_of_turn()

    def exile(self, p: int, src: int, dst: int) -> None:
        """Rules 5.2-5.3 (A26-A30): expel rival kings from the destination land and place them."""
        t = self.t
        land = t.land[dst]
        entered = t.land[src] != land
        if not ((entered and self.owner[land] == p) or dst == t.throne[land]):
            return
        for k in (1, 2):  # A29: in turn order after p
            q = (p + k) % 3
            x = self.king(q)
            if t.land[x] != land:
                continue
            terr = self.territory(q)
            home = t.throne[t.start[q]]
            busy = {t.land[self.king(o)] for o in range(3) if o != q}

            def key(y: int, x: int = x, terr: set[int] = terr, home: int = home) -> tuple[int, ...]:
                return (
                    self._dist(x, y),
                    0 if t.land[y] in terr else 1,
                    self._dist(y, home),
                    t.r[y],
                    t.q[y],
                )

            cells = [
                y
                for y in range(len(self.board))
                if self._free(y) and t.land[y] != land and not t.is_throne[y] and t.land[y] not in busy
            ]
            y = min(cells, key=key)
            self.board[y], self.board[x] = self.board[x], 0
            self.kings[q] = y

    def _dist(self, a: int, b: int) -> int:
        dq, dr = self.t.q[a] - self.t.q[b], self.t.r[a] - self.t.r[b]
        return (abs(dq) + abs(dr) + abs(dq + dr)) // 2

    def end_of_turn(self) -> None:
        """EOT(p), rule 3.3 steps 1-5."""
        t = self.t
        p = self.turn
        lands = range(len(self.owner))
        # 1. p's positions only (A35)
        holds = [self.conquest_holds(p, land, self.hold[p][land] == 0) for land in lands]
        frees = [self.liberation_holds(p, land) for land in lands]
        for land in lands:
            self.hold[p][land] = self.hold[p][land] + 1 if holds[land] else 0
            self.lib[p][land] = self.lib[p][land] + 1 if frees[land] else 0
        # 2. completions on this state, applied together (A43); a completion clears the land's counters
        conquered = [land for land in lands if self.hold[p][land] >= self.options.turns_to_conquer]
        liberated = [land for land in lands if self.lib[p][land] >= LIBERATION_TURNS]
        for land in liberated:  # 7.4
            self.set_owner(land, NONE)
            self._clear(land)
        for land in conquered:  # 6.6
            self.set_owner(land, p)
            self._clear(land)
            if land == t.centre:  # 9.1
                self.ply += 1
                self._finish(lay.END_CENTRE)
                return
        for land in conquered:  # 6.7 (A38, A39)
            if not self.first[p][land]:
                self.first[p][land] = 1
                self._new_knight(p, land)
        # 3. the countdown starts when a rival's turn broke a seated centre position (A46, A50)
        if self.cd_holder == NONE:
            for k in (1, 2):
                h = (p + k) % 3
                seated = self.king(h) == t.throne[t.centre] and self.hold[h][t.centre] >= 1
                if seated and not self.conquest_holds(h, t.centre, starting=False):
                    self.cd_holder, self.cd_left = h, COUNTDOWN_TURNS
        # 4. the holder's own turns tick it (A47)
        self.ply += 1
        if self.cd_holder == p:
            self.cd_left -= 1
            if self.cd_left == 0:
                self._finish(lay.END_COUNTDOWN)
                return
        # 5. next player; a round ends after Red (3.1); truncation after max_rounds (A57)
        self.turn = (p + 1) % 3
        if p == 2:
            if self.round == self.options.max_rounds:
                self._finish(lay.END_TRUNCATION)
            else:
                self.round += 1

    def _clear(self, land: int) -> None:
        for q in range(3):
            self.hold[q][land] = 0
            self.lib[q][land] = 0

    def _new_knight(self, p: int, land: int) -> None:
        """Rule 6.7: next to the throne, then nearest p's start throne, then r, q; else anywhere on the map."""
        t = self.t
        throne, home = t.throne[land], t.throne[t.start[p]]

        def key(y: int) -> tuple[int, ...]:
            return (self._dist(y, throne), self._dist(y, home), t.r[y], t.q[y])

        spots = [y for y in t.land_cells[land] if self._free(y) and not t.is_throne[y]]
        if not spots:
            spots = [y for y in range(len(self.board)) if self._free(y) and not t.is_throne[y]]
        self.board[min(spots, key=key)] = 2 + 2 * p

    def end_request(self) -> None:
        """Rule 9.4 (A51-A53)."""
        t = self.t
        p = self.turn
        changes: dict[int, int] = {}
        for k in (1, 2):  # 1. snapshot the others' complete positions, whatever their counters
            q = (p + k) % 3
            seat = t.land[self.king(q)]
            if self.king(q) == t.throne[seat] and self.conquest_holds(q, seat, self.hold[q][seat] == 0):
                changes[seat] = q
            for land in range(len(self.owner)):
                if self.liberation_holds(q, land):
                    changes[land] = NONE
        for land, who in changes.items():  # 2. apply them, no new knights
            self.set_owner(land, who)
            self._clear(land)
        king_land = t.land[self.king(p)]  # 3. the requester loses its king's land unless it is its start land
        if not t.is_start[king_land]:
            self.set_owner(king_land, NONE)
            self._clear(king_land)
        self.ply += 1
        self._finish(lay.END_REQUEST)

    def _finish(self, reason: int) -> None:
        """Rule 9.5: the top scores win (all of them on a tie); truncation has no winners (A57)."""
        self.over, self.reason = True, reason
        self.winners = 0
        if reason != lay.END_TRUNCATION:
            scores = [self.score(p) for p in range(3)]
            self.winners = sum(1 << p for p in range(3) if scores[p] == max(scores))

    # ---- comparison ---------------------------------------------------------------------------------
    def differences(self, game: Game) -> list[str]:
        """Return how the engine's state differs from this model's (an empty list when equal)."""
        g = game.geometry
        out = []
        board = np.array(self.board, dtype=np.int8)
        if not np.array_equal(board, game.board):
            cells = np.flatnonzero(board != game.board)
            out.append(
                "board differs at "
                + ", ".join(f"{g.cell_coord(int(c))}: model {board[c]} engine {game.board[c]}" for c in cells[:6])
            )
        rows = {"owner": (self.owner, game.lands[lay.OWNER])}
        for p in range(3):
            rows[f"hold[{p}]"] = (self.hold[p], game.lands[lay.HOLD + p])
            rows[f"lib[{p}]"] = (self.lib[p], game.lands[lay.LIB + p])
            rows[f"first[{p}]"] = (self.first[p], game.lands[lay.FIRST + p])
        for name, (mine, theirs) in rows.items():
            if list(mine) != theirs.tolist():
                diff = [
                    f"{g.land_coord(i)}: model {a} engine {b}"
                    for i, (a, b) in enumerate(zip(mine, theirs.tolist(), strict=True))
                    if a != b
                ]
                out.append(f"{name} differs: " + ", ".join(diff[:6]))
        s = game.scalars
        scalars = {
            "turn": (self.turn, s[lay.TURN]),
            "round": (self.round, s[lay.ROUND]),
            "ply": (self.ply, s[lay.PLY]),
            "countdown holder": (self.cd_holder, s[lay.CD_HOLDER]),
            "over": (int(self.over), s[lay.OVER]),
            "end reason": (self.reason, s[lay.END_REASON]),
            "winners": (self.winners, s[lay.WINNERS]),
        }
        if self.cd_holder != NONE:
            scalars["countdown left"] = (self.cd_left, s[lay.CD_LEFT])
        for p in range(3):
            scalars[f"king cell {p}"] = (self.king(p), s[lay.KING_CELL + p])
        for name, (mine, theirs) in scalars.items():
            if mine != int(theirs):
                out.append(f"{name}: model {mine} engine {int(theirs)}")
        return out


def legal_move_differences(game: Game, model: Model) -> list[str]:
    """Compare the engine's legal actions (with move-kind flags) to the model's; return the differences."""
    g = game.geometry
    engine: dict[tuple[int, int], int] = {}
    for src in game.movable_pieces():
        for dst, flags in game.destinations(src).items():
            engine[(src, dst)] = flags
    if not game.over:
        engine[(lay.PASS, -1)] = 0
        if game.can_request_end():
            engine[(lay.END_REQUEST_ACTION, -1)] = 0
    mine = model.legal_moves()
    out = []

    def name(key: tuple[int, int]) -> str:
        src, dst = key
        if src < 0:
            return "pass" if src == lay.PASS else "end request"
        return f"{g.cell_coord(src)}->{g.cell_coord(dst)}"

    def kinds(flags: int) -> str:
        return "+".join(k for bit, k in enumerate(lay.MOVE_KIND_NAMES) if flags >> bit & 1) or "-"

    for key in sorted(set(engine) | set(mine)):
        if engine.get(key) != mine.get(key):
            a = "absent" if key not in engine else kinds(engine[key])
            b = "absent" if key not in mine else kinds(mine[key])
            out.append(f"{name(key)}: engine {a}, spec model {b}")
    return out
