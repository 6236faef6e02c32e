"""Smoke test of the Conquer engine benchmark (dw_cli/bench/conquer.py) on a tiny budget."""

from __future__ import annotations

import importlib.util

import pytest

from dw_cli.bench import conquer


def test_bench_runs_and_reports_every_board_driver_and_fill_level(capsys: pytest.CaptureFixture[str]) -> None:
    results = conquer.run(seconds=0.1)
    for board in ("15x15", "39x32"):
        for driver in ("Python API", "Python API + observation", "compiled loop"):
            assert results[f"{board}, {driver}"] > 0
        for fill in (10, 40, 70):
            assert results[f"{board}, fill {fill}%"] >= 0
    out = capsys.readouterr().out
    if importlib.util.find_spec("pyspiel") is not None:  # the bench extra: the reference is measured
        assert "OpenSpiel go 19x19" in out and "x go" in out
    else:  # without it the table says so instead of a ratio
        assert "OpenSpiel not installed: no reference" in out


def test_sampled_positions_are_at_the_fill_level() -> None:
    options = conquer.BOARDS["15x15"]
    dots, owner, scalars, actions = conquer.sample_positions(options, 0.4, 30)
    taken = ((dots != 0) | (owner != 0)).sum(axis=1)
    assert len(actions) == 30 and (taken >= 0.4 * options.num_points).all()
    assert all(dots[i, actions[i]] == 0 and owner[i, actions[i]] == 0 for i in range(30))


def test_bench_refuses_a_bad_budget() -> None:
    with pytest.raises(ValueError, match="seconds must be in 0.1..3600"):
        conquer.run(seconds=0.0)
