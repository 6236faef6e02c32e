"""The errors of the Frontera engine, and the one helper that quotes a received value (the shared room's).

Every error subclasses :class:`ValueError`, so callers that only know "bad input" catch them, and each says
what was received and what is allowed.
"""

from __future__ import annotations

from typing import Any

from gamecore.errors import MAX_QUOTED, brief

__all__ = ["MAX_QUOTED", "GeneratorError", "MapError", "brief", "received"]


class MapError(ValueError):
    """A map (file, text or mapping) that breaks a rule M-1..M-11 or the ``frontera-map/1`` format (spec 2.2).

    :meth:`at` builds the usual message, ``"M-4: territories[3].land: ..."``: the rule, the field path, what
    was wrong with the value received (quoted by :func:`brief`) and what is allowed; ``rule`` and ``field``
    keep the first two. A file that cannot be read at all (too big, not UTF-8, not JSON) has rule
    ``frontera-map/1`` and no field.
    """

    def __init__(self, message: str, *, rule: str = "frontera-map/1", field: str = "") -> None:
        super().__init__(message)
        self.rule = rule
        self.field = field

    @classmethod
    def at(cls, rule: str, field: str, problem: str) -> MapError:
        """Return the error for ``rule`` broken at ``field``, its message ``"rule: field: problem"``."""
        return cls(f"{rule}: {field}: {problem}", rule=rule, field=field)


class GeneratorError(ValueError):
    """A world code or size the generator ``frontera-gen/1`` refuses (G-1), or 64 failed attempts."""


def received(value: Any) -> str:
    """Return ``"got <value>"`` with the value quoted by :func:`brief` (the tail of every MapError)."""
    return f"got {brief(value)}"
