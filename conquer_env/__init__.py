"""Conquer (Kepung Titik, Tochki): the dots-enclosure game engine, positions, records, rendering and envs.

Rules: ``shared/rules/conquer-spec.md`` (rule ids R-x.y, resolutions A1-A30); usage: ``docs/CONQUER.md``.
"""

import gamecore  # noqa: F401  (first: points numba's cache at the project's hashed folder)
from conquer_env.engine import NUM_PLAYERS, SEAT_NAMES, ConquerGame
from conquer_env.errors import IllegalActionError, PositionError
from conquer_env.layout import END_REASONS
from conquer_env.options import PRESETS, ConquerOptions

__all__ = [
    "END_REASONS",
    "NUM_PLAYERS",
    "PRESETS",
    "SEAT_NAMES",
    "ConquerGame",
    "ConquerOptions",
    "IllegalActionError",
    "PositionError",
]
