"""``dw bench play``: the play server under many concurrent games, over loopback websockets.

The server (play/server.py on uvicorn) runs in a child process on 127.0.0.1 with a free port; this
process opens ``games`` rooms on the standard map, each with one scripted client in seat 0 (it selects a
random movable piece, then moves to a random destination the server offered, or passes) and two
Random AIs at instant speed played by the server. Every room's client keeps its websocket open; a game
that ends is replaced by a new room, so ``games`` stay in play. After a warm-up room, the clock runs for
``seconds``; then every client stops and the server is shut down (the child is terminated if it does
not exit). Nothing listens beyond 127.0.0.1 and the run is bounded in games and time.

Reported: moves/s (every ply of every room, AI and client alike, counted from the state broadcasts),
client move latency (from sending a move to receiving the state it produced: p50 and p99; this includes
the server's rules check, the state view of every broadcast and the queueing behind the other rooms)
and select latency (select -> destinations), with the count of error messages and failed connections.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing as mp
import os
import random
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

HOST = "127.0.0.1"
#: rooms driven at once
GAMES = 100
#: rooms held in the database for the stored-rooms rows
STORED_ROOMS = 1000
#: the most the setup (server start, rooms, connections) may take
SETUP_TIMEOUT = 120.0


def _serve(port_queue: Any, records: str, max_rooms: int) -> None:
    """Child process: serve the play app on 127.0.0.1 (a free port, reported through ``port_queue``)."""
    import socket

    import uvicorn

    from play.limits import LimitSettings
    from play.server import WS_MAX_SIZE, ServerConfig, create_app

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((HOST, 0))
    port_queue.put(sock.getsockname()[1])
    from play.games import available

    for adapter in available():  # compile before serving, so the first rooms do not wait for numba
        adapter.warm_up()
    # one address drives every room: the per-client limits would measure themselves, not the server
    settings = ServerConfig(
        records=Path(records), max_rooms=max_rooms, idle_expiry=60.0, ai_workers=2, limits=LimitSettings.off()
    )
    app = create_app(settings)
    config = uvicorn.Config(
        app, ws_max_size=WS_MAX_SIZE, ws_per_message_deflate=False, log_level="error", ws="websockets-sansio"
    )
    uvicorn.Server(config).run(sockets=[sock])


class Stats:
    """What the clients measured."""

    def __init__(self) -> None:
        self.move_latency: list[float] = []
        self.select_latency: list[float] = []
        self.plies = 0
        self.client_moves = 0
        self.errors = 0
        self.failures = 0
        self.games_finished = 0
        self.measuring = False
        self.elapsed = 0.0
        self.server_cpu = float("nan")
        self.client_cpu = float("nan")


async def _drive(base: str, slot: int, stats: Stats, stop: asyncio.Event, ready: asyncio.Event) -> None:
    """Play seat 0 of one room after another until ``stop`` is set."""
    import httpx
    from websockets.asyncio.client import connect

    rng = random.Random(slot)
    body = {
        "seats": [{"type": "human", "name": f"bench{slot}"}] + [{"type": "ai", "strategy": "random"}] * 2,
        "ai_speed": "instant",
        "seed": slot,
    }
    first = True
    async with httpx.AsyncClient(base_url=f"http://{base}", timeout=30.0) as http:
        while not stop.is_set():
            try:
                room = (await http.post("/api/rooms", json=body)).json()
                async with connect(f"ws://{base}/ws", max_size=2**23, open_timeout=30) as ws:
                    await ws.send(
                        json.dumps({"type": "hello", "room": room["room"], "token": room["seats"][0]["token"]})
                    )
                    if first:
                        ready.set()
                        first = False
                    await _play(ws, rng, stats, stop)
            except Exception:  # noqa: BLE001 - counted and reported; the slot opens a new room
                stats.failures += 1
                await asyncio.sleep(0.1)


async def _play(ws: Any, rng: random.Random, stats: Stats, stop: asyncio.Event) -> None:
    pending: tuple[str, int, float] | None = None  # (kind, ply, sent at)
    state: dict[str, Any] | None = None
    while not stop.is_set():
        try:
            raw = await asyncio.wait_for(ws.recv(), timeout=0.5)
        except TimeoutError:
            continue
        msg = json.loads(raw)
        kind = msg["type"]
        now = time.perf_counter()
        if kind == "error":
            stats.errors += 1
            pending = None
        elif kind == "destinations" and pending is not None and state is not None:
            if stats.measuring:
                stats.select_latency.append(now - pending[2])
            dests = msg["destinations"]
            if dests:
                move = {"type": "move", "from": msg["cell"], "to": rng.choice(dests)["to"], "ply": state["ply"]}
            else:
                move = {"type": "pass", "ply": state["ply"]}
            pending = ("move", state["ply"], time.perf_counter())
            await ws.send(json.dumps(move))
            continue
        elif kind in ("welcome", "state"):
            new = msg["state"]
            if state is not None and new["ply"] > state["ply"] and stats.measuring:
                stats.plies += new["ply"] - state["ply"]
            if pending is not None and pending[0] == "move" and new["ply"] == pending[1] + 1:
                if stats.measuring:
                    stats.move_latency.append(now - pending[2])
                    stats.client_moves += 1
                pending = None
            state = new
            if state["over"]:
                stats.games_finished += 1
                return
        if state is not None and state["turn"] == 0 and pending is None:
            if state["movable"]:
                pending = ("select", state["ply"], time.perf_counter())
                await ws.send(json.dumps({"type": "select", "cell": rng.choice(state["movable"])}))
            else:
                pending = ("move", state["ply"], time.perf_counter())
                await ws.send(json.dumps({"type": "pass", "ply": state["ply"]}))


def _process_cpu(pid: int | None) -> float:
    """Return a process's CPU seconds so far (Linux /proc), or nan where that cannot be read."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return float("nan")


