"""Per-client limits of the play server: token buckets for room creation and websocket messages, a cap of live
rooms per client (docs/PLAY.md, "Limits and robustness").

A client is its peer address. Time comes from an injected clock (``time.monotonic`` unless told), so a test
drives the buckets by moving its own clock instead of sleeping. One client emptying its buckets costs only that
client: every other address keeps its own.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

from play.games import InputError

Clock = Callable[[], float]
#: buckets kept at once; the fullest (least recently used) are forgotten first, so a flood of addresses
#: costs bounded memory
MAX_CLIENTS = 4096


@dataclass(frozen=True)
class LimitSettings:
    """How much one client (peer address) may do."""

    #: rooms a client may create at once, then one more every ``room_refill_s`` seconds
    room_burst: float = 30
    room_refill_s: float = 2.0
    #: rooms a client may hold at once (created by it and not yet expired)
    rooms_per_client: float = 50
    #: websocket messages a client may send at once, then ``message_rate`` more per second
    message_burst: float = 200
    message_rate: float = 50.0
    #: "Tus partidas" look-ups (POST /api/my-games) a client may make at once, then ``lookup_rate`` more per second
    lookup_burst: float = 30
    lookup_rate: float = 0.5

    @classmethod
    def off(cls) -> LimitSettings:
        """Return settings that never refuse (``dw bench play`` drives 100 rooms from one address)."""
        return cls(math.inf, 0.0, math.inf, math.inf, math.inf, lookup_burst=math.inf, lookup_rate=math.inf)


@dataclass
class TokenBucket:
    """``capacity`` tokens, refilled at ``rate`` per second; :meth:`take` spends one or says when to retry."""

    capacity: float
    rate: float
    tokens: float
    stamp: float

    def take(self, now: float) -> float:
        """Spend one token and return 0.0; or return the seconds until one is available (nothing spent)."""
        if math.isinf(self.capacity):
            return 0.0
        self.tokens = min(self.capacity, self.tokens + max(0.0, now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return 0.0
        return math.inf if self.rate <= 0 else (1.0 - self.tokens) / self.rate


@dataclass
class ClientLimits:
    """Every client's buckets and rooms; :meth:`check_room` and :meth:`check_message` raise ``rate_limited``."""

    settings: LimitSettings = field(default_factory=LimitSettings)
    clock: Clock = time.monotonic
    _rooms: dict[str, TokenBucket] = field(default_factory=dict)
    _messages: dict[str, TokenBucket] = field(default_factory=dict)
    _owned: dict[str, set[str]] = field(default_factory=dict)
    _lookups: dict[str, TokenBucket] = field(default_factory=dict)

    def check_room(self, client: str, live_rooms: Collection[str]) -> None:
        """Spend one room creation of ``client``; InputError ``rate_limited`` naming when to retry otherwise.

        ``live_rooms`` is the server's rooms now: a room that expired no longer counts against its creator.
        """
        s = self.settings
        owned = self._owned.get(client, set())
        owned &= set(live_rooms)
        if len(owned) >= s.rooms_per_client:
            raise InputError(
                "rate_limited",
                f"this address already holds {len(owned)} rooms (limit {s.rooms_per_client:g} per client); "
                "retry once one of them has ended or expired",
                {"rooms_per_client": s.rooms_per_client},
            )
        bucket = _bucket(self._rooms, client, s.room_burst, 1.0 / s.room_refill_s if s.room_refill_s else 0.0, self)
        _refuse_after(
            bucket.take(self.clock()), "room creations", f"{s.room_burst:g} at once, then 1 per {s.room_refill_s:g} s"
        )

    def created(self, client: str, room_id: str) -> None:
        """Count ``room_id`` as one of ``client``'s live rooms."""
        self._owned.setdefault(client, set()).add(room_id)
        _forget_oldest(self._owned)

    def check_message(self, client: str) -> None:
        """Spend one websocket message of ``client``; InputError ``rate_limited`` naming when to retry otherwise."""
        s = self.settings
        bucket = _bucket(self._messages, client, s.message_burst, s.message_rate, self)
        _refuse_after(
            bucket.take(self.clock()), "messages", f"{s.message_burst:g} at once, then {s.message_rate:g} per s"
        )

    def check_lookup(self, client: str) -> None:
        """Spend one "Tus partidas" look-up of ``client``; InputError ``rate_limited`` saying when to retry else."""
        s = self.settings
        bucket = _bucket(self._lookups, client, s.lookup_burst, s.lookup_rate, self)
        allowed = f"{s.lookup_burst:g} at once, then {s.lookup_rate:g} per s"
        _refuse_after(bucket.take(self.clock()), "look-ups of your games", allowed)


def _bucket(
    buckets: dict[str, TokenBucket], client: str, capacity: float, rate: float, owner: ClientLimits
) -> TokenBucket:
    bucket = buckets.pop(client, None)
    if bucket is None:
        bucket = TokenBucket(capacity, rate, capacity, owner.clock())
    buckets[client] = bucket  # most recently used last
    _forget_oldest(buckets)
    return bucket


def _forget_oldest(table: dict[str, Any]) -> None:
    while len(table) > MAX_CLIENTS:
        del table[next(iter(table))]


def _refuse_after(wait: float, what: str, allowed: str) -> None:
    if wait <= 0.0:
        return
    retry = "later" if math.isinf(wait) else f"in {math.ceil(wait * 10) / 10:g} s"
    raise InputError(
        "rate_limited",
        f"too many {what} from this address; retry {retry}",
        {"retry_after_s": None if math.isinf(wait) else round(wait, 3), "limit": allowed},
    )
