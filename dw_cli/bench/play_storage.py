"""``dw bench play``'s stored-rooms rows: the server's own time per move with the database commit, in-process.

A RoomManager holds ``stored`` rooms in a fresh SQLite database (play/storage.py), then plays ``games`` of them
at once on the standard map, every seat a scripted client choosing a random legal move, for ``seconds``; a game
that ends is replaced by a new room. The time of each move is measured around the server's handling of the
client's message (parse, rules, the commit, the state view, queueing the broadcast): the server alone, no
sockets. The run is made with the server's database (``synchronous=NORMAL``: a commit is in the log, a
killed server loses nothing), with every commit waiting for the disk (``FULL``) and with rooms in memory only,
one after the other. The database's
size per 1,000 finished games is measured apart: :data:`SIZE_GAMES` whole games (default options, Random against
Random against Random) stored move by move and finished, the file VACUUMed.
"""

from __future__ import annotations

import asyncio
import json
import random
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

#: whole games stored to measure the database's size per finished game
SIZE_GAMES = 20
#: the rows: where the rooms live
LABELS = {
    "sqlite_normal": "SQLite (WAL, synchronous=NORMAL, the server's)",
    "sqlite_full": "SQLite (WAL, synchronous=FULL)",
    "memory": "in memory",
}


async def _measure(store: Any, stored: int, games: int, seconds: float, records: Path) -> dict[str, Any]:
    from play import games as game_adapters
    from play.records import RecordStore
    from play.room import Connection
    from play.rooms import RoomManager
    from play.strategies import Catalogue

    manager = RoomManager(Catalogue([]), RecordStore(records), max_rooms=stored + games * 50, store=store)
    manager.start()
    body = {"seats": [{"type": "human"}] * 3, "ai_speed": "instant"}
    made = [await manager.create(body, game_adapters.get) for _ in range(stored)]
    times: list[float] = []
    finished = 0

    async def quiet(text: str) -> None:
        pass

    async def close(code: int) -> None:
        pass

    async def join(room_answer: dict[str, Any]) -> list[Any]:
        conns = []
        for seat in range(3):
            conn = Connection(quiet, close)
            hello = {"type": "hello", "room": room_answer["room"], "token": room_answer["seats"][seat]["token"]}
            await manager.handle_text(conn, json.dumps(hello))
            conns.append(conn)
        return conns

    async def drive(slot: int, conns: list[Any]) -> None:
        nonlocal finished
        rng = random.Random(slot)
        room_answer = made[slot]
        while time.perf_counter() < deadline:
            conns = conns or await join(room_answer)
            room = manager.rooms[room_answer["room"]]
            while not room.session.over and time.perf_counter() < deadline:
                seat = int(room.session.turn or 0)  # not over: a seat is to act
                text = json.dumps({**_legal(room, seat, rng), "ply": room.session.ply})
                t0 = time.perf_counter()
                await manager.handle_text(conns[seat], text)
                times.append(time.perf_counter() - t0)
                await asyncio.sleep(0)  # the other games' turn, as a server's event loop would interleave them
            for conn in conns:
                await manager.leave(conn)
            conns = []
            if room.session.over:
                finished += 1
                room_answer = await manager.create(body, game_adapters.get)

    first = [await join(made[i]) for i in range(games)]  # the clock starts once every game has its players
    t0 = time.perf_counter()
    deadline = t0 + seconds
    await asyncio.gather(*(drive(i, first[i]) for i in range(games)))
    elapsed = time.perf_counter() - t0
    await manager.shutdown()
    return {
        "moves": len(times),
        "moves_per_s": len(times) / elapsed,
        "p50_ms": float(np.percentile(times, 50) * 1e3) if times else float("nan"),
        "p99_ms": float(np.percentile(times, 99) * 1e3) if times else float("nan"),
        "finished": finished,
    }


def _legal(room: Any, seat: int, rng: random.Random) -> dict[str, Any]:
    """Return a random legal Domain Wheel input of ``seat`` (a move found by select, or a pass)."""
    movable = room.state()["movable"]
    for src in rng.sample(movable, len(movable)):
        destinations = room.session.select(seat, {"cell": src})["destinations"]
        if destinations:
            return {"type": "move", "from": src, "to": rng.choice(destinations)["to"]}
    return {"type": "pass"}


def _size_per_thousand_finished(db: Path, games: int) -> tuple[float, float]:
    """Return (bytes per 1,000 finished games, their mean plies): whole random games stored in a fresh ``db``."""
    from play.games import get
    from play.storage import SqliteRoomStore, StoredMove, StoredRoom
    from policies.registry import make

    adapter = get("domain_wheel")
    store = SqliteRoomStore(db)
    plies = 0
    for g in range(games):
        options = adapter.parse_options(None)
        seats = [{"type": "ai", "name": "Random", "strategy": "random", "token_hash": None}] * 3
        store.create_room(StoredRoom(f"g{g}", adapter.game_id, options.to_dict(), None, seats, "instant", g, 0.0))
        session = adapter.new_session(options, ["random"] * 3)
        policy = make("random", seed=g)
        while not session.over:
            seat, ply = int(session.turn or 0), session.ply
            action = session.ai_action(policy, session.ai_snapshot(), seat)
            session.apply(action)
            store.append_move(f"g{g}", StoredMove(ply, seat, [int(a) for a in action], None, ply + 1))
        store.finish(f"g{g}", "over", f"record-{g}")
        plies += session.ply
    store.close()
    with sqlite3.connect(db) as con:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        con.execute("VACUUM")
    return db.stat().st_size / games * 1000, plies / games


def run_storage(
    stored: int = 1000, games: int = 100, seconds: float = 5.0, size_games: int = SIZE_GAMES
) -> dict[str, Any]:
    """Measure moves/s and the server's p50/p99 time per move, stored in SQLite and in memory; print and return."""
    from play.storage import MemoryRoomStore, SqliteRoomStore

    if not 1 <= games <= stored <= 100_000:
        raise ValueError(f"need 1 <= games <= stored rooms <= 100000, got games={games!r}, stored={stored!r}")
    with tempfile.TemporaryDirectory(prefix="dw-bench-rooms-") as tmp:
        work = Path(tmp)
        rows = {
            "sqlite_normal": SqliteRoomStore(work / "normal.sqlite3"),
            "sqlite_full": SqliteRoomStore(work / "full.sqlite3", synchronous="FULL"),
            "memory": MemoryRoomStore(),
        }
        result: dict[str, Any] = {"stored_rooms": stored, "games": games}
        for name, store in rows.items():
            result[name] = asyncio.run(_measure(store, stored, games, seconds, work / f"records-{name}"))
        per_thousand, plies = _size_per_thousand_finished(work / "size.sqlite3", size_games)
    result["db_bytes_per_1000_finished"] = per_thousand
    result["finished_game_plies"] = plies
    print(
        f"  stored rooms: {stored} rooms in the database, {games} played at once (standard map, every seat a "
        f"scripted client), the server's own time per move, in-process, {seconds:.1f} s each"
    )
    for name, label in LABELS.items():
        row = result[name]
        print(
            f"    {label}: {row['moves']} moves, {row['moves_per_s']:.0f} moves/s; server time per move "
            f"p50 {row['p50_ms']:.2f} ms, p99 {row['p99_ms']:.2f} ms; {row['finished']} games finished"
        )
    print(
        f"    database size per 1,000 finished games: {per_thousand / 1e6:.1f} MB "
        f"({size_games} whole games of {plies:.0f} plies on average)"
    )
    return result
