"""The errors of the Conquer engine, and the one helper that quotes a received value (the shared room's)."""

from __future__ import annotations

from typing import Any

from gamecore.errors import MAX_QUOTED, brief

__all__ = ["MAX_QUOTED", "IllegalActionError", "PositionError", "StateError", "brief"]


class IllegalActionError(ValueError):
    """An action the rules refuse (rule R-3.4); the game is unchanged.

    ``action`` is the refused action and ``allowed`` a short description of what is allowed.
    """

    def __init__(self, message: str, action: Any = None, allowed: str = "") -> None:
        super().__init__(message)
        self.action = action
        self.allowed = allowed


class PositionError(ValueError):
    """A position (JSON or text diagram) or a game record that is malformed or not a Conquer position."""


class StateError(ValueError):
    """Arrays that cannot be a game's state: wrong type, dtype, shape or memory layout, or a value out of range."""
