"""Positions as human-editable JSON, with exact round-trip and strict validation.

A position file looks like this (cells are axial ``[q, r]``, lands are land
coordinates ``[a, b]``; see ``docs/POSITIONS.md`` for every field)::

    {
      "format": "domain-wheel-position", "version": 1,
      "options": {"land_radius": 2, "map_radius": 4, "turns_to_conquer": 4,
                  "fast_knights": true, "king_may_be_alone": true, "max_rounds": 200},
      "turn": "blue", "round": 1, "ply": 0,
      "countdown": null,
      "owners": {"blue": [], "green": [], "red": []},
      "pieces": {"blue": {"king": [20, -8], "knights": [[19, -8], [19, -7]]}, ...},
      "holds": [], "liberations": [],
      "first_conquests": {"blue": [], "green": [], "red": []},
      "result": null
    }

``owners`` lists conquered lands only: start lands always belong to their player
(rule 2.1). ``holds``/``liberations`` are running counters (rules 6.4, 7.3) as
``{"player": "blue", "land": [a, b], "turns": 2}``. ``result`` is null while the
game runs, else ``{"end_reason": ..., "winners": [...]}``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from dw_env.engine import Game
from dw_env.geometry import Geometry, build_geometry
from dw_env.info import COUNTDOWN_TURNS, INITIAL_KNIGHTS, LIBERATION_TURNS, NUM_PLAYERS, PLAYER_NAMES, player_index
from dw_env.options import GameOptions
from dw_env.rules import layout as lay

FORMAT = "domain-wheel-position"
VERSION = 1
_KEYS = (
    "format",
    "version",
    "options",
    "turn",
    "round",
    "ply",
    "countdown",
    "owners",
    "pieces",
    "holds",
    "liberations",
    "first_conquests",
    "result",
)


class PositionError(ValueError):
    """A position file that is malformed or describes an impossible position."""


def to_dict(game: Game) -> dict[str, Any]:
    """Return the JSON-ready description of a game's position (canonical order)."""
    g = game.geometry
    lands = game.lands

    def land_list(mask: np.ndarray) -> list[list[int]]:
        return [list(g.land_coord(int(i))) for i in np.flatnonzero(mask)]

    pieces = {}
    for p, name in enumerate(PLAYER_NAMES):
        king, knights = game.pieces(p)
        pieces[name] = {"king": list(g.cell_coord(king)), "knights": [list(g.cell_coord(c)) for c in knights]}
    counters: dict[str, list[dict[str, Any]]] = {"holds": [], "liberations": []}
    for key, row in (("holds", lay.HOLD), ("liberations", lay.LIB)):
        for p, name in enumerate(PLAYER_NAMES):
            for land in np.flatnonzero(lands[row + p]):
                counters[key].append(
                    {"player": name, "land": list(g.land_coord(int(land))), "turns": int(lands[row + p, land])}
                )
    countdown = game.countdown
    result = None
    if game.over:
        result = {"end_reason": game.end_reason, "winners": [PLAYER_NAMES[p] for p in game.winners]}
    conquered = (lands[lay.OWNER][None, :] == np.arange(NUM_PLAYERS)[:, None]) & (g.is_start_land[None, :] == 0)
    return {
        "format": FORMAT,
        "version": VERSION,
        "options": game.options.to_dict(),
        "turn": PLAYER_NAMES[game.turn],
        "round": game.round,
        "ply": int(game.scalars[lay.PLY]),
        "countdown": None if countdown is None else {"holder": PLAYER_NAMES[countdown[0]], "turns_left": countdown[1]},
        "owners": {name: land_list(conquered[p]) for p, name in enumerate(PLAYER_NAMES)},
        "pieces": pieces,
        "holds": counters["holds"],
        "liberations": counters["liberations"],
        "first_conquests": {name: land_list(lands[lay.FIRST + p]) for p, name in enumerate(PLAYER_NAMES)},
        "result": result,
    }


def dumps(game: Game) -> str:
    """Return the position as JSON text, one top-level field per line."""
    data = to_dict(game)
    lines = [f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in data.items()]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def save(game: Game, path: str | Path) -> None:
    """Write the position to a JSON file."""
    Path(path).write_text(dumps(game))


def load(path: str | Path) -> Game:
    """Read and validate a position file."""
    text = Path(path).read_text()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PositionError(f"{path}: not valid JSON ({exc})") from None
    try:
        return from_dict(data)
    except PositionError as exc:
        raise PositionError(f"{path}: {exc}") from None


