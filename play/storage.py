"""Durable rooms: one small interface, :class:`RoomStore`, and its SQLite implementation.

Everything needed to carry a room on after a restart is stored: its game, options or starting position,
seats (a human seat's token only as its SHA-256 hash), AI speed and seed, its turn clock and the current
turn's deadline, its event version and the move list, one row per accepted move with the client's move id.
The rooms' manager (play/rooms.py) writes through this interface only, and commits an accepted move before
anyone is told of it, so a server killed at any moment restarts with every move a client saw acknowledged.

:class:`SqliteRoomStore` keeps one embedded database file in WAL mode. By default (``synchronous=NORMAL``,
SQLite's advice for WAL) a commit is in the database's log before it returns: a killed server loses nothing,
a power cut may lose the last commits; ``FULL`` also waits for the disk (slower: ``dw bench play``).
The schema's version is SQLite's ``user_version``; :data:`MIGRATIONS` lists the steps from version 0 (an
empty file) to the newest, each applied once in its own transaction, so a later version adds
a step and old databases follow. A database written by a newer program is refused rather than guessed at.
:class:`MemoryRoomStore` keeps nothing (tests, benchmarks' in-memory figure). A server database later means
one more implementation.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gamecore.errors import brief

#: the schema's steps: MIGRATIONS[i] takes a database from user_version i to i + 1
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE rooms (
        id TEXT PRIMARY KEY,
        game TEXT NOT NULL,
        options TEXT NOT NULL,
        position TEXT,
        seats TEXT NOT NULL,
        ai_speed TEXT NOT NULL,
        seed INTEGER NOT NULL,
        created REAL NOT NULL,
        version INTEGER NOT NULL DEFAULT 0,
        status TEXT NOT NULL DEFAULT 'open',
        record_id TEXT,
        ended REAL
    );
    CREATE INDEX rooms_by_status ON rooms (status);
    CREATE TABLE moves (
        room TEXT NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
        ply INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        action TEXT NOT NULL,
        move_id TEXT,
        version INTEGER NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (room, ply)
    ) WITHOUT ROWID;
    """,
    # turn clocks (issue 44): seconds per turn (NULL: none) and the turn's deadline (seconds since the epoch)
    """
    ALTER TABLE rooms ADD COLUMN clock INTEGER;
    ALTER TABLE rooms ADD COLUMN deadline REAL;
    """,
    # room life (issue 44): the host's token hash, the rematch room, and the chat (one row per line, its event
    # version as key so a resync can replay it)
    """
    ALTER TABLE rooms ADD COLUMN host_hash TEXT;
    ALTER TABLE rooms ADD COLUMN rematch TEXT;
    CREATE TABLE chat (
        room TEXT NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
        version INTEGER NOT NULL,
        seat INTEGER,
        name TEXT NOT NULL,
        text TEXT NOT NULL,
        at REAL NOT NULL,
        PRIMARY KEY (room, version)
    ) WITHOUT ROWID;
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)
_INSERT_MOVE = "INSERT INTO moves (room, ply, seat, action, move_id, version, at) VALUES (?, ?, ?, ?, ?, ?, ?)"
_INSERT_CHAT = "INSERT INTO chat (room, version, seat, name, text, at) VALUES (?, ?, ?, ?, ?, ?)"
_SET_VERSION = "UPDATE rooms SET version = ? WHERE id = ?"
#: deletes a room's chat lines older than its last ``keep`` (the chat table is bounded per room)
_TRIM_CHAT = (
    "DELETE FROM chat WHERE room = ? AND version <"
    " (SELECT MIN(version) FROM (SELECT version FROM chat WHERE room = ? ORDER BY version DESC LIMIT ?))"
)
#: a stored room's status: still played, finished (its record saved) or closed unfinished (expired)
STATUSES = ("open", "over", "expired")


class StorageError(RuntimeError):
    """The room database cannot be opened or written; the message names the file and the cause."""


def token_hash(token: str) -> str:
    """Return the SHA-256 hex digest a seat token is stored and compared as."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass
class StoredMove:
    """One accepted move of a stored room: its ply (0-based), seat, action (JSON) and client move id."""

    ply: int
    seat: int
    action: Any
    move_id: str | None
    version: int
    #: the deadline of the turn this move starts (rooms with a clock; stored as the room's, not per move)
    deadline: float | None = None


