"""Seats changing hands (issue 44): the host, a player who leaves, a seat given away, and the rematch.

The room's creator is its *host*: ``POST /api/rooms`` hands out a host token (kept only as its hash), and a
socket whose ``hello`` carries it may give any seat to an AI or to a new person (``replace_seat``), even
without a seat of its own. A seated player may ``leave``: the seat goes to the game's takeover AI
(``GameAdapter.takeover_strategy``), or where the game has none its rules take the seat out (Frontera's R-11:
the leaver's territories become ownerless); its presence becomes ``left`` and its link stops working. Once the game
is over, any player or the host may ask for a ``rematch``: a new room with the same seats, whose players'
and host's links keep working with the new room id.

Every change is stored (the seats JSON, the rematch id) in the same commit as the room's new event version,
before anyone is told, and is an event of the room, so a client that reconnects gets it in ``missed``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hmac
import logging
import secrets
from typing import Any

from play import games, protocol
from play.games import JSON, InputError
from play.room import Connection, Room, RoomServices, Seat, clock_start
from play.storage import StorageError, token_hash
from play.strategies import Strategy

log = logging.getLogger("play.seat_changes")

#: the client messages this module answers
MESSAGE_TYPES = ("leave", "replace_seat", "rematch")
#: who takes a seat the host gives away
REPLACE_BY = ("ai", "person")


def stored_seats(room: Room) -> list[dict[str, Any]]:
    """Return the room's seats as the store keeps them: type, name, strategy, token hash, left, joined."""
    return [_stored_seat(s) for s in room.seats]


def _stored_seat(seat: Seat) -> dict[str, Any]:
    return {
        "type": seat.type,
        "name": seat.name,
        "strategy": seat.strategy,
        "token_hash": seat.token_hash,
        "left": seat.left,
        "joined": seat.ever_connected,  # a person has opened the seat: the room's turn clock waits for all of them
    }


def give_tokens(room: Room, rematch_of: Room | None) -> str | None:
    """Give a new room its host token and return it; a rematch keeps the old room's hashes and returns None."""
    if rematch_of is None:
        token = secrets.token_urlsafe(32)
        room.host_hash = token_hash(token)
        return token
    room.host_hash = rematch_of.host_hash
    for seat, old in zip(room.seats, rematch_of.seats, strict=True):
        if seat.type == "human":
            seat.token, seat.token_hash = None, old.token_hash
    return None


def check_host(room: Room, token: Any) -> bool:
    """Return whether a hello's ``host`` field makes its socket the host's (None: no); ``bad_token`` if wrong."""
    if token is None:
        return False
    if room.host_hash is None or not hmac.compare_digest(room.host_hash.encode(), token_hash(token).encode()):
        raise InputError("bad_token", "this host token is not this room's: the host's link opens only its own room")
    return True


def check_not_left(room: Room, index: int) -> int:
    """Return the seat a hello's token opens; ``bad_token`` if its player left the game."""
    if room.seats[index].left:
        raise InputError("bad_token", f"the player of seat {index} left this game; this link no longer opens it")
    return index


async def handle(manager: RoomServices, room: Room, conn: Connection, message: protocol.Message) -> None:
    """Answer a ``leave``, ``replace_seat`` or ``rematch`` message (docs/PLAY.md, "Seats change hands")."""
    if message.type == "leave":
        await _leave(manager, room, conn, message)
    elif message.type == "replace_seat":
        await _replace(manager, room, conn, message)
    else:
        await _rematch(manager, room, conn, message)


def _own_seat(room: Room, conn: Connection, what: str) -> int:
    """Return the seat this socket plays; ``spectator`` or ``replaced`` if it plays none."""
    if conn.seat is None:
        raise InputError("spectator", f"spectators cannot {what}; an invite link with a seat token is needed")
    if room.seats[conn.seat].conn is not conn:
        raise InputError("replaced", f"seat {conn.seat} was opened in another tab or browser; this one only watches")
    return conn.seat


async def _leave(manager: RoomServices, room: Room, conn: Connection, message: protocol.Message) -> None:
    """Give the leaving player's seat to the game's takeover AI; the socket watches on as a spectator."""
    index = _own_seat(room, conn, "leave a game")
    if room.adapter.leave_by_rule:
        await _abandon(manager, room, conn, message)
        return
    strategy = manager.catalogue.get(room.adapter.takeover_strategy, room.adapter.game_id)
    policy = await _policy(manager, room, strategy, index)
    async with room.lock:
        seat = room.seats[index]
        _own_seat(room, conn, "leave a game")  # again: another tab may have taken the seat while the AI loaded
        ai = {"type": "ai", "strategy": strategy.id, "strategy_name": strategy.display_name, "policy": policy}
        _change_seat(manager, room, seat, {**ai, "conn": None, "left": True, "away_since": None})
        conn.seat = None
        room.spectators.add(conn)
        await conn.send(_with_re({"type": "left", "seat": index, "version": room.version}, message.id))
        await _announce(manager, room)
        manager.ensure_ai(room)
    room.wake.set()


