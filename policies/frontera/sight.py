"""What a Frontera seat decides from: its own view of the game (R-13) and the map, never the hidden state.

A :class:`Sight` is built from :func:`frontera_env.view.view` (hidden territories read owner ``UNKNOWN`` and
0 armies, others' hands and the piles are absent) plus the rules' public tables (neighbours, regions).
Every scripted AI reads only a Sight, so perturbing hidden state cannot change its decision.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import NDArray

from frontera_env.rules.context import Context
from frontera_env.state import PHASES, SETUP
from frontera_env.view import UNKNOWN, view, visible


@dataclass
class Sight:
    """One seat's view as arrays: owners and armies as it may see them, its hand and its turn's counters."""

    ctx: Context
    seat: int
    phase: str
    owner: NDArray[np.int64]
    armies: NDArray[np.int64]
    hand: list[int]
    paid: list[bool]
    deploy_left: int
    turn: dict[str, Any] | None

    @classmethod
    def of(cls, game: Any, seat: int) -> Sight:
        """Return ``seat``'s sight of a :class:`frontera_env.engine.Game` (or an adapter's match holding one).

        The same values as :meth:`from_view` (a test checks it), read straight from the state through the
        view's own visibility mask :func:`frontera_env.view.visible` (13.4): the whole view dict costs more
        than a decision may (about 1.5 ms on the large map).
        """
        g = getattr(game, "game", game)
        ctx, st = g.ctx, g.state
        seen = visible(ctx, st, seat)
        armies = st.armies + (st.placed[seat] if st.phase == SETUP else 0)  # own placements only (13.2)
        hand = st.hand_of(seat)
        mine = seat == st.current and st.phase != SETUP
        turn = None
        if mine:
            window = [int(x) for x in st.window] if st.window[0] >= 0 else None
            turn = {
                "pool": int(st.pool),
                "quota_left": int(st.quota_left),
                "conquests": int(st.conquests),
                "moves_left": int(st.moves_left),
                "window": window,
            }
        return cls(
            ctx=ctx,
            seat=seat,
            phase=PHASES[st.phase],
            owner=np.where(seen, st.owner, UNKNOWN).astype(np.int64),
            armies=np.where(seen, armies, 0).astype(np.int64),
            hand=hand,
            paid=[bool(st.paid[c]) for c in hand],
            deploy_left=int(st.deploy_left[seat]),
            turn=turn,
        )

    @classmethod
    def from_view(cls, game: Any, seat: int) -> Sight:
        """Return ``seat``'s sight built from the engine's whole view dict (:func:`frontera_env.view.view`)."""
        g = getattr(game, "game", game)
        v = view(g.ctx, g.state, seat)
        return cls(
            ctx=g.ctx,
            seat=seat,
            phase=v["phase"],
            owner=np.asarray(v["owner"], np.int64),
            armies=np.asarray(v["armies"], np.int64),
            hand=list(v["hand"]),
            paid=list(v["paid"]),
            deploy_left=int(v["deploy_left"]),
            turn=v["turn"],
        )

    def same_as(self, other: Sight) -> bool:
        """Return True when both sights hold the same values (the map's context by identity)."""
        return (
            self.ctx is other.ctx
            and (self.seat, self.phase, self.hand, self.paid, self.deploy_left, self.turn)
            == (other.seat, other.phase, other.hand, other.paid, other.deploy_left, other.turn)
            and np.array_equal(self.owner, other.owner)
            and np.array_equal(self.armies, other.armies)
        )

    @cached_property
    def own(self) -> list[int]:
        """Return the seat's territories, ascending."""
        return [int(t) for t in np.flatnonzero(self.owner == self.seat)]

    @cached_property
    def _owner_list(self) -> list[int]:
        return [int(o) for o in self.owner]

    @cached_property
    def _hostile(self) -> dict[int, list[int]]:
        owner, seat = self._owner_list, self.seat
        return {t: [u for u in self.ctx.neighbours[t] if owner[u] != seat] for t in self.own}

    def hostile(self, t: int) -> list[int]:
        """Return the neighbours of ``t`` the seat does not own (rivals' and ownerless ones)."""
        found = self._hostile.get(t)
        if found is None:
            return [u for u in self.ctx.neighbours[t] if self._owner_list[u] != self.seat]
        return found

    def threat(self, t: int) -> int:
        """Return the armies of rival players next to ``t`` (ownerless territories never attack, R-11.3)."""
        return int(
            sum(
                int(self.armies[u]) for u in self.ctx.neighbours[t] if self.owner[u] >= 0 and self.owner[u] != self.seat
            )
        )

    @cached_property
    def frontier(self) -> list[int]:
        """Return the seat's territories with a neighbour it does not own."""
        return [t for t in self.own if self.hostile(t)]

    def targets(self) -> list[tuple[int, int]]:
        """Return every (source, target) the seat may attack (R-5.1): own source of >= 2 armies, foreign neighbour."""
        return [(s, t) for s in self.own if self.armies[s] >= 2 for t in self.hostile(s)]

    def reachable(self, source: int) -> list[int]:
        """Return the own territories joined to ``source`` through own territories, without it (R-7.1, A34)."""
        seen, stack = {source}, [source]
        while stack:
            u = stack.pop()
            for v in self.ctx.neighbours[u]:
                if v not in seen and self.owner[v] == self.seat:
                    seen.add(v)
                    stack.append(v)
        seen.discard(source)
        return sorted(seen)

    def components(self) -> list[list[int]]:
        """Return the seat's territories grouped by connection through own territories (regroup paths, R-7.1)."""
        left, groups = set(self.own), []
        while left:
            start = min(left)
            group = [start, *self.reachable(start)]
            left -= set(group)
            groups.append(group)
        return groups

    def region_share(self, r: int) -> float:
        """Return the fraction of region ``r``'s territories the seat owns."""
        members = self.ctx.regions[r]
        return sum(1 for t in members if self.owner[t] == self.seat) / len(members)
