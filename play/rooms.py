"""Rooms: one game each, its seats (humans with secret tokens, AIs), connections, AI turns and expiry.

Game-agnostic: a room holds a :class:`play.games.GameSession` and talks to it only through that
interface. State changes happen under the room's asyncio lock, one at a time; an AI decision runs in a
worker thread on a copy of the state (``session.ai_snapshot()``) and is applied only if the game has not
moved meanwhile. AI seats move while at least one client is connected to the room, with the room's
delay (AI speed, manual 11.9) between moves.

A human seat's token is ``secrets.token_urlsafe(32)``, kept only as its SHA-256 hash and compared with
:func:`hmac.compare_digest`; whoever presents it holds the seat (a newer connection replaces an older one:
reconnecting resumes the seat). Nobody can act for a seat whose token they do not hold, and spectators
cannot act at all.

Rooms are durable (play/storage.py): a room is stored when created, every accepted action is committed
before it is broadcast, and a server that starts loads the unfinished rooms, replays their moves through
the game's adapter and restarts their AI seats. Every change of a room's game (a move, a new AI speed)
raises its event version; a client that reconnects says the version it has and gets the events it missed
(or the snapshot alone), and a move sent with a client move id is applied at most once.
"""

from __future__ import annotations

import asyncio
import bisect
import hmac
import json
import logging
import secrets
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from play import ai_seat, games, protocol, seat_changes
from play.chat import ChatLimits, say
from play.games import DEFAULT_GAME, JSON, GameAdapter, GameSession, InputError
from play.records import RecordStore
from play.room import CHAT_MEMORY, Connection, Room, Seat, awaited, clock_start, record_players
from play.storage import MemoryRoomStore, RoomStore, StorageError, StoredMove, StoredRoom, token_hash
from play.strategies import Catalogue

log = logging.getLogger("play.rooms")

NAME_LENGTH = protocol.NAME_LENGTH
DEFAULT_MAX_ROOMS = 200
DEFAULT_IDLE_EXPIRY = 1800.0


