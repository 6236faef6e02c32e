"""``dw bench engine`` and ``dw bench env`` print issue 50 item 1's ratios against their goals, met or missed."""

from __future__ import annotations

import pytest

from dw_cli.bench import engine as bench_engine


def test_goal_note_says_met_at_or_under_the_goal_and_missed_above_it() -> None:
    assert bench_engine.goal_note(0.49, 0.5) == "(goal <= 0.5x: met)"
    assert bench_engine.goal_note(0.5, 0.5) == "(goal <= 0.5x: met)"
    assert bench_engine.goal_note(0.51, 0.5) == "(goal <= 0.5x: missed)"


def test_bench_engine_prints_the_python_api_ratio_against_its_goal(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pyspiel")  # the reference is the optional bench extra; without it there is no ratio
    results = bench_engine.run(seconds=0.1)
    out = capsys.readouterr().out
    ratios = results["python_api_ratio_vs_go"]
    assert set(ratios) == {f"{label}, Python API" for label in bench_engine.MAPS}
    for row, ratio in ratios.items():
        line = next(line for line in out.splitlines() if line.strip().startswith(row))
        assert f"ratio {ratio:.3f}x go " + bench_engine.goal_note(ratio, bench_engine.GOAL_RATIO) in line
    compiled = next(line for line in out.splitlines() if "compiled loop" in line)
    assert "goal" not in compiled  # the goal is the Python API's
