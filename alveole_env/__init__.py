"""Alveole: a two-player Lines-of-Action-like connection race on a hex board of side 5 (rules: docs/ALVEOLE.md).

Modules: :mod:`~alveole_env.geometry` (cells, lines, symmetries), :mod:`~alveole_env.options`,
:mod:`~alveole_env.state` (flat state, start layout, ``END_REASONS``), :mod:`~alveole_env.rules`
(compiled kernels), :mod:`~alveole_env.encoding` (observation and action ints),
:mod:`~alveole_env.engine` (``AlveoleGame``), :mod:`~alveole_env.position` (JSON positions),
:mod:`~alveole_env.record` (game records), :mod:`~alveole_env.render_text` /
:mod:`~alveole_env.render_image`, :mod:`~alveole_env.alveole_v0` (PettingZoo AEC env) and
:mod:`~alveole_env.vector` (batched env).
"""

import gamecore  # noqa: F401  (first: points numba's cache at the project's hashed folder)
from alveole_env.encoding import ACTION_PLANES, EXTRA_ACTIONS, NUM_ACTIONS, OBS_SIZE, PLANES
from alveole_env.engine import AlveoleGame, Move
from alveole_env.errors import IllegalActionError, PositionError
from alveole_env.options import AlveoleOptions
from alveole_env.state import END_REASONS, NUM_PLAYERS

__all__ = [
    "ACTION_PLANES",
    "END_REASONS",
    "EXTRA_ACTIONS",
    "NUM_ACTIONS",
    "NUM_PLAYERS",
    "OBS_SIZE",
    "PLANES",
    "AlveoleGame",
    "AlveoleOptions",
    "IllegalActionError",
    "Move",
    "PositionError",
]
