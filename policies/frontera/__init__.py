"""Seats for Frontera (docs/FRONTERA.md, "Scripted AIs and arena"): scripted players behind ``Policy``.

``SEATS`` maps a registry name to its class. Every seat decides from its own view only (R-13,
:mod:`policies.frontera.sight`) and returns one :mod:`frontera_env.actions` action per call.
"""

from __future__ import annotations

from policies.base import Policy
from policies.frontera.aggressor import AggressorSeat
from policies.frontera.automatic import AutomaticSeat
from policies.frontera.continental import ContinentalSeat
from policies.frontera.defender import DefenderSeat
from policies.frontera.expansionist import ExpansionistSeat
from policies.frontera.random_seat import RandomSeat

SEATS: dict[str, type[Policy]] = {
    "random": RandomSeat,
    "expansionist": ExpansionistSeat,
    "continental": ContinentalSeat,
    "aggressor": AggressorSeat,
    "defender": DefenderSeat,
    "automatic": AutomaticSeat,
}

__all__ = [
    "SEATS",
    "AggressorSeat",
    "AutomaticSeat",
    "ContinentalSeat",
    "DefenderSeat",
    "ExpansionistSeat",
    "RandomSeat",
]
