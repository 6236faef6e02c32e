"""Smoke test of ``dw bench env`` end to end on a tiny budget."""

from __future__ import annotations

import pytest

from dw_cli.bench import env as bench_env
from dw_cli.main import main

# importing PettingZoo's classic go env (the reference) warns about its deprecated creation API
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_bench_env_runs_and_reports_every_number(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "env", "--seconds", "0.2"]) == 0
    out = capsys.readouterr().out
    assert "standard (n=2, R=4)" in out and "smallest (n=1, R=2)" in out
    assert "N=64" in out and "N=256" in out and "19,853 bytes" in out
    assert "plain loop over env()" in out
    assert "19,853 unpacked     4,097 packed" in out and "packed / unpacked steps/s" in out


def test_bench_env_returns_the_numbers() -> None:
    results = bench_env.run(seconds=0.1)
    assert set(results["aec"]) >= set(bench_env.MAPS)
    assert all(r["cpu_us"] > 0 for r in results["aec"].values())
    assert set(results["plain_loop"]) == set(results["aec"])  # PettingZoo's documented loop, every env
    assert all(r["wall_us"] > 0 and r["steps"] >= 64 for r in results["plain_loop"].values())
    assert results["bytes_per_observation"]["standard (n=2, R=4)"] == 19853
    assert all(r["steps_per_s"] > 0 for r in results["vector"].values())
    packed = results["packed"]
    assert packed["bytes"]["standard (n=2, R=4)"] == {"unpacked": 19853, "packed": 4097}  # goal: 8 KB at most
    assert all(packed["steps"][form]["steps_per_s"] > 0 for form in ("unpacked", "packed")) and packed["ratio"] > 0
    if bench_env.GO in results["aec"]:
        assert set(results["aec_ratio_vs_go"]) == set(bench_env.MAPS)
        assert set(results["plain_ratio_vs_go"]) == set(bench_env.MAPS)
