"""``dw bench export`` runs end to end on a tiny budget and prints both figures and their ratio."""

from __future__ import annotations

import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnxscript")


def test_bench_export_prints_torch_onnx_and_the_ratio(capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from dw_cli.bench import export
    from dw_cli.main import main

    monkeypatch.setattr(export, "POSITIONS", 30)
    monkeypatch.setattr(export, "DECISIONS", 20)

    assert main(["bench", "export", "--seconds", "0.2"]) == 0
    out = capsys.readouterr().out
    for line in ("small     forward", "small     decision", "standard  decision"):
        row = next(r for r in out.splitlines() if r.strip().startswith(line.strip()))
        torch_ms, onnx_ms, ratio = row.split()[-3:]
        assert float(torch_ms) > 0 and float(onnx_ms) > 0 and ratio.endswith("x")
    assert "goal: <= 5 ms per decision on the standard map" in out