class RoomManager:
    """All rooms of a server: creation, joining, messages, AI turns, finished records and expiry."""

    def __init__(
        self,
        catalogue: Catalogue,
        records: RecordStore,
        *,
        max_rooms: int = DEFAULT_MAX_ROOMS,
        idle_expiry: float = DEFAULT_IDLE_EXPIRY,
        ai_workers: int = 4,
        store: RoomStore | None = None,
        now: Callable[[], float] = time.time,
    ) -> None:
        self.catalogue = catalogue
        self.records = records
        self.store = store if store is not None else MemoryRoomStore()
        #: the turn clocks' time (seconds since the epoch); tests inject a clock they move themselves
        self.now = now
        self.chat_limits = ChatLimits(now)
        self._clock_wake = asyncio.Event()
        self._clocks: asyncio.Task[None] | None = None
        #: changes at every start: a client that sees another one knows the server restarted
        self.boot_id = secrets.token_urlsafe(6)
        self._restored = False
        self.max_rooms = max_rooms
        self.idle_expiry = idle_expiry
        self.rooms: dict[str, Room] = {}
        self.executor = ThreadPoolExecutor(max_workers=ai_workers, thread_name_prefix="play-ai")
        self._sweeper: asyncio.Task[None] | None = None

    # ---- lifecycle -----------------------------------------------------------------------
    def start(self, adapters: list[GameAdapter] | None = None) -> None:
        """Load the stored rooms, start the expiry sweeper and warm the games up (from the running event loop)."""
        loop = asyncio.get_running_loop()
        if not self._restored:
            self._restored = True
            self.restore()
        if self._sweeper is None:
            self._sweeper = loop.create_task(self._sweep_loop())
        if self._clocks is None:
            self._clocks = loop.create_task(self._clock_loop())
        for adapter in adapters or []:
            loop.run_in_executor(self.executor, adapter.warm_up)

    async def shutdown(self) -> None:
        for task in (self._sweeper, self._clocks):
            if task is not None:
                task.cancel()
        for room in list(self.rooms.values()):
            await self.close_room(room, "shutdown")
        self.executor.shutdown(wait=False, cancel_futures=True)
        self.store.close()

    def restore(self) -> list[str]:
        """Load every unfinished stored room, replaying its moves, and restart its AI seats; return their ids.

        A room that cannot be rebuilt (a strategy or game this server no longer offers) stays stored,
        untouched, and is named in the log.
        """
        loaded = []
        for stored in self.store.unfinished():
            try:
                room = self._rebuild(stored)
            except Exception as exc:  # noqa: BLE001 - one unreadable room must not keep the others down
                log.warning("room %s: not restored, it stays stored (%s)", stored.id, exc)
                continue
            if room.session.over:  # the server died between the last move's commit and saving the record
                self._finish_restored(room)
                continue
            self.rooms[room.id] = room
            if self._time_out(room) and room.session.over:  # the clock ran out while the server was down
                del self.rooms[room.id]
                self._finish_restored(room)
                continue
            self.ensure_ai(room)
            loaded.append(room.id)
        if loaded:
            log.info("restored %d unfinished rooms", len(loaded))
        return loaded

    def _finish_restored(self, room: Room) -> None:
        """Save the record of a stored game that ended before its server could, and mark it over."""
        try:
            record_id: str | None = self.records.save(room.session.record(), room.id)
            self.store.finish(room.id, "over", record_id)
        except (OSError, StorageError) as exc:
            log.warning("room %s: its finished game could not be closed (%s); next start tries again", room.id, exc)

    def _rebuild(self, stored: StoredRoom) -> Room:
        """Return the room a stored one describes, its moves replayed and its AI seats' policies loaded."""
        adapter = games.get(stored.game)
        seats = [
            Seat(
                i,
                s["type"],
                s["name"],
                s.get("strategy"),
                token_hash=s.get("token_hash"),
                left=bool(s.get("left")),
                ever_connected=bool(s.get("joined")),
            )
            for i, s in enumerate(stored.seats)
        ]
        for seat in seats:
            if seat.type == "ai":
                strategy = self.catalogue.get(seat.strategy, adapter.game_id)
                seat.strategy_name = strategy.display_name
                seat.policy = adapter.make_policy(strategy.spec, stored.seed + seat.index)
        options, session = replay_room(adapter, stored, record_players(seats))
        room = Room(stored.id, adapter, options, session, seats, stored.ai_speed, created=stored.created)
        room.updated = stored.created
        room.setup, room.moves, room.version = stored, list(stored.moves), stored.version
        room.clock, room.deadline = stored.clock, stored.deadline
        room.chat.extend(_with_plies(self.store.chat_lines(room.id, CHAT_MEMORY), stored.moves, session.ply))
        room.host_hash, room.rematch = stored.host_hash, stored.rematch
        room.deadline = clock_start(room, room.seats, self.now())
        for seat in room.seats:
            seat.away_since = self.now()
        room.move_ids = {(m.seat, m.move_id): m.ply for m in stored.moves if m.move_id is not None}
        return room

    async def _sweep_loop(self) -> None:
        interval = max(0.05, min(30.0, self.idle_expiry / 4))
        while True:
            await asyncio.sleep(interval)
            await self.sweep()

    async def sweep(self) -> list[str]:
        """Remove rooms nobody has been connected to for ``idle_expiry`` seconds; return their ids."""
        now = time.monotonic()
        expired = [
            r
            for r in self.rooms.values()
            if not r.connections() and now - r.idle_since >= self.idle_expiry and (r.clock is None or r.session.over)
        ]
        for room in expired:
            await self.close_room(room, "expired")
        return [r.id for r in expired]

    async def close_room(self, room: Room, reason: str) -> None:
        self.rooms.pop(room.id, None)
        if reason == "expired" and not room.session.over:
            try:
                self.store.finish(room.id, "expired")
            except StorageError as exc:
                log.warning("room %s: %s", room.id, exc)
        if room.ai_task is not None:
            room.ai_task.cancel()
        for conn in room.connections():
            await conn.send({"type": "bye", "reason": reason})
            await conn.close(1001)

    # ---- creation ------------------------------------------------------------------------
    async def create(
        self, body: Any, adapter_for: Callable[[Any], GameAdapter], rematch_of: Room | None = None
    ) -> JSON:
        """Create a room from a ``POST /api/rooms`` body; return the answer with every human seat's token.

        A rematch (``rematch_of``) keeps that room's token hashes, its players' and host's links, and hands out none.
        """
        if not isinstance(body, dict):
            raise InputError("bad_message", f"the body must be a JSON object, got {protocol.brief(body)}")
        allowed = ("game", "options", "position", "seats", "ai_speed", "seed", "clock")
        for key in body:
            if key not in allowed:
                raise InputError("bad_message", f"unknown field {protocol.brief(key)}", allowed=list(allowed))
        if len(self.rooms) >= self.max_rooms:
            raise InputError("room_full", f"the server already holds {len(self.rooms)} rooms (limit {self.max_rooms})")
        adapter = adapter_for(body.get("game", DEFAULT_GAME))
        start = None
        if "position" in body:
            if "options" in body:
                raise InputError("bad_message", "give options or a position, not both (a position holds its options)")
            options, start = adapter.parse_position(body["position"])
        else:
            options = adapter.parse_options(body.get("options"))
        speed = protocol.check_ai_speed(body.get("ai_speed", "normal"), "ai_speed")
        clock = protocol.check_clock(body.get("clock"))
        seed = body.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63):
            raise InputError("bad_message", f"seed must be a non-negative integer, got {protocol.brief(seed)}")
        seats = self._parse_seats(body.get("seats"), adapter, options)
        loop = asyncio.get_running_loop()
        base = secrets.randbits(31) if seed is None else seed
        for seat in seats:
            if seat.type == "ai":
                spec = self.catalogue.get(seat.strategy, adapter.game_id).spec
                try:
                    seat.policy = await loop.run_in_executor(
                        self.executor, adapter.make_policy, spec, base + seat.index
                    )
                except Exception as exc:  # noqa: BLE001 - a broken file must be reported, not crash the server
                    raise InputError(
                        "unknown_strategy", f"seat {seat.index}: strategy {seat.strategy!r} failed to load: {exc}"
                    ) from None
        if len(self.rooms) >= self.max_rooms:  # checked again: loading may have taken a while
            raise InputError("room_full", f"the server already holds {len(self.rooms)} rooms (limit {self.max_rooms})")
        room_id = secrets.token_urlsafe(6)
        while room_id in self.rooms:
            room_id = secrets.token_urlsafe(6)
        players = record_players(seats)
        session = (
            adapter.new_session(adapter.seeded(options, base), players)
            if start is None
            else adapter.session_at(options, players, start)
        )
        room = Room(room_id, adapter, options, session, seats, speed)
        room.clock = clock
        room.deadline = clock_start(room, seats, self.now())  # None until every person has opened their seat
        for seat in seats:
            seat.away_since = None if seat.type == "ai" else self.now()
        host_token = seat_changes.give_tokens(room, rematch_of)
        self._store_new_room(room, body.get("position"), base)
        self.rooms[room_id] = room
        self._clock_wake.set()
        self.ensure_ai(room)
        answer_seats = []
        for seat in seats:
            entry: JSON = {"seat": seat.index, "type": seat.type, "name": seat.name}
            if seat.type == "human" and seat.token is not None:
                entry["token"] = seat.token
                entry["link"] = f"/#room={room_id}&seat={seat.index}&token={seat.token}"
                seat.token = None  # handed out once; the server keeps only its hash
            else:
                entry["strategy"] = seat.strategy
            answer_seats.append(entry)
        answer = {"room": room_id, "seats": answer_seats, "spectate": f"/#room={room_id}", "summary": room.summary()}
        return answer if host_token is None else {**answer, "host_token": host_token}

    def _store_new_room(self, room: Room, position: Any, seed: int) -> None:
        """Store a new room's set-up (its seats' tokens as hashes); InputError if the store refuses it."""
        options = room.options.to_dict() if hasattr(room.options, "to_dict") else room.options
        seats = seat_changes.stored_seats(room)
        room.setup = StoredRoom(
            room.id,
            room.adapter.game_id,
            options,
            position,
            seats,
            room.speed,
            seed,
            room.created,
            clock=room.clock,
            deadline=room.deadline,
            host_hash=room.host_hash,
        )
        try:
            self.store.create_room(room.setup)
        except StorageError as exc:
            log.error("room %s: %s", room.id, exc)
            raise InputError("storage_failed", "the server could not store the new room; nothing was created") from None

    def _parse_seats(self, value: Any, adapter: GameAdapter, options: Any) -> list[Seat]:
        count = adapter.seat_count(options)
        if not isinstance(value, list) or len(value) != count:
            raise InputError(
                "bad_message", f"seats must be a list of {count} seat objects, got {protocol.brief(value)}"
            )
        seats = []
        for i, entry in enumerate(value):
            where = f"seats[{i}]"
            if not isinstance(entry, dict):
                raise InputError("bad_message", f"{where} must be an object, got {protocol.brief(entry)}")
            for key in entry:
                if key not in ("type", "name", "strategy"):
                    raise InputError(
                        "bad_message", f"{where}: unknown field {protocol.brief(key)}", ["type", "name", "strategy"]
                    )
            kind = entry.get("type")
            if kind == "human":
                if "strategy" in entry:
                    raise InputError("bad_message", f"{where}: a human seat takes no strategy")
                default = adapter.menu()["seats"][i]["display_name"]
                token = secrets.token_urlsafe(32)
                name = protocol.check_name(entry.get("name"), default, where)
                seats.append(Seat(i, "human", name, token=token, token_hash=token_hash(token)))
            elif kind == "ai":
                strategy = self.catalogue.get(entry.get("strategy"), adapter.game_id)
                name = protocol.check_name(entry.get("name"), strategy.display_name[:NAME_LENGTH], where)
                seats.append(Seat(i, "ai", name, strategy.id, strategy.display_name))
            else:
                raise InputError(
                    "bad_message", f"{where}: type must be human or ai, got {protocol.brief(kind)}", ["human", "ai"]
                )
        return seats

    # ---- connections ---------------------------------------------------------------------
    async def handle_text(self, conn: Connection, text: str | bytes) -> None:
        """Handle one frame from a client; every refusal is answered with an error message."""
        msg_id = None
        try:
            message = protocol.parse(text)
            msg_id = message.id
            await self._dispatch(conn, message)
        except InputError as exc:
            await conn.send(protocol.error(exc, msg_id if msg_id is not None else exc.re))
            if exc.code == "bad_token":
                await conn.close(4403)
        except Exception:  # a server bug must cost one answer, not the socket or the room
            log.exception("internal error handling a message")
            await conn.send(protocol.error(InputError("internal", "the server failed on this message"), msg_id))

    async def _dispatch(self, conn: Connection, message: protocol.Message) -> None:
        if message.type == "ping":
            await conn.send(_with_re({"type": "pong"}, message.id))
            return
        if message.type == "hello":
            await self.join(conn, message)
            return
        room = conn.room
        if room is None or room.id not in self.rooms:
            raise InputError("not_joined", "send a 'hello' with a room (and a seat token to play) first")
        if message.type == "sync":
            state = {"type": "state", "state": room.state_for(conn), "room": room.summary(), "version": room.version}
            await conn.send(_with_re(state, message.id))
            return
        if message.type in seat_changes.MESSAGE_TYPES:
            await seat_changes.handle(self, room, conn, message)
            return
        seat = conn.seat
        if seat is not None and room.seats[seat].conn is not conn:
            raise InputError(
                "replaced", f"seat {seat} was opened in another tab or browser; this one only watches now", seat
            )
        if seat is None:
            raise InputError("spectator", "spectators watch only; an invite link with a seat token is needed to play")
        if message.type == "chat":
            await say(room, conn, seat, message, self.chat_limits, self.store, self.now())
            return
        if message.type == "set_speed":
            await self._set_speed(room, message.fields["speed"])
            return
        if message.type == "select":
            async with room.lock:
                answer = room.session.select(seat, message.fields)
            await conn.send(_with_re({"type": "destinations", **answer}, message.id))
            return
        if message.is_input:
            await self._human_input(room, conn, seat, message)
            return
        raise InputError("unknown_type", f"unknown message type {message.type!r}", list(protocol.MESSAGE_TYPES))

    async def join(self, conn: Connection, message: protocol.Message) -> None:
        """Join ``conn`` to a room: as the seat its token opens, or as a spectator without a token."""
        if conn.room is not None:
            raise InputError("already_joined", f"this connection is already in room {conn.room.id}")
        room = self.rooms.get(message.fields["room"])
        if room is None:
            raise InputError("no_such_room", f"no room {protocol.brief(message.fields['room'])} (it may have expired)")
        token = message.fields.get("token")
        seat_index: int | None = None
        if token is not None:
            digest = token_hash(token).encode()
            matches = [
                s.index
                for s in room.seats
                if s.token_hash is not None and hmac.compare_digest(s.token_hash.encode(), digest)
            ]
            wanted = message.fields.get("seat")
            if not matches or (wanted is not None and wanted != matches[0]):
                raise InputError("bad_token", "this token does not open that seat of this room")
            seat_index = seat_changes.check_not_left(room, matches[0])
        conn.host = seat_changes.check_host(room, message.fields.get("host"))
        conn.room = room
        conn.seat = seat_index
        if seat_index is None:
            room.spectators.add(conn)
        else:
            seat = room.seats[seat_index]
            first = not seat.ever_connected
            old, seat.conn, seat.ever_connected = seat.conn, conn, True
            if old is not None and old is not conn:
                # the old tab keeps watching, its inputs refused with `replaced`: it must not take the seat back
                room.spectators.add(old)
                await old.send({"type": "replaced", "seat": seat_index, "version": room.version})
            else:
                self._presence_changed(room, seat, arrived=first)
        welcome = {
            "type": "welcome",
            "role": "spectator" if seat_index is None else "player",
            "seat": seat_index,
            "host": conn.host,
            "room": room.summary(),
            "layout": room.adapter.layout(room.options),
            "state": room.state_for(conn),
            "server": self.boot_id,
            "chat": list(room.chat),
            **_resync(room, message.fields.get("version"), room.view_seat(conn)),
        }
        await conn.send(_with_re(welcome, message.id))
        await self.broadcast(room, {"type": "room", "room": room.summary(), "version": room.version}, skip=conn)
        room.wake.set()

    async def leave(self, conn: Connection) -> None:
        """Forget a closed connection; its seat waits for it (the room expires if nobody is left)."""
        room = conn.room
        if room is None:
            return
        conn.room = None
        room.spectators.discard(conn)
        if conn.seat is not None and room.seats[conn.seat].conn is conn:
            seat = room.seats[conn.seat]
            seat.conn, seat.away_since = None, self.now()
            self._presence_changed(room, seat)
        if not room.connections():
            room.idle_since = time.monotonic()
        if room.id in self.rooms:
            await self.broadcast(room, {"type": "room", "room": room.summary(), "version": room.version})

    def wake_clocks(self) -> None:
        """Wake the clock loop: a deadline was set outside a move (the last person arrived, a seat changed)."""
        self._clock_wake.set()

    def _presence_changed(self, room: Room, seat: Seat, arrived: bool = False) -> None:
        """Record a seat's new presence as an event of the room (its version rises; the caller broadcasts).

        A person's first arrival (``arrived``) is stored with the seats; once the last person has arrived, a room
        with a clock starts its turn clock (before that nobody's deployment or turn can run out unseen).
        """
        version = room.version + 1
        deadline = clock_start(room, room.seats, self.now()) if arrived else room.deadline
        try:
            if arrived:
                self.store.arrived(room.id, seat_changes.stored_seats(room), version, deadline)
            else:
                self.store.set_version(room.id, version)
        except StorageError as exc:  # presence is no game data: the event still happens, the next move stores on
            log.warning("room %s: %s", room.id, exc)
        room.version = version
        if deadline != room.deadline:
            room.deadline = deadline
            self.wake_clocks()
        event = {"version": version, "type": "presence", "seat": seat.index, "presence": seat.presence}
        room.events.append({**event, "away_since": seat.away_since if seat.presence == "away" else None})

    async def broadcast(self, room: Room, message: JSON, skip: Connection | None = None) -> None:
        text = json.dumps(message)
        for c in room.connections():
            if c is not skip:
                c.post(text)

    def _broadcast_state(self, room: Room, sender: Connection | None = None, re: Any = None) -> None:
        """Queue the new state for everyone in the room (called under the room lock, so states stay in order)."""
        if room.session.private_views:  # each connection gets its own seat's view (docs/PLAY.md, per-seat views)
            summary = room.summary()
            for c in room.connections():
                own = {"type": "state", "state": room.state_for(c), "room": summary, "version": room.version}
                c.post(json.dumps({**own, "re": re} if c is sender and re is not None else own))
            return
        message = {"type": "state", "state": room.state(), "room": room.summary(), "version": room.version}
        text = json.dumps(message)
        for c in room.connections():
            c.post(json.dumps({**message, "re": re}) if c is sender and re is not None else text)

    # ---- moves ---------------------------------------------------------------------------
    async def _human_input(self, room: Room, conn: Connection, seat: int, message: protocol.Message) -> None:
        async with room.lock:
            session = room.session
            move_id = message.fields.get("move_id")
            if move_id is not None and (seat, move_id) in room.move_ids:
                # a move resent after a dropped connection: it was applied once, answer with where the game is
                state = {
                    "type": "state",
                    "state": room.state_for(conn),
                    "room": room.summary(),
                    "version": room.version,
                }
                await conn.send(_with_re({**state, "duplicate": room.move_ids[(seat, move_id)]}, message.id))
                return
            action = session.parse_input(seat, message.game_input())
            ply = message.fields.get("ply")
            if ply is not None and ply != session.ply:
                raise InputError("stale", f"the game is at ply {session.ply}, not {ply}; sync and retry", session.ply)
            self._play(room, seat, action, move_id)
            await self._after_action(room)
            self._broadcast_state(room, conn, message.id)
        room.wake.set()

    def _play(self, room: Room, seat: int, action: Any, move_id: str | None, timeout: bool = False) -> None:
        """Apply one action and commit it to the store before anyone hears of it (under the room lock).

        If the store refuses, the room's game is rebuilt from what is stored (the action is undone) and
        the refusal is an InputError: nobody is told of a move a restart would lose.
        """
        session = room.session
        ply, turn_key = session.ply, session.clock_key()
        entry = session.apply(action)
        # a clock held in the waiting room (no deadline yet, a person still to come) stays held: AI moves start nothing
        held = room.deadline is None and awaited(room.seats)
        deadline = None if room.clock is None or session.over or held else self.now() + room.clock
        if deadline is not None and room.deadline is not None and session.clock_key() == turn_key:
            deadline = room.deadline  # the same turn goes on (several actions a turn, e.g. Frontera's)
        move = StoredMove(ply, seat, _action_json(action), move_id, room.version + 1, deadline)
        try:
            self.store.append_move(room.id, move)
        except StorageError as exc:
            log.error("room %s: %s; the move is undone", room.id, exc)
            if room.setup is not None:
                room.replace_session(replay_room(room.adapter, room.setup, record_players(room.seats), room.moves)[1])
            raise InputError("storage_failed", "the server could not store this move, so it was not played") from None
        room.moves.append(move)
        room.version, room.deadline, room.updated = move.version, deadline, self.now()
        self._clock_wake.set()
        event = {"version": move.version, "type": "move", "seat": seat, "ply": ply + 1, "entry": entry}
        room.events.append({**event, "timeout": True} if timeout else event)
        if move_id is not None:
            room.move_ids[(seat, move_id)] = ply

    async def play_event(self, room: Room, seat: int, action: Any) -> None:
        """Play and store a move the server makes for ``seat`` (a rule's event, such as Frontera's abandonment when
        its player leaves), then tell everyone; under the room lock. InputError ``storage_failed`` if not stored."""
        self._play(room, seat, action, None)
        await self._after_action(room)
        self._broadcast_state(room)

    async def _set_speed(self, room: Room, speed: str) -> None:
        """Store and announce a room's new AI speed (an event of the room: its version rises)."""
        async with room.lock:
            try:
                self.store.set_speed(room.id, speed, room.version + 1)
            except StorageError as exc:
                log.error("room %s: %s", room.id, exc)
                raise InputError(
                    "storage_failed", "the server could not store the new speed; it is unchanged"
                ) from None
            room.speed = speed
            room.version += 1
            room.events.append({"version": room.version, "type": "speed", "speed": speed})
            await self.broadcast(room, {"type": "room", "room": room.summary(), "version": room.version})
        room.wake.set()

    async def _after_action(self, room: Room) -> None:
        """Save the record once the game ends (called under the room lock)."""
        if room.session.over and room.record_id is None:
            record = room.session.record()
            try:
                room.record_id = await asyncio.to_thread(self.records.save, record, room.id)
            except OSError as exc:
                log.warning("room %s: could not save its record: %s", room.id, exc)
                room.record_id = ""
            try:
                self.store.finish(room.id, "over", room.record_id or None)
            except StorageError as exc:
                log.warning("room %s: %s", room.id, exc)

    # ---- turn clocks -----------------------------------------------------------------------
    async def _clock_loop(self) -> None:
        """Wake at the nearest turn deadline (or when a new one is set) and apply the timeouts due."""
        while True:
            deadlines = [r.deadline for r in self.rooms.values() if r.deadline is not None and not r.session.over]
            wait = 600.0 if not deadlines else min(600.0, max(0.25, min(deadlines) - self.now()))
            self._clock_wake.clear()
            # asyncio.wait, not wait_for: Python 3.11's wait_for swallows a cancel that meets a set event
            woken = asyncio.ensure_future(self._clock_wake.wait())
            try:
                await asyncio.wait([woken], timeout=wait)
            finally:
                woken.cancel()
            await self.check_clocks()

    async def check_clocks(self) -> list[str]:
        """Apply the timeout action of every turn whose deadline has passed; return the rooms it happened in."""
        timed_out = []
        for room in list(self.rooms.values()):
            if room.deadline is None or room.deadline > self.now():
                continue
            async with room.lock:
                if room.id in self.rooms and self._time_out(room):
                    timed_out.append(room.id)
                    await self._after_action(room)
                    self._broadcast_state(room)
            room.wake.set()
        return timed_out

    def _time_out(self, room: Room) -> bool:
        """Play the timeout action of the seat to act if its deadline has passed; return whether it did.

        Called under the room's lock (or while restoring, before anything runs): the deadline is checked
        again here, and the timeout is a stored move that starts the next turn's deadline, so it happens once.
        """
        session, seat = room.session, room.session.turn
        if seat is None or session.over or room.deadline is None or room.deadline > self.now():
            return False
        try:
            self._play(room, seat, session.timeout_action(seat), None, timeout=True)
        except InputError as exc:  # the store failed: nobody was told, the next check tries again
            log.warning("room %s: the timeout of seat %d could not be played (%s)", room.id, seat, exc)
            return False
        log.info("room %s: seat %d ran out of time", room.id, seat)
        return True

    def ensure_ai(self, room: Room) -> None:
        if any(s.type == "ai" for s in room.seats) and room.ai_task is None:
            room.ai_task = asyncio.get_running_loop().create_task(self._ai_loop(room))

    async def _ai_loop(self, room: Room) -> None:
        """Play the AI seats' turns while someone watches (each decision off the event loop)."""
        while room.id in self.rooms and not room.session.over:
            ai_seats = [s for s in room.session.acting() if room.seats[s].type == "ai"]
            seat_index = ai_seats[0] if ai_seats else None
            watched = room.connections() or room.clock is not None  # a clocked game goes on with nobody there
            if seat_index is None or not watched:
                room.wake.clear()
                await room.wake.wait()
                continue
            delay = protocol.AI_SPEEDS[room.speed]
            if delay > 0:
                await asyncio.sleep(delay)
            else:
                await asyncio.sleep(0)
            session, seat = room.session, room.seats[seat_index]
            ply = session.ply
            snapshot, policy = session.ai_snapshot(), seat.policy
            action = await ai_seat.decide(room, session, policy, snapshot, seat_index)  # None: the fallback
            async with room.lock:
                if room.session.ply != ply or seat_index not in room.session.acting() or seat.policy is not policy:
                    continue  # the game moved on, or the host gave the seat to someone else meanwhile
                try:
                    self._ai_play(room, seat_index, action)
                except InputError as exc:  # the store failed: nobody was told, the AI tries again later
                    log.warning("room %s: the AI of seat %d could not play (%s)", room.id, seat_index, exc)
                    await asyncio.sleep(1.0)
                    continue
                await self._after_action(room)
                self._broadcast_state(room)
        room.ai_task = None

    def _ai_play(self, room: Room, seat_index: int, action: Any) -> None:
        """Play the AI's action, or its fallback when it chose none or an illegal one (under the room lock)."""
        session = room.session
        try:
            self._play(room, seat_index, action if action is not None else session.fallback_action(seat_index), None)
        except InputError as exc:
            if exc.code == "storage_failed":
                raise
            log.warning(
                "room %s: the AI of seat %d chose an illegal action (%s); it plays the fallback",
                room.id,
                seat_index,
                exc,
            )
            self._play(room, seat_index, room.session.fallback_action(seat_index), None)