async def _abandon(manager: RoomServices, room: Room, conn: Connection, message: protocol.Message) -> None:
    """Take the leaving player's seat out of the game by its rules (Frontera's R-11); nobody plays it after.

    The game's move (``GameSession.leave_action``) is stored and played first, then the seat is marked left: if
    the seat's change cannot be stored the player is out of the game already and a second ``leave`` finishes it.
    """
    async with room.lock:
        index = _own_seat(room, conn, "leave a game")
        seat = room.seats[index]
        action = room.session.leave_action(index)
        if action is not None:
            await manager.play_event(room, index, action)
        _change_seat(manager, room, seat, {"conn": None, "left": True, "away_since": None})
        conn.seat = None
        room.spectators.add(conn)
        await conn.send(_with_re({"type": "left", "seat": index, "version": room.version}, message.id))
        await _announce(manager, room)
    room.wake.set()


async def _replace(manager: RoomServices, room: Room, conn: Connection, message: protocol.Message) -> None:
    """Give a seat to an AI or to a new person (host only); the person's link goes to the host alone."""
    if not conn.host:
        raise InputError("not_host", "only the room's host (the link of whoever created it) may give a seat away")
    fields = message.fields
    index, by = fields["seat"], fields["by"]
    if not 0 <= index < len(room.seats):
        raise InputError("bad_message", f"no seat {protocol.brief(index)} in this room", list(range(len(room.seats))))
    if by not in REPLACE_BY:
        raise InputError("bad_message", f"'by' must be ai or person, got {protocol.brief(by)}", list(REPLACE_BY))
    _check_playing(room)
    if room.adapter.leave_by_rule and room.seats[index].left:
        raise InputError("bad_message", f"seat {index}'s player left the game by its rules: nobody can take it now")
    changes, token = await _newcomer(manager, room, index, by, fields)
    async with room.lock:
        _check_playing(room)
        seat = room.seats[index]
        old = seat.conn
        _change_seat(manager, room, seat, {**changes, "conn": None})
        if old is conn:  # the host gave away their own seat: they watch on as the host
            conn.seat = None
            room.spectators.add(conn)
        elif old is not None:  # the old player's tab learns why and closes: its link opens nothing now
            old.room, old.seat = None, None
            await old.send({"type": "bye", "reason": "seat_handed_over", "seat": index})
            await old.close(4403)
        if token is not None:
            link = f"/#room={room.id}&seat={index}&token={token}"
            await conn.send(_with_re({"type": "seat_link", "seat": index, "token": token, "link": link}, message.id))
        await _announce(manager, room, conn, None if token is not None else message.id)
        manager.ensure_ai(room)
    room.wake.set()


async def _newcomer(
    manager: RoomServices, room: Room, index: int, by: str, fields: JSON
) -> tuple[dict[str, Any], str | None]:
    """Return the seat's new fields for ``replace_seat`` and the new person's token (None for an AI)."""
    seat = room.seats[index]
    if by == "ai":
        if "strategy" not in fields:
            raise InputError("bad_message", "replace_seat by ai needs a 'strategy'", ["strategy"])
        strategy = manager.catalogue.get(fields["strategy"], room.adapter.game_id)
        name = protocol.check_name(fields.get("name"), strategy.display_name[: protocol.NAME_LENGTH], "replace_seat")
        policy = await _policy(manager, room, strategy, index)
        # a left seat keeps its old hash, so its player's link still says why it no longer opens the seat
        ai = {"type": "ai", "strategy": strategy.id, "strategy_name": strategy.display_name, "policy": policy}
        return {**ai, "name": name, "token_hash": seat.token_hash if seat.left else None, "away_since": None}, None
    if "strategy" in fields:
        raise InputError("bad_message", "a person takes no strategy; give 'strategy' only with by: ai")
    default = room.adapter.menu()["seats"][index]["display_name"]
    name = protocol.check_name(fields.get("name"), default, "replace_seat")
    token = secrets.token_urlsafe(32)
    person = {"type": "human", "name": name, "strategy": None, "strategy_name": None, "policy": None}
    fresh = {"token_hash": token_hash(token), "left": False, "ever_connected": False, "away_since": manager.now()}
    return {**person, **fresh}, token