@dataclass
class StoredRoom:
    """What a room needs to be rebuilt: its set-up, seats (token hashes), version and moves so far."""

    id: str
    game: str
    options: Any
    position: Any
    seats: list[dict[str, Any]]
    ai_speed: str
    seed: int
    created: float
    version: int = 0
    moves: list[StoredMove] = field(default_factory=list)
    #: seconds per turn (None: no clock) and the current turn's deadline (time since the epoch)
    clock: int | None = None
    deadline: float | None = None
    #: the host's token, as its hash (None: a room without a host), and the rematch room once there is one
    host_hash: str | None = None
    rematch: str | None = None


@dataclass
class ClosedRoom:
    """A room whose game is no longer played: ``over`` (finished) or ``expired``, when, and what it was."""

    status: str
    ended: float | None
    room: StoredRoom


class RoomStore(ABC):
    """Where rooms live between restarts; every method commits before it returns."""

    @abstractmethod
    def create_room(self, room: StoredRoom) -> None:
        """Store a new room (no moves yet)."""

    @abstractmethod
    def append_move(self, room_id: str, move: StoredMove) -> None:
        """Store one accepted move, the room's new version and the next turn's deadline (the move's)."""

    @abstractmethod
    def set_version(self, room_id: str, version: int) -> None:
        """Store a room's new event version (an event that changes no game: a seat's presence)."""

    @abstractmethod
    def arrived(self, room_id: str, seats: list[dict[str, Any]], version: int, deadline: float | None) -> None:
        """Store a person's first arrival at a seat: the seats (each ``joined`` or not), the room's new version and
        its turn deadline (set once the last person has arrived: the clock waits for everyone)."""

    @abstractmethod
    def set_speed(self, room_id: str, speed: str, version: int) -> None:
        """Store a room's new AI speed and version."""

    @abstractmethod
    def add_chat(self, room_id: str, line: dict[str, Any], keep: int) -> None:
        """Store a chat line (``version``, ``seat``, ``name``, ``text``, ``at``) as the room's new version, in one
        commit, keeping the room's last ``keep`` lines."""

    @abstractmethod
    def chat_lines(self, room_id: str, limit: int) -> list[dict[str, Any]]:
        """Return a room's last ``limit`` chat lines, oldest first, as chat events (``type`` ``"chat"``)."""

    @abstractmethod
    def set_seats(self, room_id: str, seats: list[dict[str, Any]], version: int) -> None:
        """Store a room's seats (a player left, the host gave a seat away) and its new version, in one commit."""

    @abstractmethod
    def set_rematch(self, room_id: str, rematch: str, version: int) -> None:
        """Store the id of a finished room's rematch and the room's new version."""

    @abstractmethod
    def finish(self, room_id: str, status: str, record_id: str | None = None) -> None:
        """Mark a room ``over`` (with its record id) or ``expired``: it is not loaded again."""

    @abstractmethod
    def unfinished(self) -> list[StoredRoom]:
        """Return every open room with its moves, oldest first."""

    @abstractmethod
    def closed_room(self, room_id: str) -> ClosedRoom | None:
        """Return a finished or expired room with its moves ("Tus partidas" after a restart); None if none."""

    def close(self) -> None:  # noqa: B027 - stores without resources need not close
        """Release the store's resources."""


class MemoryRoomStore(RoomStore):
    """A store that keeps nothing: rooms live only as long as the server (tests, in-memory figures)."""

    def create_room(self, room: StoredRoom) -> None:
        pass

    def append_move(self, room_id: str, move: StoredMove) -> None:
        pass

    def set_version(self, room_id: str, version: int) -> None:
        pass

    def arrived(self, room_id: str, seats: list[dict[str, Any]], version: int, deadline: float | None) -> None:
        pass

    def set_speed(self, room_id: str, speed: str, version: int) -> None:
        pass

    def add_chat(self, room_id: str, line: dict[str, Any], keep: int) -> None:
        pass

    def chat_lines(self, room_id: str, limit: int) -> list[dict[str, Any]]:
        return []

    def set_seats(self, room_id: str, seats: list[dict[str, Any]], version: int) -> None:
        pass

    def set_rematch(self, room_id: str, rematch: str, version: int) -> None:
        pass

    def finish(self, room_id: str, status: str, record_id: str | None = None) -> None:
        pass

    def unfinished(self) -> list[StoredRoom]:
        return []

    def closed_room(self, room_id: str) -> ClosedRoom | None:
        return None


