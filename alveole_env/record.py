"""Game records as JSON: the options, the players, the start position, the actions and the result; replay.

A record::

    {"format": "alveole-record-v1", "options": {"max_plies": 600},
     "players": ["heuristic", "random"], "start": null,
     "actions": [int, ...],
     "result": {"end_reason": "mover_connected", "winners": [0], "ply": 57}}

``start`` is null for the start position (spec 2.1) or a position mapping
(:mod:`alveole_env.position`). :func:`replay` plays the actions on a fresh engine and checks that the
result matches; any mismatch or malformed field is a :class:`~alveole_env.errors.PositionError`
naming it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from alveole_env import position
from alveole_env.engine import AlveoleGame
from alveole_env.errors import IllegalActionError, PositionError, brief
from alveole_env.options import AlveoleOptions
from gamecore.loaders import parse_json, read_text

#: the record format and version (the play server picks a game's replayer by it)
FORMAT = "alveole-record-v1"
#: the longest record text read (100,000 plies at most, under 7 characters each)
MAX_RECORD_BYTES = 4 << 20
KEYS: tuple[str, ...] = ("format", "options", "players", "start", "actions", "result")


def make_record(
    game: AlveoleGame,
    actions: Sequence[int],
    players: Sequence[str] = ("player 1", "player 2"),
    start: AlveoleGame | None = None,
) -> dict[str, Any]:
    """Return the record of ``actions`` played from ``start`` (default: the start position) ending at ``game``."""
    return {
        "format": FORMAT,
        "options": game.options.to_dict(),
        "players": [str(p) for p in players],
        "start": None if start is None else position.to_dict(start),
        "actions": [int(a) for a in actions],
        "result": result_of(game),
    }


def result_of(game: AlveoleGame) -> dict[str, Any]:
    """Return the result block of ``game``: end reason (None while playing), winners and plies played."""
    return {"end_reason": game.end_reason, "winners": game.winners, "ply": game.ply}


def replay(record: Mapping[str, Any]) -> AlveoleGame:
    """Return the game after replaying ``record``; PositionError naming a malformed field or a mismatch."""
    if not isinstance(record, Mapping):
        raise PositionError(f"a game record must be a mapping, got {type(record).__name__}")
    unknown = [k for k in record if k not in KEYS]
    missing = [k for k in KEYS if k not in record]
    if unknown or missing:
        what = f"unknown key {brief(unknown[0])}" if unknown else f"missing key {missing[0]!r}"
        raise PositionError(f"game record: {what}; keys: {', '.join(KEYS)}")
    if record["format"] != FORMAT:
        raise PositionError(f"game record format is {brief(record['format'])}; this reads {FORMAT!r}")
    try:
        options = AlveoleOptions.from_dict(record["options"])
    except (TypeError, ValueError) as error:
        raise PositionError(f"game record options: {error}") from None
    players = record["players"]
    if not isinstance(players, list) or len(players) != 2 or not all(isinstance(p, str) for p in players):
        raise PositionError(f"game record players must be a list of 2 names, got {brief(players)}")
    start = record["start"]
    game = AlveoleGame.new(options) if start is None else position.from_dict(start, options)
    actions = record["actions"]
    if not isinstance(actions, list):
        raise PositionError(f"game record actions must be a list of ints, got {type(actions).__name__}")
    for i, action in enumerate(actions):
        try:
            game.play(action)
        except IllegalActionError as error:
            raise PositionError(f"game record action {i} (ply {game.ply}): {error}") from None
    if record["result"] != result_of(game):
        raise PositionError(
            f"game record result {brief(record['result'])} does not match the replay's {brief(result_of(game))}"
        )
    return game


def dumps(record: Mapping[str, Any], **kwargs: Any) -> str:
    """Return a record as JSON text."""
    return json.dumps(record, **kwargs)


def loads(text: str | bytes) -> AlveoleGame:
    """Return the replayed game of a JSON record (at most :data:`MAX_RECORD_BYTES`); PositionError if it is not one.

    The text is measured (length, nesting depth) before it is parsed (:func:`gamecore.loaders.parse_json`).
    """
    return replay(parse_json(text, MAX_RECORD_BYTES, PositionError))


def load(path: str | Path) -> AlveoleGame:
    """Return the replayed game of a JSON record file (at most :data:`MAX_RECORD_BYTES`); errors name the file."""
    try:
        return loads(read_text(path, MAX_RECORD_BYTES, PositionError))
    except PositionError as error:
        raise PositionError(f"{path}: {error}") from None
