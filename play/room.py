"""A room and who is in it: client sockets (:class:`Connection`), seats (:class:`Seat`) and the room (:class:`Room`).

A connection knows its room and a room its connections, so the three live together. The room manager
(play/rooms.py) changes a room under its lock; the room-life modules (play/chat.py, play/seat_changes.py) read
and change it under the same lock. Nothing here talks to storage; a connection only queues what it is given.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any, Protocol

from play.games import JSON, GameAdapter, GameSession
from play.storage import RoomStore, StoredMove, StoredRoom
from play.strategies import Catalogue

log = logging.getLogger("play.rooms")

#: messages queued for one client before it is considered stuck and disconnected
OUTBOX_LIMIT = 256
#: events a room remembers for clients that reconnect (older gaps are answered with the snapshot alone)
EVENT_MEMORY = 128
#: chat lines a room keeps in memory and sends in ``welcome`` (play/chat.py)
CHAT_MEMORY = 200
#: a seat's presence: its player is connected, away (no connection since ``away_since``) or left the game
PRESENCE = ("here", "away", "left")


class Connection:
    """One client socket as the rooms see it: an ordered outbox, a way to close, and who it is.

    Messages are queued and written by one writer task per socket, so a room never waits for a slow
    client and every client sees its messages in the order the room produced them. A client whose
    outbox exceeds :data:`OUTBOX_LIMIT` messages is disconnected (close code 1008).
    """

    def __init__(self, send_text: Callable[[str], Awaitable[None]], close: Callable[[int], Awaitable[None]]) -> None:
        self._send_text = send_text
        self._close = close
        self._outbox: asyncio.Queue[str | int | None] = asyncio.Queue()
        self._writer: asyncio.Task[None] | None = None
        self._closing = False
        self._dead = False
        self.room: Room | None = None
        self.seat: int | None = None
        #: the client's address (the server sets it): the key of its per-client chat limit
        self.client: str | None = None
        #: whether this socket said the room's host token in its hello (it may then use the host's actions)
        self.host = False

    @property
    def closed(self) -> bool:
        """Return True once the socket is closing or failed: nothing more is read or sent."""
        return self._closing or self._dead

    def post(self, message: JSON | str) -> None:
        """Queue one message for this client (never blocks)."""
        if self.closed:
            return
        if self._outbox.qsize() >= OUTBOX_LIMIT:
            log.warning("a client fell %d messages behind; disconnecting it", OUTBOX_LIMIT)
            self._enqueue_close(1008)
            return
        self._outbox.put_nowait(message if isinstance(message, str) else json.dumps(message))
        self._ensure_writer()

    async def send(self, message: JSON | str) -> None:
        """Queue one message (kept async for callers that await it)."""
        self.post(message)

    async def close(self, code: int = 1000) -> None:
        """Close after the queued messages are written."""
        self._enqueue_close(code)

    def _enqueue_close(self, code: int) -> None:
        if self.closed:
            return
        self._closing = True
        self._outbox.put_nowait(code)
        self._ensure_writer()

    async def finish(self, timeout: float = 5.0) -> None:
        """Write what is queued (bounded in time), then stop the writer; for the socket's handler."""
        if self._writer is None:
            return
        if not self.closed:
            self._closing = True
            self._outbox.put_nowait(None)
        try:
            await asyncio.wait_for(asyncio.shield(self._writer), timeout)
        except (TimeoutError, asyncio.CancelledError):
            self._writer.cancel()

    def _ensure_writer(self) -> None:
        if self._writer is None:
            self._writer = asyncio.get_running_loop().create_task(self._write())

    async def _write(self) -> None:
        while True:
            item = await self._outbox.get()
            if item is None:
                return
            if isinstance(item, int):
                with contextlib.suppress(Exception):
                    await self._close(item)
                self._dead = True
                return
            try:
                await self._send_text(item)
            except Exception:  # noqa: BLE001 - a dead client must never break a room
                self._dead = True
                return


@dataclass
class Seat:
    """A seat of a room: a human (with a token and maybe a connection) or an AI (with its policy)."""

    index: int
    type: str
    name: str
    strategy: str | None = None
    strategy_name: str | None = None
    token: str | None = None
    token_hash: str | None = None
    policy: Any = None
    conn: Connection | None = None
    ever_connected: bool = False
    #: when the seat's player went away (seconds since the epoch); None while connected, and for AIs
    away_since: float | None = None
    #: its player left the game (the seat went to an AI; play/seat_changes.py)
    left: bool = False

    @property
    def presence(self) -> str:
        """Return ``left`` (its player left), ``here`` (connected, or an AI) or ``away``."""
        return "left" if self.left else "here" if self.type == "ai" or self.conn is not None else "away"

    def summary(self) -> JSON:
        return {
            "seat": self.index,
            "type": self.type,
            "name": self.name,
            "strategy": self.strategy,
            "strategy_name": self.strategy_name,
            "connected": self.type == "ai" or self.conn is not None,
            "presence": self.presence,
            "away_since": self.away_since if self.presence == "away" else None,
        }


