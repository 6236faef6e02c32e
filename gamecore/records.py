"""Game-record plumbing every engine shares: the header's fields, its format tag, and an atomic save.

Each game's record keeps its own fields and layout (``dw_env.record``, ``alveole_env.record``,
``conquer_env.record``, ``frontera_env.record``); what they all check the same way lives here, with
messages that name the field, the value received (:func:`gamecore.errors.brief`) and what is allowed.
A record is saved through a temporary file in the same folder and renamed over the target, so a crash or
a full disk never leaves half a record where a whole one was (``os.replace`` is atomic on one file system).
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from gamecore.errors import brief

__all__ = ["check_fields", "check_format", "write_atomically"]


def check_fields(
    data: Any,
    required: Sequence[str],
    optional: Sequence[str],
    error: type[ValueError],
    *,
    what: str = "a game record",
    unknown: str = "unknown field",
) -> Mapping[str, Any]:
    """Return ``data`` if it is a mapping with every ``required`` key and no key outside ``required + optional``.

    Raises ``error`` naming ``what`` a non-mapping is, the first ``unknown`` key (as the record calls it)
    or the missing ones, and the keys allowed.
    """
    if not isinstance(data, Mapping):
        raise error(f"{what} must be a JSON object, got {type(data).__name__}")
    allowed = (*required, *optional)
    for key in data:
        if key not in allowed:
            raise error(f"{unknown} {brief(key)}; allowed: {', '.join(allowed)}")
    missing = [k for k in required if k not in data]
    if missing:
        raise error(f"missing field(s): {', '.join(missing)}; required: {', '.join(required)}")
    return data


def check_format(value: Any, fmt: str, error: type[ValueError], what: str = "format") -> None:
    """Raise ``error`` unless ``value`` is the format tag ``fmt`` (``what`` names the field in the message)."""
    if not isinstance(value, str) or value != fmt:
        raise error(f"{what} must be {fmt!r}, got {brief(value)}")


def write_atomically(path: str | Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` whole or not at all: a temporary file in its folder, then a rename."""
    target = Path(path)
    # a fresh name opened with "x" gets the permissions of an ordinary write (mkstemp's would be 0600)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:
        with open(temporary, "x", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
