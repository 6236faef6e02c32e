"""'Tus partidas' (issue 44, item 5): what ``POST /api/my-games`` answers about the seats a browser remembers.

The page sends the seats it holds, ``{"seats": [{"room", "seat", "token"}, ...]}`` (at most :data:`MAX_SEATS`);
each is answered in order, either with that game as its seat sees it (the opponents, whose turn it is, the
turn's deadline, the result) or with an error code alone: ``no_such_room`` (never created, expired, or not
loaded) or ``bad_token`` (the token does not open that seat). A wrong token learns nothing about a room.

Every entry takes the same path whatever it names: its token is hashed and compared with
:func:`hmac.compare_digest` against the seat's stored hash, or against a hash no token has when the room or
seat does not exist. A room that is no longer in memory but finished in the database (a restart, or expiry
after its end) is answered from the database and its facts kept in a small cache (a finished game never
changes); its result costs a replay of its moves, done once, off the event loop, for the first token that
opens one of its seats (so guessed tokens cannot make the server replay games).
"""

from __future__ import annotations

import asyncio
import hmac
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from gamecore.errors import brief
from play import games
from play.games import JSON, InputError
from play.room import Room
from play.rooms import RoomManager, replay_room
from play.storage import ClosedRoom, token_hash

#: the most seats one request may name (the page remembers at most as many: my_seats.js MAX_SEATS)
MAX_SEATS = 50
ROOM_ID_LENGTH = 64
TOKEN_LENGTH = 128
#: the most seats a game may have (a seat index at or beyond it is refused as malformed)
SEAT_LIMIT = 16
#: finished rooms whose facts are kept (each costs a replay to compute)
CLOSED_CACHE = 256
_FIELDS = ("room", "seat", "token")
#: the hash a missing room or seat is compared with: no token hashes to it, and comparing costs the same
_NO_SEAT = "0" * 64


@dataclass(frozen=True)
class SeatQuery:
    """One remembered seat: its room, its index and the token that should open it."""

    room: str
    seat: int
    token: str


def parse_request(body: Any) -> list[SeatQuery]:
    """Return the seats a ``POST /api/my-games`` body names; InputError ``bad_message`` naming what is wrong."""
    if not isinstance(body, dict):
        raise InputError("bad_message", f'the body must be a JSON object {{"seats": [...]}}, got {brief(body)}')
    unknown = [k for k in body if k != "seats"]
    if unknown:
        raise InputError("bad_message", f"unknown field {brief(unknown[0])}", allowed=["seats"])
    seats = body.get("seats")
    if not isinstance(seats, list) or len(seats) > MAX_SEATS:
        raise InputError(
            "bad_message", f"seats must be a list of at most {MAX_SEATS} seat objects, got {_describe(seats)}"
        )
    return [_query(entry, f"seats[{i}]") for i, entry in enumerate(seats)]


def _describe(value: Any) -> str:
    return f"a list of {len(value)}" if isinstance(value, list) else brief(value)


def _query(entry: Any, where: str) -> SeatQuery:
    if not isinstance(entry, dict):
        raise InputError("bad_message", f"{where} must be an object {{room, seat, token}}, got {brief(entry)}")
    for key in entry:
        if key not in _FIELDS:
            raise InputError("bad_message", f"{where}: unknown field {brief(key)}", allowed=list(_FIELDS))
    room, seat, token = entry.get("room"), entry.get("seat"), entry.get("token")
    if not isinstance(room, str) or not 0 < len(room) <= ROOM_ID_LENGTH or not room.isprintable():
        allowed = f"a room id of 1-{ROOM_ID_LENGTH} printable characters"
        raise InputError("bad_message", f"{where}: room must be {allowed}, got {brief(room)}")
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < SEAT_LIMIT:
        raise InputError("bad_message", f"{where}: seat must be an integer 0-{SEAT_LIMIT - 1}, got {brief(seat)}")
    if not isinstance(token, str) or not 0 < len(token) <= TOKEN_LENGTH:
        allowed = f"a string of 1-{TOKEN_LENGTH} characters"
        raise InputError("bad_message", f"{where}: token must be {allowed}, got {brief(token)}")
    return SeatQuery(room, seat, token)


