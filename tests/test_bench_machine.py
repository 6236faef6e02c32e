"""The machine line of `dw bench train` (dw_cli/bench/machine.py)."""

from __future__ import annotations

import platform
from pathlib import Path

import torch

from dw_cli.bench import machine
from policies.domain_wheel.network import bf16_units, cpu_has_bf16_units


def test_the_cpu_model_is_read_from_cpuinfo(tmp_path: Path) -> None:
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9B14\nflags\t: fpu\n")
    assert machine.cpu_model(info) == "AMD EPYC 9B14"


def test_without_cpuinfo_or_a_model_name_the_platform_answers(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(platform, "processor", lambda: "x86_64")
    assert machine.cpu_model(tmp_path / "missing") == "x86_64"
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nmodel name\t:   \n")
    assert machine.cpu_model(info) == "x86_64"
    monkeypatch.setattr(platform, "processor", lambda: "")
    assert machine.cpu_model(tmp_path / "missing") == "unknown CPU"


def test_the_bf16_units_follow_torchs_checks(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("ONEDNN_MAX_CPU_ISA", raising=False)
    monkeypatch.delenv("DNNL_MAX_CPU_ISA", raising=False)
    for amx, avx, want in ((True, True, "AMX"), (False, True, "AVX512-BF16"), (False, False, "none")):
        monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda amx=amx: amx, raising=False)
        monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda avx=avx: avx, raising=False)
        assert bf16_units() == want
        assert cpu_has_bf16_units() == (want != "none")
        assert machine.describe().endswith(f", bfloat16 units: {want}")


def test_bench_train_names_the_machine_its_figures_came_from(monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    from dw_cli.bench import train

    monkeypatch.setattr(machine, "describe", lambda: "Test CPU 9000, bfloat16 units: none")
    fake = {"env_steps_per_s": 1000.0, "decisions_per_s": 300.0, "rollout_share": 0.4, "updates": 3}
    monkeypatch.setattr(train, "measure", lambda case, seconds: dict(fake))
    results = train.run(0.1)
    header = capsys.readouterr().out.splitlines()[0]
    assert "(Test CPU 9000, bfloat16 units: none; higher is better)" in header
    assert results["machine"] == "Test CPU 9000, bfloat16 units: none"


def test_the_bf16_units_follow_onednns_instruction_set_cap(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """ONEDNN_MAX_CPU_ISA keeps oneDNN from AMX (or from bfloat16 products): the machine line and the automatic
    convolution dtype (``run.conv_precision: auto``) follow what oneDNN may use, not only what the CPU has."""
    monkeypatch.delenv("DNNL_MAX_CPU_ISA", raising=False)
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: True, raising=False)
    monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda: True, raising=False)
    for cap, want in (
        ("AVX512_CORE_BF16", "AVX512-BF16"),
        ("avx512_core_bf16", "AVX512-BF16"),
        ("AVX10_1_512", "AVX512-BF16"),
        ("AVX512_CORE_AMX", "AMX"),
        ("AVX10_1_512_AMX_FP16", "AMX"),
        ("ALL", "AMX"),
        ("", "AMX"),
        ("AVX512_CORE", "none"),
        ("AVX2", "none"),
    ):
        monkeypatch.setenv("ONEDNN_MAX_CPU_ISA", cap)
        assert bf16_units() == want, cap
        assert cpu_has_bf16_units() == (want != "none")
    monkeypatch.delenv("ONEDNN_MAX_CPU_ISA")
    monkeypatch.setenv("DNNL_MAX_CPU_ISA", "AVX512_CORE_BF16")  # oneDNN's older name
    assert bf16_units() == "AVX512-BF16"
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: False, raising=False)
    monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda: False, raising=False)
    monkeypatch.setenv("DNNL_MAX_CPU_ISA", "AVX512_CORE_AMX")  # a cap grants nothing the CPU lacks
    assert bf16_units() == "none"
