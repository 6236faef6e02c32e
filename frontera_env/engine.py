"""The Frontera game object: a map, the options and one :class:`State`, with the rules of ``frontera_env.rules``.

Example::

    game = Game.new(board, players=3, seed=7)          # lot, deal and deck (R-2)
    while game.phase == "setup":                        # the deployment, one seat at a time (6.6)
        game.apply(game.legal_actions()[0])
    game.apply(Deploy(territory=4, count=game.state.pool))
    game.apply(Attack(source=4, target=9))              # one roll from the game's PRNG (R-5.2)

``apply`` raises :class:`IllegalAction` naming the rule and what is allowed; the state is then unchanged.
Abandonment and the clock are engine calls (:meth:`abandon`, :meth:`timeout`, :meth:`deployment_timeout`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from frontera_env.actions import (
    Action,
    Attack,
    Blitz,
    Deploy,
    EndAttack,
    EndTurn,
    Occupy,
    Place,
    Ready,
    Regroup,
    TakeBack,
    Trade,
)
from frontera_env.board import FronteraMap
from frontera_env.rules import abandon as abandon_rules
from frontera_env.rules import clock, conquest, legal, setup
from frontera_env.rules.cards import trade
from frontera_env.rules.combat import one_roll
from frontera_env.rules.context import Context, make_context
from frontera_env.rules.regroup import regroup
from frontera_env.rules.reinforce import deploy
from frontera_env.rules.turn_end import end_turn
from frontera_env.rules_errors import IllegalAction, brief
from frontera_env.state import ACTIVE, ATTACK, FORCED, NONE, OVER, PHASES, REGROUP, SETUP, WINDOW, State

__all__ = ["Game", "IllegalAction"]


@dataclass
class Game:
    """One game: the rules' context (map and options) and its state; every change goes through ``apply``."""

    ctx: Context
    state: State

    @classmethod
    def new(
        cls,
        board: FronteraMap,
        players: int,
        seed: int,
        *,
        fog: bool = False,
        cards: bool = True,
        max_turns: int = 0,
    ) -> Game:
        """Return a game after the lot, the deal and the deck, in the simultaneous deployment (R-2)."""
        if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 0:
            raise ValueError(f"max_turns must be an integer >= 0 (0: none), got {brief(max_turns)}")
        ctx = make_context(board, fog=bool(fog), cards=bool(cards), max_turns=max_turns)
        return cls(ctx, setup.new_game(ctx, players, seed))

    @property
    def current(self) -> int:
        """The seat to act: the current player, or during setup the next seat to deploy (6.6); -1 when over."""
        return self.state.current if self.state.phase != OVER else NONE

    @property
    def phase(self) -> str:
        return PHASES[self.state.phase]

    @property
    def winner(self) -> int | None:
        return None if self.state.winner == NONE else self.state.winner

    @property
    def over(self) -> bool:
        return self.state.phase == OVER

    def copy(self) -> Game:
        """Return an independent game at the same position."""
        return Game(self.ctx, self.state.copy())

    def legal_actions(self, seat: int | None = None) -> list[Action]:
        """Return every legal action of ``seat`` (default: the seat to act), in a fixed order."""
        return legal.legal_actions(self.ctx, self.state, seat)

    def apply(self, action: Action) -> None:
        """Play ``action``; raise IllegalAction naming the rule and what is allowed, leaving the state unchanged."""
        ctx, st = self.ctx, self.state
        legal.check(ctx, st, action)
        if isinstance(action, Place | TakeBack | Ready):
            self._setup(action)
        elif isinstance(action, Deploy):
            deploy(st, action.territory, action.count)
            if st.phase == FORCED:
                conquest.forced_done(st)
        elif isinstance(action, Trade):
            trade(ctx, st, st.current, action.cards)
        elif isinstance(action, Occupy):
            conquest.occupy(st, action.garrison)
        elif isinstance(action, Attack | Blitz | EndAttack):
            if st.phase == WINDOW:  # any other action closes the window at its value (A32)
                conquest.close_window(st)
            st.phase = ATTACK
            if isinstance(action, EndAttack):
                st.phase = REGROUP
            else:
                self._attack(action.source, action.target, blitz=isinstance(action, Blitz))
        elif isinstance(action, Regroup):
            regroup(st, action.source, action.dest, action.count)
        elif isinstance(action, EndTurn):
            end_turn(ctx, st)

    def _setup(self, action: Place | TakeBack | Ready) -> None:
        st = self.state
        if isinstance(action, Place):
            setup.place(st, action.seat, action.territory, action.count)
        elif isinstance(action, TakeBack):
            setup.take_back(st, action.seat, action.territory, action.count)
        else:
            st.ready[action.seat] = True
            st.current = setup.setup_seat(st)
            if setup.all_ready(st):
                abandon_rules.start_game(self.ctx, st)

    def _attack(self, source: int, target: int, *, blitz: bool) -> None:
        """Roll once (or until done, for a blitz) and take the target if it is emptied (R-5.2, R-6.1, A29)."""
        st = self.state
        while True:
            ad = one_roll(st, source, target)
            if st.armies[target] == 0:
                conquest.conquer(self.ctx, st, source, target, ad)
                return
            if not blitz or st.armies[source] < 2:
                return

    def abandon(self, seat: int) -> None:
        """Remove ``seat`` from the game at any moment (R-11.1): an engine event, not an action."""
        st = self.state
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < st.players:
            raise IllegalAction("R-11.1", f"the seat must be an integer in 0..{st.players - 1}, got {brief(seat)}")
        if st.phase == OVER:
            raise IllegalAction("R-10.2", "the game is over; nobody can abandon it")
        if st.status[seat] != ACTIVE:
            raise IllegalAction("R-11.1", f"seat {seat} already left the game; only active seats can abandon")
        abandon_rules.abandon(self.ctx, st, seat)

    def timeout(self) -> None:
        """Apply the current turn's clock expiry (R-12.2): auto-trade, close, auto-deploy, end with the draw."""
        if self.state.phase in (SETUP, OVER):
            raise IllegalAction("R-12.2", f"a turn timeout needs a turn in progress; the phase is {self.phase}")
        clock.timeout_turn(self.ctx, self.state)

    def deployment_timeout(self) -> None:
        """Apply the deployment's clock expiry (R-12.3): AD for every unready player, then the game starts."""
        if self.state.phase != SETUP:
            raise IllegalAction("R-12.3", f"a deployment timeout needs the deployment; the phase is {self.phase}")
        clock.timeout_deployment(self.ctx, self.state)

    def summary(self) -> dict[str, Any]:
        """Return the outcome: winner, truncated, and each seat's territory share (A39)."""
        st = self.state
        return {
            "winner": self.winner,
            "truncated": bool(st.truncated),
            "shares": [st.territory_count(p) / st.territories for p in range(st.players)],
        }
