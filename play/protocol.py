"""The websocket protocol's client messages: parsing and validation, before anything touches a room.

Every frame is one JSON object with a ``type`` (docs/PLAY.md, "Websocket protocol"). :func:`parse`
returns a :class:`Message` or raises :class:`play.games.InputError` naming what was wrong and what is
allowed; it checks size, JSON, the type and the generic fields (``id``, ``room``, ``token``, ``seat``,
``ply``, ``speed``, ``version``, ``move_id``). Game-specific fields (cells, actions) are checked by the game's adapter.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from gamecore.loaders import parse_json
from play.games import JSON, InputError

#: the largest text frame accepted, in bytes (UTF-8)
MAX_MESSAGE_BYTES = 4096
#: the longest seat name, in characters
NAME_LENGTH = 24
#: the longest client move id (a move resent with the same id is applied at most once)
MOVE_ID_LENGTH = 64
#: AI speed name -> seconds between AI moves (manual 11.9: normal, fast, instant)
AI_SPEEDS: dict[str, float] = {"normal": 0.8, "fast": 0.25, "instant": 0.0}
#: a room's turn clock: seconds per turn, or none (chosen at creation)
CLOCKS: tuple[int, ...] = (60, 3600, 86400)
#: game inputs with their own message type (Domain Wheel's); other games use {"type": "input", "action": ...}
INPUT_TYPES: dict[str, str] = {"move": "move", "pass": "pass", "end_request": "end_request"}
#: message type -> (required fields, optional fields); ``id`` is allowed on every message
FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "hello": (("room",), ("token", "seat", "version", "host")),
    "select": (("cell",), ()),
    "move": (("from", "to"), ("ply", "move_id")),
    "pass": ((), ("ply", "move_id")),
    "end_request": ((), ("ply", "move_id")),
    "input": (("action",), ("from", "to", "ply", "cell", "move_id", "count", "cards")),
    "set_speed": (("speed",), ()),
    "chat": (("text",), ()),
    "sync": ((), ()),
    "ping": ((), ()),
    # seats changing hands (play/seat_changes.py)
    "leave": ((), ()),
    "replace_seat": (("seat", "by"), ("strategy", "name")),
    "rematch": ((), ()),
}
MESSAGE_TYPES: tuple[str, ...] = tuple(FIELDS)


@dataclass
class Message:
    """One validated client message: its type, its fields (``type`` and ``id`` removed) and its id."""

    type: str
    fields: JSON = field(default_factory=dict)
    id: str | int | None = None

    @property
    def is_input(self) -> bool:
        return self.type in INPUT_TYPES or self.type == "input"

    def game_input(self) -> JSON:
        """Return the game input of an input message: ``{"action": ..., ...}``."""
        fields = {k: v for k, v in self.fields.items() if k != "move_id"}
        if self.type == "input":
            return fields
        return {"action": INPUT_TYPES[self.type], **fields}


def brief(value: Any, limit: int = 60) -> str:
    """Return a short JSON rendering of a received value for an error message."""
    try:
        text = json.dumps(value)
    except (TypeError, ValueError):
        text = type(value).__name__
    return text if len(text) <= limit else text[: limit - 3] + "..."


def parse(text: str | bytes) -> Message:
    """Return the validated message in one websocket frame; InputError otherwise (nothing else changes)."""
    size = len(text) if isinstance(text, bytes) else len(text.encode("utf-8", errors="replace"))
    if size > MAX_MESSAGE_BYTES:
        raise InputError("too_large", f"message of {size} bytes exceeds the limit of {MAX_MESSAGE_BYTES} bytes")
    return validate(decode_json(text, MAX_MESSAGE_BYTES, "the message"))


class _BadJson(ValueError):
    """A body or frame that :func:`gamecore.loaders.parse_json` refuses."""


def decode_json(data: str | bytes, limit: int, what: str) -> Any:
    """Return the JSON value of a body or frame; InputError ``bad_json`` if too deep, not JSON or not finite."""
    try:
        return parse_json(data, limit, _BadJson, finite=True)
    except _BadJson as exc:
        raise InputError("bad_json", f"{what} is not valid JSON: {exc}") from None


def validate(data: Any) -> Message:
    """Return the message for a decoded JSON value; InputError naming the first problem."""
    if not isinstance(data, dict):
        raise InputError("bad_json", f"a message must be a JSON object with a 'type', got {brief(data)}")
    msg_id = data.get("id")
    if msg_id is not None and (isinstance(msg_id, bool) or not isinstance(msg_id, str | int) or len(str(msg_id)) > 64):
        raise InputError(
            "bad_message", f"field 'id' must be a string or integer of at most 64 characters, got {brief(msg_id)}"
        )
    try:
        return _validate_fields(data, msg_id)
    except InputError as exc:
        exc.re = msg_id
        raise


def _validate_fields(data: JSON, msg_id: str | int | None) -> Message:
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in FIELDS:
        raise InputError("unknown_type", f"unknown message type {brief(kind)}", allowed=list(MESSAGE_TYPES))
    required, optional = FIELDS[kind]
    fields = {k: v for k, v in data.items() if k not in ("type", "id")}
    for key in fields:
        if key not in required and key not in optional:
            raise InputError(
                "bad_message",
                f"unknown field {brief(key)} in a {kind!r} message",
                allowed=list(required + optional + ("type", "id")),
            )
    for key in required:
        if key not in fields:
            raise InputError("bad_message", f"a {kind!r} message needs the field {key!r}", allowed=list(required))
    _check_generic(kind, fields)
    return Message(kind, fields, msg_id)


def _check_generic(kind: str, fields: JSON) -> None:
    for key in ("room", "token", "host"):
        if key in fields and (not isinstance(fields[key], str) or not 0 < len(fields[key]) <= 128):
            raise InputError("bad_message", f"field {key!r} must be a non-empty string, got {brief(fields[key])}")
    if "seat" in fields and (isinstance(fields["seat"], bool) or not isinstance(fields["seat"], int)):
        raise InputError("bad_message", f"field 'seat' must be an integer, got {brief(fields['seat'])}")
    for key in ("ply", "version"):
        if key in fields:
            value = fields[key]
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**53:
                raise InputError("bad_message", f"field {key!r} must be a non-negative integer, got {brief(value)}")
    move_id = fields.get("move_id")
    if "move_id" in fields and (
        not isinstance(move_id, str) or not 0 < len(move_id) <= MOVE_ID_LENGTH or not move_id.isprintable()
    ):
        raise InputError(
            "bad_message",
            f"field 'move_id' must be 1-{MOVE_ID_LENGTH} printable characters, got {brief(move_id)}",
        )
    if kind == "set_speed":
        check_ai_speed(fields["speed"], "AI speed")
    if kind == "input" and not isinstance(fields["action"], str):
        raise InputError("bad_message", f"field 'action' must be a string, got {brief(fields['action'])}")


def check_ai_speed(value: Any, label: str) -> str:
    """Return ``value`` if it names one of :data:`AI_SPEEDS`; else an InputError naming them (any JSON value,
    lists and objects too, is refused rather than raising)."""
    if not isinstance(value, str) or value not in AI_SPEEDS:
        raise InputError("bad_message", f"unknown {label} {brief(value)}", allowed=list(AI_SPEEDS))
    return value


def check_clock(value: Any) -> int | None:
    """Return a room's seconds per turn (None for ``"none"`` or null); InputError naming the choices otherwise."""
    if value is None or value == "none":
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value not in CLOCKS:
        raise InputError("bad_message", f"unknown clock {brief(value)}: seconds per turn", ["none", *CLOCKS])
    return int(value)


def check_name(value: Any, default: str, where: str) -> str:
    """Return a seat's name (stripped; ``default`` when None); InputError unless 1-24 printable characters."""
    if value is None:
        return default
    if not isinstance(value, str) or not 0 < len(value.strip()) <= NAME_LENGTH or not value.isprintable():
        raise InputError(
            "bad_message", f"{where}: a name must be 1-{NAME_LENGTH} printable characters, got {brief(value)}"
        )
    return value.strip()


def error(exc: InputError, re: str | int | None = None) -> JSON:
    """Return the ``error`` message for a refused request."""
    out: JSON = {"type": "error", **exc.to_json()}
    if re is not None:
        out["re"] = re
    return out
