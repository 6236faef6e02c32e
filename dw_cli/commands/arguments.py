"""Argument types shared by the ``dw`` commands: integers checked against a range, with argparse's messages."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def int_at_least(low: int, high: int | None = None) -> Callable[[str], int]:
    """Return an argparse ``type`` accepting integers in ``low..high`` (no upper bound when ``high`` is None)."""
    allowed = f"an integer >= {low}" if high is None else f"an integer {low}..{high}"

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {allowed}, got {text!r}") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"must be {allowed}, got {value}")
        return value

    return parse


def seconds_limit(name: str) -> Callable[[str], float]:
    """Return an argparse ``type`` reading a decision time limit (:func:`policies.bounded.parse_limit`)."""

    def parse(text: str) -> float:
        from policies.bounded import parse_limit

        try:
            return parse_limit(text, name)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


# ---- the game and its options -------------------------------------------------------------------------------
#: the game ids ``--game`` accepts, repeated here so that ``dw --help`` imports no engine (a test checks
#: they agree with policies.games.GAMES)
GAME_IDS = ("domain_wheel", "alveole", "conquer", "frontera")
DEFAULT_GAME = "domain_wheel"


def add_game_argument(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """Add ``--game ID`` and ``--option KEY=VALUE`` (the options of games other than Domain Wheel)."""
    parser.add_argument(
        "--game",
        choices=GAME_IDS,
        default=DEFAULT_GAME,
        help=f"the game to play (default {DEFAULT_GAME}); see docs/GAMES.md",
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an option of the game (e.g. --option max_plies=300 for alveole, --option size=9x9 for conquer); "
        "repeatable. Domain Wheel's options have their own flags below",
    )


def parse_option_value(text: str) -> object:
    """Return an ``--option`` value: an integer, true/false, or the text itself."""
    if text.isascii() and text.lstrip("-").isdigit():
        return int(text)
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return text


def option_pairs(items: list[str]) -> dict[str, object]:
    """Return ``--option KEY=VALUE`` items as a dict; ValueError naming a malformed or repeated item."""
    options: dict[str, object] = {}
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key or not value.strip():
            raise ValueError(f"--option must be KEY=VALUE, got {item[:60]!r}")
        if key in options:
            raise ValueError(f"--option {key} is given twice")
        options[key] = parse_option_value(value.strip())
    return options
