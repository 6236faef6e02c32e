"""The tutorial's 20 situations (Paso 1-20) as scenario files, run against the engine.

Each ``tests/scenarios/paso_NN.json`` holds a position, a short script of actions and the
observable outcomes the tutorial caption promises; ``tests/scenarios/README.md`` documents
the schema. One test id per Paso.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from helpers import coord, destinations, hold, king, knights, land, lib, owner, territory

from dw_env import position as pos
from dw_env.engine import Game, IllegalActionError, Move
from dw_env.info import PLAYER_NAMES, player_index
from dw_env.rules import layout as lay

SCENARIO_DIR = Path(__file__).parent / "scenarios"
SCENARIOS = sorted(SCENARIO_DIR.glob("paso_*.json"))
TOP_KEYS = {"title", "tutorial", "note", "rules", "show", "position", "actions", "expect"}
EXPECT_KEYS = {
    "turn",
    "round",
    "map",
    "land_points",
    "start_lands",
    "destinations",
    "movable",
    "kings",
    "knight_count",
    "knights_at",
    "new_knights",
    "holds",
    "liberations",
    "owners",
    "scores",
    "territory",
    "first_conquests",
    "countdown",
    "can_request_end",
    "over",
    "end_reason",
    "winners",
    "truncated",
}
MOVE_KINDS = set(lay.MOVE_KIND_NAMES)


def _pair(value: Any) -> tuple[int, int]:
    """Return a coordinate pair from ``[q, r]`` or its JSON text ``"[q, r]"`` (used as a mapping key)."""
    if isinstance(value, str):
        value = json.loads(value)
    assert isinstance(value, list) and len(value) == 2, f"expected a pair [x, y], got {value!r}"
    return int(value[0]), int(value[1])


def _kinds(value: str | list[str]) -> set[str]:
    kinds = {value} if isinstance(value, str) else set(value)
    assert kinds <= MOVE_KINDS, f"unknown move kind(s) {kinds - MOVE_KINDS}; allowed: {sorted(MOVE_KINDS)}"
    return kinds


class Runner:
    """Plays one scenario's actions and checks its expectations."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.game: Game = pos.from_dict(data["position"])
        self.initial_knights = {p: knights(self.game, p) for p in range(3)}

    # ---- actions ---------------------------------------------------------------------------
    def act(self, action: dict[str, Any], where: str) -> None:
        g = self.game
        if "expect" in action:
            assert set(action) == {"expect"}, f"{where}: a checkpoint holds only 'expect'"
            self.check(action["expect"], where)
            return
        illegal = action.get("illegal", False)
        repeat = action.get("repeat", 1)
        assert not (illegal and repeat != 1), f"{where}: an illegal action cannot repeat"
        for _ in range(repeat):
            if "move" in action:
                src, dst = (_pair(c) for c in action["move"])
                move = Move(g.geometry.cell_index(*src), g.geometry.cell_index(*dst))
            elif action.get("pass"):
                move = Move(lay.PASS)
            elif action.get("end_request"):
                move = Move(lay.END_REQUEST_ACTION)
            else:
                raise AssertionError(f"{where}: unknown action {action!r}")
            if illegal:
                before = (g.board.copy(), g.lands.copy(), g.scalars.copy())
                with pytest.raises(IllegalActionError):
                    g.play(move)
                assert all((a == b).all() for a, b in zip(before, (g.board, g.lands, g.scalars), strict=True)), (
                    f"{where}: an illegal action changed the game"
                )
                continue
            flags = g.play(move)
            if "kind" in action:
                got = {name for bit, name in enumerate(lay.MOVE_KIND_NAMES) if flags >> bit & 1}
                assert _kinds(action["kind"]) <= got, f"{where}: the move was a {sorted(got)}, not {action['kind']}"

    # ---- expectations ----------------------------------------------------------------------
    def check(self, expect: dict[str, Any], where: str) -> None:
        unknown = set(expect) - EXPECT_KEYS
        assert not unknown, f"{where}: unknown expect key(s) {sorted(unknown)}; allowed: {sorted(EXPECT_KEYS)}"
        for key, value in expect.items():
            getattr(self, f"_check_{key}")(value, f"{where} expect.{key}")

    def _check_turn(self, value: str, where: str) -> None:
        assert PLAYER_NAMES[self.game.turn] == value, f"{where}: {PLAYER_NAMES[self.game.turn]} is to act"

    def _check_round(self, value: int, where: str) -> None:
        assert self.game.round == value, f"{where}: round {self.game.round}"

    def _check_map(self, value: dict[str, int], where: str) -> None:
        g = self.game.geometry
        facts = {
            "lands": g.num_lands,
            "cells": g.num_cells,
            "cells_per_land": g.cells_per_land,
            "total_points": g.total_points,
            "end_request_points": g.end_request_points,
            "centre_min_points": g.centre_min_points,
        }
        for key, expected in value.items():
            assert facts[key] == expected, f"{where}.{key}: {facts[key]} != {expected}"

    def _check_land_points(self, value: dict[str, int], where: str) -> None:
        g = self.game
        for key, expected in value.items():
            got = int(g.geometry.land_points[land(g, _pair(key))])
            assert got == expected, f"{where}: land {key} is worth {got}, not {expected}"

    def _check_start_lands(self, value: dict[str, list[int]], where: str) -> None:
        g = self.game.geometry
        for name, ab in value.items():
            got = g.land_coord(int(g.start_lands[player_index(name)]))
            assert got == _pair(ab), f"{where}: {name} starts on {got}"

    def _check_destinations(self, value: dict[str, Any] | list[dict[str, Any]], where: str) -> None:
        checks = value if isinstance(value, list) else [value]
        for i, check in enumerate(checks):
            src = _pair(check["from"])
            dests = destinations(self.game, src)
            label = f"{where}[{i}] from {list(src)}"
            for key, kinds in check.get("include", {}).items():
                cell = _pair(key)
                assert cell in dests, f"{label}: {list(cell)} is not a destination; got {sorted(dests)}"
                assert _kinds(kinds) <= dests[cell], f"{label}: {list(cell)} is a {sorted(dests[cell])} move"
            for c in check.get("exclude", []):
                cell = _pair(c)
                assert cell not in dests, f"{label}: {list(cell)} should not be a destination ({dests[cell]})"
            if "count" in check:
                assert len(dests) == check["count"], f"{label}: {len(dests)} destinations: {sorted(dests)}"
            if "kinds_only" in check:
                allowed = _kinds(check["kinds_only"])
                odd = {c: k for c, k in dests.items() if not k <= allowed}
                assert not odd, f"{label}: destinations beyond {sorted(allowed)}: {odd}"

    def _check_movable(self, value: list[list[int]], where: str) -> None:
        got = {coord(self.game, c) for c in self.game.movable_pieces()}
        assert got == {_pair(c) for c in value}, f"{where}: movable pieces {sorted(got)}"

    def _check_kings(self, value: dict[str, list[int]], where: str) -> None:
        for name, c in value.items():
            got = king(self.game, player_index(name))
            assert got == _pair(c), f"{where}: {name}'s king is on {list(got)}"

    def _check_knight_count(self, value: dict[str, int], where: str) -> None:
        for name, n in value.items():
            got = len(knights(self.game, player_index(name)))
            assert got == n, f"{where}: {name} has {got} knights"

    def _check_knights_at(self, value: dict[str, list[list[int]]], where: str) -> None:
        for name, cells in value.items():
            have = knights(self.game, player_index(name))
            missing = {_pair(c) for c in cells} - have
            assert not missing, f"{where}: no {name} knight on {sorted(missing)}; knights: {sorted(have)}"

    def _check_new_knights(self, value: dict[str, list[list[int]]], where: str) -> None:
        for name, cells in value.items():
            p = player_index(name)
            now = knights(self.game, p)
            assert len(now) - len(self.initial_knights[p]) == len(cells), (
                f"{where}: {name} went from {len(self.initial_knights[p])} to {len(now)} knights"
            )
            for c in cells:
                assert _pair(c) in now - self.initial_knights[p], f"{where}: no new {name} knight on {c}"

    def _check_counters(self, value: list[list[Any]], where: str, read: Any) -> None:
        for name, ab, turns in value:
            got = read(self.game, player_index(name), _pair(ab))
            assert got == turns, f"{where}: {name} on land {ab} has {got} turns, not {turns}"

    def _check_holds(self, value: list[list[Any]], where: str) -> None:
        self._check_counters(value, where, hold)

    def _check_liberations(self, value: list[list[Any]], where: str) -> None:
        self._check_counters(value, where, lib)

    def _check_owners(self, value: dict[str, str | None], where: str) -> None:
        for key, expected in value.items():
            got = owner(self.game, _pair(key))
            assert got == expected, f"{where}: land {key} belongs to {got}"

    def _check_scores(self, value: dict[str, int], where: str) -> None:
        scores = self.game.scores()
        for name, expected in value.items():
            assert scores[player_index(name)] == expected, f"{where}: scores {scores}"

    def _check_territory(self, value: dict[str, list[list[int]]], where: str) -> None:
        for name, lands in value.items():
            got = territory(self.game, player_index(name))
            assert got == {_pair(ab) for ab in lands}, f"{where}: T({name}) = {sorted(got)}"

    def _check_first_conquests(self, value: dict[str, list[list[int]]], where: str) -> None:
        g = self.game
        for name, lands in value.items():
            row = g.lands[lay.FIRST + player_index(name)]
            got = {g.geometry.land_coord(int(i)) for i in row.nonzero()[0]}
            assert got == {_pair(ab) for ab in lands}, f"{where}: {name} first conquests {sorted(got)}"

    def _check_countdown(self, value: dict[str, Any] | None, where: str) -> None:
        got = self.game.countdown
        expected = None if value is None else (player_index(value["holder"]), value["turns_left"])
        assert got == expected, f"{where}: countdown {got}"

    def _check_can_request_end(self, value: bool, where: str) -> None:
        assert self.game.can_request_end() == value, f"{where}: can_request_end() is {not value}"

    def _check_over(self, value: bool, where: str) -> None:
        assert self.game.over == value, f"{where}: over is {self.game.over}"

    def _check_end_reason(self, value: str, where: str) -> None:
        assert self.game.end_reason == value, f"{where}: the game ended by {self.game.end_reason}"

    def _check_winners(self, value: list[str], where: str) -> None:
        got = [PLAYER_NAMES[p] for p in self.game.winners]
        assert sorted(got) == sorted(value), f"{where}: winners {got} (scores {self.game.scores()})"

    def _check_truncated(self, value: bool, where: str) -> None:
        assert self.game.truncated == value, f"{where}: truncated is {self.game.truncated}"


def test_one_scenario_per_paso() -> None:
    assert [p.name for p in SCENARIOS] == [f"paso_{i:02d}.json" for i in range(1, 21)]


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_tutorial_scenario(path: Path) -> None:
    data = json.loads(path.read_text())
    assert set(data) == TOP_KEYS, f"{path.name}: top-level keys must be {sorted(TOP_KEYS)}"
    assert data["tutorial"] and data["rules"], f"{path.name}: cite the caption and the rules"
    assert data["expect"], f"{path.name}: a scenario must expect something"
    runner = Runner(data)
    for i, action in enumerate(data["actions"]):
        runner.act(action, f"{path.name} actions[{i}]")
    runner.check(data["expect"], path.name)
