"""A real ``dw play`` killed with SIGKILL mid-game and started again on the same ``--db`` carries the game
on: the room, its moves, the seat token and the AI seats are back, and a move resent with its client move
id after the kill is applied at most once. Every wait is bounded; nothing listens beyond 127.0.0.1.
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from websockets.sync.client import connect

ROOT = Path(__file__).resolve().parents[1]
KILLS = 3
#: safety nets (seconds): a server start (imports, compiled kernels) and one websocket read
START_S = 120.0
READ_S = 60.0


@contextmanager
def dw_play(tmp_path: Path) -> Iterator[str]:
    """Run ``dw play`` on a free port with the test's database; yield its URL; SIGKILL it at the end."""
    cmd = [sys.executable, "-m", "dw_cli.main", "play", "--port", "0", "--no-browser"]
    cmd += ["--records", str(tmp_path / "records"), "--db", str(tmp_path / "rooms.sqlite3")]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + START_S
        line = ""
        while "serving" not in line and time.monotonic() < deadline and proc.poll() is None:
            line = proc.stdout.readline()
        assert "serving http://127.0.0.1:" in line, line
        assert str(tmp_path / "rooms.sqlite3") in line
        yield line.split("serving ")[1].split()[0]
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)


def read_until(ws: Any, pred: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    for _ in range(2000):
        message: dict[str, Any] = json.loads(ws.recv(timeout=READ_S))
        if pred(message):
            return message
    raise AssertionError("no matching message")


def ask(ws: Any, message: dict[str, Any], re: str) -> dict[str, Any]:
    ws.send(json.dumps({**message, "id": re}))
    return read_until(ws, lambda m: m.get("re") == re)


def a_move(ws: Any, state: dict[str, Any], rng: random.Random, move_id: str) -> dict[str, Any]:
    for src in rng.sample(state["movable"], len(state["movable"])):
        found = ask(ws, {"type": "select", "cell": src}, "s")["destinations"]
        if found:
            return {"type": "move", "from": src, "to": rng.choice(found)["to"], "move_id": move_id}
    return {"type": "pass", "move_id": move_id}


def test_sigkilled_dw_play_restarts_with_every_acknowledged_move(tmp_path: Path) -> None:
    rng = random.Random(44)
    room: dict[str, Any] = {}
    acked, version = 0, 0
    last_move: dict[str, Any] | None = None
    for kill in range(KILLS + 1):
        with dw_play(tmp_path) as url:
            if not room:
                body = {
                    "options": {"land_radius": 1, "map_radius": 2},
                    "seats": [{"type": "human"}, *[{"type": "ai", "strategy": "random"}] * 2],
                    "ai_speed": "instant",
                }
                room = httpx.post(url + "api/rooms", json=body, timeout=30).json()
            ws_url = url.replace("http://", "ws://") + "ws"
            with connect(ws_url, open_timeout=READ_S) as ws:
                hello = {"type": "hello", "room": room["room"], "token": room["seats"][0]["token"]}
                welcome = ask(ws, {**hello, "version": version} if kill else hello, "hello")
                assert welcome["type"] == "welcome", welcome
                state = welcome["state"]
                assert state["ply"] >= acked and welcome["version"] >= version  # nothing acknowledged was lost
                if last_move is not None:  # the last move again, as a client whose answer was lost would
                    again = ask(ws, last_move, "again")
                    assert again["type"] == "state" and again.get("duplicate") == acked - 1, again  # not replayed
                    state = again["state"]  # the game as it is now (the AIs may have played meanwhile)
                for n in range(3):
                    if state["turn"] != 0:  # the (restored) AIs play their turns first
                        state = read_until(ws, lambda m: m.get("type") == "state" and m["state"]["turn"] == 0)["state"]
                    last_move = a_move(ws, state, rng, f"k{kill}-{n}")
                    answer = ask(ws, last_move, f"m{kill}-{n}")
                    assert answer["type"] == "state", answer
                    state, acked, version = answer["state"], answer["state"]["ply"], answer["version"]
        # leaving the block SIGKILLs the server right after the last acknowledgement
    assert acked >= 3 * (KILLS + 1)
