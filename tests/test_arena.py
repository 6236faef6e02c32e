"""``dw arena`` end to end on a tiny map, its schedule, statistics, reproducibility and error messages."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import types
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from dw_cli.main import main
from dw_env.engine import Game, Move
from dw_env.options import GameOptions
from policies import registry
from policies.base import Policy
from training.evaluation.arena import schedule, select_games
from training.evaluation.arena_config import SEATINGS, ArenaConfig, build_lineups
from training.evaluation.arena_stats import finishing_order, summarize

TINY = ["--land-radius", "1", "--map-radius", "2", "--max-rounds", "30", "--no-progress"]


#: conftest's BiasedPlayer class, set by the ``biased`` fixture (a forked worker inherits it)
_PLAYER: dict[str, Any] = {}


def _player_class() -> Any:
    """Return conftest's BiasedPlayer: the fixture's, or (a spawned worker, where no fixture ran) conftest's own."""
    if "class" not in _PLAYER:
        from conftest import BiasedPlayer  # type: ignore[import-not-found]  # tests/ is on the path under pytest

        _PLAYER["class"] = BiasedPlayer
    return _PLAYER["class"]


class BiasedSeat(Policy):
    """Test seat: the rules tests' biased random player, which conquers, requests the end and wins games."""

    name = "biased"
    display_name = "Sesgada"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.player = _player_class()(seed or 0)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.player = _player_class()(seed)

    def act(self, game: Game, seat: int) -> Move:
        return self.player.choose(game)


@pytest.fixture
def biased(monkeypatch: pytest.MonkeyPatch, biased_player: type) -> str:
    """Register the biased test seat as "biased" for one test (the arena hands registrations to its workers)."""
    monkeypatch.setitem(_PLAYER, "class", biased_player)
    monkeypatch.setitem(registry._REGISTRY, "biased", (f"{__name__}:BiasedSeat", "Sesgada"))
    return "biased"


