"""Game records: the options, the players, every action and the result, as JSON; replay checks each action.

Format (``format: "conquer-record-v1"``)::

    {"format": "conquer-record-v1", "options": {...}, "players": ["random", "heuristic"],
     "start": null, "actions": [40, 41, 81, ...], "result": {"end_reason": "two_passes", "winners": [0],
     "scores": {"dots": [3, 1], "territory": [7, 2]}, "plies": 57}}

Actions are the engine's ints (``y * W + x``, ``W * H`` = pass). ``start`` is null for a game from the
starting position, else the JSON position it started from (``conquer_env.position``). ``result`` is null
while the game runs. :func:`replay` rebuilds the game, refusing the first illegal action by its index,
and checks the stored result against the replayed one.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from conquer_env.engine import ConquerGame
from conquer_env.errors import IllegalActionError, PositionError, brief
from conquer_env.options import ConquerOptions
from conquer_env.position import from_dict, to_dict
from gamecore.loaders import parse_json, read_text
from gamecore.records import check_fields, check_format, write_atomically

FORMAT = "conquer-record-v1"
#: the longest record text read (a 64 x 64 game lasts at most 8,192 actions, under 6 characters each)
MAX_RECORD_BYTES = 1 << 20
_KEYS = ("format", "options", "players", "start", "actions", "result")


def result_of(game: ConquerGame) -> dict[str, Any] | None:
    """Return the ``result`` entry of a finished game (both methods' scores), or None while it runs."""
    if not game.over:
        return None
    return {
        "end_reason": game.end_reason,
        "winners": game.winners,
        "scores": {"dots": game.dots_scores(), "territory": game.territory_scores()},
        "plies": game.ply,
    }


def make_record(
    options: ConquerOptions,
    players: Sequence[str],
    actions: Sequence[int],
    game: ConquerGame,
    start: ConquerGame | None = None,
) -> dict[str, Any]:
    """Return the JSON-ready record of a game played from ``start`` (None: the start of ``options``) to ``game``."""
    return {
        "format": FORMAT,
        "options": options.to_dict(),
        "players": list(players),
        "start": None if start is None else to_dict(start),
        "actions": [int(a) for a in actions],
        "result": result_of(game),
    }


def replay(data: Any, upto: int | None = None) -> ConquerGame:
    """Return the game after the record's actions (the first ``upto`` of them); PositionError if malformed."""
    if not isinstance(data, Mapping):
        raise PositionError(f"a record must be a mapping, got {type(data).__name__}")
    check_fields(data, (), _KEYS, PositionError, unknown="unknown record key")
    check_format(data.get("format"), FORMAT, PositionError, "record format")
    try:
        options = ConquerOptions.from_dict(data.get("options", {}))
    except ValueError as err:
        raise PositionError(f"record options: {err}") from err
    players = data.get("players", [])
    if not isinstance(players, list) or len(players) != 2 or not all(isinstance(p, str) for p in players):
        raise PositionError(f"record players must be a list of 2 names, got {brief(players)}")
    actions = data.get("actions")
    if not isinstance(actions, list):
        raise PositionError(f"record actions must be a list of integers, got {brief(actions)}")
    if upto is not None and not 0 <= upto <= len(actions):
        raise PositionError(f"upto={upto} is out of range; allowed: 0..{len(actions)}")
    start = data.get("start")
    if start is None:
        game = ConquerGame.new(options)
    else:
        game = from_dict(start)
        if game.options != options:
            raise PositionError(f"record start position's options {game.options} differ from the record's {options}")
    for i, action in enumerate(actions[:upto]):
        try:
            game.play(action)
        except IllegalActionError as err:
            raise PositionError(f"record action {i} ({brief(action)}) is illegal: {err}") from err
    if upto is None:
        stored = data.get("result")
        if stored is not None and stored != result_of(game):
            raise PositionError(f"record result {brief(stored)} does not match the replayed game {result_of(game)}")
    return game


def dumps(record: Mapping[str, Any]) -> str:
    """Return a record as a JSON string."""
    return json.dumps(record)


def save(record: Mapping[str, Any], path: str | Path) -> None:
    """Write a record as JSON, whole or not at all."""
    write_atomically(path, dumps(record) + "\n")


def load(path: str | Path) -> dict[str, Any]:
    """Read a record file (at most :data:`MAX_RECORD_BYTES`, checked by replaying it); PositionError naming the file."""
    try:
        data = parse_json(read_text(path, MAX_RECORD_BYTES, PositionError), MAX_RECORD_BYTES, PositionError)
        replay(data)
    except PositionError as err:
        raise PositionError(f"{path}: {err}") from None
    return data  # type: ignore[no-any-return]


def loads(text: str | bytes) -> ConquerGame:
    """Return the replayed game of a JSON record (at most :data:`MAX_RECORD_BYTES`); PositionError if not one."""
    return replay(parse_json(text, MAX_RECORD_BYTES, PositionError))
