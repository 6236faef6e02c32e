"""Game options (spec section 0) with strict validation: board size, scoring method, start, ply limit."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from conquer_env.errors import brief

#: smallest and largest board side in intersections (resolution A1)
MIN_SIDE, MAX_SIDE = 2, 64
#: the named board sizes (resolution A1): name -> (width, height)
PRESETS: dict[str, tuple[int, int]] = {"small": (9, 9), "default": (15, 15), "classic": (39, 32)}
#: the two scoring methods of rule R-10 ("dots" is the default, resolution A25)
SCORING_METHODS: tuple[str, ...] = ("dots", "territory")
#: the two starting positions of rule R-2.2 (resolution A3)
STARTS: tuple[str, ...] = ("empty", "cross")


def parse_size(value: Any) -> tuple[int, int]:
    """Return (width, height) of a size: a preset name or ``"WxH"``; ValueError naming what is allowed."""
    if isinstance(value, str) and value in PRESETS:
        return PRESETS[value]
    if isinstance(value, str):
        width, sep, height = value.lower().partition("x")
        if sep and width.isdigit() and height.isdigit():
            return int(width), int(height)
    raise ValueError(f"option size must be a preset ({', '.join(PRESETS)}) or 'WxH' such as '9x9', got {brief(value)}")


@dataclass(frozen=True)
class ConquerOptions:
    """Options of one game; the defaults are the 15 x 15 board, dots scoring, an empty start.

    * ``width``, ``height`` (resolution A1): intersections per row and per column, 2..64 each.
    * ``scoring`` (rule R-10, resolution A25): ``"dots"`` (opponent dots dead on your territory) or
      ``"territory"`` (intersections you own).
    * ``start`` (rule R-2.2, resolution A3): ``"empty"`` or ``"cross"`` (four dots at the centre).
    * ``max_plies`` (not a rule, resolution A30): stop the game as *truncated* after this many actions;
      ``None`` (default) means no limit beyond the rules' own bound of ``2 * width * height`` actions.
    """

    width: int = 15
    height: int = 15
    scoring: str = "dots"
    start: str = "empty"
    max_plies: int | None = None

    def __post_init__(self) -> None:
        for name in ("width", "height"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"option {name} must be an integer in {MIN_SIDE}..{MAX_SIDE}, got {brief(value)}")
            if not MIN_SIDE <= value <= MAX_SIDE:
                raise ValueError(f"option {name}={value} is out of range; allowed: {MIN_SIDE}..{MAX_SIDE}")
        if self.scoring not in SCORING_METHODS:
            raise ValueError(f"option scoring must be one of {', '.join(SCORING_METHODS)}, got {brief(self.scoring)}")
        if self.start not in STARTS:
            raise ValueError(f"option start must be one of {', '.join(STARTS)}, got {brief(self.start)}")
        if self.start == "cross" and (self.width < 4 or self.height < 4):
            raise ValueError(f"option start='cross' needs a board of at least 4 x 4, got {self.width} x {self.height}")
        if self.max_plies is not None:
            bound = self.action_bound
            value = self.max_plies
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"option max_plies must be null or an integer in 1..{bound}, got {brief(value)}")
            if not 1 <= value <= bound:
                raise ValueError(f"option max_plies={value} is out of range; allowed: 1..{bound} or null")

    @property
    def num_points(self) -> int:
        """Return the number of intersections, ``width * height``."""
        return self.width * self.height

    @property
    def action_bound(self) -> int:
        """Return the most actions a game can last, ``2 * width * height`` (rule R-9.3)."""
        return 2 * self.width * self.height

    @property
    def ply_limit(self) -> int:
        """Return the ply at which the game stops: ``max_plies``, or the rules' bound when there is none."""
        return self.max_plies if self.max_plies is not None else self.action_bound

    @classmethod
    def preset(cls, name: str, **changes: Any) -> ConquerOptions:
        """Return the options of a named board size (``small`` 9x9, ``default`` 15x15, ``classic`` 39x32)."""
        if name not in PRESETS:
            raise ValueError(f"unknown preset {brief(name)}; allowed: {', '.join(PRESETS)}")
        width, height = PRESETS[name]
        return cls.from_dict({"width": width, "height": height, **changes})

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ConquerOptions:
        """Build options from a mapping (missing keys take defaults); ValueError naming an unknown key.

        ``size`` is accepted as a shorthand for width and height: a preset name (``"small"``) or ``"WxH"``
        (``"9x9"``, ``"39x32"``); it cannot be combined with ``width`` or ``height``.
        """
        if not isinstance(data, Mapping):
            raise ValueError(f"options must be a mapping, got {type(data).__name__}")
        allowed = [f.name for f in dataclasses.fields(cls)]
        for key in data:
            if key not in allowed and key != "size":
                raise ValueError(f"unknown option {brief(key)}; allowed: {', '.join(allowed)}, size")
        values = dict(data)
        if "size" in values:
            if "width" in values or "height" in values:
                raise ValueError("option size replaces width and height: give size or width/height, not both")
            values["width"], values["height"] = parse_size(values.pop("size"))
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        """Return the options as a plain JSON-ready mapping."""
        return dataclasses.asdict(self)

    def replace(self, **changes: Any) -> ConquerOptions:
        """Return a copy with some options changed (validated)."""
        return ConquerOptions.from_dict({**self.to_dict(), **changes})
