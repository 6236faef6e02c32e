"""The engine's typed actions: small frozen dataclasses, one per decision the rules offer (full fidelity).

Setup actions name their seat, because the deployment is simultaneous (R-2.7); every other action belongs to
the current player. Trades name their three cards explicitly (spec 6.2: a full-fidelity API takes triples).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Place:
    """Place ``count`` deployment armies provisionally on an own territory (R-2.7)."""

    seat: int
    territory: int
    count: int = 1


@dataclass(frozen=True)
class TakeBack:
    """Return ``count`` provisionally placed armies; cancels the seat's ready state (R-2.7)."""

    seat: int
    territory: int
    count: int = 1


@dataclass(frozen=True)
class Ready:
    """Declare the deployment finished; needs every army placed (R-2.7, A11)."""

    seat: int


@dataclass(frozen=True)
class Deploy:
    """Place ``count`` armies of the pool on an own territory (R-4.2, R-6.4)."""

    territory: int
    count: int


@dataclass(frozen=True)
class Trade:
    """Trade three cards forming a set, ids ascending (R-4.2, R-6.4, R-9.2)."""

    cards: tuple[int, int, int]


@dataclass(frozen=True)
class Attack:
    """Roll once from ``source`` on ``target`` (R-5.1, R-5.2)."""

    source: int
    target: int


@dataclass(frozen=True)
class Blitz:
    """Roll from ``source`` on ``target`` until it falls or the source has 1 army (A29)."""

    source: int
    target: int


@dataclass(frozen=True)
class Occupy:
    """Set the adjust window's final garrison on the conquered territory, in [lo, hi] (R-6.2)."""

    garrison: int


@dataclass(frozen=True)
class EndAttack:
    """End the attack phase and go to regroup (R-5.4)."""


@dataclass(frozen=True)
class Regroup:
    """Move ``count`` armies from ``source`` to ``dest`` along own territories (R-7.1)."""

    source: int
    dest: int
    count: int


@dataclass(frozen=True)
class EndTurn:
    """End the turn (R-7.2, R-8)."""


Action = Place | TakeBack | Ready | Deploy | Trade | Attack | Blitz | Occupy | EndAttack | Regroup | EndTurn
ACTION_TYPES: dict[str, Any] = {
    cls.__name__: cls
    for cls in (Place, TakeBack, Ready, Deploy, Trade, Attack, Blitz, Occupy, EndAttack, Regroup, EndTurn)
}
