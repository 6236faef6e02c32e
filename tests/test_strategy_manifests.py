"""A bad strategy package in ``--strategies`` is skipped with a warning naming it and why (issue 45, finding 5).

A deeply nested ``strategy.json`` used to raise RecursionError out of the menu's discovery: ``dw play`` crashed at
start-up, and a package added while it ran turned ``/api/menu`` and room creation into 500s.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from play.server import ServerConfig, create_app
from play.strategies import MANIFEST_LIMIT, Catalogue

DEEP = "[" * 200_000 + "]" * 200_000
ROOM = {
    "options": {"land_radius": 1, "map_radius": 2},
    "seats": [{"type": "human", "name": "Ana"}, {"type": "ai", "strategy": "package:deep"}, {"type": "ai"}],
    "ai_speed": "instant",
}


def _package(root: Path, name: str, text: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "strategy.json").write_text(text)
    return folder


def _good(root: Path) -> None:
    _package(root, "good", json.dumps({"name": "good", "description": "a fine card"}))


@pytest.mark.parametrize(
    ("text", "why"),
    [(DEEP, "nested too deeply"), (" " * (MANIFEST_LIMIT + 1), "larger than"), ("{not json", "not valid JSON")],
)
def test_a_bad_manifest_is_skipped_with_a_warning_naming_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, text: str, why: str
) -> None:
    folder = _package(tmp_path, "deep", text)
    _good(tmp_path)
    with caplog.at_level(logging.WARNING, logger="play.strategies"):
        ids = {s.id for s in Catalogue([tmp_path]).entries()}
        Catalogue([tmp_path]).entries()  # the same file again: no second warning
    assert "package:good" in ids and "package:deep" not in ids
    warnings = [r.getMessage() for r in caplog.records if str(folder) in r.getMessage()]
    assert len(warnings) == 1 and why in warnings[0], warnings


def test_the_server_starts_and_answers_with_a_bad_package_present_or_added_later(tmp_path: Path) -> None:
    agents = tmp_path / "agents"
    _package(agents, "deep", DEEP)
    with TestClient(create_app(ServerConfig(strategies=[agents], records=tmp_path / "r"))) as client:
        assert client.get("/api/menu").status_code == 200
        _package(agents, "later", DEEP)  # found while the server runs
        menu = client.get("/api/menu")
        assert menu.status_code == 200
        ids = {s["id"] for s in menu.json()["strategies"]}
        assert not {"package:deep", "package:later"} & ids
        room = client.post("/api/rooms", json=ROOM)
    assert room.status_code == 400 and room.json()["error"]["code"] == "unknown_strategy"
