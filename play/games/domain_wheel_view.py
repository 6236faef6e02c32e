"""Domain Wheel's board layout and state view as JSON for the browser (manual 11.1-11.8).

Cells are named by their axial coordinate ``[q, r]`` everywhere (as in record notation and
position files); lands by their index into the layout's ``lands`` list (each carries its land
coordinate ``[a, b]``). The layout is static for a game's options; the view is sent after every
action. Everything the screen shows is computed here from the engine's own state and the AIs'
toolkit analysis (policies.domain_wheel.toolkit), which applies rules 6.2, 6.3 and 7.2 exactly as the engine does:

* player cards (11.3): score, lands, knights, king locked by the centre countdown (rule 9.2);
* turn banner (11.4): turn, round, countdown;
* land details (11.6): owner, points, knights of each player, and per player what is still
  missing to conquer (rules 5.4, 6.1, 6.2, 6.8) or liberate (rules 7.1, 7.2) it;
* lands being taken (11.8): taker, own turns held, conquest with king or liberation without king.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from dw_env.engine import Game
from dw_env.geometry import Geometry
from dw_env.info import (
    COUNTDOWN_TURNS,
    LIBERATION_TURNS,
    NUM_PLAYERS,
    PLAYER_COLOURS,
    PLAYER_DISPLAY_NAMES,
    PLAYER_NAMES,
)
from dw_env.options import GameOptions
from dw_env.rules import layout as lay
from policies.domain_wheel import toolkit

JSON = dict[str, Any]

GREEN, ORANGE, VIOLET = "green", "orange", "violet"
#: destination colours of rule 11.1, first match wins: normal moves, then double step/jump, then swap
COLOUR_BITS: tuple[tuple[str, int], ...] = (
    (GREEN, lay.STEP | lay.KING_MOVE | lay.FAST_KNIGHT),
    (ORANGE, lay.DOUBLE_STEP | lay.JUMP),
    (VIOLET, lay.SWAP),
)


def move_kinds(flags: int) -> list[str]:
    """Return the move-kind names set in ``flags`` (layout.MOVE_KIND_NAMES order)."""
    return [name for bit, name in enumerate(lay.MOVE_KIND_NAMES) if flags >> bit & 1]


def move_colour(flags: int) -> str | None:
    """Return the highlight colour of a destination (rule 11.1): green, orange or violet."""
    for colour, bits in COLOUR_BITS:
        if flags & bits:
            return colour
    return None


def layout_key(options: GameOptions) -> str:
    """Return the id of a layout: the same key means the same cells, lands and thresholds."""
    return f"dw-n{options.land_radius}-R{options.map_radius}"


def _hex(rgb: tuple[int, int, int]) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


@functools.lru_cache(maxsize=32)
def _layout_cached(options: GameOptions) -> JSON:
    g = Game.new(options).geometry
    start_of = {int(g.start_lands[p]): p for p in range(NUM_PLAYERS)}
    lands = []
    for land in range(g.num_lands):
        lands.append(
            {
                "coord": list(g.land_coord(land)),
                "throne": list(g.cell_coord(int(g.land_throne[land]))),
                "ring": int(g.land_ring[land]),
                "points": int(g.land_points[land]),
                "start_of": start_of.get(land),
                "neighbors": [int(m) for m in g.land_neighbors[land] if m >= 0],
            }
        )
    return {
        "game": "domain_wheel",
        "key": layout_key(options),
        "options": options.to_dict(),
        "land_radius": g.land_radius,
        "map_radius": g.map_radius,
        "num_cells": g.num_cells,
        "num_lands": g.num_lands,
        "cells_per_land": g.cells_per_land,
        "cells": [[int(q), int(r)] for q, r in zip(g.cell_q, g.cell_r, strict=True)],
        "cell_land": [int(x) for x in g.cell_land],
        "lands": lands,
        "centre": int(g.centre_land),
        "start_lands": [int(x) for x in g.start_lands],
        "total_points": int(g.total_points),
        "end_request_points": int(g.end_request_points),
        "centre_min_points": int(g.centre_min_points),
        "turns_to_conquer": options.turns_to_conquer,
        "liberation_turns": LIBERATION_TURNS,
        "countdown_turns": COUNTDOWN_TURNS,
        "players": list(PLAYER_NAMES),
        "player_display_names": list(PLAYER_DISPLAY_NAMES),
        "colours": [_hex(c) for c in PLAYER_COLOURS],
        "move_colours": {colour: move_kinds(bits) for colour, bits in COLOUR_BITS},
    }


def layout(options: GameOptions) -> JSON:
    """Return the static layout of a map (cached per options; callers must not mutate it)."""
    return _layout_cached(options)


def cell(g: Geometry, index: int) -> list[int]:
    """Return a cell index as its ``[q, r]`` coordinate."""
    return [int(g.cell_q[index]), int(g.cell_r[index])]


class Viewer:
    """Builds state views of one map, reusing the toolkit's analysis arrays between calls."""

    def __init__(self, geometry: Geometry) -> None:
        self.geometry = geometry
        self.sit = toolkit.Situation(geometry)

    def view(self, game: Game, last: JSON | None = None, log: list[JSON] | None = None) -> JSON:
        """Return the JSON state view of ``game`` (see docs/PLAY.md, "State view")."""
        g = self.geometry
        sit = self.sit.update(game, game.turn)
        over = game.over
        countdown = game.countdown
        owners = game.lands[lay.OWNER]
        pieces = []
        for c in np.flatnonzero(game.board):
            code = int(game.board[c]) - 1
            pieces.append({"cell": cell(g, int(c)), "player": code // 2, "kind": "knight" if code % 2 else "king"})
        players = []
        for p in range(NUM_PLAYERS):
            players.append(
                {
                    "score": int(sit.scores[p]),
                    "lands": int(np.count_nonzero(owners == p)),
                    "territory": int(np.count_nonzero(sit.territory[p])),
                    "knights": int(sit.counts[p].sum()),
                    "king": cell(g, game.king_cell(p)),
                    "king_land": int(sit.king_land[p]),
                    "king_locked": countdown is not None and countdown[0] == p,
                }
            )
        lands = self._lands(game)
        taking = []
        for p in range(NUM_PLAYERS):
            for land in np.flatnonzero(game.lands[lay.HOLD + p]):
                held = int(game.lands[lay.HOLD + p, land])
                taking.append(
                    {
                        "land": int(land),
                        "player": p,
                        "mode": "conquest",
                        "held": held,
                        "needed": game.options.turns_to_conquer,
                    }
                )
            for land in np.flatnonzero(game.lands[lay.LIB + p]):
                held = int(game.lands[lay.LIB + p, land])
                taking.append(
                    {"land": int(land), "player": p, "mode": "liberation", "held": held, "needed": LIBERATION_TURNS}
                )
        result = None
        if over:
            result = {
                "end_reason": game.end_reason,
                "winners": game.winners,
                "scores": game.scores(),
                "truncated": game.truncated,
                "leaders": game.leaders(),
            }
        return {
            "game": "domain_wheel",
            "layout": layout_key(game.options),
            "ply": int(game.scalars[lay.PLY]),
            "round": game.round,
            "turn": None if over else game.turn,
            "over": over,
            "result": result,
            "countdown": None if countdown is None else {"holder": countdown[0], "turns_left": countdown[1]},
            "pieces": pieces,
            "players": players,
            "movable": [] if over else [cell(g, int(c)) for c in game.movable_cells()],
            "can_request_end": False if over else game.can_request_end(),
            "lands": lands,
            "taking": taking,
            "last": last,
            "log": log or [],
        }

    def _lands(self, game: Game) -> list[JSON]:
        """Return every land's details (rule 11.6): owner, knights, kings, and per player what is missing.

        ``holds`` comes from the engine's own kernels (via policies.domain_wheel.toolkit); they are only asked where
        the cheap necessary conditions hold (the king on the throne; enough knights), which keeps a
        view at a few milliseconds on the standard map.
        """
        sit, g = self.sit, self.geometry
        owners = game.lands[lay.OWNER].tolist()
        holds = game.lands[lay.HOLD : lay.HOLD + NUM_PLAYERS].tolist()
        counts, needs, libneeds = sit.counts.tolist(), sit.need.tolist(), sit.libneed.tolist()
        starts = g.is_start_land.tolist()
        king_land = sit.king_land.tolist()
        seated_land = [king_land[p] if sit.seated_on(p, king_land[p]) else -1 for p in range(NUM_PLAYERS)]
        out = []
        for land in range(g.num_lands):
            owner, start = owners[land], starts[land]
            kings = [p for p in range(NUM_PLAYERS) if king_land[p] == land]
            conquest: list[JSON | None] = []
            liberation: list[JSON | None] = []
            for p in range(NUM_PLAYERS):
                have = counts[p][land]
                if start or owner == p:
                    conquest.append(None)
                else:
                    need = needs[p][land]
                    seated = seated_land[p] == land
                    conquest.append(
                        {
                            "need": need,
                            "have": have,
                            "missing": max(0, need - have),
                            "king_on_throne": seated,
                            "blocked": self._conquest_block(p, land, kings),
                            "holds": seated and toolkit.conquest_holds(sit, p, land, holds[p][land] == 0),
                        }
                    )
                if start or owner < 0 or owner == p:
                    liberation.append(None)
                else:
                    need = libneeds[p][land]
                    liberation.append(
                        {
                            "need": need,
                            "have": have,
                            "missing": max(0, need - have),
                            "blocked": "king_present" if kings else None,
                            "holds": have >= need and toolkit.liberation_holds(sit, p, land),
                        }
                    )
            out.append(
                {
                    "owner": None if owner < 0 else owner,
                    "knights": [counts[p][land] for p in range(NUM_PLAYERS)],
                    "kings": kings,
                    "conquest": conquest,
                    "liberation": liberation,
                }
            )
        return out

    def _conquest_block(self, p: int, land: int, kings: list[int]) -> str | None:
        """Return why ``p`` cannot conquer ``land`` now whatever the knights, or None (rules 5.1, 5.4, 6.8)."""
        sit = self.sit
        rivals = [q for q in kings if q != p]
        if rivals:
            return "rival_king"  # rule 5.4 (5.1 also bars entry while it sits on the throne or owns the land)
        if land == sit.centre:
            if int(sit.dist[p, land]) != 1:
                return "centre_route"  # rule 6.8: own lands must reach ring 1
            game = sit.game
            assert game is not None
            if int(game.lands[lay.HOLD + p, land]) == 0 and int(sit.scores[p]) < self.geometry.centre_min_points:
                return "centre_points"  # rule 6.8: the point minimum to start
        return None
