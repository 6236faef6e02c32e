"""``dw bench engine`` and ``dw bench env`` print issue 50 item 1's ratios against their goals, met or missed."""

from __future__ import annotations

import pytest

from dw_cli.bench import engine as bench_engine


def test_goal_note_says_met_at_or_under_the_goal_and_missed_above_it() -> None:
    assert bench_engine.goal_note(0.49, 0.5) == "(goal <= 0.5x: met)"
    assert bench_engine.goal_note(0.5, 0.5) == "(goal <= 0.5x: met)"
    assert bench_engine.goal_note(0.51, 0.5) == "(goal <= 0.5x: missed)"


class _FakeGo:
    """A stand-in for OpenSpiel's go 19x19 (the optional bench extra, absent in CI): 20 µs a step of CPU."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def run(self, seconds: float) -> tuple[float, int]:
        steps = max(1, round(seconds / 20e-6))
        return steps * 20e-6, steps


def test_bench_engine_prints_the_python_api_ratio_against_its_goal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bench_engine, "_GoDriver", _FakeGo)  # the rows' own timings stay real
    results = bench_engine.run(seconds=0.1)
    assert results["openspiel_go19_us_per_step"] == pytest.approx(20.0)
    out = capsys.readouterr().out
    ratios = results["python_api_ratio_vs_go"]
    assert set(ratios) == {f"{label}, Python API" for label in bench_engine.MAPS}
    for row, ratio in ratios.items():
        line = next(line for line in out.splitlines() if line.strip().startswith(row))
        assert f"ratio {ratio:.3f}x go " + bench_engine.goal_note(ratio, bench_engine.GOAL_RATIO) in line
    compiled = next(line for line in out.splitlines() if "compiled loop" in line)
    assert "goal" not in compiled  # the goal is the Python API's
