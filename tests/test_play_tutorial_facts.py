"""The tutorial shows what it says (rule 11.11): each step's stated facts hold at the moment its board shows.

Every ``tests/scenarios/paso_NN.json`` names, under ``show``, the moment its text speaks of (``before`` its
actions, at its first ``checkpoint`` or ``after`` them), the cells the page keeps in sight (``focus``) and the
facts its text states (``facts``). The facts are checked twice: against the engine, by playing the scenario up
to that moment, and against the view the server sends the page for it (the badge's "1/4", the banner's round).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from test_tutorial_scenarios import EXPECT_KEYS, Runner

from play.games.domain_wheel import DomainWheelAdapter

SCENARIO_DIR = Path(__file__).parent / "scenarios"
SCENARIOS = sorted(SCENARIO_DIR.glob("paso_*.json"))
#: facts read from the served view: what the board, its badges and the banner draw
VIEW_FACTS = {"round", "conquest_progress", "liberation_progress"}
FRAMES = {"before", "checkpoint", "after"}


@pytest.fixture(scope="module")
def served() -> dict[str, Any]:
    return {s["id"]: s for s in DomainWheelAdapter().tutorial()["steps"]}


def _engine_at_frame(data: dict[str, Any]) -> Runner:
    """Return a runner that has played the scenario up to the moment its step shows."""
    runner = Runner(data)
    frame = data["show"]["frame"]
    for i, action in enumerate(data.get("actions", []) if frame != "before" else []):
        if frame == "checkpoint" and "expect" in action:
            break
        runner.act(action, f"actions[{i}]")
    return runner


def _progress(view: dict[str, Any], mode: str) -> list[int] | None:
    """Return the badge a view draws for its first conquest or liberation, as [held, needed]."""
    taking = [t for t in view["taking"] if t["mode"] == mode]
    return [taking[0]["held"], taking[0]["needed"]] if taking else None


def _view_fact(view: dict[str, Any], key: str) -> Any:
    if key == "conquest_progress":
        return _progress(view, "conquest")
    if key == "liberation_progress":
        return _progress(view, "liberation")
    return view[key]


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_rule_11_11_each_step_states_facts_its_board_shows(path: Path, served: dict[str, Any]) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    show = data["show"]
    assert show["frame"] in FRAMES, f"{path.name}: show.frame {show['frame']!r}; allowed {sorted(FRAMES)}"
    facts = show["facts"]
    assert facts, f"{path.name}: a step states at least one fact"
    unknown = set(facts) - EXPECT_KEYS - VIEW_FACTS
    assert not unknown, f"{path.name}: unknown fact(s) {sorted(unknown)}"
    runner = _engine_at_frame(data)
    runner.check({k: v for k, v in facts.items() if k in EXPECT_KEYS}, f"{path.stem} show.facts")
    view = served[path.stem]["frame_view"]
    for key in VIEW_FACTS & set(facts):
        assert _view_fact(view, key) == facts[key], f"{path.stem}: the page shows {key} = {_view_fact(view, key)}"
    # the served view is the engine's state at that moment, not another moment of the script
    assert (view["round"], view["turn"], view["over"]) == (
        runner.game.round,
        None if runner.game.over else runner.game.turn,
        runner.game.over,
    ), f"{path.stem}: the page shows another moment than show.frame"


def test_rule_11_11_step_6_shows_one_of_four_and_step_7_a_later_round(served: dict[str, Any]) -> None:
    """The issue's two drifts: step 6 says 1/4 (the board showed 2/4); step 7 follows a four-turn conquest."""
    assert _progress(served["paso_06"]["frame_view"], "conquest") == [1, 4]
    assert served["paso_07"]["frame_view"]["round"] >= 4
    assert served["paso_07"]["show"]["mark"] == [16, -7]
    assert {"cell": [16, -7], "player": 0, "kind": "knight"} in served["paso_07"]["frame_view"]["pieces"]


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_rule_11_11_each_step_frames_cells_on_the_map(path: Path, served: dict[str, Any]) -> None:
    """A step's focus is "map" (the overview) or cells of the map that the page keeps in sight."""
    focus = json.loads(path.read_text(encoding="utf-8"))["show"]["focus"]
    if focus == "map":
        return
    runner = Runner(json.loads(path.read_text(encoding="utf-8")))
    assert focus and all(len(c) == 2 for c in focus)
    for q, r in focus:
        runner.game.geometry.cell_index(q, r)  # ValueError for a cell off the map
    assert served[path.stem]["show"]["focus"] == focus
