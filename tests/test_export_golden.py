"""The golden fixtures of tests/golden/ stay true: observation bytes, action mask and the shipped agent's action.

A port of the encoder (docs/OBSERVATION.md) checks itself against the same files; regenerate them with
``python tests/golden/generate.py`` only after a deliberate change of the layout or of the agent.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dw_env import position
from dw_env.envs.observation import OBSERVATION_VERSION
from dw_env.info import player_index
from policies.domain_wheel.two_phase import TwoPhaseDriver

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = sorted((ROOT / "tests" / "golden").glob("*.json"))
PACKAGE = ROOT / "checkpoints" / "small-agent"


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def _encode(fix: dict[str, Any]) -> tuple[Any, np.ndarray, np.ndarray]:
    game = position.from_dict(fix["position"])
    selected = -1 if fix["selected"] is None else game.geometry.cell_index(*fix["selected"])
    obs, mask = TwoPhaseDriver(game.options).encode(game, player_index(fix["viewer"]), selected)
    return game, obs.copy(), mask.copy()


def test_the_fixtures_cover_the_tutorial_both_phases_and_other_viewers() -> None:
    fixtures = [_load(p) for p in GOLDEN]
    assert len(fixtures) >= 20
    assert {f["phase"] for f in fixtures} == {1, 2}
    assert sum(f["source"].startswith("tests/scenarios/") for f in fixtures) >= 20
    assert any(not f["legal_actions"] for f in fixtures)  # a viewer not to act sees an all-zero mask
    assert {f["position"]["options"]["land_radius"] for f in fixtures} == {1, 2}


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.stem)
def test_observation_bytes_and_mask_match_the_fixture(path: Path) -> None:
    fix = _load(path)
    assert fix["observation_version"] == OBSERVATION_VERSION
    _, obs, mask = _encode(fix)
    expected = np.zeros(fix["observation"]["size"], np.int8)
    for i, v in fix["observation"]["nonzero"]:
        expected[i] = v
    assert obs.size == expected.size
    diff = np.flatnonzero(obs != expected)
    assert diff.size == 0, f"bytes differ at {diff[:10].tolist()}"
    assert hashlib.sha256(obs.tobytes()).hexdigest() == fix["observation"]["sha256"]
    assert "".join(map(str, mask)) == fix["mask"]
    assert mask.nonzero()[0].tolist() == fix["legal_actions"]


def test_the_shipped_agent_plays_the_fixtures_actions() -> None:
    pytest.importorskip("onnxruntime")
    from policies.domain_wheel.two_phase import map_key
    from policies.onnx_policy import OnnxGraph
    from policies.package import read_package

    package = read_package(PACKAGE)
    graphs = {spec.file: OnnxGraph(package, spec) for spec in package.graphs}
    checked = 0
    for path in GOLDEN:
        fix = _load(path)
        if "action" not in fix:
            continue
        game, obs, mask = _encode(fix)
        action, _ = graphs[package.graph_for(map_key(game.options)).file].run(obs[None], mask[None])
        assert int(action[0]) == fix["action"], path.name
        assert fix["action"] in fix["legal_actions"], path.name
        checked += 1
    assert checked >= 20