def loads(text: str) -> Game:
    """Parse and validate a position from JSON text."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PositionError(f"not valid JSON ({exc})") from None
    return from_dict(data)


# ---- parsing helpers ------------------------------------------------------------------------
def _pair(value: Any, what: str) -> tuple[int, int]:
    if (
        not isinstance(value, list | tuple)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise PositionError(f"{what} must be a pair of integers like [3, -1], got {value!r}")
    return int(value[0]), int(value[1])


def _cell(g: Geometry, value: Any, what: str) -> int:
    q, r = _pair(value, what)
    try:
        return g.cell_index(q, r)
    except ValueError as exc:
        raise PositionError(f"{what}: {exc}") from None


def _land(g: Geometry, value: Any, what: str) -> int:
    a, b = _pair(value, what)
    try:
        return g.land_index(a, b)
    except ValueError as exc:
        raise PositionError(f"{what}: {exc}") from None


def _player(value: Any, what: str) -> int:
    if not isinstance(value, str):
        raise PositionError(f"{what} must be a player name ({', '.join(PLAYER_NAMES)}), got {value!r}")
    try:
        return player_index(value)
    except ValueError as exc:
        raise PositionError(f"{what}: {exc}") from None


def _int(value: Any, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise PositionError(f"{what} must be an integer in {low}..{high}, got {value!r}")
    if not low <= value <= high:
        raise PositionError(f"{what}={value} is out of range; allowed: {low}..{high}")
    return value


def _per_player(data: Any, what: str) -> dict[str, Any]:
    if not isinstance(data, dict) or sorted(data) != sorted(PLAYER_NAMES):
        raise PositionError(f"{what} must map each of {', '.join(PLAYER_NAMES)} to a value, got {data!r}")
    return data


def _list(value: Any, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise PositionError(f"{what} must be a list, got {value!r}")
    return value


def from_dict(data: Any) -> Game:
    """Build a game from a position mapping, rejecting malformed or impossible positions."""
    if not isinstance(data, dict):
        raise PositionError(f"a position must be a JSON object, got {type(data).__name__}")
    for key in data:
        if key not in _KEYS:
            raise PositionError(f"unknown field {key!r}; allowed: {', '.join(_KEYS)}")
    missing = [k for k in _KEYS if k not in data]
    if missing:
        raise PositionError(f"missing field(s): {', '.join(missing)}")
    if data["format"] != FORMAT:
        raise PositionError(f"format must be {FORMAT!r}, got {data['format']!r}")
    if data["version"] != VERSION:
        raise PositionError(f"unsupported version {data['version']!r}; this engine reads version {VERSION}")
    try:
        options = GameOptions.from_dict(data["options"])
    except ValueError as exc:
        raise PositionError(str(exc)) from None
    g = build_geometry(options.land_radius, options.map_radius)
    board = np.zeros(g.num_cells, dtype=np.int8)
    lands = np.zeros((lay.LAND_ROWS, g.num_lands), dtype=np.int16)
    lands[lay.OWNER] = lay.NO_OWNER
    scalars = np.zeros(lay.NUM_SCALARS, dtype=np.int32)

    scalars[lay.TURN] = _player(data["turn"], "turn")
    scalars[lay.ROUND] = _int(data["round"], "round", 1, options.max_rounds)
    scalars[lay.PLY] = _int(data["ply"], "ply", 0, 2**31 - 1)

    # lands: start lands belong to their player (rule 2.1); conquered lands listed once
    for p in range(NUM_PLAYERS):
        lands[lay.OWNER, g.start_lands[p]] = p
    for name, items in _per_player(data["owners"], "owners").items():
        p = player_index(name)
        for item in _list(items, f"owners.{name}"):
            land = _land(g, item, f"owners.{name} land")
            if g.is_start_land[land]:
                raise PositionError(
                    f"owners.{name}: land {list(g.land_coord(land))} is a start land; start lands always belong "
                    "to their player (rule 2.2) and are not listed"
                )
            if lands[lay.OWNER, land] != lay.NO_OWNER:
                raise PositionError(f"owners: land {list(g.land_coord(land))} is listed more than once")
            lands[lay.OWNER, land] = p
    for name, items in _per_player(data["first_conquests"], "first_conquests").items():
        p = player_index(name)
        for item in _list(items, f"first_conquests.{name}"):
            land = _land(g, item, f"first_conquests.{name} land")
            if g.is_start_land[land]:
                raise PositionError(f"first_conquests.{name}: start land {list(g.land_coord(land))} is never conquered")
            if lands[lay.FIRST + p, land]:
                raise PositionError(f"first_conquests.{name}: land {list(g.land_coord(land))} is listed twice")
            lands[lay.FIRST + p, land] = 1

    # pieces: one piece a cell (4.1), no knight on a throne (4.3), one king each
    for name, entry in _per_player(data["pieces"], "pieces").items():
        p = player_index(name)
        if not isinstance(entry, dict) or sorted(entry) != ["king", "knights"]:
            raise PositionError(f"pieces.{name} must be {{'king': [q, r], 'knights': [[q, r], ...]}}, got {entry!r}")
        king = _cell(g, entry["king"], f"pieces.{name}.king")
        cells = [(king, lay.KING)] + [
            (_cell(g, k, f"pieces.{name}.knights"), lay.KNIGHT)
            for k in _list(entry["knights"], f"pieces.{name}.knights")
        ]
        for cell, kind in cells:
            if board[cell]:
                raise PositionError(f"two pieces on cell {list(g.cell_coord(cell))} (rule 4.1)")
            if kind == lay.KNIGHT and g.is_throne[cell]:
                raise PositionError(
                    f"pieces.{name}: a knight on the throne {list(g.cell_coord(cell))}; "
                    "only kings stand on thrones (rule 4.3)"
                )
            board[cell] = lay.piece_code(p, kind)
        scalars[lay.KING_CELL + p] = king
        expected = INITIAL_KNIGHTS + int(lands[lay.FIRST + p].sum())
        if len(cells) - 1 != expected:
            raise PositionError(
                f"pieces.{name}: {len(cells) - 1} knights, but a player has {INITIAL_KNIGHTS} plus one per first "
                f"conquest ({expected} for {name}; rules 2.3 and 6.7)"
            )

    for key, row, limit in (
        ("holds", lay.HOLD, options.turns_to_conquer - 1),
        ("liberations", lay.LIB, LIBERATION_TURNS - 1),
    ):
        for i, item in enumerate(_list(data[key], key)):
            if not isinstance(item, dict) or sorted(item) != ["land", "player", "turns"]:
                raise PositionError(f"{key}[{i}] must be {{'player', 'land', 'turns'}}, got {item!r}")
            p = _player(item["player"], f"{key}[{i}].player")
            land = _land(g, item["land"], f"{key}[{i}].land")
            turns = _int(item["turns"], f"{key}[{i}].turns", 1, limit)
            owner = int(lands[lay.OWNER, land])
            if g.is_start_land[land]:
                raise PositionError(f"{key}[{i}]: start lands are never conquered or liberated (rule 2.2)")
            # the king need not be on the throne: an expelled king's counter waits for its next
            # end of turn to be re-evaluated (rule 5.3)
            if key == "holds" and owner == p:
                raise PositionError(
                    f"holds[{i}]: {item['player']} already owns land {list(g.land_coord(land))}; a conquest "
                    "counter is only kept on a land the player does not own (rule 6.1)"
                )
            if key == "holds" and lands[row + p].any() and not lands[row + p, land]:
                raise PositionError(
                    f"holds[{i}]: {item['player']} already has a conquest counter on another land; a player "
                    "counts at most one conquest, on its king's throne (rules 3.3, 6.1)"
                )
            if key == "liberations" and owner in (lay.NO_OWNER, p):
                raise PositionError(f"liberations[{i}]: only a land owned by a rival can be liberated (rule 7.1)")
            if lands[row + p, land]:
                raise PositionError(f"{key}[{i}]: counter listed twice")
            lands[row + p, land] = turns

    countdown = data["countdown"]
    scalars[lay.CD_HOLDER] = -1
    if countdown is not None:
        if not isinstance(countdown, dict) or sorted(countdown) != ["holder", "turns_left"]:
            raise PositionError(f"countdown must be null or {{'holder', 'turns_left'}}, got {countdown!r}")
        holder = _player(countdown["holder"], "countdown.holder")
        if scalars[lay.KING_CELL + holder] != g.land_throne[g.centre_land]:
            raise PositionError("countdown: the holder's king must sit on the centre throne (rule 9.2)")
        scalars[lay.CD_HOLDER] = holder
        # 0 turns left only once the countdown has ended the game (checked with the result below)
        scalars[lay.CD_LEFT] = _int(countdown["turns_left"], "countdown.turns_left", 0, COUNTDOWN_TURNS)

    game = Game(options, board, lands, scalars)
    result = data["result"]
    if result is not None:
        reasons = lay.END_REASON_NAMES[1:]
        if not isinstance(result, dict) or sorted(result) != ["end_reason", "winners"]:
            raise PositionError(f"result must be null or {{'end_reason', 'winners'}}, got {result!r}")
        if result["end_reason"] not in reasons:
            raise PositionError(f"result.end_reason {result['end_reason']!r} unknown; allowed: {', '.join(reasons)}")
        reason = lay.END_REASON_NAMES.index(result["end_reason"])
        scalars[lay.OVER] = 1
        scalars[lay.END_REASON] = reason
        if reason != lay.END_TRUNCATION:
            scalars[lay.WINNERS] = sum(1 << p for p in game.leaders())
        winners = [PLAYER_NAMES[p] for p in game.winners]
        if sorted(_list(result["winners"], "result.winners")) != sorted(winners):
            raise PositionError(
                f"result.winners {result['winners']!r} do not match the scores {game.scores()} "
                f"(rule 9.5 gives {winners}; truncated games have none)"
            )
    expired = countdown is not None and scalars[lay.CD_LEFT] == 0
    if expired != (scalars[lay.END_REASON] == lay.END_COUNTDOWN):
        raise PositionError(
            "countdown.turns_left is 0 exactly when the countdown has ended the game "
            f"(result.end_reason 'countdown', rule 9.2); got turns_left {countdown and countdown['turns_left']!r} "
            f"and result {result!r}"
        )
    return game
