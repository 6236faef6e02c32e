"""The board as an RGB image (pillow): pointy-top hexes, both armies, the last move, the winning group."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray
from PIL import Image, ImageDraw

from alveole_env.engine import AlveoleGame
from alveole_env.geometry import CELLS, NUM_CELLS

MIN_WIDTH, MAX_WIDTH = 120, 4000
BACKGROUND = (246, 241, 228)
CELL = (222, 205, 170)
CELL_EDGE = (150, 126, 90)
PIECE = ((30, 30, 36), (245, 245, 240))
PIECE_EDGE = ((0, 0, 0), (70, 70, 70))
LAST_MOVE = (214, 120, 40)
WINNER = (40, 170, 90)
_SQRT3 = math.sqrt(3.0)


def check_width(width: object, name: str = "width") -> int:
    """Return ``width`` if it is an integer number of pixels in range; ValueError naming it otherwise."""
    if isinstance(width, bool) or not isinstance(width, int) or not MIN_WIDTH <= width <= MAX_WIDTH:
        raise ValueError(f"{name} must be an integer in {MIN_WIDTH}..{MAX_WIDTH}, got {width!r}")
    return width


def cell_centres(width: int) -> tuple[float, NDArray[np.float64]]:
    """Return (hex size, ``[61, 2]`` pixel centres) for an image ``width`` pixels wide (``r`` grows downwards)."""
    size = width / (9 * _SQRT3 + 1.0)
    centres = np.array([(_SQRT3 * (q + r / 2.0), 1.5 * r) for q, r in CELLS]) * size
    centres += (width / 2.0, width / 2.0)
    return size, centres


def render(game: AlveoleGame, width: int = 600) -> NDArray[np.uint8]:
    """Return an ``uint8 [width, width, 3]`` image of ``game``'s board."""
    width = check_width(width)
    size, centres = cell_centres(width)
    image = Image.new("RGB", (width, width), BACKGROUND)
    draw = ImageDraw.Draw(image)
    last = game.last_move
    winning = set(game.groups(game.winners[0])[0]) if game.winners else set()
    for c in range(NUM_CELLS):
        x, y = centres[c]
        corners = [
            (x + size * math.cos(math.radians(60 * k - 30)), y + size * math.sin(math.radians(60 * k - 30)))
            for k in range(6)
        ]
        fill = CELL
        if last is not None and c in (last.src, last.dst):
            fill = LAST_MOVE
        draw.polygon(corners, fill=fill, outline=CELL_EDGE)
        value = int(game.board[c])
        if value:
            radius = size * 0.62
            outline = WINNER if c in winning else PIECE_EDGE[value - 1]
            draw.ellipse(
                (x - radius, y - radius, x + radius, y + radius),
                fill=PIECE[value - 1],
                outline=outline,
                width=max(1, int(size * (0.18 if c in winning else 0.06))),
            )
    return np.asarray(image, dtype=np.uint8).copy()