class SqliteRoomStore(RoomStore):
    """Rooms in one SQLite file (WAL), migrated to :data:`SCHEMA_VERSION` on open.

    ``synchronous="NORMAL"`` (the default) writes every commit to the log before it returns but lets the
    operating system put it on disk: a killed server loses nothing, a power cut may lose the last moves.
    ``"FULL"`` waits for the disk at every commit (``dw bench play`` measures both).
    """

    def __init__(self, path: Path | str, synchronous: str = "NORMAL") -> None:
        if synchronous not in ("FULL", "NORMAL"):
            raise ValueError(f"synchronous must be FULL or NORMAL, got {brief(synchronous)}")
        self.path = Path(path)
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=10.0)
        except (OSError, sqlite3.Error) as exc:
            raise StorageError(f"room database {self.path}: cannot open it ({exc})") from None
        try:
            self._refuse_newer()  # before any pragma writes to a file this program does not understand
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA synchronous={synchronous}")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._migrate()
        except sqlite3.Error as exc:
            self._db.close()
            raise StorageError(f"room database {self.path}: not a usable room database ({exc})") from None

    @property
    def schema_version(self) -> int:
        """Return the database's schema version (SQLite's ``user_version``)."""
        return int(self._db.execute("PRAGMA user_version").fetchone()[0])

    def _refuse_newer(self) -> None:
        found = self.schema_version
        if found > SCHEMA_VERSION:
            self._db.close()
            raise StorageError(
                f"room database {self.path}: schema version {found} is newer than this program's "
                f"{SCHEMA_VERSION}; use a newer dw or another --db"
            )

    def _migrate(self) -> None:
        for version in range(self.schema_version, SCHEMA_VERSION):
            self._db.execute("BEGIN IMMEDIATE")
            try:
                for statement in MIGRATIONS[version].split(";"):
                    if statement.strip():
                        self._db.execute(statement)
                self._db.execute(f"PRAGMA user_version={version + 1}")
                self._db.execute("COMMIT")
            except sqlite3.Error:
                self._db.execute("ROLLBACK")
                raise

    def _write(self, sql: str, params: tuple[Any, ...]) -> None:
        with self._lock:
            try:
                with self._db:
                    cursor = self._db.execute(sql, params)
            except sqlite3.Error as exc:
                raise StorageError(f"room database {self.path}: write failed ({exc})") from None
        if cursor.rowcount != 1:
            raise StorageError(f"room database {self.path}: no stored room for this write ({brief(params[-1])})")

    def create_room(self, room: StoredRoom) -> None:
        self._write(
            "INSERT INTO rooms (game, options, position, seats, ai_speed, seed, created, version, clock, deadline,"
            " host_hash, id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                room.game,
                json.dumps(room.options),
                None if room.position is None else json.dumps(room.position),
                json.dumps(room.seats),
                room.ai_speed,
                room.seed,
                room.created,
                room.version,
                room.clock,
                room.deadline,
                room.host_hash,
                room.id,
            ),
        )

    def append_move(self, room_id: str, move: StoredMove) -> None:
        row = (room_id, move.ply, move.seat, json.dumps(move.action), move.move_id, move.version, time.time())
        with self._lock:
            try:
                with self._db:
                    self._db.execute(_INSERT_MOVE, row)
                    update = "UPDATE rooms SET version = ?, deadline = ? WHERE id = ?"
                    self._db.execute(update, (move.version, move.deadline, room_id))
            except sqlite3.Error as exc:
                raise StorageError(f"room database {self.path}: could not store a move ({exc})") from None

    def set_version(self, room_id: str, version: int) -> None:
        self._write("UPDATE rooms SET version = ? WHERE id = ?", (version, room_id))

    def arrived(self, room_id: str, seats: list[dict[str, Any]], version: int, deadline: float | None) -> None:
        update = "UPDATE rooms SET seats = ?, version = ?, deadline = ? WHERE id = ?"
        self._write(update, (json.dumps(seats), version, deadline, room_id))

    def set_speed(self, room_id: str, speed: str, version: int) -> None:
        self._write("UPDATE rooms SET ai_speed = ?, version = ? WHERE id = ?", (speed, version, room_id))

    def add_chat(self, room_id: str, line: dict[str, Any], keep: int) -> None:
        row = (room_id, line["version"], line["seat"], line["name"], line["text"], line["at"])
        with self._lock:
            try:
                with self._db:
                    self._db.execute(_INSERT_CHAT, row)
                    if self._db.execute(_SET_VERSION, (line["version"], room_id)).rowcount != 1:
                        raise sqlite3.IntegrityError(f"no stored room {brief(room_id)}")
                    self._db.execute(_TRIM_CHAT, (room_id, room_id, keep))
            except sqlite3.Error as exc:
                raise StorageError(f"room database {self.path}: could not store a chat line ({exc})") from None

    def chat_lines(self, room_id: str, limit: int) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT version, seat, name, text, at FROM chat WHERE room = ? ORDER BY version DESC LIMIT ?",
                (room_id, limit),
            ).fetchall()
        return [
            {"version": v, "type": "chat", "seat": seat, "name": name, "text": text, "at": at}
            for v, seat, name, text, at in reversed(rows)
        ]

    def set_seats(self, room_id: str, seats: list[dict[str, Any]], version: int) -> None:
        self._write("UPDATE rooms SET seats = ?, version = ? WHERE id = ?", (json.dumps(seats), version, room_id))

    def set_rematch(self, room_id: str, rematch: str, version: int) -> None:
        self._write("UPDATE rooms SET rematch = ?, version = ? WHERE id = ?", (rematch, version, room_id))

    def finish(self, room_id: str, status: str, record_id: str | None = None) -> None:
        if status not in STATUSES[1:]:
            raise ValueError(f"status must be one of {STATUSES[1:]}, got {brief(status)}")
        self._write(
            "UPDATE rooms SET status = ?, record_id = ?, ended = ? WHERE id = ?",
            (status, record_id, time.time(), room_id),
        )

    def unfinished(self) -> list[StoredRoom]:
        with self._lock:
            rows = self._db.execute(
                "SELECT id, game, options, position, seats, ai_speed, seed, created, version, clock, deadline,"
                " host_hash, rematch FROM rooms WHERE status = 'open' ORDER BY created"
            ).fetchall()
            moves: dict[str, list[StoredMove]] = {}
            for room, ply, seat, action, move_id, version in self._db.execute(
                "SELECT room, ply, seat, action, move_id, version FROM moves"
                " WHERE room IN (SELECT id FROM rooms WHERE status = 'open') ORDER BY room, ply"
            ):
                moves.setdefault(room, []).append(StoredMove(ply, seat, json.loads(action), move_id, version))
        return [
            StoredRoom(
                rid,
                game,
                json.loads(opts),
                None if pos is None else json.loads(pos),
                json.loads(seats),
                speed,
                seed,
                created,
                version,
                moves.get(rid, []),
                clock,
                deadline,
                host,
                rematch,
            )
            for rid, game, opts, pos, seats, speed, seed, created, version, clock, deadline, host, rematch in rows
        ]

    def closed_room(self, room_id: str) -> ClosedRoom | None:
        with self._lock:
            row = self._db.execute(
                "SELECT game, options, position, seats, ai_speed, seed, created, version, clock, status, ended"
                " FROM rooms WHERE id = ? AND status != 'open'",
                (room_id,),
            ).fetchone()
            if row is None:
                return None
            moves = [
                StoredMove(ply, seat, json.loads(action), move_id, version)
                for ply, seat, action, move_id, version in self._db.execute(
                    "SELECT ply, seat, action, move_id, version FROM moves WHERE room = ? ORDER BY ply", (room_id,)
                )
            ]
        game, options, position, seats, speed, seed, created, version, clock, status, ended = row
        room = StoredRoom(
            room_id,
            game,
            json.loads(options),
            None if position is None else json.loads(position),
            json.loads(seats),
            speed,
            seed,
            created,
            version,
            moves,
            clock,
        )
        return ClosedRoom(status, ended, room)

    def counts(self) -> dict[str, int]:
        """Return how many rooms the database holds per status."""
        with self._lock:
            rows = self._db.execute("SELECT status, COUNT(*) FROM rooms GROUP BY status").fetchall()
        return {status: int(n) for status, n in rows}

    def close(self) -> None:
        with self._lock:
            self._db.close()


def default_db_path() -> Path:
    """Return the per-user room database: ``$XDG_DATA_HOME/domain-wheel/rooms.sqlite3`` (``~/.local/share``)."""
    import os

    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "domain-wheel" / "rooms.sqlite3"
