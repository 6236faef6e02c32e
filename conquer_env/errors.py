"""The errors of the Conquer engine, and the one helper that quotes a received value in a message."""

from __future__ import annotations

import reprlib
from typing import Any

#: the most characters of a received value an error message quotes
MAX_QUOTED = 80

_repr = reprlib.Repr()
_repr.maxstring = MAX_QUOTED
_repr.maxother = MAX_QUOTED
_repr.maxlist = _repr.maxtuple = _repr.maxdict = _repr.maxset = 6
_repr.maxlevel = 3


def brief(value: Any, limit: int = MAX_QUOTED) -> str:
    """Return ``repr(value)`` cut to about ``limit`` characters, so a huge bad value never makes a huge message."""
    try:
        text = _repr.repr(value)
    except Exception:  # noqa: BLE001 - a value whose repr fails is still named by its type
        text = ""
    if not text or " instance at 0x" in text:
        text = f"<{type(value).__name__}>"
    if len(text) > limit:
        text = text[: max(0, limit - 3)] + "..."
    return text


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
