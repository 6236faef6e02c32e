"""Automatic: the player the clock puts in a seat whose time runs out (R-12), as a seat of its own.

On its turn it does what the engine's timeout does (:meth:`frontera_env.engine.Game.timeout`, R-12.2): trade
with AT only while the hand holds 5 cards (R-12.5), place the pool with AD one army at a time (R-12.4), never
attack, never regroup, and end the turn. An open adjust window closes keeping its garrison ``a`` (R-6.2, A32). In the
deployment it places with AD, then declares ready (R-12.3). Its game therefore ends exactly where the engine's
timeout would take it.
"""

from __future__ import annotations

from frontera_env.rules.clock import auto_deploy
from frontera_env.rules.context import WILD
from policies.frontera.seat import FronteraSeat
from policies.frontera.sight import Sight


class AutomaticSeat(FronteraSeat):
    """The clock's automatic player: AT when forced, AD for every army, no attack, no regroup."""

    name = "automatic"
    display_name = "Automática (reloj)"
    english_name = "Automatic (clock)"
    trade_early = False

    def place(self, s: Sight) -> tuple[int, int]:
        return self.deploy(s, s.deploy_left)

    def deploy(self, s: Sight, pool: int) -> tuple[int, int]:
        """Return AD's next territory, one army at a time (R-12.4, A40)."""
        return auto_deploy(s.ctx, s.owner.astype("int8"), s.armies.astype("int32"), s.seat, 1)[0], 1

    def pick_set(self, s: Sight, sets: list[tuple[int, int, int]]) -> tuple[int, int, int]:
        """Return AT's set: the smallest (wildcards, unpaid cards, ids) (R-12.5, A41)."""
        paid = dict(zip(s.hand, s.paid, strict=True))

        def key(cards: tuple[int, int, int]) -> tuple[int, int, tuple[int, int, int]]:
            wild = sum(1 for c in cards if s.ctx.symbol[c] == WILD)
            return wild, sum(1 for c in cards if not paid[c]), cards

        return min(sets, key=key)

    def garrison(self, s: Sight, lo: int, hi: int) -> int:
        """Return the window's current garrison ``a``: occupying it moves nothing, like closing it (A32)."""
        return int((s.turn or {})["window"][2])

    def attack(self, s: Sight) -> tuple[int, int] | None:
        return None
