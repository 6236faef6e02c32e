"""Heuristic: complete enclosures, block the opponent's, build rings round its dots; a 2-ply look-ahead.

Each candidate point (legal, and within two points of some dot) is scored in three layers:

1. **Immediate** (1 ply, simulated on an engine copy): what the move changes in both players' scores:
   a capture (rule R-6 step 2) is worth its dead dots and sealed points; stepping into the opponent's
   open base (rule R-8.3) costs the dot and the region it seals.
2. **Defence**: the opponent's capturing points (every point where the opponent, if it moved now,
   would capture: simulated) are worth the opponent's gain to block, since a dot there breaks the gap.
3. **Shape**: orthogonal neighbours of opponent live dots (the four points of a diamond, the smallest
   ring), diagonal ones, links to own dots (rule R-5.1), less on the border (a border dot is safe but
   encloses only along the edge); tiny seeded noise breaks ties.

The best few candidates are then looked at two plies deep: the opponent's best capturing reply near
the move or at a known capturing point is subtracted, and the move's own follow-up capture (a threat
the opponent must answer) is added. Simulated placements are only tried where they can matter: a
capture needs at least two own live dots N8-next to the placed dot, a base needs each straight ray to
meet an opponent wall (``conquer_env.kernels.rays_blocked``).

It passes to accept the opponent's pass when it leads under the game's scoring method (rule R-9.2).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from conquer_env import kernels
from conquer_env.engine import ConquerGame
from conquer_env.layout import PASSES, TO_MOVE
from policies.base import Policy

#: how many top candidates get the 2-ply look-ahead
LOOKAHEAD = 6
#: weights of score changes: the game's method counts fully, the other one a little (a tie-breaker)
PRIMARY, SECONDARY = 1.0, 0.25


def _neighbour_counts(mask: NDArray[np.bool_], width: int, height: int) -> tuple[NDArray[np.int32], NDArray[np.int32]]:
    """Return (orthogonal, diagonal) counts of True neighbours of every point, as flat int32 arrays."""
    grid = np.zeros((height + 2, width + 2), np.int32)
    grid[1:-1, 1:-1] = mask.reshape(height, width)
    ortho = grid[:-2, 1:-1] + grid[2:, 1:-1] + grid[1:-1, :-2] + grid[1:-1, 2:]
    diag = grid[:-2, :-2] + grid[:-2, 2:] + grid[2:, :-2] + grid[2:, 2:]
    return ortho.ravel(), diag.ravel()


class HeuristicSeat(Policy):
    """Threat and defence of enclosures with a short look-ahead; deterministic given its seed."""

    name = "heuristic"
    display_name = "Heuristic"

    def act(self, game: ConquerGame, seat: int) -> int:  # type: ignore[override]
        if game.turn != seat or game.over:
            raise ValueError(f"seat {seat} cannot act: {'the game is over' if game.over else 'not its turn'}")
        points = game.legal_points()
        if len(points) == 0:
            return game.pass_action
        if game.passes == 1 and self._value(game, seat) > 0:
            return game.pass_action
        w, h = game.width, game.height
        mine, theirs = game.live_mask(seat), game.live_mask(1 - seat)
        own_o, own_d = _neighbour_counts(mine, w, h)
        opp_o, opp_d = _neighbour_counts(theirs, w, h)
        if not game.dots.any():
            centre = (h // 2) * w + w // 2
            return int(centre) if game.is_legal(centre) else int(points[0])
        near = _near_dots(game.dots != 0, w, h)
        candidates = [int(p) for p in points if near[p]] or [int(p) for p in points]
        base = self._value(game, seat)
        threats = self._capture_points(game, 1 - seat, candidates, opp_o + opp_d)
        scored: list[tuple[float, int]] = []
        for p in candidates:
            value = self._shape(p, w, h, own_o, own_d, opp_o, opp_d)
            if own_o[p] + own_d[p] >= 2 or self._may_be_base(game, p, 1 - seat):
                after = game.copy()
                after.play(p)
                value += 10.0 * (self._value(after, seat) - base)
            value += 8.0 * threats.get(p, 0.0)
            value += 1e-3 * float(self.rng.random())
            scored.append((value, p))
        scored.sort(reverse=True)
        best_value, best = scored[0]
        for value, p in scored[:LOOKAHEAD]:
            deep = value + self._lookahead(game, seat, p, threats)
            if deep > best_value:
                best_value, best = deep, p
        return best

    # ---- parts ---------------------------------------------------------------------------------------------
    def _value(self, game: ConquerGame, seat: int) -> float:
        """Return seat's lead: the game's scoring method in full, the other one as a tie-breaker."""
        d, t = game.dots_scores(), game.territory_scores()
        primary, secondary = (d, t) if game.options.scoring == "dots" else (t, d)
        return PRIMARY * (primary[seat] - primary[1 - seat]) + SECONDARY * (secondary[seat] - secondary[1 - seat])

    @staticmethod
    def _shape(
        p: int,
        w: int,
        h: int,
        own_o: NDArray[np.int32],
        own_d: NDArray[np.int32],
        opp_o: NDArray[np.int32],
        opp_d: NDArray[np.int32],
    ) -> float:
        x, y = p % w, p // w
        value = 1.0 * opp_o[p] + 0.4 * opp_d[p] + 0.5 * min(int(own_o[p] + own_d[p]), 2)
        if x in (0, w - 1) or y in (0, h - 1):
            value -= 0.6
        return float(value)

    @staticmethod
    def _may_be_base(game: ConquerGame, p: int, opponent: int) -> bool:
        w, h = game.width, game.height
        return bool(kernels.rays_blocked(w, h, game.dots, game.owner, p % w, p // w, opponent + 1))

    def _capture_points(
        self, game: ConquerGame, who: int, candidates: list[int], links: NDArray[np.int32]
    ) -> dict[int, float]:
        """Return {point: gain} where ``who``, moving now, would capture (simulated on copies)."""
        probe = game.copy()
        probe.scalars[TO_MOVE] = who  # as if ``who`` moved now
        probe.scalars[PASSES] = 0
        base = self._value(probe, who)
        gains: dict[int, float] = {}
        for p in candidates:
            if links[p] < 2:
                continue
            after = probe.copy()
            if after.captured(after.play(p)):
                gains[p] = self._value(after, who) - base
        return gains

    def _lookahead(self, game: ConquerGame, seat: int, p: int, threats: dict[int, float]) -> float:
        """Return (own follow-up capture) * 3 - (opponent's best capturing reply) * 8 after playing p."""
        after = game.copy()
        after.play(p)
        if after.over:
            return 0.0
        w, h = game.width, game.height
        x0, y0 = p % w, p // w
        local = [
            (y0 + dy) * w + x0 + dx
            for dy in (-2, -1, 0, 1, 2)
            for dx in (-2, -1, 0, 1, 2)
            if 0 <= x0 + dx < w and 0 <= y0 + dy < h
        ]
        replies = [q for q in set(local) | set(threats) if after.is_legal(q)]
        opp_o, opp_d = _neighbour_counts(after.live_mask(1 - seat), w, h)
        own_o, own_d = _neighbour_counts(after.live_mask(seat), w, h)
        opp_links, own_links = opp_o + opp_d, own_o + own_d
        theirs = self._capture_points(after, 1 - seat, replies, opp_links)
        ours = self._capture_points(after, seat, [q for q in local if after.is_legal(q)], own_links)
        return 3.0 * max(ours.values(), default=0.0) - 8.0 * max(theirs.values(), default=0.0)


def _near_dots(occupied: NDArray[np.bool_], width: int, height: int) -> NDArray[np.bool_]:
    """Return a flat bool array: True within Chebyshev distance 2 of some dot."""
    grid = np.zeros((height + 4, width + 4), bool)
    grid[2:-2, 2:-2] = occupied.reshape(height, width)
    out = np.zeros((height, width), bool)
    for dy in range(5):
        for dx in range(5):
            out |= grid[dy : dy + height, dx : dx + width]
    return out.ravel()
