"""The JSON the Conquer page draws: the static layout (the grid) and the state view (dots, rings, territory, scores)."""

from __future__ import annotations

import numpy as np

from conquer_env.engine import ConquerGame
from conquer_env.options import ConquerOptions
from conquer_env.position import to_dict
from conquer_env.render_image import ring_links
from play.games import JSON

#: the seats' names (seat 0 is Red and moves first, rule R-2.3) as the page's i18n keys ``conquer.seat.NAME``
SEAT_NAMES: tuple[str, ...] = ("red", "blue")
#: the seats' default player names (Spanish, like the page's default language)
SEAT_DISPLAY_NAMES: tuple[str, ...] = ("Rojo", "Azul")


def point(game: ConquerGame, action: int) -> list[int] | None:
    """Return ``[x, y]`` of a placement action, None for the pass."""
    xy = game.action_point(action)
    return None if xy is None else [xy[0], xy[1]]


def layout(options: ConquerOptions) -> JSON:
    """Return the board layout: the grid's size, the seats and the options."""
    return {
        "game": "conquer",
        "key": f"conquer-{options.width}x{options.height}",
        "width": options.width,
        "height": options.height,
        "seats": list(SEAT_NAMES),
        "options": options.to_dict(),
    }


def log_entry(
    game: ConquerGame, ply: int, seat: int, action: int, flags: int, before: tuple[list[int], list[int]]
) -> JSON:
    """Return the log entry of ``action`` (just played by ``seat``, reaching ``ply``), with what it caused."""
    xy = point(game, action)
    entry: JSON = {
        "ply": ply,
        "seat": seat,
        "action": "pass" if xy is None else "place",
        "point": xy,
        "notation": "pass" if xy is None else f"({xy[0]}, {xy[1]})",
        "capture": game.captured(flags) if xy is not None else False,
        "base": game.base_fired(flags) if xy is not None else False,
        "events": [],
    }
    dots0, territory0 = before
    dots1, territory1 = game.dots_scores(), game.territory_scores()
    if entry["capture"] or entry["base"]:
        owner = seat if entry["capture"] else 1 - seat
        entry["events"].append(
            {
                "type": "capture" if entry["capture"] else "base",
                "player": owner,
                "dead": dots1[owner] - dots0[owner],
                "sealed": territory1[owner] - territory0[owner],
                "rescued": max(0, dots0[1 - owner] - dots1[1 - owner]),
            }
        )
    if game.over:
        entry["events"].append({"type": "game_over", "end_reason": game.end_reason, "winners": game.winners})
    return entry


def view(game: ConquerGame, ply: int, last: JSON | None = None, log: list[JSON] | None = None) -> JSON:
    """Return the state view every client receives.

    ``dots`` and ``owner`` hold W*H colour codes (0 none, 1 Red, 2 Blue) row by row; ``dead`` marks the
    dead dots (rule R-4.1); ``bases`` the points of each colour's open bases (rule R-8, 0 / 1 / 2);
    ``rings`` the capture rings as ``[colour, [x0, y0], [x1, y1]]`` links; ``legal`` the points the
    player to move may take (rule R-3.3); ``scores`` both methods' scores (rule R-10).
    """
    w = game.width
    bases = np.zeros(game.options.num_points, np.int8)
    for seat in (0, 1):
        bases[game.open_bases(seat)] = seat + 1
    rings = [[colour, [a % w, a // w], [b % w, b // w]] for colour in (1, 2) for a, b in ring_links(game, colour)]
    return {
        "game": "conquer",
        "ply": ply,
        "turn": None if game.over else game.turn,
        "over": game.over,
        "width": w,
        "height": game.height,
        "dots": [int(v) for v in game.dots],
        "owner": [int(v) for v in game.owner],
        "dead": [int(v) for v in (game.dead_mask(0) | game.dead_mask(1))],
        "bases": [int(v) for v in bases],
        "rings": rings,
        "legal": [[int(p) % w, int(p) // w] for p in game.legal_points()],
        "passes": game.passes,
        "scoring": game.options.scoring,
        "scores": {"dots": game.dots_scores(), "territory": game.territory_scores()},
        "end_reason": game.end_reason,
        "winners": game.winners,
        "truncated": game.truncated,
        "last": last,
        "log": log or [],
        "position": to_dict(game),
    }