async def _rematch(manager: RoomServices, room: Room, conn: Connection, message: protocol.Message) -> None:
    """Create the game's rematch once (any player or the host, when it is over) and tell the whole room."""
    if not conn.host:
        _own_seat(room, conn, "ask for a rematch")
    if not room.session.over:
        raise InputError("not_over", "a rematch can be asked for once the game has ended")
    async with room.lock:
        if room.rematch is None:  # under the lock: two players asking at once get one room
            created = await manager.create(_rematch_body(room), games.get, rematch_of=room)
            version = room.version + 1
            try:
                manager.store.set_rematch(room.id, created["room"], version)
            except StorageError as exc:
                log.error("room %s: %s; its rematch is closed again", room.id, exc)
                await manager.close_room(manager.rooms[created["room"]], "expired")
                raise InputError("storage_failed", "the server could not store the rematch; ask again") from None
            room.rematch, room.version = created["room"], version
            room.events.append({"version": version, "type": "rematch", "room": room.rematch})
            await manager.broadcast(room, {"type": "rematch", "room": room.rematch, "version": version}, skip=conn)
        answer = {"type": "rematch", "room": room.rematch, "version": room.version}
        await conn.send(_with_re(answer, message.id))


def _rematch_body(room: Room) -> JSON:
    """Return the ``POST /api/rooms`` body of a room's rematch: the same game, seats, clock and speed, a new seed."""
    seats: list[JSON] = [_rematch_seat(room, s) for s in room.seats]
    body: JSON = {"game": room.adapter.game_id, "seats": seats, "ai_speed": room.speed, "clock": room.clock}
    if room.setup is not None and room.setup.position is not None:
        return {**body, "position": room.setup.position}
    return {**body, "options": room.options.to_dict() if hasattr(room.options, "to_dict") else room.options}


def _rematch_seat(room: Room, seat: Seat) -> JSON:
    """Return a seat of the rematch: the same one, except that a player who left is not in it (an AI plays there).

    Where a leaver's seat went to an AI it is that AI already; where the game's rules took it out (Frontera's R-11)
    the seat is still a person's, so the rematch seats the game's takeover strategy in it.
    """
    if seat.type == "ai":
        return {"type": "ai", "name": seat.name, "strategy": seat.strategy}
    if seat.left:
        return {"type": "ai", "name": seat.name, "strategy": room.adapter.takeover_strategy}
    return {"type": "human", "name": seat.name}


def _check_playing(room: Room) -> None:
    if room.session.over:
        raise InputError("game_over", "the game has ended: its seats no longer change hands (a rematch keeps them)")


async def _policy(manager: RoomServices, room: Room, strategy: Strategy, index: int) -> Any:
    """Return a loaded AI policy for a seat, seeded as a restart will seed it (room seed + seat)."""
    seed = (room.setup.seed if room.setup is not None else 0) + index
    loop = asyncio.get_running_loop()
    try:
        return await loop.run_in_executor(manager.executor, room.adapter.make_policy, strategy.spec, seed)
    except Exception as exc:  # noqa: BLE001 - a broken file must be reported, not crash the server
        raise InputError("unknown_strategy", f"seat {index}: strategy {strategy.id!r} failed to load: {exc}") from None


def _change_seat(manager: RoomServices, room: Room, seat: Seat, changes: dict[str, Any]) -> None:
    """Store a seat's change with the room's next version, then make it and record the event (under the lock).

    The seat is changed in place, not swapped: an AI decision in flight compares the seat's policy and
    must see the new one.
    """
    stored = stored_seats(room)
    stored[seat.index] = _stored_seat(dataclasses.replace(seat, **changes))
    version = room.version + 1
    # the seat of the person the room waited for goes to an AI: nobody else is awaited, so the turn clock starts
    after = [dataclasses.replace(s, **changes) if s is seat else s for s in room.seats]
    deadline = clock_start(room, after, manager.now())
    starts = deadline != room.deadline
    try:
        if starts:
            manager.store.arrived(room.id, stored, version, deadline)
        else:
            manager.store.set_seats(room.id, stored, version)
    except StorageError as exc:
        log.error("room %s: %s", room.id, exc)
        raise InputError("storage_failed", "the server could not store the seat's change; nothing changed") from None
    for key, value in changes.items():
        setattr(seat, key, value)
    if room.setup is not None:
        room.setup.seats = stored
    room.version = version
    if starts:
        room.deadline = deadline
        manager.wake_clocks()
    room.events.append({"version": version, "type": "seat", "seat": seat.index, "summary": seat.summary()})


async def _announce(manager: RoomServices, room: Room, conn: Connection | None = None, re: Any = None) -> None:
    """Tell the room of a seat's change (a ``room`` message; ``conn``'s copy answers its message ``re``)."""
    message = {"type": "room", "room": room.summary(), "version": room.version}
    await manager.broadcast(room, message, skip=conn if re is not None else None)
    if conn is not None and re is not None:
        await conn.send(_with_re(dict(message), re))


def _with_re(message: JSON, re: Any) -> JSON:
    return message if re is None else {**message, "re": re}
