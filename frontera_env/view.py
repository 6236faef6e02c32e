"""What one player may see (R-13): a plain dict of JSON values, with every hidden field left out or masked.

Public (13.1): the map, seats, statuses, order (and how many turns each seat waits for its next), current
player, phase, turn index, territory/card/trade counts, fully owned regions, pile sizes, ready flags. Private
(13.2): a player's own hand, ``paid`` flags and provisional placements. Without fog every territory's owner
and armies and every roll are public (13.3); with fog only ``V(p)`` (own territories and their land and sea
neighbours) shows owner and armies (13.4). Hidden territories read owner ``UNKNOWN`` and 0 armies. The PRNG
state and the piles' contents are never shown.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from frontera_env.rules.context import Context
from frontera_env.rules.order import turns_until
from frontera_env.rules.reinforce import owned_regions
from frontera_env.state import NONE, PHASES, SETUP, State

#: owner of a territory the viewer cannot see (fog)
UNKNOWN = -2


def visible(ctx: Context, st: State, player: int) -> NDArray[np.bool_]:
    """Return V(p) as a mask: everything without fog; with fog own territories and their neighbours (13.4, A45)."""
    if not ctx.fog:
        return np.ones(ctx.n, np.bool_)
    mask: NDArray[np.bool_] = st.owner == player
    seen = mask.copy()
    for t in np.flatnonzero(mask):
        seen[list(ctx.neighbours[t])] = True
    return seen


def view(ctx: Context, st: State, player: int) -> dict[str, Any]:
    """Return ``player``'s view of the state: public facts, own secrets, and the board as V(p) shows it."""
    seen = visible(ctx, st, player)
    armies = st.armies + (st.placed[player] if st.phase == SETUP else 0)  # own placements only (13.2)
    mine = player == st.current and st.phase != SETUP
    region_owner = [NONE] * len(ctx.regions)
    for p in range(st.players):
        for r in owned_regions(ctx, st, p):
            region_owner[r] = p
    return {
        "player": player,
        "phase": PHASES[st.phase],
        "current": int(st.current),
        "turn_index": int(st.turn_index),
        "fog": ctx.fog,
        "winner": int(st.winner),
        "truncated": bool(st.truncated),
        "order0": [int(s) for s in st.order0],
        "turns_until": turns_until(st),
        "status": [int(s) for s in st.status],
        "ready": [bool(r) for r in st.ready],
        "territory_counts": [st.territory_count(p) for p in range(st.players)],
        "card_counts": [int(h) for h in st.hand_len],
        "trades": [int(k) for k in st.trades],
        "region_owner": region_owner,
        "draw_size": int(st.draw_len),
        "discard_size": int(st.discard_len),
        "visible": [bool(v) for v in seen],
        "owner": [int(o) if v else UNKNOWN for o, v in zip(st.owner, seen, strict=True)],
        "armies": [int(a) if v else 0 for a, v in zip(armies, seen, strict=True)],
        "hand": st.hand_of(player),
        "paid": [bool(st.paid[c]) for c in st.hand_of(player)],
        "deploy_left": int(st.deploy_left[player]),
        "placed": [int(x) for x in st.placed[player]],
        "turn": _turn(st) if mine else None,
        "last_roll": _last_roll(st, player, seen),
    }


def _turn(st: State) -> dict[str, Any]:
    """Return the current player's own turn counters (shown to that player only)."""
    return {
        "pool": int(st.pool),
        "quota_left": int(st.quota_left),
        "conquests": int(st.conquests),
        "moves_left": int(st.moves_left),
        "window": [int(x) for x in st.window] if st.window[0] >= 0 else None,
    }


def _last_roll(st: State, player: int, seen: NDArray[np.bool_]) -> dict[str, Any] | None:
    """Return the last roll as ``player`` may see it: whole, only its visible side, or None (13.3, 13.4, A47).

    The attacker and the defender always see it whole; so does everyone without fog (``seen`` is all True).
    """
    source, target, defender, attacker = (int(x) for x in st.last_roll[:4])
    if source < 0:
        return None
    whole = player in (defender, attacker) or (seen[source] and seen[target])
    roll: dict[str, Any] = {"source": None, "target": None, "attack": None, "defence": None}
    if whole or seen[source]:
        roll["source"] = source
        roll["attack"] = [int(d) for d in st.last_roll[4:7] if d]
    if whole or seen[target]:
        roll["target"] = target
        roll["defence"] = [int(d) for d in st.last_roll[7:10] if d]
    return roll if roll["source"] is not None or roll["target"] is not None else None
