"""Image rendering of a game (the ``rgb_array`` render mode), drawn with Pillow.

The hex map is drawn in the pointy-top axial layout of :mod:`dw_env.geometry`
(``x = sqrt(3) * (q + r / 2)``, ``y = 3/2 * r`` in hex sizes), the same orientation as the
text board. Each cell is tinted with its land owner's colour (the centre land is golden
while unowned), land borders are thick lines, thrones carry their land's points, kings are
crowned discs and knights small discs in their player's colour. Badges under a throne show
conquest hold counters (``2/4``, rule 6.4) and liberation counters (``L1/2``, rule 7.3) in
the counting player's colour. A banner shows the round, the player to act or the result,
the scores against the end-request threshold E (rule 9.3) and the centre countdown.
Everything is drawn at twice the size and averaged down (2x2 box filter), which smooths the edges.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable

import numpy as np
from numpy.typing import NDArray
from PIL import Image, ImageDraw, ImageFont

from dw_env.engine import Game
from dw_env.errors import brief
from dw_env.info import GAME_TITLE, LIBERATION_TURNS, NUM_PLAYERS, PLAYER_COLOURS, PLAYER_DISPLAY_NAMES, PLAYER_NAMES
from dw_env.rules import layout as lay

RGB = tuple[int, int, int]
SUPERSAMPLE = 2
SQRT3 = math.sqrt(3.0)

BACKGROUND: RGB = (250, 248, 243)
UNOWNED: RGB = (232, 228, 218)
CENTRE_UNOWNED: RGB = (243, 226, 170)
BORDER: RGB = (70, 62, 54)
TEXT: RGB = (40, 36, 32)
THRONE: RGB = (190, 150, 40)
HIGHLIGHT: RGB = (255, 200, 0)

# corners of a pointy-top hex at angles -30 + 60 i degrees (screen y points down);
# the edge towards neighbour direction d of geometry.DIRECTIONS joins these two corners
_CORNER_ANGLES = [math.radians(-30 + 60 * i) for i in range(6)]
_EDGE_CORNERS = ((0, 1), (5, 0), (4, 5), (3, 4), (2, 3), (1, 2))


def _mix(colour: RGB, other: RGB, amount: float) -> RGB:
    """Return ``colour`` moved ``amount`` (0..1) of the way towards ``other``."""
    return tuple(round(c + (o - c) * amount) for c, o in zip(colour, other, strict=True))  # type: ignore[return-value]


def _land_fill(owner: int, is_start: bool, is_centre: bool) -> RGB:
    if owner < 0:
        return CENTRE_UNOWNED if is_centre else UNOWNED
    return _mix(PLAYER_COLOURS[owner], (255, 255, 255), 0.45 if is_start else 0.62)


@functools.lru_cache(maxsize=32)
def _font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    for name in ("DejaVuSans-Bold.ttf", "Arial Bold.ttf") if bold else ("DejaVuSans.ttf", "Arial.ttf"):
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default(size=size)


def _text(draw: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, size: int, fill: RGB, **kw: object) -> None:
    draw.text(xy, text, font=_font(size, bool(kw.pop("bold", False))), fill=fill, anchor=str(kw.pop("anchor", "mm")))


def _fit(draw: ImageDraw.ImageDraw, text: str, size: int, max_width: float, bold: bool = True) -> int:
    """Return the largest font size up to ``size`` at which ``text`` is at most ``max_width`` wide."""
    while size > 6 and draw.textlength(text, font=_font(size, bold)) > max_width:
        size -= 1
    return size


def _hex(cx: float, cy: float, s: float) -> list[tuple[float, float]]:
    return [(cx + s * math.cos(a), cy + s * math.sin(a)) for a in _CORNER_ANGLES]


def _crown(cx: float, cy: float, r: float) -> list[tuple[float, float]]:
    """Return a three-pointed crown polygon centred on (cx, cy) with half-width r."""
    w, h = r, r * 0.8
    top, base = cy - h * 0.55, cy + h * 0.45
    return [
        (cx - w, base),
        (cx - w, top),
        (cx - w * 0.5, cy - h * 0.05),
        (cx, top - h * 0.15),
        (cx + w * 0.5, cy - h * 0.05),
        (cx + w, top),
        (cx + w, base),
    ]


#: the allowed image widths in pixels (drawn at SUPERSAMPLE times the size: 4,000 wide is about 200 MB while drawing)
MIN_WIDTH, MAX_WIDTH = 200, 4000


def check_width(width: object, what: str = "width") -> int:
    """Return ``width`` if it is an integer number of pixels in MIN_WIDTH..MAX_WIDTH, else raise ValueError."""
    if isinstance(width, bool) or not isinstance(width, int | np.integer):
        raise ValueError(f"{what} must be an integer number of pixels in {MIN_WIDTH}..{MAX_WIDTH}, got {brief(width)}")
    if not MIN_WIDTH <= width <= MAX_WIDTH:
        raise ValueError(f"{what}={brief(width)} pixels is out of range; allowed: {MIN_WIDTH}..{MAX_WIDTH}")
    return int(width)


def render_image(
    game: Game,
    *,
    width: int = 1000,
    selected: int = -1,
    destinations: Iterable[int] = (),
) -> NDArray[np.uint8]:
    """Return an RGB image ``uint8 [H, W, 3]`` of the game, ``width`` pixels wide (200..4000; see the module docstring).

    ``selected`` (a cell) and ``destinations`` (cells) highlight a piece chosen in the
    env's phase 2 and its legal destinations.
    """
    check_width(width, "width")
    g = game.geometry
    cells = [selected, *destinations]
    for cell in cells:
        if isinstance(cell, bool | np.bool_) or not isinstance(cell, int | np.integer) or not -1 <= cell < g.num_cells:
            raise ValueError(f"selected and destinations must be cells 0..{g.num_cells - 1} (or -1), got {brief(cell)}")
    k = SUPERSAMPLE
    big_w = width * k
    xs = SQRT3 * (g.cell_q + g.cell_r / 2.0)
    ys = 1.5 * g.cell_r.astype(np.float64)
    margin = 0.03 * big_w
    s = (big_w - 2 * margin) / (xs.max() - xs.min() + SQRT3)  # hex size: circumradius in pixels
    banner = round(0.11 * big_w)
    map_h = (ys.max() - ys.min() + 2.0) * s
    big_h = round(banner + map_h + 2 * margin)
    ox = margin + (SQRT3 / 2 - xs.min()) * s
    oy = banner + margin + (1.0 - ys.min()) * s
    px, py = ox + xs * s, oy + ys * s

    image = Image.new("RGB", (big_w, big_h), BACKGROUND)
    draw = ImageDraw.Draw(image)
    owners = game.lands[lay.OWNER]

    for c in range(g.num_cells):  # cells tinted by land owner
        land = int(g.cell_land[c])
        fill = _land_fill(int(owners[land]), bool(g.is_start_land[land]), land == g.centre_land)
        draw.polygon(_hex(px[c], py[c], s), fill=fill, outline=_mix(fill, BORDER, 0.25))
    border_w = max(2, round(s * 0.22))
    for c in range(g.num_cells):  # land borders (and the map's edge)
        corners = _hex(px[c], py[c], s)
        for d in range(6):
            n = int(g.cell_neighbors[c, d])
            if n < 0 or g.cell_land[n] != g.cell_land[c]:
                i, j = _EDGE_CORNERS[d]
                draw.line([corners[i], corners[j]], fill=BORDER, width=border_w)

    dest_set = {int(x) for x in cells[1:] if x >= 0}
    label = max(8, round(s * 0.95))
    for land in range(g.num_lands):  # thrones with their points
        t = int(g.land_throne[land])
        draw.polygon(
            _hex(px[t], py[t], s * 0.92), fill=_mix(THRONE, (255, 255, 255), 0.7), outline=THRONE, width=border_w
        )
        if not game.board[t]:
            points = str(int(g.land_points[land]))
            _text(draw, (px[t], py[t]), points, label if len(points) == 1 else round(label * 0.8), TEXT, bold=True)

    for c in (int(x) for x in np.flatnonzero(game.board)):  # pieces
        v = int(game.board[c]) - 1
        player, kind = v // 2, v % 2
        colour = PLAYER_COLOURS[player]
        dark = _mix(colour, (0, 0, 0), 0.45)
        if kind == lay.KING:
            r = s * 0.8
            draw.ellipse((px[c] - r, py[c] - r, px[c] + r, py[c] + r), fill=colour, outline=THRONE, width=border_w)
            draw.polygon(_crown(px[c], py[c], r * 0.55), fill=(255, 255, 255))
        else:
            r = s * 0.55
            draw.ellipse((px[c] - r, py[c] - r, px[c] + r, py[c] + r), fill=colour, outline=dark, width=border_w)
            draw.ellipse((px[c] - r * 0.3, py[c] - r * 0.3, px[c] + r * 0.3, py[c] + r * 0.3), fill=(255, 255, 255))
        if g.is_throne[c] and g.land_points[g.cell_land[c]]:  # a piece hides the throne's points: show a badge
            bx, by = px[c] + s * 0.9, py[c] - s * 0.9
            br = s * 0.55
            points = str(int(g.land_points[g.cell_land[c]]))
            draw.ellipse((bx - br, by - br, bx + br, by + br), fill=(255, 255, 255), outline=THRONE, width=2)
            _text(draw, (bx, by), points, _fit(draw, points, round(label * 0.75), br * 1.6), TEXT, bold=True)

    if 0 <= selected < g.num_cells:
        r = s * 1.0
        draw.ellipse(
            (px[selected] - r, py[selected] - r, px[selected] + r, py[selected] + r), outline=HIGHLIGHT, width=3 * k
        )
    for c in dest_set:
        r = s * 0.3
        draw.ellipse((px[c] - r, py[c] - r, px[c] + r, py[c] + r), fill=HIGHLIGHT, outline=BORDER, width=1)

    _draw_counters(draw, game, px, py, s)
    _draw_banner(draw, game, big_w, banner)
    small = image.resize((width, round(big_h / k)), Image.Resampling.BOX)
    return np.asarray(small, dtype=np.uint8).copy()


def _draw_counters(
    draw: ImageDraw.ImageDraw, game: Game, px: NDArray[np.float64], py: NDArray[np.float64], s: float
) -> None:
    """Draw hold (rule 6.4) and liberation (rule 7.3) counters as badges under each throne."""
    g = game.geometry
    k_turns = game.options.turns_to_conquer
    size = max(8, round(s * 0.8))
    for land in range(g.num_lands):
        badges: list[tuple[str, int]] = []
        for p in range(NUM_PLAYERS):
            hold = int(game.lands[lay.HOLD + p, land])
            lib = int(game.lands[lay.LIB + p, land])
            if hold:
                badges.append((f"{hold}/{k_turns}", p))
            if lib:
                badges.append((f"L{lib}/{LIBERATION_TURNS}", p))
        if not badges:
            continue
        t = int(g.land_throne[land])
        bw, bh = size * 2.6, size * 1.3
        x = px[t] - (len(badges) * bw + (len(badges) - 1) * size * 0.3) / 2
        y = py[t] + s * 1.25
        for text, p in badges:
            colour = PLAYER_COLOURS[p]
            draw.rounded_rectangle((x, y, x + bw, y + bh), radius=bh / 3, fill=colour, outline=(255, 255, 255), width=2)
            _text(draw, (x + bw / 2, y + bh / 2), text, size, (255, 255, 255), bold=True)
            x += bw + size * 0.3


def _draw_banner(draw: ImageDraw.ImageDraw, game: Game, width: int, height: int) -> None:
    """Draw the title/turn line and the score boxes (rules 8.3, 9.2-9.5, 11.3)."""
    g = game.geometry
    big = round(height * 0.3)
    small = round(height * 0.22)
    title = f"{GAME_TITLE}  ·  round {game.round}/{game.options.max_rounds}"
    if game.over:
        if game.truncated:
            names = ", ".join(PLAYER_DISPLAY_NAMES[p] for p in game.leaders())
            status, colour = f"Truncated at the round limit · leaders: {names}", TEXT
        else:
            names = ", ".join(PLAYER_DISPLAY_NAMES[p] for p in game.winners)
            status = f"Game over ({game.end_reason.replace('_', ' ')}) · winners: {names}"
            colour = PLAYER_COLOURS[game.winners[0]] if len(game.winners) == 1 else TEXT
    else:
        p = game.turn
        status, colour = f"To act: {PLAYER_DISPLAY_NAMES[p]} ({PLAYER_NAMES[p]})", PLAYER_COLOURS[p]
    size = _fit(draw, f"{title}    {status}", big, width * 0.96)
    _text(draw, (width * 0.02, height * 0.27), title, size, TEXT, bold=True, anchor="lm")
    _text(draw, (width * 0.98, height * 0.27), status, size, colour, bold=True, anchor="rm")

    scores = game.scores()
    box_w, box_h, gap = width * 0.17, height * 0.36, width * 0.012
    x, y = width * 0.02, height * 0.56
    labels = [f"{PLAYER_DISPLAY_NAMES[p]}  {scores[p]}/{g.end_request_points}" for p in range(NUM_PLAYERS)]
    fitted = min(_fit(draw, text, small, box_w * 0.88) for text in labels)
    for p in range(NUM_PLAYERS):
        colour = PLAYER_COLOURS[p]
        active = not game.over and game.turn == p
        draw.rounded_rectangle(
            (x, y, x + box_w, y + box_h),
            radius=box_h / 4,
            fill=colour,
            outline=TEXT if active else (255, 255, 255),
            width=max(3, round(height * 0.03)) if active else 2,
        )
        _text(draw, (x + box_w / 2, y + box_h / 2), labels[p], fitted, (255, 255, 255), bold=True)
        x += box_w + gap
    extra = []
    if game.countdown:
        holder, left = game.countdown
        extra.append(f"countdown: {PLAYER_DISPLAY_NAMES[holder]} {left}")
    extra.append(f"end request at {g.end_request_points} · centre needs {g.centre_min_points}")
    info = "  ·  ".join(extra)
    room = width * 0.98 - x - gap
    _text(
        draw, (width * 0.98, y + box_h / 2), info, _fit(draw, info, round(small * 0.8), room, False), TEXT, anchor="rm"
    )
