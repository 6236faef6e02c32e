"""Seats for Alveole (floor 1: they import :mod:`alveole_env`): random and heuristic.

Each seat is a :class:`policies.base.Policy` whose ``act(game, seat)`` takes an
:class:`alveole_env.engine.AlveoleGame` and returns a legal action int.
"""

from policies.alveole.heuristic import HeuristicSeat
from policies.alveole.random_seat import RandomSeat
from policies.base import Policy

SEATS: dict[str, type[Policy]] = {"random": RandomSeat, "heuristic": HeuristicSeat}

__all__ = ["SEATS", "HeuristicSeat", "RandomSeat"]
