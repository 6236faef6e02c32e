"""A map with geometry, or a position on it, as an RGB image (pillow): regions outlined, sea links dotted.

Cells are pointy-top hexagons at ``x = s·√3·(q + r/2)``, ``y = s·1.5·r`` (spec 2.2). Corner ``k`` of a cell
sits at angle ``60k - 30`` degrees (y grows downwards), so the edge towards each direction is::

      corners 4-5 (0,-1)   corners 5-0 (1,-1)
    corners 3-4 (-1,0)  (q,r)  corners 0-1 (1,0)
      corners 2-3 (-1,1)   corners 1-2 (0,1)

Territories are filled with their owner's colour (ownerless ones in bone, R-11), or with a pale tint of their
region without a position. Region borders and coasts are thick, borders inside a region thin; sea links are
dotted lines between capitals; army counts are written at the capitals. Only the lists decide rules: the
picture is for people (spec 2.2).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from PIL import Image, ImageDraw, ImageFont

from frontera_env.board import FronteraMap
from frontera_env.render_text import NO_OWNER, check_position

RGB = tuple[int, int, int]
MIN_WIDTH, MAX_WIDTH = 120, 4000
SEA = (118, 160, 196)
#: heraldic seat colours, seats 0..5
SEAT_COLOURS: tuple[RGB, ...] = (
    (196, 48, 43),
    (38, 84, 166),
    (222, 178, 36),
    (46, 139, 74),
    (120, 66, 150),
    (230, 120, 40),
)
BONE = (227, 218, 196)  # ownerless territories
REGION_TINTS: tuple[RGB, ...] = (
    (214, 196, 150),
    (180, 200, 150),
    (200, 170, 140),
    (170, 190, 180),
    (210, 185, 170),
    (190, 180, 200),
    (200, 205, 160),
    (175, 165, 140),
    (215, 200, 185),
)
BORDER = (40, 35, 30)
LINK = (250, 250, 250)
#: the corners (see the module diagram) of the edge towards each axial direction
EDGE_CORNERS = {(1, 0): (0, 1), (0, 1): (1, 2), (-1, 1): (2, 3), (-1, 0): (3, 4), (0, -1): (4, 5), (1, -1): (5, 0)}
_SQRT3 = math.sqrt(3.0)


def check_width(width: object) -> int:
    """Return ``width`` if it is an integer number of pixels in range; ValueError naming it otherwise."""
    if isinstance(width, bool) or not isinstance(width, int) or not MIN_WIDTH <= width <= MAX_WIDTH:
        raise ValueError(f"width must be an integer in {MIN_WIDTH}..{MAX_WIDTH}, got {width!r}")
    return width


@functools.lru_cache(maxsize=16)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Return a bold font of ``size`` pixels, pillow's own when no TrueType font is installed."""
    for name in ("DejaVuSans-Bold.ttf", "Arial Bold.ttf"):
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default(size=size)


def render_image(
    fmap: FronteraMap,
    owner: Sequence[int] | NDArray[np.integer] | None = None,
    armies: Sequence[int] | NDArray[np.integer] | None = None,
    width: int = 800,
) -> NDArray[np.uint8]:
    """Return an ``uint8 [width, width, 3]`` image of the map, coloured by owner when a position is given."""
    width = check_width(width)
    if not fmap.has_geometry:
        raise ValueError("this map has no geometry (cells and capitals) to draw; render it as text instead")
    if (owner is None) != (armies is None):
        raise ValueError("give owner and armies together, or neither")
    position = check_position(fmap, owner, armies) if owner is not None and armies is not None else None
    layout = _Layout(width, width / (_SQRT3 * (2 * (fmap.grid_radius or 1) + 1)))
    image = Image.new("RGB", (width, width), SEA)
    draw = ImageDraw.Draw(image)
    for t in fmap.territories:
        fill = _fill(fmap, t.id, position)
        for cell in t.cells:
            draw.polygon(layout.corners(cell), fill=fill)
    _draw_borders(draw, fmap, layout)
    step, dot = max(2.0, layout.size * 0.6), max(1, round(layout.size * 0.25))
    for a, b in fmap.sea_links:
        _dotted(draw, layout.centre(_capital(fmap, a)), layout.centre(_capital(fmap, b)), step, dot)
    if position is not None:
        font = _font(max(6, round(layout.size * 1.3)))
        halo = max(1, round(layout.size * 0.15))
        for territory in fmap.territories:
            xy = layout.centre(_capital(fmap, territory.id))
            text = str(position[1][territory.id])
            draw.text(xy, text, font=font, fill=(0, 0, 0), anchor="mm", stroke_width=halo, stroke_fill=(255, 255, 255))
    return np.asarray(image, dtype=np.uint8).copy()


@dataclass(frozen=True)
class _Layout:
    """Pixel positions of cells: image ``width`` and hex ``size`` (centre to corner)."""

    width: int
    size: float

    def centre(self, cell: tuple[int, int]) -> tuple[float, float]:
        """Return the pixel centre of an axial cell."""
        q, r = cell
        return self.width / 2 + self.size * _SQRT3 * (q + r / 2), self.width / 2 + self.size * 1.5 * r

    def corners(self, cell: tuple[int, int]) -> list[tuple[float, float]]:
        """Return the six pixel corners of a cell, corner ``k`` at ``60k - 30`` degrees."""
        x, y = self.centre(cell)
        return [(x + self.size * _CORNER[k][0], y + self.size * _CORNER[k][1]) for k in range(6)]


_CORNER = [(math.cos(math.radians(60 * k - 30)), math.sin(math.radians(60 * k - 30))) for k in range(6)]


def _draw_borders(draw: ImageDraw.ImageDraw, fmap: FronteraMap, layout: _Layout) -> None:
    """Draw each cell edge that leaves its territory: thin inside a region, thick on region borders and coasts."""
    where = {c: t.id for t in fmap.territories for c in t.cells}
    thick, thin = max(2, round(layout.size * 0.35)), max(1, round(layout.size * 0.1))
    for cell, t in where.items():
        points = layout.corners(cell)
        for (dq, dr), (a, b) in EDGE_CORNERS.items():
            other = where.get((cell[0] + dq, cell[1] + dr))
            if other == t:
                continue
            inside = other is not None and fmap.territories[other].region == fmap.territories[t].region
            draw.line([points[a], points[b]], fill=BORDER, width=thin if inside else thick)


def _capital(fmap: FronteraMap, t: int) -> tuple[int, int]:
    """Return the cell where territory ``t``'s label goes: its capital, else its first cell."""
    capital = fmap.territories[t].capital
    return capital if capital is not None else fmap.territories[t].cells[0]


def _fill(fmap: FronteraMap, t: int, position: tuple[list[int], list[int]] | None) -> RGB:
    """Return a territory's fill: its owner's colour, bone if ownerless, its region's tint without a position."""
    if position is None:
        return REGION_TINTS[fmap.territories[t].region % len(REGION_TINTS)]
    seat = position[0][t]
    return BONE if seat == NO_OWNER else SEAT_COLOURS[seat]


def _dotted(draw: ImageDraw.ImageDraw, a: tuple[float, float], b: tuple[float, float], step: float, dot: int) -> None:
    """Draw a dotted line from ``a`` to ``b``: round dots ``step`` pixels apart."""
    length = math.hypot(b[0] - a[0], b[1] - a[1])
    count = max(1, int(length / step))
    for k in range(count + 1):
        x, y = a[0] + (b[0] - a[0]) * k / count, a[1] + (b[1] - a[1]) * k / count
        draw.ellipse((x - dot, y - dot, x + dot, y + dot), fill=LINK, outline=BORDER)