def _action_json(action: Any) -> Any:
    """Return an action as JSON (an int, or a list for a tuple action such as Domain Wheel's Move)."""
    return json.loads(json.dumps(action, default=int))


def replay_room(
    adapter: GameAdapter, stored: StoredRoom, players: list[str], moves: list[StoredMove] | None = None
) -> tuple[Any, GameSession]:
    """Return a stored room's options and its session with its moves (``moves``, else the stored ones) replayed."""
    if stored.position is not None:
        options, start = adapter.parse_position(stored.position)
        session = adapter.session_at(options, players, start)
    else:
        options = adapter.parse_options(stored.options)
        session = adapter.new_session(adapter.seeded(options, stored.seed), players)
    for move in stored.moves if moves is None else moves:
        session.apply(move.action)
    return options, session


def _with_plies(lines: list[JSON], moves: list[StoredMove], ply_now: int) -> list[JSON]:
    """Return stored chat lines with the game's ply when each was said (the moves stored before it, by version).

    The chat table keeps a line's room version, not its ply; a move's stored ply is 0-based, so a line said after
    the move of ply ``k`` was said at ply ``k + 1``. Lines older than every move were said at the first move's ply.
    """
    versions = [m.version for m in moves]
    first = moves[0].ply if moves else ply_now
    out = []
    for line in lines:
        before = bisect.bisect_left(versions, line["version"])
        out.append({**line, "ply": moves[before - 1].ply + 1 if before else first})
    return out


def _resync(room: Room, known: int | None, seat: int | None = None) -> JSON:
    """Return the welcome's resync fields for a client that has version ``known`` (None: a first join).

    ``resync`` is ``"events"`` with ``missed`` (every event after ``known``, in order) when the room still
    remembers them all, ``"snapshot"`` when it does not (the welcome's state is then the whole truth).
    """
    out: JSON = {"version": room.version}
    if known is None:
        return out
    missed = [room.session.event_for(e, seat) for e in room.events if e["version"] > known]
    complete = known <= room.version and (known == room.version or (missed and missed[0]["version"] == known + 1))
    if complete:
        out.update(resync="events", missed=missed)
    else:
        out["resync"] = "snapshot"
    return out


def _with_re(message: JSON, re: Any) -> JSON:
    if re is not None:
        message["re"] = re
    return message
