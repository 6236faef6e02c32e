"""Game options (manual section 10) with strict validation."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from dw_env.errors import brief

#: option name -> (allowed minimum, allowed maximum) for the integer options.
INT_RANGES: dict[str, tuple[int, int]] = {
    "land_radius": (1, 5),  # rule 10.2: land radius 1..5 (19 cells at 2)
    "map_radius": (2, 5),  # rule 10.2: map radius 2..5 (61 lands at 4)
    "turns_to_conquer": (1, 8),  # rule 10.3 / 6.4
    "max_rounds": (1, 100_000),  # engine truncation, resolution A57 (not a rule)
}
BOOL_OPTIONS: tuple[str, ...] = ("fast_knights", "king_may_be_alone")


@dataclass(frozen=True)
class GameOptions:
    """Options of one game; the defaults are the standard board game.

    * ``land_radius`` n (rule 10.2): cells from the throne to the land edge; 19 cells at 2.
    * ``map_radius`` R (rule 10.2): lands from the centre land to the border; 61 lands at 4.
    * ``turns_to_conquer`` K (rules 6.4, 10.3): own end-of-turns a conquest must be held.
    * ``fast_knights`` (rule 4.5, variant 10.5): knights cross the territory in one move.
    * ``king_may_be_alone`` (rule 10.4): when False, variant 4.11 applies.
    * ``max_rounds`` (resolution A57): the engine truncates the game after this many rounds.
    """

    land_radius: int = 2
    map_radius: int = 4
    turns_to_conquer: int = 4
    fast_knights: bool = True
    king_may_be_alone: bool = True
    max_rounds: int = 200

    def __post_init__(self) -> None:
        for name, (low, high) in INT_RANGES.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"option {name} must be an integer in {low}..{high}, got {brief(value)}")
            if not low <= value <= high:
                raise ValueError(f"option {name}={value} is out of range; allowed: {low}..{high}")
        for name in BOOL_OPTIONS:
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise ValueError(f"option {name} must be true or false, got {brief(value)}")

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GameOptions:
        """Build options from a mapping, rejecting unknown keys by name."""
        if not isinstance(data, dict):
            raise ValueError(f"options must be a mapping, got {type(data).__name__}")
        allowed = [f.name for f in dataclasses.fields(cls)]
        for key in data:
            if key not in allowed:
                raise ValueError(f"unknown option {brief(key)}; allowed: {', '.join(allowed)}")
        return cls(**data)

    def to_dict(self) -> dict[str, Any]:
        """Return the options as a plain JSON-ready mapping."""
        return dataclasses.asdict(self)

    def replace(self, **changes: Any) -> GameOptions:
        """Return a copy with some options changed (validated)."""
        return GameOptions.from_dict({**self.to_dict(), **changes})
