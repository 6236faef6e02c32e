"""Game records, ``frontera-record/1``: the map reference, players, seed, options and every action and event.

A record replays exactly (the dice come from the seeded PRNG), so a finished game, a bug report or a golden
transcript is one small file::

    {"format": "frontera-record/1", "map": {...}, "players": 3, "seed": 7,
     "options": {"fog": false, "cards": true, "max_turns": 0},
     "actions": [{"type": "Place", "seat": 1, "territory": 4, "count": 15}, {"type": "Ready", "seat": 1},
                 {"type": "abandon", "seat": 2}, {"type": "timeout"}, ...],
     "result": {"winner": 0, "truncated": false}}

Actions use their class name and fields (``frontera_env.actions``); the engine events are ``abandon``,
``timeout`` and ``deployment_timeout``. ``result`` is optional and checked against the replay.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

from frontera_env.actions import ACTION_TYPES, Action, Trade
from frontera_env.board import FronteraMap
from frontera_env.engine import Game
from frontera_env.position import map_ref
from frontera_env.prng import MASK64
from frontera_env.rules_errors import IllegalAction, RecordError, brief
from gamecore.loaders import load_json, parse_json
from gamecore.records import check_format

FORMAT = "frontera-record/1"
#: the largest record read: 250 turns per player for 6 players at ~60 actions a turn is about 6 MB
MAX_RECORD_BYTES = 32 << 20
_EVENTS = ("abandon", "timeout", "deployment_timeout")


def action_to_json(action: Action) -> dict[str, Any]:
    """Return ``action`` as a JSON object: its type name and its fields."""
    out: dict[str, Any] = {"type": type(action).__name__}
    for f in dataclasses.fields(action):
        value = getattr(action, f.name)
        out[f.name] = list(value) if isinstance(value, tuple) else value
    return out


def action_from_json(data: Any) -> Action | tuple[str, int | None]:
    """Return the action (or the engine event as (name, seat)) a JSON object names; RecordError if malformed."""
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise RecordError(f"an action is an object with a type, got {brief(data)}")
    kind = data["type"]
    if kind in _EVENTS:
        expected = {"type", "seat"} if kind == "abandon" else {"type"}
        if set(data) != expected:
            raise RecordError(f"{kind} takes exactly the keys {sorted(expected)}, got {brief(data)}")
        return kind, data.get("seat")
    cls = ACTION_TYPES.get(kind)
    if cls is None:
        raise RecordError(f"unknown action type {brief(kind)}; allowed: {', '.join([*ACTION_TYPES, *_EVENTS])}")
    names = [f.name for f in dataclasses.fields(cls)]
    if set(data) != {"type", *names}:
        raise RecordError(f"{kind} takes exactly the keys {['type', *names]}, got {brief(sorted(data))}")
    values = {k: data[k] for k in names}
    if cls is Trade:
        if not isinstance(values["cards"], list):
            raise RecordError(f"Trade cards must be a list of 3 card ids, got {brief(values['cards'])}")
        values["cards"] = tuple(values["cards"])
    return cls(**values)


@dataclasses.dataclass
class Recorder:
    """A game that writes down everything done to it, so it can be saved as a record."""

    game: Game
    seed: int
    actions: list[dict[str, Any]] = dataclasses.field(default_factory=list)

    @classmethod
    def new(cls, board: FronteraMap, players: int, seed: int, **options: Any) -> Recorder:
        """Return a recorder around ``Game.new(board, players, seed, **options)``."""
        return cls(Game.new(board, players, seed, **options), seed)

    def apply(self, action: Action) -> None:
        """Play ``action`` and record it once it was accepted."""
        self.game.apply(action)
        self.actions.append(action_to_json(action))

    def abandon(self, seat: int) -> None:
        """Remove ``seat`` (R-11.1) and record the event."""
        self.game.abandon(seat)
        self.actions.append({"type": "abandon", "seat": seat})

    def timeout(self) -> None:
        """Expire the current turn's clock (R-12.2) and record the event."""
        self.game.timeout()
        self.actions.append({"type": "timeout"})

    def deployment_timeout(self) -> None:
        """Expire the deployment's clock (R-12.3) and record the event."""
        self.game.deployment_timeout()
        self.actions.append({"type": "deployment_timeout"})

    def to_dict(self) -> dict[str, Any]:
        """Return the record as a JSON object."""
        ctx = self.game.ctx
        return {
            "format": FORMAT,
            "map": map_ref(ctx.map),
            "players": self.game.state.players,
            "seed": self.seed,
            "options": {"fog": ctx.fog, "cards": ctx.cards, "max_turns": ctx.max_turns},
            "actions": self.actions,
            "result": {"winner": self.game.winner, "truncated": bool(self.game.state.truncated)},
        }

    def dumps(self) -> str:
        """Return the record as JSON text, one action per line."""
        data = self.to_dict()
        head = {k: v for k, v in data.items() if k not in ("actions", "result")}
        lines = [json.dumps(a) for a in data["actions"]]
        body = json.dumps(head)[:-1] + ',\n "actions": [\n  ' + ",\n  ".join(lines) + "\n ],\n"
        return body + f' "result": {json.dumps(data["result"])}}}\n'


