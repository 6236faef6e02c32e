"""Plain-text board rendering (the ``ansi`` render mode and ``dw show``).

Cells are drawn in the pointy-top axial layout: row ``r``, column ``2q + r``, so
each cell's six neighbours sit around it::

     . . .          B b g   kings B G R (Blue, Green, Red), knights b g r
    . ^ . .         ^       an empty throne
     . . .          . + ~ = an empty cell of an unowned / Blue / Green / Red land

With ``color=True`` the owner of each land is shown by ANSI background colours too.
"""

from __future__ import annotations

from dw_env.engine import Game
from dw_env.info import GAME_TITLE, NUM_PLAYERS, PLAYER_DISPLAY_NAMES, PLAYER_NAMES
from dw_env.rules import layout as lay

PIECE_GLYPHS = {
    lay.piece_code(p, k): (PLAYER_NAMES[p][0].upper() if k == lay.KING else PLAYER_NAMES[p][0])
    for p in range(NUM_PLAYERS)
    for k in (lay.KING, lay.KNIGHT)
}
OWNER_GLYPHS = {lay.NO_OWNER: ".", 0: "+", 1: "~", 2: "="}
THRONE_GLYPH = "^"
_ANSI_BG = {lay.NO_OWNER: "", 0: "\x1b[44m", 1: "\x1b[42m", 2: "\x1b[41m"}
_ANSI_RESET = "\x1b[0m"


def cell_glyph(game: Game, cell: int) -> str:
    """Return the one-character glyph of a cell."""
    piece = int(game.board[cell])
    if piece:
        return PIECE_GLYPHS[piece]
    g = game.geometry
    if g.is_throne[cell]:
        return THRONE_GLYPH
    return OWNER_GLYPHS[game.owner(int(g.cell_land[cell]))]


def render_map(game: Game, *, color: bool = False, marks: dict[int, str] | None = None) -> str:
    """Return the map as text; ``marks`` overrides the glyph of some cells (e.g. destinations)."""
    g = game.geometry
    marks = marks or {}
    cols = 2 * g.cell_q + g.cell_r
    col0 = int(cols.min())
    rows: dict[int, list[tuple[int, int]]] = {}
    for cell in range(g.num_cells):
        rows.setdefault(int(g.cell_r[cell]), []).append((int(cols[cell]) - col0, cell))
    lines = []
    for r in sorted(rows):
        line: list[str] = []
        width = 0
        for col, cell in sorted(rows[r]):
            line.append(" " * (col - width))
            glyph = marks.get(cell, cell_glyph(game, cell))
            if color:
                bg = _ANSI_BG[game.owner(int(g.cell_land[cell]))]
                glyph = f"{bg}{glyph}{_ANSI_RESET}" if bg else glyph
            line.append(glyph)
            width = col + 1
        lines.append("".join(line).rstrip())
    return "\n".join(lines)


def render_status(game: Game) -> str:
    """Return the header lines: turn, round, scores, countdown and result (rules 11.3-11.4)."""
    g = game.geometry
    lines = [f"{GAME_TITLE} — round {game.round}/{game.options.max_rounds}, ply {int(game.scalars[lay.PLY])}"]
    if game.over:
        if game.truncated:
            leaders = ", ".join(PLAYER_NAMES[p] for p in game.leaders())
            lines.append(f"Game truncated at the round limit (not a rule ending); leaders: {leaders}")
        else:
            winners = ", ".join(PLAYER_NAMES[p] for p in game.winners)
            lines.append(f"Game over by {game.end_reason.replace('_', ' ')}; winners: {winners}")
    else:
        lines.append(f"To act: {PLAYER_NAMES[game.turn]} ({PLAYER_DISPLAY_NAMES[game.turn]})")
    scores = game.scores()
    for p, name in enumerate(PLAYER_NAMES):
        owned = int((game.lands[lay.OWNER] == p).sum())
        king, knights = game.pieces(p)
        locked = "  king locked" if game.countdown and game.countdown[0] == p else ""
        lines.append(
            f"  {name:<5} {scores[p]:>3}/{g.end_request_points} points, {owned} lands, "
            f"{len(knights)} knights, king {g.cell_coord(king)}{locked}"
        )
    if game.countdown:
        holder, left = game.countdown
        lines.append(f"  centre countdown: {PLAYER_NAMES[holder]} has {left} own turns left")
    for p, name in enumerate(PLAYER_NAMES):
        for row, verb, total in (
            (lay.HOLD, "conquering", game.options.turns_to_conquer),
            (lay.LIB, "liberating", 2),
        ):
            for land in range(g.num_lands):
                turns = int(game.lands[row + p, land])
                if turns:
                    lines.append(f"  {name} {verb} land {g.land_coord(land)}: {turns}/{total}")
    return "\n".join(lines)


def render(game: Game, *, color: bool = False, marks: dict[int, str] | None = None) -> str:
    """Return the full text view: status header, map and legend."""
    legend = "kings B G R, knights b g r, ^ empty throne, cells: . unowned + blue ~ green = red"
    return f"{render_status(game)}\n\n{render_map(game, color=color, marks=marks)}\n\n{legend}\n"
