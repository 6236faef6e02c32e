"""A game's state (spec 0.4) as numpy arrays and small ints, so a compiled kernel can take it over later.

Cards have ids ``0..N+1``: territory ``t``'s card is ``t`` and the wildcards are ``N`` and ``N+1``. Piles and
hands are fixed-capacity arrays with a length (``draw[:draw_len]``, the top card last; ``hand[p, :hand_len[p]]``),
so no step allocates. Seats are ``0..P-1``; ``NONE`` (-1) marks an ownerless territory and "no seat".
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import numpy as np
from numpy.typing import NDArray

from frontera_env.prng import SplitMix64

#: owner of an ownerless territory, and "no seat" wherever a seat may be missing
NONE = -1
#: player statuses (0.4)
ACTIVE, ELIMINATED, ABANDONED = 0, 1, 2
STATUSES: tuple[str, ...] = ("active", "eliminated", "abandoned")
#: phases (0.4); SETUP is the simultaneous deployment of R-2.7
SETUP, REINFORCE, ATTACK, WINDOW, FORCED, REGROUP, OVER = range(7)
PHASES: tuple[str, ...] = ("setup", "reinforce", "attack", "window", "forced", "regroup", "over")
#: regroup moves per turn (R-7, constant M)
MOVES_PER_TURN = 3


@dataclass
class State:
    """Everything that changes during a game (spec 0.4); the map and the options live beside it."""

    owner: NDArray[np.int8]  # [N] seat or NONE
    armies: NDArray[np.int32]  # [N] >= 1
    status: NDArray[np.int8]  # [P]
    trades: NDArray[np.int32]  # [P] trades made so far
    hand: NDArray[np.int16]  # [P, N+2] card ids, first hand_len[p] valid
    hand_len: NDArray[np.int16]  # [P]
    paid: NDArray[np.bool_]  # [N+2] card-territory bonus paid for this stay out of the deck
    draw: NDArray[np.int16]  # [N+2] first draw_len valid, top card last
    draw_len: int
    discard: NDArray[np.int16]  # [N+2] first discard_len valid
    discard_len: int
    order0: NDArray[np.int8]  # [P] round-1 order
    opener: int  # index into order0 of the seat that opened the current round
    round_pos: int  # offset from the opener of the current turn within the round
    previous: int  # seat that played the turn before the current one, or NONE
    # the simultaneous deployment
    deploy_left: NDArray[np.int32]  # [P] armies still to place
    placed: NDArray[np.int32]  # [P, N] provisional placements, hidden from the others
    ready: NDArray[np.bool_]  # [P]
    # the turn
    current: int
    phase: int
    pool: int
    quota_left: int
    conquests: int
    moves_left: int
    window: NDArray[np.int32]  # [source, target, a, lo, hi] while the phase is WINDOW
    turn_index: int
    # the last combat roll, for the views (R-13.3, 13.4): source, target, defender, attacker, 3 + 3 dice
    last_roll: NDArray[np.int32]  # [10], dice 0 when not rolled; source -1 before any roll
    winner: int
    truncated: bool
    rng: SplitMix64

    @classmethod
    def empty(cls, players: int, territories: int, seed: int) -> State:
        """Return a blank state for ``players`` seats on ``territories`` territories, its PRNG seeded."""
        cards = territories + 2
        last = np.zeros(10, np.int32)
        last[:4] = NONE
        return cls(
            owner=np.full(territories, NONE, np.int8),
            armies=np.ones(territories, np.int32),
            status=np.zeros(players, np.int8),
            trades=np.zeros(players, np.int32),
            hand=np.full((players, cards), NONE, np.int16),
            hand_len=np.zeros(players, np.int16),
            paid=np.zeros(cards, np.bool_),
            draw=np.full(cards, NONE, np.int16),
            draw_len=0,
            discard=np.full(cards, NONE, np.int16),
            discard_len=0,
            order0=np.arange(players, dtype=np.int8),
            opener=0,
            round_pos=0,
            previous=NONE,
            deploy_left=np.zeros(players, np.int32),
            placed=np.zeros((players, territories), np.int32),
            ready=np.zeros(players, np.bool_),
            current=NONE,
            phase=SETUP,
            pool=0,
            quota_left=0,
            conquests=0,
            moves_left=0,
            window=np.full(5, NONE, np.int32),
            turn_index=0,
            last_roll=last,
            winner=NONE,
            truncated=False,
            rng=SplitMix64(seed),
        )

    @property
    def players(self) -> int:
        return int(self.status.shape[0])

    @property
    def territories(self) -> int:
        return int(self.owner.shape[0])

    def copy(self) -> State:
        """Return a deep copy: arrays and the PRNG are independent of this state's."""
        values: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            values[f.name] = value.copy() if isinstance(value, np.ndarray | SplitMix64) else value
        return State(**values)

    def hand_of(self, seat: int) -> list[int]:
        """Return seat's hand as a list of card ids, in the order the cards arrived."""
        return [int(c) for c in self.hand[seat, : self.hand_len[seat]]]

    def set_hand(self, seat: int, cards: list[int]) -> None:
        """Replace seat's hand by ``cards`` (in that order)."""
        self.hand[seat, :] = NONE
        self.hand[seat, : len(cards)] = cards
        self.hand_len[seat] = len(cards)

    def draw_pile(self) -> list[int]:
        """Return the draw pile, bottom first (the top card, drawn next, is last)."""
        return [int(c) for c in self.draw[: self.draw_len]]

    def discard_pile(self) -> list[int]:
        """Return the discard pile in the order the cards arrived."""
        return [int(c) for c in self.discard[: self.discard_len]]

    def set_draw(self, cards: list[int]) -> None:
        """Replace the draw pile by ``cards`` (bottom first)."""
        self.draw[:] = NONE
        self.draw[: len(cards)] = cards
        self.draw_len = len(cards)

    def set_discard(self, cards: list[int]) -> None:
        """Replace the discard pile by ``cards``."""
        self.discard[:] = NONE
        self.discard[: len(cards)] = cards
        self.discard_len = len(cards)

    def active_seats(self) -> list[int]:
        """Return the seats still active, ascending."""
        return [int(p) for p in np.flatnonzero(self.status == ACTIVE)]

    def territory_count(self, seat: int) -> int:
        """Return how many territories ``seat`` owns."""
        return int(np.count_nonzero(self.owner == seat))

    def equals(self, other: State) -> bool:
        """Return True when every field, the PRNG state included, is identical."""
        for f in fields(self):
            a, b = getattr(self, f.name), getattr(other, f.name)
            if isinstance(a, np.ndarray):
                if a.dtype != b.dtype or not np.array_equal(a, b):
                    return False
            elif isinstance(a, SplitMix64):
                if a.state != b.state:
                    return False
            elif a != b:
                return False
        return True
