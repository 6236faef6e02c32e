"""The text board: the diagram of spec 2.1 (``X`` player 1, ``O`` player 2, ``.`` empty) plus a status line."""

from __future__ import annotations

from alveole_env.engine import AlveoleGame
from alveole_env.geometry import CELLS, GRID, RADIUS

SYMBOLS = ".XO"


def diagram(game: AlveoleGame) -> str:
    """Return the 9-row board diagram, one row per ``r``, indented like the hexagon (spec 1.3).

    :func:`alveole_env.position.from_text` reads it back.
    """
    lines = []
    cell = 0
    for r in range(-RADIUS, RADIUS + 1):
        width = GRID - abs(r)
        row = " ".join(f"{SYMBOLS[int(game.board[cell + i])]:>3}" for i in range(width))
        assert CELLS[cell][1] == r
        lines.append(f" r={r:>2} " + "  " * abs(r) + row)
        cell += width
    return "\n".join(lines)


def status(game: AlveoleGame) -> str:
    """Return one line: whose turn it is, or how the game ended, with the piece and group counts."""
    counts = ", ".join(f"{SYMBOLS[p + 1]} {game.num_pieces(p)} pieces in {game.num_groups(p)} groups" for p in range(2))
    if game.truncated:
        head = f"truncated at ply {game.ply} (no winner)"
    elif game.over:
        head = f"player {game.winners[0] + 1} ({SYMBOLS[game.winners[0] + 1]}) wins: {game.end_reason}"
    else:
        head = f"ply {game.ply}, player {game.turn + 1} ({SYMBOLS[game.turn + 1]}) to move"
    return f"{head}; {counts}"


def render(game: AlveoleGame) -> str:
    """Return the diagram followed by the status line."""
    return diagram(game) + "\n" + status(game)
