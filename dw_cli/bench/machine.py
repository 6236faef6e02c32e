"""The machine a benchmark runs on, in one line: its CPU model and its bfloat16 units.

``dw bench train``'s standard-map figure depends on the CPU far more than on the hour: the same code measured
4,165 env steps/s on an Intel Xeon with AMX and 2,053 on an AMD EPYC without it (docs/TRAINING.md, *On an AMD
EPYC without AMX*), so the figure is printed with the machine it came from.
"""

from __future__ import annotations

import platform
from pathlib import Path

from policies.domain_wheel.network import bf16_units

#: where Linux names the CPU
CPUINFO = Path("/proc/cpuinfo")


def cpu_model(cpuinfo: Path = CPUINFO) -> str:
    """Return the CPU's model name (Linux's ``/proc/cpuinfo``, else ``platform.processor()``), or "unknown CPU"."""
    try:
        for line in cpuinfo.read_text(errors="replace").splitlines():
            key, sep, value = line.partition(":")
            if sep and key.strip() == "model name" and value.strip():
                return value.strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def describe() -> str:
    """Return e.g. "AMD EPYC, bfloat16 units: AVX512-BF16" (:func:`policies.domain_wheel.network.bf16_units`)."""
    return f"{cpu_model()}, bfloat16 units: {bf16_units()}"
