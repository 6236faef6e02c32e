"""The skeleton every scripted Frontera seat shares: one legal action per call, from the seat's sight only.

A turn is many decisions (R-4..R-8): trades, deployment, attacks, the adjust window, regroup moves, the end.
:class:`FronteraSeat` walks them in the rules' order and asks its subclass five questions, each answered from
a :class:`policies.frontera.sight.Sight`: where to place armies, which set to trade, what to attack, how many
armies to move into a conquest, and which regroup move to make. A ``None`` answer ends that phase.
"""

from __future__ import annotations

from typing import Any

from frontera_env.actions import Action, Attack, Blitz, Deploy, EndAttack, EndTurn, Occupy, Place, Ready, Regroup, Trade
from frontera_env.rules.cards import HAND_LIMIT, sets_in_hand
from frontera_env.rules.context import WILD
from policies.base import Policy
from policies.frontera.sight import Sight


class FronteraSeat(Policy):
    """A scripted Frontera player: ``act(game, seat)`` returns one legal action of ``seat``."""

    #: the English display name beside the Spanish one (``display_name``)
    english_name = ""
    #: trade a set as soon as one is held (True), or only when the hand reaches 5 cards (R-4.3)
    trade_early = True
    #: roll once per action (False) or until done (Blitz, A29)
    blitz = True

    def act(self, game: Any, seat: int) -> Action:  # type: ignore[override]
        """Return the seat's next action; ValueError when it is not the seat's turn to act."""
        g = getattr(game, "game", game)
        if g.over or g.current != seat:
            raise ValueError(f"seat {seat} cannot act: {'the game is over' if g.over else 'not its turn'}")
        return self.decide(Sight.of(g, seat))

    def decide(self, s: Sight) -> Action:
        """Return the action for the phase ``s`` shows, in the rules' order (R-2.7, R-4 .. R-7)."""
        if s.phase == "setup":
            if s.deploy_left:
                t, count = self.place(s)
                return Place(s.seat, t, count)
            return Ready(s.seat)
        turn = s.turn or {}
        if s.phase == "window":
            _, _, _, lo, hi = turn["window"]
            return Occupy(min(hi, max(lo, self.garrison(s, lo, hi))))
        if s.phase in ("reinforce", "forced"):
            forced = len(s.hand) >= HAND_LIMIT
            if s.ctx.cards and (forced or (s.phase == "reinforce" and self.trade_early)):
                sets = sets_in_hand(s.ctx, s.hand)
                if sets:
                    return Trade(self.pick_set(s, sets))
            if turn["pool"] > 0:
                t, count = self.deploy(s, int(turn["pool"]))
                return Deploy(t, count)
        if s.phase in ("reinforce", "attack", "forced"):
            choice = self.attack(s)
            if choice is None:
                return EndAttack()
            return Blitz(*choice) if self.blitz else Attack(*choice)
        if turn.get("moves_left", 0) >= 1:
            move = self.regroup(s)
            if move is not None:
                return Regroup(*move)
        return EndTurn()

    # ---- the five questions ------------------------------------------------------------------------------
    def place(self, s: Sight) -> tuple[int, int]:
        """Return (territory, count) for the next provisional placement of the deployment (R-2.7)."""
        t, _ = self.deploy(s, s.deploy_left)
        return t, s.deploy_left

    def pick_set(self, s: Sight, sets: list[tuple[int, int, int]]) -> tuple[int, int, int]:
        """Return the set to trade: fewest wildcards, then most cards of own territories (R-9.6 bonus), then ids."""

        def key(cards: tuple[int, int, int]) -> tuple[int, int, tuple[int, int, int]]:
            wild = sum(1 for c in cards if s.ctx.symbol[c] == WILD)
            mine = sum(1 for c in cards if c < s.ctx.n and s.owner[c] == s.seat)
            return wild, -mine, cards

        return min(sets, key=key)

    def deploy(self, s: Sight, pool: int) -> tuple[int, int]:
        """Return (territory, count) to place from the pool (R-4.2)."""
        raise NotImplementedError

    def attack(self, s: Sight) -> tuple[int, int] | None:
        """Return (source, target) to attack, or None to end the attack phase (R-5)."""
        raise NotImplementedError

    def garrison(self, s: Sight, lo: int, hi: int) -> int:
        """Return the conquered territory's final garrison in [lo, hi] (R-6.2); default: everything forward."""
        return hi

    def regroup(self, s: Sight) -> tuple[int, int, int] | None:
        """Return (source, dest, count) for a regroup move, or None to end the turn (R-7)."""
        return None

    # ---- helpers the strategies share ------------------------------------------------------------------
    def interior_to_front(self, s: Sight) -> tuple[int, int, int] | None:
        """Return a move of the largest interior stack's spare armies to the most threatened frontier territory
        joined to it through own territories (R-7.1), or None when no interior territory has armies to spare.
        """
        best: tuple[int, int, int, int] | None = None
        for members in s.components():
            fronts = [u for u in members if s.hostile(u)]
            spare = [t for t in members if s.armies[t] >= 2 and not s.hostile(t)]
            if not fronts or not spare:
                continue
            source = max(spare, key=lambda t: (int(s.armies[t]), -t))
            dest = max(fronts, key=lambda u: (s.threat(u) - int(s.armies[u]), -u))
            if best is None or int(s.armies[source]) > best[0]:
                best = (int(s.armies[source]), source, dest, int(s.armies[source]) - 1)
        return None if best is None else best[1:]
