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
