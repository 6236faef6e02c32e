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
from typing import Any, cast

import numpy as np

from dw_env.engine import Game
from dw_env.errors import brief
from dw_env.geometry import Geometry, build_geometry
from dw_env.info import COUNTDOWN_TURNS, INITIAL_KNIGHTS, LIBERATION_TURNS, NUM_PLAYERS, PLAYER_NAMES, player_index
from dw_env.options import GameOptions
from dw_env.rules import layout as lay
from gamecore.errors import clip
from gamecore.loaders import parse_json, read_text

FORMAT = "domain-wheel-position"
VERSION = 1
#: the largest position file or text read (bytes); the largest canonical position takes a few tens of KB
MAX_POSITION_BYTES = 1 << 20
#: no map's cell or land coordinate is larger (the largest map reaches about 70)
_MAX_COORDINATE = 1000
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
    """Read and validate a position file (at most :data:`MAX_POSITION_BYTES`)."""
    text = read_text(path, MAX_POSITION_BYTES, PositionError)
    try:
        return loads(text)
    except PositionError as exc:
        raise PositionError(f"{path}: {exc}") from None


def loads(text: str) -> Game:
    """Parse and validate a position from JSON text."""
    return from_dict(parse_json(text, MAX_POSITION_BYTES, PositionError))


