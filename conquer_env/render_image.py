"""Image rendering (pillow): grid, dots, capture rings and shaded territory, as an RGB numpy array.

Territory is shaded in its owner's light colour; every sealed region's border (its owner's live dots
N8-next to the region, linked where they are N8 neighbours, rule R-5.1) is drawn as the capture ring;
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
    """Return the links (point pairs) of ``colour``'s capture rings: live dots linked beside its territory."""
    w, h = game.width, game.height
    owned = game.owner == colour
    live = game.live_mask(colour - 1)
    edge = np.zeros(w * h, bool)
    for q in (int(v) for v in np.flatnonzero(owned)):
        x, y = q % w, q // w
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                cx, cy = x + dx, y + dy
                if 0 <= cx < w and 0 <= cy < h and live[cy * w + cx]:
                    edge[cy * w + cx] = True
    links = []
    for q in (int(v) for v in np.flatnonzero(edge)):
        x, y = q % w, q // w
        for dx, dy in ((1, 0), (0, 1), (1, 1), (-1, 1)):
            cx, cy = x + dx, y + dy
            # a link is part of a ring when it borders the territory: both ends touch one owned point
            if 0 <= cx < w and 0 <= cy < h and edge[cy * w + cx] and _touches_owned(owned, w, h, x, y, cx, cy):
                links.append((q, cy * w + cx))
    return links


def _touches_owned(owned: NDArray[np.bool_], w: int, h: int, x0: int, y0: int, x1: int, y1: int) -> bool:
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            cx, cy = x0 + dx, y0 + dy
            if 0 <= cx < w and 0 <= cy < h and owned[cy * w + cx] and max(abs(cx - x1), abs(cy - y1)) <= 1:
                return True
    return False


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
