"""A room's chat (issue 44, item 6): what a seated player may say, how often, and how a line becomes a room event.

A line is the seat's own words under the seat's name (no client-chosen name), 1-:data:`CHAT_LENGTH` characters
after stripping; newlines and tabs become spaces (a pasted paragraph still goes, as one line), any other control
character, a lone surrogate or a bidirectional override is refused. Text is data: it is stored and sent verbatim,
and escaping it is the page's job (it writes it with ``textContent``).

A line is an event of the room like a move: committed with the room's new version in one transaction before
anyone is told, broadcast as ``{"type": "chat", "version", "seat", "name", "text", "at"}`` (the sender's copy with
``re``), replayed in ``missed`` on resync. The room keeps its last ``CHAT_MEMORY`` lines in memory (sent in
``welcome``); the database keeps the last :data:`CHAT_STORED` per room. Rate: :data:`CHAT_BURST` lines at once,
then one every :data:`CHAT_REFILL_S` seconds, per client address and per seat, so neither a second tab nor a
second seat of the same address gets round it; one client's flood costs only that client.
"""

from __future__ import annotations

import logging
import math
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gamecore.errors import brief
from play.games import JSON, InputError
from play.limits import MAX_CLIENTS, TokenBucket
from play.protocol import Message
from play.room import Connection, Room
from play.storage import RoomStore, StorageError

log = logging.getLogger("play.chat")

#: the longest line, in characters (code points) after stripping
CHAT_LENGTH = 300
#: lines the database keeps per room (older ones are deleted in the commit that adds a new one)
CHAT_STORED = 1000
#: lines a client (or a seat) may send at once, then one more every CHAT_REFILL_S seconds (5 in 10 s from rest)
CHAT_BURST = 5
CHAT_REFILL_S = 2.0
#: line breaks (CRLF counts as one) and tabs become a space: a pasted multi-line text is sent as one line
_SPACES = re.compile(r"\r\n|[\r\n\t]")
#: bidirectional embeddings, overrides and isolates: they reorder the text around them on screen ("Trojan source")
_BIDI = frozenset(chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A)))


def check_text(value: Any) -> str:
    """Return a chat line's text, stripped, newlines as spaces; InputError ``bad_message`` naming the rule broken."""
    if not isinstance(value, str):
        raise InputError("bad_message", f"field 'text' must be a string, got {brief(value)}")
    text = _SPACES.sub(" ", value).strip()
    if not 0 < len(text) <= CHAT_LENGTH:
        raise InputError(
            "bad_message",
            f"a chat line must have 1-{CHAT_LENGTH} characters once stripped, got {len(text)}: {brief(text)}",
            {"min": 1, "max": CHAT_LENGTH},
        )
    for char in text:
        if char in _BIDI or unicodedata.category(char) in ("Cc", "Cs"):
            raise InputError(
                "bad_message",
                f"a chat line may not hold the control character U+{ord(char):04X} (in {brief(text)}); "
                "newlines and tabs become spaces, other control characters are refused",
                {"min": 1, "max": CHAT_LENGTH},
            )
    return text


@dataclass
class ChatLimits:
    """Chat buckets per client address and per seat (``room/seat``); :meth:`check` raises ``rate_limited``."""

    clock: Callable[[], float]
    burst: float = CHAT_BURST
    refill_s: float = CHAT_REFILL_S
    _buckets: dict[str, TokenBucket] = field(default_factory=dict)

    def check(self, client: str | None, room: str, seat: int) -> None:
        """Spend one line of the client and of the seat, or neither; InputError ``rate_limited`` with retry_after_s."""
        now = self.clock()
        keys = [f"seat {room}/{seat}"] + ([] if client is None else [f"client {client}"])
        buckets = [self._bucket(key, now) for key in keys]
        wait = max(_wait(b, now) for b in buckets)
        if wait > 0.0:
            retry = math.ceil(wait * 10) / 10
            raise InputError(
                "rate_limited",
                f"too many chat lines from this seat or address; retry in {retry:g} s",
                {"retry_after_s": round(wait, 3), "limit": f"{self.burst:g} at once, then 1 per {self.refill_s:g} s"},
            )
        for bucket in buckets:
            bucket.take(now)

    def _bucket(self, key: str, now: float) -> TokenBucket:
        bucket = self._buckets.pop(key, None) or TokenBucket(self.burst, 1.0 / self.refill_s, self.burst, now)
        self._buckets[key] = bucket  # most recently used last; the least recently used are forgotten first
        while len(self._buckets) > 2 * MAX_CLIENTS:
            del self._buckets[next(iter(self._buckets))]
        return bucket


def _wait(bucket: TokenBucket, now: float) -> float:
    """Return the seconds until ``bucket`` has a token (0.0: now), spending nothing."""
    tokens = min(bucket.capacity, bucket.tokens + max(0.0, now - bucket.stamp) * bucket.rate)
    return 0.0 if tokens >= 1.0 else (1.0 - tokens) / bucket.rate


async def say(
    room: Room, conn: Connection, seat: int, message: Message, limits: ChatLimits, store: RoomStore, now: float
) -> None:
    """Store a seated player's chat line as the room's next event, then tell everyone (the sender with ``re``)."""
    text = check_text(message.fields["text"])
    limits.check(conn.client, room.id, seat)
    async with room.lock:
        line: JSON = {
            "version": room.version + 1,
            "type": "chat",
            "seat": seat,
            "name": room.seats[seat].name,
            "text": text,
            "at": now,
            "ply": room.session.ply,  # said after the game's first `ply` inputs: where it goes among the board's events
        }
        try:
            store.add_chat(room.id, line, CHAT_STORED)
        except StorageError as exc:
            log.error("room %s: %s; the chat line is dropped", room.id, exc)
            raise InputError("storage_failed", "the server could not store this line, so nobody got it") from None
        room.version = line["version"]
        room.events.append(line)
        room.chat.append(line)
        for c in room.connections():
            c.post({**line, "re": message.id} if c is conn and message.id is not None else line)