async def _bench(base: str, games: int, seconds: float, server_pid: int | None = None) -> Stats:
    stats = Stats()
    stop = asyncio.Event()
    readies = [asyncio.Event() for _ in range(games)]
    tasks = [asyncio.create_task(_drive(base, i, stats, stop, readies[i])) for i in range(games)]
    try:
        await asyncio.wait_for(asyncio.gather(*(r.wait() for r in readies)), timeout=SETUP_TIMEOUT)
        await asyncio.sleep(1.0)  # every room has started playing
        stats.measuring = True
        t0, server0, client0 = time.perf_counter(), _process_cpu(server_pid), time.process_time()
        await asyncio.sleep(seconds)
        stats.measuring = False
        stats.elapsed = time.perf_counter() - t0
        stats.server_cpu = _process_cpu(server_pid) - server0
        stats.client_cpu = time.process_time() - client0
    finally:
        stop.set()
        await asyncio.wait(tasks, timeout=10)
        for task in tasks:
            task.cancel()
    return stats


def _percentile(values: list[float], q: float) -> float:
    return float(np.percentile(values, q) * 1e3) if values else float("nan")


def run(seconds: float = 5.0, games: int = GAMES, stored: int = STORED_ROOMS) -> dict[str, Any]:
    """Drive ``games`` concurrent rooms for ``seconds``; print and return moves/s and latencies.

    Then the stored-rooms rows (dw_cli/bench/play_storage.py): ``stored`` rooms in SQLite, ``games`` of them
    played at once, the server's own time per move with the commit next to the in-memory figure.
    """
    if not 0.1 <= seconds <= 3600:
        raise ValueError(f"seconds must be in 0.1..3600, got {seconds!r}")
    if not 1 <= games <= 1000:
        raise ValueError(f"games must be in 1..1000, got {games!r}")
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    with tempfile.TemporaryDirectory(prefix="dw-bench-play-") as records:
        server = ctx.Process(target=_serve, args=(queue, records, games * 3 + 10), daemon=True)
        server.start()
        try:
            port = queue.get(timeout=SETUP_TIMEOUT)
            base = f"{HOST}:{port}"
            _wait_up(base)
            stats = asyncio.run(_bench(base, games, seconds, server.pid))
        finally:
            server.terminate()
            server.join(timeout=10)
            if server.is_alive():
                server.kill()
                server.join(timeout=5)
    elapsed = stats.elapsed or seconds
    result: dict[str, Any] = {
        "games": games,
        "seconds": elapsed,
        "moves": stats.plies,
        "moves_per_s": stats.plies / elapsed,
        "client_moves": stats.client_moves,
        "move_p50_ms": _percentile(stats.move_latency, 50),
        "move_p99_ms": _percentile(stats.move_latency, 99),
        "select_p50_ms": _percentile(stats.select_latency, 50),
        "select_p99_ms": _percentile(stats.select_latency, 99),
        "errors": stats.errors,
        "failed_connections": stats.failures,
        "games_finished": stats.games_finished,
        "server_cpu_s": stats.server_cpu,
        "client_cpu_s": stats.client_cpu,
        "load_average": os.getloadavg()[0],
    }
    print(
        f"dw bench play: {games} concurrent games on the standard map over ws://{HOST} (one scripted client "
        f"+ two Random AIs at instant speed each), {elapsed:.1f} s"
    )
    print(
        f"  {result['moves']} moves ({result['client_moves']} by clients), {result['moves_per_s']:.1f} moves/s; "
        f"client move latency p50 {result['move_p50_ms']:.1f} ms, p99 {result['move_p99_ms']:.1f} ms; "
        f"select p50 {result['select_p50_ms']:.1f} ms, p99 {result['select_p99_ms']:.1f} ms"
    )
    print(
        f"  errors {result['errors']}, failed connections {result['failed_connections']}, "
        f"games finished {result['games_finished']}"
    )
    print(
        f"  CPU while measuring: server process {stats.server_cpu:.1f} s, clients {stats.client_cpu:.1f} s "
        f"(of {elapsed:.1f} s wall); "
        f"load average {result['load_average']:.1f} on {os.cpu_count()} cores"
    )
    from dw_cli.bench.play_storage import run_storage

    size_games = min(games, 20)  # whole games stored for the database's size (a tiny run stores fewer)
    result["storage"] = run_storage(stored=max(stored, games), games=games, seconds=seconds, size_games=size_games)
    return result


def _wait_up(base: str) -> None:
    """Wait (bounded) until the server answers, and warm it up with one room."""
    import httpx

    deadline = time.monotonic() + SETUP_TIMEOUT
    while True:
        try:
            httpx.get(f"http://{base}/api/menu", timeout=5.0).raise_for_status()
            break
        except httpx.HTTPError:
            if time.monotonic() > deadline:
                raise TimeoutError(f"the play server on {base} did not start within {SETUP_TIMEOUT:.0f} s") from None
            time.sleep(0.2)
    warm = {"seats": [{"type": "human"}, {"type": "ai", "strategy": "random"}, {"type": "ai", "strategy": "random"}]}
    httpx.post(f"http://{base}/api/rooms", json=warm, timeout=60.0).raise_for_status()
