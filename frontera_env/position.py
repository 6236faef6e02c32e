"""Positions as JSON, ``frontera-position/1``: a whole state plus a reference to its map, round-tripping exactly.

Every bug becomes a one-file case: ``save`` a game, ``load`` it with the same map. The map itself is not copied;
``map`` names it (size, world code, generator, counts) and carries a fingerprint of everything the rules read
(regions, bonuses, neighbours, card symbols), so a position loaded against another map is refused. Loading
is strict: an unknown or missing key, a wrong type, a value out of range or an inconsistent state (armies
below 1, cards not conserved, an eliminated seat owning land, ...) is an error naming the field, the value
received and what is allowed. The PRNG state is stored, so play continues with the very same dice.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from frontera_env.board import FronteraMap
from frontera_env.engine import Game
from frontera_env.prng import MASK64
from frontera_env.rules.context import make_context
from frontera_env.rules_errors import PositionError, brief
from frontera_env.state import ACTIVE, NONE, OVER, PHASES, SETUP, STATUSES, WINDOW, State
from gamecore.loaders import load_json, parse_json

FORMAT = "frontera-position/1"
#: the largest position text read: a large map with 6 players takes about 10 kB
MAX_POSITION_BYTES = 1 << 20
_KEYS = (
    "format", "map", "options", "players", "rng", "owner", "armies", "status", "trades", "hands", "paid", "draw",
    "discard", "order0", "opener", "round_pos", "previous", "deploy_left", "placed", "ready", "current", "phase",
    "pool", "quota_left", "conquests", "moves_left", "window", "turn_index", "last_roll", "winner", "truncated",
)  # fmt: skip


def map_ref(board: FronteraMap) -> dict[str, Any]:
    """Return the reference a position keeps to its map: names, counts and a fingerprint of what rules read."""
    rules_view = [[r.bonus, list(r.territories)] for r in board.regions] + [
        [t.region, list(t.land), list(t.sea), t.card] for t in board.territories
    ]
    digest = hashlib.sha256(json.dumps(rules_view, separators=(",", ":")).encode()).hexdigest()[:16]
    return {
        "size": board.size,
        "world_code": board.world_code,
        "generator": board.generator,
        "territory_count": board.territory_count,
        "region_count": board.region_count,
        "fingerprint": digest,
    }


def to_dict(game: Game) -> dict[str, Any]:
    """Return ``game`` as a ``frontera-position/1`` JSON object (keys in the canonical order)."""
    st, ctx = game.state, game.ctx
    return {
        "format": FORMAT,
        "map": map_ref(ctx.map),
        "options": {"fog": ctx.fog, "cards": ctx.cards, "max_turns": ctx.max_turns},
        "players": st.players,
        "rng": str(st.rng.state),
        "owner": [int(x) for x in st.owner],
        "armies": [int(x) for x in st.armies],
        "status": [STATUSES[s] for s in st.status],
        "trades": [int(x) for x in st.trades],
        "hands": [st.hand_of(p) for p in range(st.players)],
        "paid": [int(c) for c in np.flatnonzero(st.paid)],
        "draw": st.draw_pile(),
        "discard": st.discard_pile(),
        "order0": [int(x) for x in st.order0],
        "opener": st.opener,
        "round_pos": st.round_pos,
        "previous": st.previous,
        "deploy_left": [int(x) for x in st.deploy_left],
        "placed": [[int(x) for x in row] for row in st.placed],
        "ready": [bool(x) for x in st.ready],
        "current": st.current,
        "phase": PHASES[st.phase],
        "pool": st.pool,
        "quota_left": st.quota_left,
        "conquests": st.conquests,
        "moves_left": st.moves_left,
        "window": [int(x) for x in st.window] if st.window[0] >= 0 else None,
        "turn_index": st.turn_index,
        "last_roll": [int(x) for x in st.last_roll],
        "winner": None if st.winner == NONE else st.winner,
        "truncated": bool(st.truncated),
    }


def dumps(game: Game) -> str:
    """Return the position as JSON text, one key per line."""
    return "{\n" + ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in to_dict(game).items()) + "\n}\n"


def loads(text: str, board: FronteraMap) -> Game:
    """Return the game a position text describes on ``board``; PositionError naming what is wrong otherwise."""
    return from_dict(parse_json(text, MAX_POSITION_BYTES, PositionError), board)


def save(game: Game, path: str | Path) -> None:
    """Write the position to ``path`` as UTF-8 JSON."""
    Path(path).write_text(dumps(game), encoding="utf-8")


def load(path: str | Path, board: FronteraMap) -> Game:
    """Read a position file (bounded, gamecore.loaders) and return its game on ``board``."""
    data = load_json(path, MAX_POSITION_BYTES, PositionError)
    try:
        return from_dict(data, board)
    except PositionError as exc:
        raise PositionError(f"{path}: {exc}") from None


def _int(data: dict[str, Any], key: str, lo: int, hi: int) -> int:
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise PositionError(f"{key} must be an integer in {lo}..{hi}, got {brief(value)}")
    return value


def _ints(data: dict[str, Any], key: str, length: int | None, lo: int, hi: int) -> list[int]:
    value = data[key]
    ok = isinstance(value, list) and (length is None or len(value) == length)
    if ok and all(not isinstance(x, bool) and isinstance(x, int) and lo <= x <= hi for x in value):
        return value  # type: ignore[no-any-return]
    size = "a list" if length is None else f"a list of {length}"
    raise PositionError(f"{key} must be {size} integers in {lo}..{hi}, got {brief(value)}")


def _bool(data: dict[str, Any], key: str) -> bool:
    if not isinstance(data[key], bool):
        raise PositionError(f"{key} must be true or false, got {brief(data[key])}")
    return data[key]  # type: ignore[no-any-return]


def _choice(value: Any, key: str, allowed: tuple[str, ...]) -> int:
    if value not in allowed or not isinstance(value, str):
        raise PositionError(f"{key} must be one of {', '.join(allowed)}, got {brief(value)}")
    return allowed.index(value)


def from_dict(data: Any, board: FronteraMap) -> Game:
    """Return the game a position object describes on ``board``, checked field by field and as a whole."""
    if not isinstance(data, dict):
        raise PositionError(f"a position is a JSON object, got {brief(data)}")
    unknown = [k for k in data if k not in _KEYS]
    missing = [k for k in _KEYS if k not in data]
    if unknown or missing:
        what = f"unknown key {brief(unknown[0])}" if unknown else f"missing key {missing[0]!r}"
        raise PositionError(f"{what}; a {FORMAT} position has exactly the keys {', '.join(_KEYS)}")
    if data["format"] != FORMAT:
        raise PositionError(f"format must be {FORMAT!r}, got {brief(data['format'])}")
    if data["map"] != map_ref(board):
        raise PositionError(f"map {brief(data['map'], 200)} is not the map given ({map_ref(board)['fingerprint']})")
    opts = data["options"]
    if not isinstance(opts, dict) or set(opts) != {"fog", "cards", "max_turns"}:
        raise PositionError(f"options must be an object with fog, cards and max_turns, got {brief(opts)}")
    ctx = make_context(
        board, fog=_bool(opts, "fog"), cards=_bool(opts, "cards"), max_turns=_int(opts, "max_turns", 0, 1 << 31)
    )
    n, p = ctx.n, _int(data, "players", 2, 6)
    rng = data["rng"]
    if not isinstance(rng, str) or not rng.isascii() or not rng.isdigit() or int(rng) > MASK64:
        raise PositionError(f"rng must be a decimal string of a 64-bit state, got {brief(rng)}")
    st = State.empty(p, n, int(rng))
    st.owner[:] = _ints(data, "owner", n, NONE, p - 1)
    st.armies[:] = _ints(data, "armies", n, 1, 1 << 30)
    status = data["status"]
    if not isinstance(status, list) or len(status) != p:
        raise PositionError(f"status must be a list of {p} statuses, got {brief(status)}")
    st.status[:] = [_choice(s, "status", STATUSES) for s in status]
    st.trades[:] = _ints(data, "trades", p, 0, 1 << 20)
    hands = data["hands"]
    if not isinstance(hands, list) or len(hands) != p:
        raise PositionError(f"hands must be a list of {p} hands, got {brief(hands)}")
    for seat in range(p):
        st.set_hand(seat, _ints({"hands": hands[seat]}, "hands", None, 0, n + 1))
    st.paid[_ints(data, "paid", None, 0, n + 1)] = True
    st.set_draw(_ints(data, "draw", None, 0, n + 1))
    st.set_discard(_ints(data, "discard", None, 0, n + 1))
    st.order0[:] = _ints(data, "order0", p, 0, p - 1)
    st.opener, st.round_pos = _int(data, "opener", 0, p - 1), _int(data, "round_pos", 0, p - 1)
    st.previous = _int(data, "previous", NONE, p - 1)
    st.deploy_left[:] = _ints(data, "deploy_left", p, 0, 20)
    placed = data["placed"]
    if not isinstance(placed, list) or len(placed) != p:
        raise PositionError(f"placed must be a list of {p} lists, got {brief(placed)}")
    for seat in range(p):
        st.placed[seat] = _ints({"placed": placed[seat]}, "placed", n, 0, 20)
    ready = data["ready"]
    if not isinstance(ready, list) or len(ready) != p or not all(isinstance(r, bool) for r in ready):
        raise PositionError(f"ready must be a list of {p} booleans, got {brief(ready)}")
    st.ready[:] = ready
    st.current = _int(data, "current", NONE, p - 1)
    st.phase = _choice(data["phase"], "phase", PHASES)
    for key in ("pool", "quota_left", "conquests", "turn_index"):
        setattr(st, key, _int(data, key, 0, 1 << 30))
    st.moves_left = _int(data, "moves_left", 0, 3)
    if data["window"] is not None:
        st.window[:] = _ints(data, "window", 5, 0, 1 << 30)
    st.last_roll[:] = _ints(data, "last_roll", 10, NONE, max(n, 6))
    st.winner = NONE if data["winner"] is None else _int(data, "winner", 0, p - 1)
    st.truncated = _bool(data, "truncated")
    _check_whole(ctx.n, ctx.cards, st, data)
    return Game(ctx, st)


def _check_whole(n: int, cards: bool, st: State, data: dict[str, Any]) -> None:
    """Refuse a state the rules could never reach: the invariants of spec 0.4 and 1.5."""
    held = st.draw_pile() + st.discard_pile() + [c for p in range(st.players) for c in st.hand_of(p)]
    expected = list(range(n + 2)) if cards else []
    if sorted(held) != expected:
        raise PositionError(f"draw, discard and hands must hold each of the {len(expected)} cards once (1.5)")
    if sorted(int(x) for x in st.order0) != list(range(st.players)):
        raise PositionError(f"order0 must list every seat once, got {brief(data['order0'])}")
    for p in range(st.players):
        if st.status[p] != ACTIVE and (st.territory_count(p) or st.hand_len[p]):
            raise PositionError(f"seat {p} is {STATUSES[st.status[p]]} but owns territories or cards")
    if st.phase == OVER:
        if (st.winner == NONE) == (not st.truncated):
            raise PositionError("a finished game has exactly one of winner and truncated")
    elif st.current < 0 or st.status[st.current] != ACTIVE or st.winner != NONE:
        raise PositionError(f"current must be an active seat while the game runs, got {brief(data['current'])}")
    if (st.phase == WINDOW) != (st.window[0] >= 0):
        raise PositionError("window must be given exactly when the phase is window")
    if st.phase != SETUP and (st.placed.any() or st.deploy_left.any()):
        raise PositionError("placed and deploy_left must be 0 after the deployment")
