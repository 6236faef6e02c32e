"""The engine's errors and the one way to quote a received value in a message (the shared room's :func:`brief`).

Every error subclasses :class:`ValueError`, so callers that only know "bad input" catch them, and
each says what was received and what is allowed. :func:`brief` keeps a huge or hostile value (a
20 MB string, a deeply nested list) from turning into a 20 MB message.
"""

from __future__ import annotations

from gamecore.errors import MAX_QUOTED, brief

__all__ = ["MAX_QUOTED", "IllegalActionError", "PositionError", "StateError", "brief"]


class IllegalActionError(ValueError):
    """An action that is not legal in the current position (rules 3.1-3.7, 4.3); the game is unchanged."""


class PositionError(ValueError):
    """A position, game record or option mapping that does not describe a valid Alveole game (section 2.3)."""


class StateError(ValueError):
    """Arrays that cannot be a game's state: wrong type, dtype, shape or memory layout, or a value out of range."""
