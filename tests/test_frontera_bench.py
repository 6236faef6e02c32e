"""Smoke test of ``dw bench engine --game frontera`` (dw_cli/bench/frontera_engine.py) at its smallest budget."""

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
