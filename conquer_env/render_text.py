"""Text rendering: the spec's two-grid diagram (dots left, owners right) under a one-line status."""

from __future__ import annotations

from conquer_env.engine import SEAT_NAMES, ConquerGame
from conquer_env.position import rows


def render_text(game: ConquerGame, coordinates: bool = True) -> str:
    """Return a readable board: status line, then dots (R/B live, r/b dead) beside owners (R/B sealed)."""
    dots_rows, owner_rows = rows(game)
    d, t = game.dots_scores(), game.territory_scores()
    state = f"over ({game.end_reason})" if game.over else f"{SEAT_NAMES[game.turn]} to move"
    lines = [f"ply {game.ply}, {state}; dots score R {d[0]} B {d[1]}; territory R {t[0]} B {t[1]}"]
    if coordinates:
        ruler = "".join(str(x % 10) for x in range(game.width))
        lines.append(f"    {ruler}   {ruler}")
    for y, (drow, orow) in enumerate(zip(dots_rows, owner_rows, strict=True)):
        prefix = f"{y:>3} " if coordinates else ""
        lines.append(f"{prefix}{drow}   {orow}")
    return "\n".join(lines) + "\n"