@dataclass
class Room:
    """One game with its seats, connections and AI driver."""

    id: str
    adapter: GameAdapter
    options: Any
    session: GameSession
    seats: list[Seat]
    speed: str = "normal"
    created: float = field(default_factory=time.time)
    idle_since: float = field(default_factory=time.monotonic)
    spectators: set[Connection] = field(default_factory=set)
    record_id: str | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    ai_task: asyncio.Task[None] | None = None
    #: what the store holds of the room's set-up, the moves it has stored, the event version and recent events
    setup: StoredRoom | None = None
    moves: list[StoredMove] = field(default_factory=list)
    version: int = 0
    events: deque[JSON] = field(default_factory=lambda: deque(maxlen=EVENT_MEMORY))
    #: (seat, client move id) -> the ply it was applied at
    move_ids: dict[tuple[int, str], int] = field(default_factory=dict)
    #: seconds per turn (None: no clock) and the current turn's deadline (seconds since the epoch)
    clock: int | None = None
    deadline: float | None = None
    #: when the game last moved (seconds since the epoch; its creation until then, or until a restart)
    updated: float = field(default_factory=time.time)
    #: the last chat lines, as their events (play/chat.py); sent in every welcome
    chat: deque[JSON] = field(default_factory=lambda: deque(maxlen=CHAT_MEMORY))
    #: the host token's hash (None: no host) and the id of this game's rematch once someone asked for one
    host_hash: str | None = None
    rematch: str | None = None
    _state: JSON | None = None
    #: per-seat views of the current ply (games with private views; the key None is the spectators')
    _views: dict[int | None, JSON] = field(default_factory=dict)

    def connections(self) -> list[Connection]:
        conns = [s.conn for s in self.seats if s.conn is not None]
        return conns + list(self.spectators)

    def status(self) -> str:
        if self.session.over:
            return "over"
        if awaited(self.seats):
            return "waiting"
        return "playing"

    def summary(self) -> JSON:
        return {
            "room": self.id,
            "game": self.adapter.game_id,
            "title": self.adapter.title,
            "options": self.adapter.public_options(self.options),
            "layout": self.adapter.layout(self.options).get("key"),
            "seats": [s.summary() for s in self.seats],
            "spectators": len(self.spectators),
            "ai_speed": self.speed,
            "status": self.status(),
            "ply": self.session.ply,
            "turn": self.session.turn,
            "over": self.session.over,
            "record": self.record_id,
            "created": self.created,
            "version": self.version,
            "clock": self.clock,
            "deadline": None if self.session.over else self.deadline,
            "rematch": self.rematch,
        }

    def replace_session(self, session: GameSession) -> None:
        """Continue the room's game from another session (a test or tool setting up a position mid-room)."""
        self.session = session
        self._state = None
        self._views = {}

    def state(self) -> JSON:
        """Return the current state view (computed once per state)."""
        if self._state is None or self._state.get("ply") != self.session.ply:
            self._state = self.session.view()
        return self._state

    def view_seat(self, conn: Connection) -> int | None:
        """Return the seat whose view ``conn`` gets: its seat while it holds it, else None (a spectator's view)."""
        seat = conn.seat
        return seat if seat is not None and self.seats[seat].conn is conn else None

    def state_for(self, conn: Connection) -> JSON:
        """Return the state view ``conn`` may see: everyone's, or its own seat's in a game with private views."""
        if not self.session.private_views:
            return self.state()
        seat = self.view_seat(conn)
        if any(v.get("ply") != self.session.ply for v in self._views.values()):
            self._views = {}
        if seat not in self._views:
            self._views[seat] = self.session.view_for(seat)
        return self._views[seat]


def record_players(seats: list[Seat]) -> list[str]:
    """Return each seat's entry for the game record: the AI's strategy id, or ``human:NAME``."""
    return [s.strategy if s.type == "ai" and s.strategy else f"human:{s.name}" for s in seats]


def awaited(seats: list[Seat]) -> bool:
    """Return whether a person's seat has never been opened (the room waits: its turn clock has not started)."""
    return any(s.type == "human" and not s.ever_connected for s in seats)


def clock_start(room: Room, seats: list[Seat], now: float) -> float | None:
    """Return the room's deadline with ``seats``: the running one, else a first one once no person is awaited.

    The waiting room (docs/PLAY.md): a room with a clock gets its first deadline when the last person opens their
    seat or their seat goes to an AI, never while someone is still to come, and none without a clock or once over.
    """
    if room.deadline is not None or room.clock is None or room.session.over or awaited(seats):
        return room.deadline
    return now + room.clock


class RoomServices(Protocol):
    """What the room-life modules (play/seat_changes.py) use of the room manager (play/rooms.py), which imports them."""

    @property
    def store(self) -> RoomStore: ...

    @property
    def catalogue(self) -> Catalogue: ...

    @property
    def executor(self) -> Executor: ...

    @property
    def rooms(self) -> dict[str, Room]: ...

    #: the server's clock (seconds since the epoch); injectable for tests
    now: Callable[[], float]

    async def broadcast(self, room: Room, message: JSON, skip: Connection | None = None) -> None: ...

    async def create(
        self, body: Any, adapter_for: Callable[[Any], GameAdapter], rematch_of: Room | None = None
    ) -> JSON: ...

    def ensure_ai(self, room: Room) -> None: ...

    async def play_event(self, room: Room, seat: int, action: Any) -> None: ...

    async def close_room(self, room: Room, reason: str) -> None: ...

    def wake_clocks(self) -> None: ...