# ---- parsing helpers ------------------------------------------------------------------------
def _pair(value: Any, what: str) -> tuple[int, int]:
    if (
        not isinstance(value, list | tuple)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise PositionError(f"{what} must be a pair of integers like [3, -1], got {brief(value)}")
    if not all(-_MAX_COORDINATE <= v <= _MAX_COORDINATE for v in value):
        raise PositionError(f"{what} {brief(value)} is off every map; coordinates lie within ±{_MAX_COORDINATE}")
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
        raise PositionError(f"{what} must be a player name ({', '.join(PLAYER_NAMES)}), got {brief(value)}")
    if value not in PLAYER_NAMES:
        raise PositionError(f"{what}: unknown player {brief(value)}; allowed: {', '.join(PLAYER_NAMES)}")
    return player_index(value)


def _int(value: Any, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise PositionError(f"{what} must be an integer in {low}..{high}, got {brief(value)}")
    if not low <= value <= high:
        raise PositionError(f"{what}={brief(value)} is out of range; allowed: {low}..{high}")
    return value


def _per_player(data: Any, what: str) -> dict[str, Any]:
    if not _has_keys(data, PLAYER_NAMES):
        raise PositionError(f"{what} must map each of {', '.join(PLAYER_NAMES)} to a value, got {brief(data)}")
    return cast(dict[str, Any], data)


def _has_keys(data: Any, keys: tuple[str, ...]) -> bool:
    """Return True if ``data`` is a dict with exactly these keys."""
    return isinstance(data, dict) and len(data) == len(keys) and all(k in data for k in keys)


def _list(value: Any, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise PositionError(f"{what} must be a list, got {brief(value)}")
    return value


def from_dict(data: Any) -> Game:
    """Build a game from a position mapping, rejecting malformed or impossible positions."""
    if not isinstance(data, dict):
        raise PositionError(f"a position must be a JSON object, got {type(data).__name__}")
    for key in data:
        if key not in _KEYS:
            raise PositionError(f"unknown field {brief(key)}; allowed: {', '.join(_KEYS)}")
    missing = [k for k in _KEYS if k not in data]
    if missing:
        raise PositionError(f"missing field(s): {', '.join(missing)}")
    check_header(data, FORMAT, VERSION, PositionError)
    try:
        options = GameOptions.from_dict(data["options"])
    except (ValueError, TypeError) as exc:
        raise PositionError(clip(str(exc))) from None
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
        if not _has_keys(entry, ("king", "knights")):
            raise PositionError(
                f"pieces.{name} must be {{'king': [q, r], 'knights': [[q, r], ...]}}, got {brief(entry)}"
            )
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
            if not _has_keys(item, ("land", "player", "turns")):
                raise PositionError(f"{key}[{i}] must be {{'player', 'land', 'turns'}}, got {brief(item)}")
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
        if not _has_keys(countdown, ("holder", "turns_left")):
            raise PositionError(f"countdown must be null or {{'holder', 'turns_left'}}, got {brief(countdown)}")
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
        if not _has_keys(result, ("end_reason", "winners")):
            raise PositionError(f"result must be null or {{'end_reason', 'winners'}}, got {brief(result)}")
        if not isinstance(result["end_reason"], str) or result["end_reason"] not in reasons:
            raise PositionError(
                f"result.end_reason {brief(result['end_reason'])} unknown; allowed: {', '.join(reasons)}"
            )
        claimed = _winners(result["winners"])
        reason = lay.END_REASON_NAMES.index(result["end_reason"])
        scalars[lay.OVER] = 1
        scalars[lay.END_REASON] = reason
        if reason != lay.END_TRUNCATION:
            scalars[lay.WINNERS] = sum(1 << p for p in game.leaders())
        winners = [PLAYER_NAMES[p] for p in game.winners]
        if claimed != set(winners):
            raise PositionError(
                f"result.winners {brief(result['winners'])} do not match the scores {game.scores()} "
                f"(rule 9.5 gives {winners}; truncated games have none)"
            )
    expired = countdown is not None and scalars[lay.CD_LEFT] == 0
    if expired != (scalars[lay.END_REASON] == lay.END_COUNTDOWN):
        left = brief(countdown.get("turns_left")) if countdown is not None else None
        raise PositionError(
            "countdown.turns_left is 0 exactly when the countdown has ended the game "
            f"(result.end_reason 'countdown', rule 9.2); got turns_left {left} and result {brief(result)}"
        )
    _check_ending(game)
    return game


def check_header(data: dict[str, Any], fmt: str, version: int, error: type[ValueError]) -> None:
    """Raise ``error`` unless ``data["format"]`` is ``fmt`` and ``data["version"]`` the integer ``version``."""
    if not isinstance(data["format"], str) or data["format"] != fmt:
        raise error(f"format must be {fmt!r}, got {brief(data['format'])}")
    value = data["version"]
    if isinstance(value, bool) or not isinstance(value, int) or value != version:
        raise error(f"unsupported version {brief(value)}; this engine reads version {version} (an integer)")


def _winners(value: Any) -> set[str]:
    """Return ``result.winners`` as a set of player names; PositionError unless a list of distinct names."""
    items = _list(value, "result.winners")
    names = [_player(item, f"result.winners[{i}]") for i, item in enumerate(items[: NUM_PLAYERS + 1])]
    if len(items) > NUM_PLAYERS or len(set(names)) != len(names):
        raise PositionError(f"result.winners must list each winner once, got {brief(value)}")
    return {PLAYER_NAMES[p] for p in names}


def _check_ending(game: Game) -> None:
    """Reject end states that no game reaches: the state must fit the ending it claims (rules 9.1-9.4, A57).

    * The centre is owned only after its conquest (``centre``, rule 9.1) or a concretised
      conquest of it (``end_request``, rule 9.4); conquering it ends the game.
    * ``centre``: the game ends inside the conqueror's end of turn, so the player to act
      owns the centre and its king sits on the centre throne.
    * ``countdown``: it ends in the holder's own end of turn, so the holder is to act (9.2, A47).
    * ``end_request``: the requester is to act (A51); its king's land is its start land or
      unowned (9.4 step 3: lost); it had at least E points before the request, so its score
      plus every point it can have lost (that land, lands now held by a rival's seated king,
      lands a rival's knights could have liberated) reaches E (9.3, A54).
    * ``truncation``: it ends after Red's turn of round ``max_rounds`` (A57): Blue to act, round ``max_rounds``.
    """
    g = game.geometry
    lands, turn = game.lands, game.turn
    centre = int(g.centre_land)
    centre_owner = int(lands[lay.OWNER, centre])
    reason = game.end_reason
    name = PLAYER_NAMES[turn]
    if centre_owner != lay.NO_OWNER and reason not in ("centre", "end_request"):
        raise PositionError(
            f"owners: {PLAYER_NAMES[centre_owner]} owns the centre land [0, 0], which only a game ended by its "
            f"conquest (result 'centre', rule 9.1) or by an end request (rule 9.4) can show; got result "
            f"{'null' if reason == 'none' else repr(reason)}"
        )
    if reason == "centre" and (centre_owner != turn or game.king_cell(turn) != g.land_throne[centre]):
        raise PositionError(
            f"result 'centre': the game ends inside the conqueror's end of turn (rule 9.1), so {name}, the player "
            "to act, must own the centre land [0, 0] and have its king on the centre throne"
        )
    if reason == "countdown" and (game.countdown is None or game.countdown[0] != turn):
        raise PositionError(
            f"result 'countdown': the countdown ends in its holder's own end of turn (rule 9.2, A47), so the "
            f"holder must be the player to act ({name})"
        )
    if reason == "truncation" and (turn != 0 or game.round != game.options.max_rounds):
        raise PositionError(
            f"result 'truncation': the engine truncates after Red's turn of round max_rounds "
            f"({game.options.max_rounds}, A57), so blue is to act in round {game.options.max_rounds}; "
            f"got {name} in round {game.round}"
        )
    if reason == "end_request":
        _check_end_request(game)


def _check_end_request(game: Game) -> None:
    """Reject an ``end_request`` result that the requester (the player to act) could not have made (rule 9.3-9.4)."""
    g = game.geometry
    lands, board, p = game.lands, game.board, game.turn
    owners = lands[lay.OWNER]
    name = PLAYER_NAMES[p]
    king_land = int(g.cell_land[game.king_cell(p)])
    if not (king_land == g.start_lands[p] or owners[king_land] == lay.NO_OWNER):
        raise PositionError(
            f"result 'end_request': {name}, the requester (the player to act, A51), must have its king on its start "
            f"land or on the land it lost by requesting (rule 9.4 step 3), now unowned; its king is on land "
            f"{list(g.land_coord(king_land))}"
        )
    centre, centre_owner = int(g.centre_land), int(owners[g.centre_land])
    if centre_owner != lay.NO_OWNER and (centre_owner == p or game.king_cell(centre_owner) != g.land_throne[centre]):
        raise PositionError(
            f"result 'end_request': {PLAYER_NAMES[centre_owner]} owns the centre land [0, 0], which an end request "
            "gives only to a rival of the requester whose king sits on the centre throne (rule 9.4 steps 1-2)"
        )
    lost = 0 if g.is_start_land[king_land] else int(g.land_points[king_land])
    knights = np.zeros((NUM_PLAYERS, g.num_lands), dtype=np.int64)
    kings = np.zeros(g.num_lands, dtype=bool)
    for q in range(NUM_PLAYERS):
        king = game.king_cell(q)
        kings[g.cell_land[king]] = True
        np.add.at(knights[q], g.cell_land[board == lay.piece_code(q, lay.KNIGHT)], 1)
        seat = int(g.cell_land[king])
        if q != p and g.land_throne[seat] == king and owners[seat] == q and not g.is_start_land[seat]:
            lost += int(g.land_points[seat])  # a concretised conquest (rule 9.4 steps 1-2)
    others = knights.sum(axis=0)
    for land in range(g.num_lands):
        if owners[land] != lay.NO_OWNER or g.is_start_land[land] or kings[land]:
            continue
        # a concretised liberation needs N + 3 + every other knight inside (rule 7.1), N >= 0
        if any(knights[q, land] >= 3 + others[land] - knights[q, land] for q in range(NUM_PLAYERS) if q != p):
            lost += int(g.land_points[land])
    if game.score(p) + lost < g.end_request_points:
        raise PositionError(
            f"result 'end_request': {name}, the requester (the player to act, A51), has {game.score(p)} points and "
            f"can have lost at most {lost} by the request, but requesting needs {g.end_request_points} (rule 9.3)"
        )
