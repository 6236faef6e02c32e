"""The JSON the Frontera page draws: the static layout (cells, territories, regions, sea links) and per-seat views.

Every view is built from :func:`frontera_env.view.view` (rule R-13): a player's view carries its own hand,
provisional placements and turn counters and, with fog, the owner and armies of V(p) only (13.4). A spectator
gets :func:`public_view`: the public facts of 13.1 and, without fog, the board; with fog no territory's owner or
armies at all. Once the game is over everyone sees the whole board (the record is public then).

Log entries are built once per action for every viewer (:func:`entries`), with what that viewer could see
at that moment, so a reconnecting client's missed events never tell more than its view did.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from frontera_env.actions import Action, Attack, Blitz, Deploy, Occupy, Place, Regroup, TakeBack, Trade
from frontera_env.board import SYMBOLS, FronteraMap, win_threshold
from frontera_env.engine import Game
from frontera_env.map_file import map_data
from frontera_env.rules.cards import sets_in_hand
from frontera_env.rules.context import WILD, Context
from frontera_env.state import ACTIVE, SETUP
from frontera_env.view import UNKNOWN, view, visible
from play.games import JSON

#: the seats' names (the page's i18n keys ``frontera.seat.NAME``) and default player names, up to six (R-2.1)
SEAT_NAMES: tuple[str, ...] = ("red", "blue", "green", "yellow", "purple", "orange")
SEAT_DISPLAY_NAMES: tuple[str, ...] = ("Rojo", "Azul", "Verde", "Amarillo", "Morado", "Naranja")


def layout(board: FronteraMap, key: str, players: int, options: JSON) -> JSON:
    """Return the map the page draws: the map file's regions, territories (cells, capital, neighbours) and sea links."""
    data = map_data(board)
    return {
        "game": "frontera",
        "key": key,
        "grid_radius": board.grid_radius,
        "players": players,
        "seats": list(SEAT_NAMES[:players]),
        "win_threshold": win_threshold(board.territory_count),
        "regions": data["regions"],
        "territories": data["territories"],
        "sea_links": data["sea_links"],
        "options": options,
    }


def _cards(ctx: Context, hand: list[int]) -> list[JSON]:
    """Return a hand as the page shows it: each card's id, territory (None for a wildcard) and symbol (R-9.1)."""
    out = []
    for c in hand:
        symbol = int(ctx.symbol[c])
        out.append(
            {"id": c, "territory": c if c < ctx.n else None, "symbol": "wild" if symbol == WILD else SYMBOLS[symbol]}
        )
    return out


def public_view(game: Game, lifted: bool = False) -> JSON:
    """Return what a spectator may see (13.1): the board without fog or once over; with fog no owner or armies.

    ``lifted`` shows the whole board whatever the fog (replays of a finished game).
    """
    ctx, st = game.ctx, game.state
    out = view(ctx, st, 0)
    lifted = lifted or not ctx.fog or game.over
    out.update(
        player=None,
        hand=[],
        paid=[],
        deploy_left=0,
        placed=[],
        turn=None,
        visible=[lifted] * ctx.n,
        owner=[int(o) for o in st.owner] if lifted else [UNKNOWN] * ctx.n,
        armies=[int(a) for a in st.armies] if lifted else [0] * ctx.n,
    )
    if not lifted:
        out["last_roll"] = None
    elif st.last_roll[0] >= 0:
        out["last_roll"] = _whole_roll(st.last_roll)
    return out


def seat_view(game: Game, seat: int) -> JSON:
    """Return ``seat``'s view (R-13): the engine's, plus its hand as cards and the sets it may trade."""
    ctx = game.ctx
    out = view(ctx, game.state, seat) if not game.over else {**public_view(game), "player": seat}
    hand = game.state.hand_of(seat)
    out["hand"] = _cards(ctx, hand)
    out["sets"] = [list(s) for s in sets_in_hand(ctx, hand)] if ctx.cards else []
    return out


def _whole_roll(last: NDArray[np.int32]) -> JSON:
    return {
        "source": int(last[0]),
        "target": int(last[1]),
        "attack": [int(d) for d in last[4:7] if d],
        "defence": [int(d) for d in last[7:10] if d],
    }


def sight(game: Game, viewer: int | None) -> NDArray[np.bool_]:
    """Return the territories ``viewer`` sees now (everything without fog; nothing for a fogged spectator)."""
    ctx, st = game.ctx, game.state
    if viewer is None:
        return np.full(ctx.n, not ctx.fog or game.over, np.bool_)
    return visible(ctx, st, viewer)


def entries(game: Game, before: list[NDArray[np.bool_]], full: JSON, action: Action | None) -> list[JSON]:
    """Return the log entry of ``full`` (an action just played) for each seat, then for spectators.

    ``before`` is what each viewer (seats, then spectators) saw before the action: a viewer learns a territory's
    part of the entry if it saw that territory before or after (13.3, 13.4). Provisional placements and traded
    cards are their player's alone (13.2).
    """
    st = game.state
    out = []
    for i, seen_before in enumerate(before):
        viewer = i if i < st.players else None
        seen = seen_before | sight(game, viewer)
        out.append(_entry_for(full, action, viewer, seen, game.over))
    return out


def _entry_for(full: JSON, action: Action | None, viewer: int | None, seen: NDArray[np.bool_], over: bool) -> JSON:
    """Return the part of ``full`` ``viewer`` may know (see :func:`entries`)."""
    if over or viewer == full["seat"] or action is None:
        return full
    base = {k: full[k] for k in ("ply", "seat", "kind", "events")}
    if isinstance(action, Place | TakeBack):
        return {**base, "kind": "deployment"}
    if isinstance(action, Trade):
        return base
    if isinstance(action, Deploy):
        return {**full} if seen[action.territory] else base
    if isinstance(action, Attack | Blitz):
        roll = full.get("roll") or {}
        party = viewer in (roll.get("attacker"), roll.get("defender"))
        src, dst = party or seen[action.source], party or seen[action.target]
        out = {**base, "source": action.source if src else None, "target": action.target if dst else None}
        if roll:
            out["roll"] = {
                "attacker": roll["attacker"] if src else None,
                "defender": roll["defender"] if dst else None,
                "attack": roll["attack"] if src else None,
                "defence": roll["defence"] if dst else None,
            }
        if dst:
            out["conquered"] = full.get("conquered", False)
        return out
    if isinstance(action, Occupy):
        return {**full} if full.get("target") is not None and seen[full["target"]] else base
    if isinstance(action, Regroup):
        src, dst = bool(seen[action.source]), bool(seen[action.dest])
        out = {**base, "source": action.source if src else None, "target": action.dest if dst else None}
        if src or dst:
            out["count"] = action.count
        return out
    return full


def active(game: Game) -> list[int]:
    """Return the seats that may act now: every unready active seat in the deployment (R-2.7), else the current."""
    st = game.state
    if game.over:
        return []
    if st.phase == SETUP:
        return [p for p in range(st.players) if st.status[p] == ACTIVE and not st.ready[p]]
    return [int(st.current)]