def replay(data: Any, board: FronteraMap) -> Game:
    """Return the game a record object replays to on ``board``; RecordError naming the first bad entry."""
    if not isinstance(data, dict):
        raise RecordError(f"a record is a JSON object, got {brief(data)}")
    allowed = {"format", "map", "players", "seed", "options", "actions", "result"}
    if set(data) - allowed or {"format", "map", "players", "seed", "options", "actions"} - set(data):
        raise RecordError(
            f"a {FORMAT} record has the keys {sorted(allowed)} (result optional), got {brief(sorted(data))}"
        )
    check_format(data["format"], FORMAT, RecordError)
    if data["map"] != map_ref(board):
        raise RecordError(f"map {brief(data['map'], 200)} is not the map given")
    seed, opts = data["seed"], data["options"]
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MASK64:
        raise RecordError(f"seed must be an integer in 0..2**64-1, got {brief(seed)}")
    if not isinstance(opts, dict) or set(opts) != {"fog", "cards", "max_turns"}:
        raise RecordError(f"options must be an object with fog, cards and max_turns, got {brief(opts)}")
    for key in ("fog", "cards"):
        if not isinstance(opts[key], bool):
            raise RecordError(f"options.{key} must be true or false, got {brief(opts[key])}")
    if not isinstance(data["actions"], list):
        raise RecordError(f"actions must be a list, got {brief(data['actions'])}")
    try:
        game = Game.new(board, data["players"], seed, **opts)
    except (TypeError, ValueError) as exc:
        raise RecordError(f"cannot start the game: {exc}") from None
    for i, entry in enumerate(data["actions"]):
        try:
            act = action_from_json(entry)
            if isinstance(act, tuple):
                kind, seat = act
                if kind == "abandon":
                    game.abandon(seat)  # type: ignore[arg-type]  # the engine checks the seat
                else:
                    getattr(game, kind)()
            else:
                game.apply(act)
        except (RecordError, IllegalAction, TypeError) as exc:
            raise RecordError(f"action {i} {brief(entry)}: {exc}") from None
    result = data.get("result")
    if result is not None and result != {"winner": game.winner, "truncated": bool(game.state.truncated)}:
        raise RecordError(f"result {brief(result)} does not match the replay (winner {game.winner})")
    return game


def loads(text: str, board: FronteraMap) -> Game:
    """Replay a record text (measured before parsing, gamecore.loaders)."""
    return replay(parse_json(text, MAX_RECORD_BYTES, RecordError), board)


def load(path: str | Path, board: FronteraMap) -> Game:
    """Replay a record file (bounded, gamecore.loaders)."""
    return replay(load_json(path, MAX_RECORD_BYTES, RecordError), board)
