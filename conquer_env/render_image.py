"""Image rendering (pillow): grid, dots, capture rings and shaded territory, as an RGB numpy array.

Territory is shaded in its owner's light colour; the capture rings are the owner's links (rule R-5.1)
that have its territory on one side only (:func:`ring_links`);
dead dots are drawn hollow; open bases (rule R-8) get a faint dotted shade.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from PIL import Image, ImageDraw

from conquer_env.engine import ConquerGame

COLOURS = {1: (210, 40, 40), 2: (40, 80, 210)}
SHADES = {1: (250, 205, 205), 2: (205, 215, 250)}
BACKGROUND = (250, 248, 240)
GRID = (200, 200, 200)


def ring_links(game: ConquerGame, colour: int) -> list[tuple[int, int]]:
    """Return the links (point pairs) of ``colour``'s capture rings: the links with its territory on one side only.

    A link joins two live dots that are N8 neighbours (rule R-5.1). Its sides: for a diagonal link, the two
    points it passes between; for an orthogonal one, the unit square on each side, which counts as
    territory when both its far corners are owned, or neither is a wall and one is owned (a wall corner
    means a diagonal link cuts the square, so the side next to the link is a triangle of walls).
    """
    w, h = game.width, game.height
    owned = (game.owner == colour).reshape(h, w)
    wall = game.live_mask(colour - 1).reshape(h, w)

    def at(grid: NDArray[np.bool_], x: int, y: int) -> bool:
        return 0 <= x < w and 0 <= y < h and bool(grid[y, x])

    def square_side(x1: int, y1: int, x2: int, y2: int) -> bool:
        both_owned = at(owned, x1, y1) and at(owned, x2, y2)
        open_square = not at(wall, x1, y1) and not at(wall, x2, y2)
        return both_owned or (open_square and (at(owned, x1, y1) or at(owned, x2, y2)))

    links: list[tuple[int, int]] = []
    for y in range(h):
        for x in range(w):
            if not wall[y, x]:
                continue
            for dx, dy in ((1, 0), (0, 1), (1, 1), (-1, 1)):
                bx, by = x + dx, y + dy
                if not at(wall, bx, by):
                    continue
                if dx and dy:  # diagonal: the two points it passes between
                    sides = (at(owned, bx, y), at(owned, x, by))
                elif dx:  # horizontal: the squares above and below
                    sides = (square_side(x, y - 1, bx, y - 1), square_side(x, y + 1, bx, y + 1))
                else:  # vertical: the squares left and right
                    sides = (square_side(x - 1, y, x - 1, by), square_side(x + 1, y, x + 1, by))
                if sides[0] != sides[1]:
                    links.append((y * w + x, by * w + bx))
    return links


def render_image(game: ConquerGame, cell: int = 32) -> NDArray[np.uint8]:
    """Return an RGB image uint8[H_px, W_px, 3] of the board, ``cell`` pixels between grid lines."""
    w, h = game.width, game.height
    margin = cell
    image = Image.new("RGB", (2 * margin + (w - 1) * cell, 2 * margin + (h - 1) * cell), BACKGROUND)
    draw = ImageDraw.Draw(image)

    def centre(q: int) -> tuple[int, int]:
        return margin + (q % w) * cell, margin + (q // w) * cell

    half = cell // 2
    for colour in (1, 2):
        bases = game.open_bases(colour - 1)
        for q in np.flatnonzero(bases):
            cx, cy = centre(int(q))
            draw.ellipse((cx - 3, cy - 3, cx + 3, cy + 3), fill=SHADES[colour])
        for q in np.flatnonzero(game.owner == colour):
            cx, cy = centre(int(q))
            draw.rectangle((cx - half, cy - half, cx + half, cy + half), fill=SHADES[colour])
    for x in range(w):
        draw.line((margin + x * cell, margin, margin + x * cell, margin + (h - 1) * cell), fill=GRID)
    for y in range(h):
        draw.line((margin, margin + y * cell, margin + (w - 1) * cell, margin + y * cell), fill=GRID)
    for colour in (1, 2):
        for a, b in ring_links(game, colour):
            draw.line((*centre(a), *centre(b)), fill=COLOURS[colour], width=max(2, cell // 10))
    radius = max(3, cell // 4)
    for q in np.flatnonzero(game.dots):
        colour = int(game.dots[q])
        cx, cy = centre(int(q))
        box = (cx - radius, cy - radius, cx + radius, cy + radius)
        if game.owner[q] == 3 - colour:
            draw.ellipse(box, outline=COLOURS[colour], width=2, fill=BACKGROUND)
        else:
            draw.ellipse(box, fill=COLOURS[colour])
    return np.asarray(image, dtype=np.uint8)
