"""Smoke tests of ``dw play`` (a real server process on 127.0.0.1), ``dw bench play`` on a tiny budget,
and a learned checkpoint playing a seat of a room. Every wait is bounded.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.testclient import TestClient

from dw_cli.main import main
from play.server import ServerConfig, create_app

ROOT = Path(__file__).resolve().parents[1]


def test_dw_play_serves_the_page_and_api(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "dw_cli.main", "play", "--port", "0", "--no-browser", "--records", str(tmp_path)]
    cmd += ["--db", str(tmp_path / "rooms.sqlite3")]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 90
        line = ""
        while "serving" not in line and time.monotonic() < deadline and proc.poll() is None:
            line = proc.stdout.readline()
        assert "serving http://127.0.0.1:" in line, line
        url = line.split("serving ")[1].split()[0]
        assert httpx.get(url, timeout=10).status_code == 200
        menu = httpx.get(url + "api/menu", timeout=10).json()
        assert menu["games"][0]["id"] == "domain_wheel"
    finally:
        proc.terminate()
        proc.wait(timeout=20)


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["play", "--port", "70000"], "--port"),
        (["play", "--idle-expiry", "0"], "--idle-expiry"),
        (["play", "--max-rooms", "0"], "--max-rooms"),
        (["play", "--strategies", "/no/such/folder"], "no such folder"),
        (["play", "--idle-expiry", "nan"], "--idle-expiry must be a positive finite number of seconds, got nan"),
        (["play", "--idle-expiry", "inf"], "--idle-expiry must be a positive finite"),
        (["play", "--records", "/etc/passwd"], "--records must be a folder (games are saved in it), got the file"),
        (["play", "--allow-host", "evil.example/x"], "--allow-host takes a host name"),
    ],
)
def test_dw_play_refuses_bad_arguments(argv: list[str], needle: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert needle in capsys.readouterr().err


def test_bench_play_tiny_budget() -> None:
    from dw_cli.bench.play import run

    result: dict[str, Any] = run(seconds=1.0, games=3, stored=20)
    assert result["games"] == 3 and result["moves"] > 0 and result["errors"] == 0
    assert result["move_p50_ms"] <= result["move_p99_ms"]
    storage = result["storage"]
    assert storage["stored_rooms"] == 20 and storage["db_bytes_per_1000_finished"] > 0
    for row in ("sqlite_normal", "sqlite_full", "memory"):
        assert storage[row]["moves"] > 0 and storage[row]["p50_ms"] <= storage[row]["p99_ms"]
    with pytest.raises(ValueError, match="games"):
        run(seconds=1.0, games=0)


def test_a_checkpoint_plays_a_seat(tmp_path: Path) -> None:
    with TestClient(create_app(ServerConfig(records=tmp_path, ai_workers=1))) as client:
        body = {
            "options": {"land_radius": 1, "map_radius": 2},
            "seats": [
                {"type": "human"},
                {"type": "ai", "strategy": "checkpoint:small-agent.pt"},
                {"type": "ai", "strategy": "balanced"},
            ],
            "ai_speed": "instant",
        }
        room = client.post("/api/rooms", json=body).json()
        assert room["seats"][1]["name"] == "small-agent"
        with client.websocket_connect("/ws") as ws:
            ws.send_json({"type": "hello", "room": room["room"], "token": room["seats"][0]["token"]})
            assert ws.receive_json()["type"] == "welcome"
            ws.send_json({"type": "pass", "ply": 0})
            for _ in range(50):
                msg = ws.receive_json()
                if msg["type"] == "state" and msg["state"]["ply"] == 3:
                    break
            else:
                raise AssertionError("the AI seats did not answer")
            assert [e["seat"] for e in msg["state"]["log"]] == [0, 1, 2]


def test_listening_beyond_loopback_prints_how_to_serve_behind_tls() -> None:
    from dw_cli.commands.play import is_loopback_bind, tls_hint

    assert is_loopback_bind("127.0.0.1") and is_loopback_bind("localhost") and is_loopback_bind("::1")
    assert not is_loopback_bind("0.0.0.0") and not is_loopback_bind("192.168.1.5")
    hint = tls_hint("0.0.0.0")
    assert "0.0.0.0" in hint and "TLS reverse proxy" in hint and "--allow-host NAME" in hint
