"""Random: uniform over the kinds of action the phase allows, then uniform over that kind's choices.

Uniform over every legal action would almost never end a phase on a large map (hundreds of deploy amounts and
regroup moves against one END_ATTACK), so the draw is over the kinds first (spec 6's blocks: deploy, trade,
attack, blitz, end attack, regroup, end turn), then over territories and amounts.
"""

from __future__ import annotations

from typing import Any

from frontera_env.actions import Action, Attack, Blitz, Deploy, EndAttack, EndTurn, Occupy, Place, Ready, Regroup, Trade
from frontera_env.rules.cards import HAND_LIMIT, sets_in_hand
from policies.frontera.seat import FronteraSeat
from policies.frontera.sight import Sight


class RandomSeat(FronteraSeat):
    """Uniform over the legal kinds of action, then over each kind's territories and amounts."""

    name = "random"
    display_name = "Aleatoria"
    english_name = "Random"

    def decide(self, s: Sight) -> Action:
        if s.phase == "setup":
            if not s.deploy_left:
                return Ready(s.seat)
            return Place(s.seat, self._pick(s.own), 1 + int(self.rng.integers(s.deploy_left)))
        turn: dict[str, Any] = s.turn or {}
        if s.phase == "window":
            _, _, _, lo, hi = turn["window"]
            return Occupy(lo + int(self.rng.integers(hi - lo + 1)))
        kinds = self._kinds(s, turn)
        kind = kinds[int(self.rng.integers(len(kinds)))]
        return kind(s, turn)

    def _pick(self, items: list[Any]) -> Any:
        return items[int(self.rng.integers(len(items)))]

    def _kinds(self, s: Sight, turn: dict[str, Any]) -> list[Any]:
        """Return the makers of the action kinds legal now (R-4.2, R-4.3, R-5, R-7)."""
        full = len(s.hand) >= HAND_LIMIT
        kinds: list[Any] = []
        if s.ctx.cards and (s.phase == "reinforce" or (s.phase == "forced" and full)) and sets_in_hand(s.ctx, s.hand):
            kinds.append(lambda s, turn: Trade(self._pick(sets_in_hand(s.ctx, s.hand))))
        if s.phase in ("reinforce", "forced") and turn["pool"] > 0 and not (s.phase == "forced" and full):
            kinds.append(lambda s, turn: Deploy(self._pick(s.own), 1 + int(self.rng.integers(turn["pool"]))))
        open_ = (s.phase == "reinforce" and turn["pool"] == 0 and not full) or s.phase == "attack"
        if open_:
            targets = s.targets()
            if targets:
                kinds.append(lambda s, turn: Attack(*self._pick(targets)))
                kinds.append(lambda s, turn: Blitz(*self._pick(targets)))
            kinds.append(lambda s, turn: EndAttack())
        if s.phase == "regroup":
            sources = [t for t in s.own if s.armies[t] >= 2 and s.reachable(t)] if turn["moves_left"] else []
            if sources:
                kinds.append(lambda s, turn: self._regroup(s, sources))
            kinds.append(lambda s, turn: EndTurn())
        return kinds

    def _regroup(self, s: Sight, sources: list[int]) -> Regroup:
        source = self._pick(sources)
        return Regroup(source, self._pick(s.reachable(source)), 1 + int(self.rng.integers(int(s.armies[source]) - 1)))
