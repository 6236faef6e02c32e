"""Engine options with strict validation (the rules have none: only the engine's truncation, spec R-4.6)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from alveole_env.errors import brief

#: option name -> (allowed minimum, allowed maximum) for the integer options
INT_RANGES: dict[str, tuple[int, int]] = {
    "max_plies": (1, 100_000),  # R-4.6 / A13: engine truncation, not a rule
}


@dataclass(frozen=True)
class AlveoleOptions:
    """Options of one game; the defaults are the spec's.

    * ``max_plies`` (R-4.6, A13): a game still undecided after this many plies stops as *truncated*
      (no winner, not a draw). It never changes the legal moves.
    """

    max_plies: int = 600

    def __post_init__(self) -> None:
        for name, (low, high) in INT_RANGES.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"option {name} must be an integer in {low}..{high}, got {brief(value)}")
            if not low <= value <= high:
                raise ValueError(f"option {name}={value} is out of range; allowed: {low}..{high}")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> AlveoleOptions:
        """Build options from a mapping; ValueError naming an unknown key, a wrong type or a value out of range."""
        if not isinstance(data, Mapping):
            raise ValueError(f"options must be a mapping, got {type(data).__name__}")
        allowed = [f.name for f in dataclasses.fields(cls)]
        for key in data:
            if key not in allowed:
                raise ValueError(f"unknown option {brief(key)}; allowed: {', '.join(allowed)}")
        return cls(**dict(data))

    def to_dict(self) -> dict[str, Any]:
        """Return the options as a plain JSON-ready mapping."""
        return dataclasses.asdict(self)

    def replace(self, **changes: Any) -> AlveoleOptions:
        """Return a copy with some options changed (validated)."""
        return AlveoleOptions.from_dict({**self.to_dict(), **changes})
