"""A search seat's spec, for every game: ``search:PATH[?name=value&...]``, its parameters and their checks.

Domain Wheel's search (:mod:`policies.domain_wheel.search`) and the board games' (:mod:`policies.board_search`)
read the same spec, the same budget and constants (:class:`SearchParams`) and pick their move by visit
counts the same way when they sample (:func:`sample_by_visits`); how a node is expanded and valued is each
game's own. The compiled selection rule they share is :func:`policies.puct.puct_select`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import parse_qsl

import numpy as np
from numpy.typing import NDArray

from gamecore.errors import brief

#: the spec prefix: ``search:PATH`` or ``search:PATH?playouts=64&c_puct=1.5&time=0.5&greedy=1``
PREFIX = "search:"


@dataclass
class SearchParams:
    """The search budget and constants; every field is checked (see :func:`SearchParams.from_query`)."""

    playouts: int = 64
    time: float | None = None
    c_puct: float = 1.5
    greedy: bool = True
    reuse_tree: bool = True
    all_viewers: bool = False
    backup: str = "maxn"

    #: name -> (type, lower bound, upper bound, what it is); a ``str`` option takes one of :attr:`CHOICES`
    FIELDS: ClassVar[dict[str, tuple[type, float | None, float | None, str]]] = {
        "playouts": (int, 1, 100_000, "playouts per move"),
        "time": (float, 0.001, 600.0, "seconds per move (with playouts, whichever ends first)"),
        "c_puct": (float, 0.0, 100.0, "exploration constant"),
        "greedy": (bool, None, None, "1: play the most visited move; 0: sample by visit counts"),
        "reuse_tree": (bool, None, None, "1: keep the subtree of the position reached between moves"),
        "all_viewers": (bool, None, None, "1: value each player from its own view; 0: the acting player's"),
        "backup": (str, None, None, "how rivals choose in the tree (three players; two players: all negamax)"),
    }
    #: a ``str`` option's allowed values, the default first
    CHOICES: ClassVar[dict[str, tuple[str, ...]]] = {"backup": ("maxn", "paranoid", "best_reply")}

    def __post_init__(self) -> None:
        for name, (kind, low, high, what) in self.FIELDS.items():
            value = getattr(self, name)
            if value is None and name == "time":
                continue
            if kind is bool:
                ok = isinstance(value, bool)
            elif kind is str:
                ok = isinstance(value, str) and value in self.CHOICES[name]
            else:
                number = isinstance(value, (int, float)) and not isinstance(value, bool)
                ok = number and (kind is float or isinstance(value, int)) and math.isfinite(value)
                ok = ok and low is not None and high is not None and low <= value <= high
            if not ok:
                bound = "0 or 1" if kind is bool else f"{kind.__name__} in [{low}, {high}]"
                if kind is str:
                    bound = "one of " + ", ".join(self.CHOICES[name])
                raise ValueError(f"search option {name} ({what}) must be {bound}, got {brief(value)}")

    @classmethod
    def from_query(cls, query: str) -> SearchParams:
        """Return the parameters written as ``playouts=64&c_puct=1.5`` (unknown names are an error)."""
        values: dict[str, Any] = {}
        for name, text in parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query)):
            if name not in cls.FIELDS:
                raise ValueError(f"unknown search option {brief(name)}; allowed: {', '.join(cls.FIELDS)}")
            if name in values:
                raise ValueError(f"search option {name} given twice")
            kind = cls.FIELDS[name][0]
            try:
                if kind is bool:
                    if text not in ("0", "1"):
                        raise ValueError
                    values[name] = text == "1"
                elif kind is str:
                    if text not in cls.CHOICES[name]:
                        raise ValueError
                    values[name] = text
                else:
                    if not text.isascii():
                        raise ValueError
                    values[name] = int(text) if kind is int else float(text)
            except ValueError:
                raise ValueError(f"search option {name} must be {cls._allowed(name)}, got {brief(text)}") from None
        return cls(**values)

    @classmethod
    def _allowed(cls, name: str) -> str:
        """Return what option ``name`` accepts, in words (for an error message)."""
        kind = cls.FIELDS[name][0]
        if kind is str:
            return "one of " + ", ".join(cls.CHOICES[name])
        return "0 or 1" if kind is bool else "a " + kind.__name__


def split_spec(spec: str) -> tuple[str, SearchParams]:
    """Return (network file, parameters) of ``search:PATH[?name=value&...]``; ValueError names what is wrong."""
    if not spec.startswith(PREFIX):
        raise ValueError(f"a search seat is written {PREFIX}PATH[?playouts=N&time=S&c_puct=X], got {brief(spec)}")
    path, _, query = spec[len(PREFIX) :].partition("?")
    if not path:
        raise ValueError(f"{brief(spec)}: a search seat needs a network file after {PREFIX!r}")
    return path, SearchParams.from_query(query)


def check_spec(spec: str) -> None:
    """Raise ValueError/FileNotFoundError unless ``spec`` is a well-formed search seat on a network file or package.

    A folder must hold a package's manifest; what the package is (its game, its value output) is checked when
    the seat is made.
    """
    from policies.package import MANIFEST

    path, _ = split_spec(spec)
    p = Path(path)
    if p.is_dir():
        if not (p / MANIFEST).is_file():
            raise ValueError(
                f"{brief(spec)}: {brief(path)} is a folder but not a strategy package ({MANIFEST} is missing); "
                f"a search seat runs a dw train checkpoint (.pt) or a package folder from dw export"
            )
        return
    if not p.is_file():
        raise FileNotFoundError(f"{brief(spec)}: no such network file or package folder: {brief(path)}")
    if p.suffix.lower() != ".pt":
        raise ValueError(
            f"{brief(spec)}: a search seat runs a dw train checkpoint (.pt) or a package folder, got {brief(p.name)}"
        )


def sample_by_visits(visits: NDArray[np.int64], rng: np.random.Generator) -> int:
    """Return the index of a root move drawn in proportion to its visits (a search seat with ``greedy=0``)."""
    weights = visits.astype(np.float64)
    return int(rng.choice(len(weights), p=weights / weights.sum()))
