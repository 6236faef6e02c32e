"""Helpers for error messages: show the value that was wrong, never an unbounded one.

Every loader and validator names the value it received in its message; a malicious or accidental huge
value (a 20 MB string, a deeply nested list) must not turn into a 20 MB error line. :func:`brief` is the
one way to quote a received value in a message.
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


def brief(value: Any, limit: int = MAX_QUOTED) -> str:
    """Return ``repr(value)`` cut to about ``limit`` characters (nested containers shortened with "...")."""
    try:
        text = _repr.repr(value)
    except Exception:  # noqa: BLE001 - a value whose repr fails is still named by its type
        text = ""
    if not text or " instance at 0x" in text:  # reprlib's stand-in when repr() raised
        text = f"<{type(value).__name__}>"
    if len(text) > limit:
        text = text[: max(0, limit - 3)] + "..."
    return text


def clip(message: str, limit: int = 300) -> str:
    """Return ``message`` cut to ``limit`` characters (a message that quotes a value without :func:`brief`)."""
    return message if len(message) <= limit else message[: limit - 3] + "..."