class MyGames:
    """Answers ``POST /api/my-games`` from the manager's live rooms, else from its database's finished rooms."""

    def __init__(self, manager: RoomManager) -> None:
        self.manager = manager
        self._closed: OrderedDict[str, JSON | None] = OrderedDict()

    async def answer(self, queries: list[SeatQuery]) -> JSON:
        """Return ``{"games": [...]}``: one entry per query, in order (a game, or ``{"room", "seat", "error"}``)."""
        out = []
        for query in queries:
            room = self.manager.rooms.get(query.room)
            facts = room_facts(room) if room is not None else await self._closed_facts(query.room)
            entry = seat_entry(facts, query)
            if facts is not None and facts["winner"] is None and "error" not in entry:
                # a finished stored room's result costs a replay: paid once, and only for a token that opens a seat
                facts["winner"] = await asyncio.to_thread(self._replayed_winners, query.room)
                entry = seat_entry(facts, query)
            out.append(entry)
        return {"games": out}

    async def _closed_facts(self, room_id: str) -> JSON | None:
        """Return a finished stored room's facts (None: no such room, or it expired unfinished)."""
        if room_id in self._closed:
            self._closed.move_to_end(room_id)
            return self._closed[room_id]
        facts = await asyncio.to_thread(self._read_closed, room_id)
        self._closed[room_id] = facts
        while len(self._closed) > CLOSED_CACHE:
            self._closed.popitem(last=False)
        return facts

    def _read_closed(self, room_id: str) -> JSON | None:
        try:
            closed = self.manager.store.closed_room(room_id)
            if closed is None or closed.status != "over":
                return None
            return closed_facts(closed)
        except Exception:  # noqa: BLE001 - a room this server cannot read any more is, for its players, gone
            return None

    def _replayed_winners(self, room_id: str) -> list[int]:
        try:
            closed = self.manager.store.closed_room(room_id)
            return [] if closed is None else replayed_winners(closed)
        except Exception:  # noqa: BLE001 - a game that no longer replays shows no winner rather than failing
            return []


def room_facts(room: Room) -> JSON:
    """Return what every seat of a live room may learn about it (token hashes kept for the check only)."""
    session = room.session
    return {
        "room": room.id,
        "game": room.adapter.game_id,
        "title": room.adapter.title,
        "status": room.status(),
        "turn": session.turn,
        # every seat that may act now: several at once in a simultaneous phase (Frontera's deployment)
        "acting": list(session.acting()),
        "deadline": None if session.over else room.deadline,
        "clock": room.clock,
        "over": session.over,
        "winner": session.winners,
        "updated": room.updated,
        "ply": session.ply,
        "version": room.version,
        "seats": [{"seat": s.index, "name": s.name, "type": s.type, "presence": s.presence} for s in room.seats],
        "hashes": [s.token_hash for s in room.seats],
    }


def closed_facts(closed: ClosedRoom) -> JSON:
    """Return a finished stored room's facts; ``winner`` None until :func:`replayed_winners` is asked for it."""
    stored = closed.room
    adapter = games.get(stored.game)
    return {
        "room": stored.id,
        "game": adapter.game_id,
        "title": adapter.title,
        "status": "over",
        "turn": None,
        "acting": [],
        "deadline": None,
        "clock": stored.clock,
        "over": True,
        "winner": None,
        "updated": closed.ended if closed.ended is not None else stored.created,
        "ply": len(stored.moves),
        "version": stored.version,
        # nobody is connected to a room that is not loaded: its humans are away, its AIs (as always) here
        "seats": [
            {"seat": i, "name": s.get("name"), "type": s.get("type"), "presence": _stored_presence(s)}
            for i, s in enumerate(stored.seats)
        ],
        "hashes": [s.get("token_hash") for s in stored.seats],
    }


def replayed_winners(closed: ClosedRoom) -> list[int]:
    """Return the winning seats of a finished stored room, replaying its moves through its game."""
    stored = closed.room
    players = [f"human:{s.get('name')}" for s in stored.seats]
    _, session = replay_room(games.get(stored.game), stored, players)
    return session.winners


def seat_entry(facts: JSON | None, query: SeatQuery) -> JSON:
    """Return one seat's answer: the game as that seat sees it, or the error alone (the same work either way)."""
    hashes = facts["hashes"] if facts is not None else []
    stored = hashes[query.seat] if query.seat < len(hashes) else None
    opens = hmac.compare_digest((stored or _NO_SEAT).encode(), token_hash(query.token).encode())
    if facts is None:
        return {"room": query.room, "seat": query.seat, "error": "no_such_room"}
    if not opens or stored is None:
        return {"room": query.room, "seat": query.seat, "error": "bad_token"}
    seats, turn = facts["seats"], facts["turn"]
    entry = {k: v for k, v in facts.items() if k not in ("seats", "hashes", "winner")}
    entry.update(
        seat=query.seat,
        your_turn=query.seat in facts["acting"] and not facts["over"],
        turn_name=None if turn is None else seats[turn]["name"],
        opponents=[s for s in seats if s["seat"] != query.seat],
        you=seats[query.seat]["name"],
    )
    if facts["over"]:
        entry["winner"] = facts["winner"]
    return entry


def _stored_presence(seat: dict[str, Any]) -> str:
    return "here" if seat.get("type") == "ai" else "away"
