"""Smoke tests of ``dw bench engine --game frontera`` (dw_cli/bench/frontera_engine.py) and of ``dw bench train``'s
Frontera cases (dw_cli/bench/frontera_cases.py), at their smallest budgets."""

from __future__ import annotations

import math

import pytest

from dw_cli.bench import frontera_engine
from dw_cli.commands import bench


def test_bench_reports_both_drivers_on_every_map_games_per_player_count_and_ratios(
    capsys: pytest.CaptureFixture[str],
) -> None:
    results = frontera_engine.run(0.1, games=1)  # one game per compiled call keeps it short
    out = capsys.readouterr().out
    for size in frontera_engine.MAPS:
        for driver in ("Python API", "compiled loop"):
            label = f"{size}, {driver}"
            assert results[label] > 0 and math.isfinite(results[label]) and label in out
            for ref in ("go 19x19", "backgammon"):
                us = results[f"OpenSpiel {ref}"]
                assert us is None or us > 0
                ratio = results[f"{label} / {ref}"]
                assert ratio is None if us is None else ratio == pytest.approx(results[label] / us)
    for players in frontera_engine.PLAYER_COUNTS:
        assert results[f"games/s, {players} players"] > 0 and f"{players} players" in out
    assert "OpenSpiel go 19x19 (reference)" in out and "OpenSpiel backgammon (reference)" in out


@pytest.mark.parametrize("seconds", [0.0, float("nan"), float("inf")])
def test_bench_refuses_bad_budgets(seconds: float) -> None:
    with pytest.raises(ValueError, match="seconds must be in 0.1..3600"):
        frontera_engine.run(seconds)


@pytest.mark.parametrize("games", [0, 5000, 2.0, True])
def test_bench_refuses_bad_game_counts(games: object) -> None:
    with pytest.raises(ValueError, match="games must be an integer in 1..4096, got"):
        frontera_engine.run(1.0, games=games)  # type: ignore[arg-type]


def test_dw_bench_engine_offers_frontera() -> None:
    assert "frontera" in bench.GAMES
    assert bench.GAME_BENCHMARKS[("engine", "frontera")] == frontera_engine.__name__


# ---- dw bench train's Frontera cases (dw_cli/bench/frontera_cases.py) -------------------------------------
def test_the_train_cases_run_configs_frontera_yaml_changing_only_the_threads(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from dw_cli.bench import frontera_cases
    from training.ppo.config import load

    shipped = load(frontera_cases.CONFIG)
    one, cores = (frontera_cases.bench_config(60, str(tmp_path), frontera_cases.CASES[c]) for c in frontera_cases.CASES)
    for config in (one, cores):
        assert config.options == shipped.options and config.network == shipped.network and config.env == shipped.env
        assert config.ppo == shipped.ppo and config.league == shipped.league
        assert config.imitation.teacher == "none" and config.eval.final_games == 0 and config.run.max_minutes == 1.0
    assert one.run.network_threads == 1 and cores.run.network_threads == 0
    assert one.run.model_dump(exclude={"network_threads"}) == cores.run.model_dump(exclude={"network_threads"})
    assert bench.GAME_BENCHMARKS[("train", "frontera")] == "dw_cli.bench.frontera_train"


def test_a_train_case_measures_whole_updates_past_the_first(monkeypatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The measurement itself, on configs/frontera_smoke.yaml's budget (3 updates: the last 2 measured)."""
    from dw_cli.bench import frontera_cases, train

    monkeypatch.setattr(frontera_cases, "CONFIG", frontera_cases.CONFIG.with_name("frontera_smoke.yaml"))
    assert train.case_runner("frontera") is frontera_cases.measure_here
    result = frontera_cases.measure_here("frontera", 600.0, str(tmp_path))
    assert result["updates"] == 2 and result["env_steps_per_s"] > 0 and 0 < result["rollout_share"] < 1
    assert result["decisions_per_s"] < result["env_steps_per_s"]  # the learner holds one seat of 3
    assert list(tmp_path.iterdir()) == []  # the run's folder goes with the measurement


def test_the_train_report_reads_frontera_against_domain_wheel_s_standard_map(capsys) -> None:  # type: ignore[no-untyped-def]
    from dw_cli.bench import frontera_cases

    rates = {"frontera": 500.0, "frontera, all cores": 800.0}

    def fake(case: str, seconds: float) -> dict[str, float]:
        assert seconds == frontera_cases.MIN_SECONDS
        return {"env_steps_per_s": rates[case], "decisions_per_s": 200.0, "rollout_share": 0.3, "updates": 3}

    results = {"standard": {"env_steps_per_s": 2000.0}}
    frontera_cases.report(results, 1.0, fake)
    out = capsys.readouterr().out
    assert results["frontera_vs_standard"] == 0.25 and results["frontera_all_cores_vs_one"] == 1.6
    assert "500 env steps/s = 0.25x Domain Wheel's standard map (2,000)" in out and "= 1.60x one core" in out


def test_dw_bench_train_game_frontera_measures_its_reference_in_the_same_run(monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    from dw_cli.bench import frontera_train, train

    asked: list[str] = []

    def fake(case: str, seconds: float) -> dict[str, float]:
        asked.append(case)
        return {"env_steps_per_s": 1000.0, "decisions_per_s": 300.0, "rollout_share": 0.3, "updates": 3}

    monkeypatch.setattr(train, "measure", fake)
    results = frontera_train.run(1.0)
    assert asked == ["standard", "frontera", "frontera, all cores"] and results["frontera_vs_standard"] == 1.0
    assert "dw bench train --game frontera" in capsys.readouterr().out