def _arena(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["arena", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _results_on_one_and_two_workers(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, player: str, seed: str
) -> list[str]:
    """Return results.json of the same 6-game gauntlet of ``player`` against random on 1 and on 2 workers."""
    texts = []
    for workers in ("1", "2"):
        out_dir = tmp_path / f"w{workers}"
        code, _, err = _arena(
            capsys,
            *("--players", player, "random", "--mode", "gauntlet", "--games", "6", "--seed", seed),
            *("--workers", workers, "--bootstrap", "20", "--out", str(out_dir), *TINY),
        )
        assert code == 0, err
        texts.append((out_dir / "results.json").read_text())
    return texts


# ---- end to end ------------------------------------------------------------------------------------------
def test_cli_smoke_writes_table_json_csv_chart_and_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from dw_env.record import GameRecord

    out_dir = tmp_path / "run"
    code, out, err = _arena(
        capsys,
        *("--players", "random", "--games", "6", "--workers", "1", "--bootstrap", "10"),
        *("--out", str(out_dir), "--save-games", "2", *TINY),
    )
    assert code == 0, err
    for heading in ("win rate", "95% CI", "rating", "seat-games", "1/k of a win", "truncation 100.0%"):
        assert heading in out
    assert [line.split()[0] for line in out.splitlines() if line.startswith(("blue", "green", "red"))] == [
        "blue",
        "green",
        "red",
    ]
    data = json.loads((out_dir / "results.json").read_text())
    assert data["overall"]["games"] == 6 and len(data["games"]) == 6
    assert data["config"]["options"]["map_radius"] == 2
    (random_row,) = data["strategies"]
    assert random_row["n"] == 18 and random_row["win_rate"] == 0.0  # truncated games have no winner (A57)
    assert random_row["endings"]["truncation"] == 1.0
    with (out_dir / "results.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 6 and rows[0]["strategy_blue"] == "random" and rows[0]["end_reason"] == "truncation"
    assert int(rows[0]["rounds"]) == 30 and "lands_mid_red" in rows[0]
    assert (out_dir / "chart.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    saved = data["saved_games"]
    assert len(saved) == 2 and all(s["same"] for s in saved)
    for s in saved:
        record = GameRecord.load(out_dir / s["file"])
        assert record.players == ["random"] * 3
        assert record.replay().scores() == data["games"][s["game"]]["scores"]


def test_same_seed_gives_identical_results_for_any_worker_count(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], biased: str
) -> None:
    texts = _results_on_one_and_two_workers(capsys, tmp_path, biased, "13")
    assert texts[0] == texts[1]
    data = json.loads(texts[0])
    assert data["config"]["lineups"] == [["biased", "random", "random"]]
    assert sum(r["end_reason"] != "truncation" for r in data["games"]) > 0  # the biased seat ends games


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_a_strategy_registered_at_run_time_plays_in_forked_and_spawned_workers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], biased: str, monkeypatch: pytest.MonkeyPatch, method: str
) -> None:
    """The arena spawns its workers after a Ray client ran or with policy files: registrations must reach them.

    Before the registry went to the workers' initializer, a spawned worker refused "biased" as unknown (CI saw it
    when this file ran in a test process where a cluster test had run a Ray client first).
    """
    monkeypatch.setattr("training.evaluation.arena.worker_start_method", lambda files: method)
    texts = _results_on_one_and_two_workers(capsys, tmp_path, biased, "13")
    assert texts[0] == texts[1]


def test_different_seed_gives_different_games(tmp_path: Path, biased: str) -> None:
    opts = GameOptions(land_radius=1, map_radius=2, max_rounds=30)
    from training.evaluation.arena import play_all

    runs = [
        play_all(ArenaConfig(((biased, biased, "random"),), 6, seed, opts), workers=1, progress=False)
        for seed in (1, 2)
    ]

    def outcomes(rows: list[dict[str, Any]]) -> list[Any]:
        return [(r["scores"], r["lands_mid"], r["lands_end"], r["plies"]) for r in rows]

    assert outcomes(runs[0]) != outcomes(runs[1])
    assert runs[0][0]["seeds"] != runs[1][0]["seeds"]


# ---- schedule --------------------------------------------------------------------------------------------
def test_every_seating_of_a_lineup_is_played_equally() -> None:
    tasks = schedule(ArenaConfig((("a", "b", "c"),), games_per_lineup=12))
    assert Counter(t.seating for t in tasks) == dict.fromkeys(range(6), 2)
    assert {t.seats for t in tasks} == {("a", "b", "c"), ("a", "c", "b"), ("b", "a", "c"), ("b", "c", "a")} | {
        ("c", "a", "b"),
        ("c", "b", "a"),
    }
    for seat in range(3):
        assert Counter(t.seats[seat] for t in tasks) == {"a": 4, "b": 4, "c": 4}
    uneven = schedule(ArenaConfig((("a", "b", "c"),), games_per_lineup=8))
    assert sorted(Counter(t.seating for t in uneven).values()) == [1, 1, 1, 1, 2, 2]
    assert [t.index for t in uneven] == list(range(8))
    assert len(SEATINGS) == 6


def test_modes_build_the_expected_lineups() -> None:
    rr = build_lineups("round-robin", ["random"])
    assert rr == [("random", "random", "random")]
    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(registry._REGISTRY, "x", ("policies.domain_wheel.random_policy:RandomPolicy", "X"))
        mp.setitem(registry._REGISTRY, "y", ("policies.domain_wheel.random_policy:RandomPolicy", "Y"))
        assert len(build_lineups("round-robin", ["random", "x", "y"])) == 10  # multisets of 3 from 3
        assert build_lineups("gauntlet", ["x", "random", "y"]) == [("x", "random", "random"), ("x", "y", "y")]
        assert build_lineups("lineup", lineups=["x, y,random"]) == [("x", "y", "random")]


# ---- statistics ------------------------------------------------------------------------------------------
def _row(game: int, strategies: list[str], scores: list[int], winners: list[str], reason: str) -> dict[str, Any]:
    leaders = [p for p, s in zip(("blue", "green", "red"), scores, strict=True) if s == max(scores)]
    return {
        "game": game,
        "lineup": 0,
        "seating": 0,
        "seeds": [0, 0, 0],
        "strategies": strategies,
        "scores": scores,
        "winners": winners,
        "leaders": leaders,
        "end_reason": reason,
        "rounds": 10,
        "plies": 30,
        "mid_round": 5,
        "lands_mid": [1, 1, 1],
        "lands_end": [1, 1, 1],
    }


def test_shared_wins_count_one_over_k_and_truncation_has_no_winner() -> None:
    config = ArenaConfig((("a", "b", "b"),), games_per_lineup=3, bootstrap=0)
    rows = [
        _row(0, ["a", "b", "b"], [30, 30, 5], ["blue", "green"], "end_request"),  # a and b share a win
        _row(1, ["b", "a", "b"], [9, 40, 2], ["green"], "centre"),
        _row(2, ["b", "b", "a"], [20, 1, 3], [], "truncation"),
    ]
    s = summarize(config, rows)
    a, b = s["strategies"]
    assert (a["name"], a["n"], a["wins"]) == ("a", 3, 1.5)
    assert (b["name"], b["n"], b["wins"]) == ("b", 6, 0.5)
    assert a["endings"]["truncation"] == pytest.approx(1 / 3)
    assert b["leader_rate"] == pytest.approx((0.5 + 1) / 6)
    assert [x["wins"] for x in s["seats"]] == [0.5, 1.5, 0.0]
    assert s["matrix"]["win_rate"][0][1] == pytest.approx(0.5)  # a's wins per seat-game against b
    assert s["matrix"]["win_rate"][1][1] == pytest.approx(0.5 / 6)  # every b seat-game has another b
    assert s["overall"]["rule_endings"] == pytest.approx(2 / 3)
    assert a["rating"] > b["rating"]
    assert finishing_order(rows[0], {"a": 0, "b": 1}) == [[0, 1], [1]]
    assert finishing_order(rows[2], {"a": 0, "b": 1}) == [[1], [0], [1]]
    assert select_games(rows, 2) == [0, 1]


# ---- errors ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("argv", "needles"),
    [
        (["--players", "random", "nosuch"], ["unknown strategy 'nosuch'", "allowed:", "random", "policy file"]),
        (["--lineup", "random,random"], ["exactly 3", "random,random"]),
        (["--lineup", "random,random,nosuch"], ["nosuch", "allowed"]),
        (["--players", "random", "--land-radius", "9"], ["--land-radius", "land_radius=9", "1..5"]),
        (["--players", "random", "--max-rounds", "0"], ["--max-rounds", "1..100000"]),
        (["--players", "random", "--mode", "gauntlet"], ["gauntlet", "at least one opponent"]),
        (["--players", "random", "--mode", "lineup"], ["--lineup"]),
        (["--players", "random", "--lineup", "random,random,random"], ["give either --players", "not both"]),
        (["--players", "random", "random"], ["'random' more than once"]),
        (["--players", "random", "--save-games", "2"], ["--save-games needs --out"]),
        ([], ["--players", "--lineup"]),
        (["--players", "missing/model.pt"], ["no such policy file", "missing/model.pt"]),
    ],
)
def test_bad_inputs_name_the_problem_and_what_is_allowed(
    argv: list[str], needles: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _arena(capsys, "--games", "1", "--workers", "1", *TINY, *argv)  # argv last: it wins
    assert code == 2 and out == ""
    for needle in needles:
        assert needle in err


def test_unsupported_policy_file_type_lists_the_supported_ones(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    weights = tmp_path / "agent.xyz"
    weights.write_text("not a policy")
    code, _, err = _arena(capsys, "--players", str(weights), "random", "--games", "1", "--workers", "1", *TINY)
    assert code == 2 and "no loader for this file type (.xyz); supported:" in err
    from policies.files import load_policy_file

    with pytest.raises(ValueError, match=r"no loader for this file type \(\.xyz\); supported"):
        load_policy_file(weights, seed=0)


@pytest.mark.parametrize("argv", [["--games", "0"], ["--workers", "zero"], ["--mode", "swiss"], ["--seed", "-1"]])
def test_bad_option_values_are_rejected_by_the_parser(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["arena", "--players", "random", *argv])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert argv[0] in err and ("must be an integer" in err or "invalid choice" in err)


def test_arena_modules_do_not_import_torch() -> None:
    modules = "training.evaluation.arena, training.evaluation.arena_report, dw_cli.commands.arena"
    code = f"import sys, {modules}; print('torch' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_table_warns_when_wins_go_one_way_only_between_strategies() -> None:
    from training.evaluation.arena_report import format_table

    config = ArenaConfig((("a", "b", "b"),), games_per_lineup=6, bootstrap=20)
    rows = [_row(i, ["a", "b", "b"], [30, 0, 0], ["blue"], "centre") for i in range(6)]
    table = format_table(summarize(config, rows))
    assert "groups that the data cannot rate against each other" in table and ": a | b." in table
    assert "win rate" in table and "centre" in table


def _load_fake_checkpoint(path: Path, seed: int | None) -> Policy:
    """A stand-in policy-file loader: the file plays like Random."""
    return registry.make("random", seed=seed)


def test_a_policy_file_can_take_a_seat(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from policies import files

    monkeypatch.setitem(files.LOADERS, ".fake", f"{__name__}:_load_fake_checkpoint")
    agent = tmp_path / "agent.fake"
    agent.write_text("weights")
    argv = ["--players", str(agent), "random", "--mode", "gauntlet", "--games", "6", "--workers", "1"]
    code, out, err = _arena(capsys, *argv, "--bootstrap", "10", "--out", str(tmp_path / "o"), *TINY)
    assert code == 0, err
    assert str(agent) in out
    data = json.loads((tmp_path / "o" / "results.json").read_text())
    assert data["config"]["lineups"] == [[str(agent), "random", "random"]]
    assert {s["name"] for s in data["strategies"]} == {str(agent), "random"}


def test_workers_fork_only_while_no_policy_file_or_ray_client_ran(monkeypatch: pytest.MonkeyPatch) -> None:
    from training.distributed import cluster
    from training.evaluation.arena import worker_start_method

    monkeypatch.setattr(cluster, "_attached", False)
    monkeypatch.delitem(sys.modules, "ray", raising=False)
    assert worker_start_method(files=False) == "fork"
    assert worker_start_method(files=True) == "spawn"
    # Ray's client threads outlive ray.shutdown(): a forked worker could hang on one of their locks
    monkeypatch.setattr(cluster, "_attached", True)
    assert worker_start_method(files=False) == "spawn"
    monkeypatch.setattr(cluster, "_attached", False)
    initialized = types.ModuleType("ray")
    initialized.is_initialized = lambda: True  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "ray", initialized)  # someone else's ray.init, still open
    assert worker_start_method(files=False) == "spawn"


def test_spawned_workers_play_the_same_games_as_one_worker(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from training.distributed import cluster

    monkeypatch.setattr(cluster, "_attached", True)  # as after a cluster run: spawn, not fork
    texts = _results_on_one_and_two_workers(capsys, tmp_path, "balanced", "5")
    assert texts[0] == texts[1]
