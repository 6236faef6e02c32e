"""The rules engine's errors: an illegal action names the rule that refuses it and what is allowed."""

from __future__ import annotations

from gamecore.errors import brief

__all__ = ["IllegalAction", "PositionError", "RecordError", "brief"]


class IllegalAction(ValueError):
    """An action or engine call the rules refuse in this state; the state is unchanged."""

    def __init__(self, rule: str, message: str) -> None:
        self.rule = rule
        super().__init__(f"{rule}: {message}")


class PositionError(ValueError):
    """A ``frontera-position/1`` text that is malformed or describes an impossible state."""


class RecordError(ValueError):
    """A ``frontera-record/1`` game record that is malformed or does not replay."""
