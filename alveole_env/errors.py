"""The engine's errors and the one way to quote a received value in a message.

Both errors subclass :class:`ValueError`, so callers that only know "bad input" catch them, and
both say what was received and what is allowed. :func:`brief` keeps a huge or hostile value (a
20 MB string, a deeply nested list) from turning into a 20 MB message.
"""

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


class IllegalActionError(ValueError):
    """An action that is not legal in the current position (rules 3.1-3.7, 4.3); the game is unchanged."""


class PositionError(ValueError):
    """A position, game record or option mapping that does not describe a valid Alveole game (section 2.3)."""


def brief(value: Any, limit: int = MAX_QUOTED) -> str:
    """Return ``repr(value)`` cut to about ``limit`` characters (nested containers shortened with "...")."""
    try:
        text = _repr.repr(value)
    except Exception:  # noqa: BLE001 - a value whose repr fails is still named by its type
        text = ""
    if not text or " instance at 0x" in text:
        text = f"<{type(value).__name__}>"
    if len(text) > limit:
        text = text[: max(0, limit - 3)] + "..."
    return text
