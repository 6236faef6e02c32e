"""Smoke test of the Alveole engine benchmark (dw_cli/bench/alveole.py) at its smallest budget."""

from __future__ import annotations

import math

import pytest

from dw_cli.bench import alveole


def test_bench_runs_and_reports_every_driver_and_ratio(capsys: pytest.CaptureFixture[str]) -> None:
    results = alveole.run(0.1)
    out = capsys.readouterr().out
    drivers = ("Alveole API + observation", "Alveole API", "Alveole compiled loop", "Alveole vector env (256 games)")
    for label in drivers:
        assert results[label] > 0 and math.isfinite(results[label])
        assert label in out
    for reference in alveole.REFERENCES:
        assert results[reference] is None or results[reference] > 0
        if results[reference]:
            assert results[f"Alveole API / {reference}"] == pytest.approx(results["Alveole API"] / results[reference])
    assert "ratio" in out


@pytest.mark.parametrize("seconds", [0.0, float("nan"), float("inf")])
def test_bench_refuses_bad_budgets(seconds: float) -> None:
    with pytest.raises(ValueError, match="seconds must be in 0.1..3600"):
        alveole.run(seconds)
