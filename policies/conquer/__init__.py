"""Seats for Conquer: scripted players behind ``policies.base.Policy`` (act(game, seat) -> action int).

``SEATS`` maps a registry name to its class: ``random`` (uniform legal points) and ``heuristic``
(captures, blocks, rings, with a short look-ahead; ``policies/conquer/heuristic.py``).
"""

from __future__ import annotations

from policies.base import Policy
from policies.conquer.heuristic import HeuristicSeat
from policies.conquer.random_seat import RandomSeat

SEATS: dict[str, type[Policy]] = {"random": RandomSeat, "heuristic": HeuristicSeat}

__all__ = ["SEATS", "HeuristicSeat", "RandomSeat"]
