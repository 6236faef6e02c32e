"""``dw bench train --device cuda``: the standard map's PPO throughput on one GPU, and how busy the GPU was.

The cases run ``configs/standard_gpu.yaml`` (the standard map, 1,024 games, the env on every core) with the
warm start and the final evaluation left out, each in a fresh process as :mod:`dw_cli.bench.train`'s cases:

* ``standard_gpu``: the config as shipped (collect, then update);
* ``standard_gpu, overlap``: ``run.overlap: true`` (training/ppo/overlap.py: the next rollout is collected
  while the learner updates, a one-update policy lag);
* ``standard_gpu, overlap, packed``: the same with ``env.packed_observations: true`` (the 0/1 planes cross to
  the GPU as bits).

Each line gives env steps/s (the first update left out, as on the CPU) against :data:`GOAL`, and the GPU's
mean utilisation over the measured updates: a background thread samples it every :data:`INTERVAL` seconds,
from ``torch.cuda.utilization()`` where pynvml is installed, else from ``nvidia-smi --query-gpu=utilization.gpu
--format=csv,noheader,nounits``; the samples kept are those inside the measured updates' window (the run's
end minus their seconds), so the setup and the first update do not count. Without CUDA it refuses at once.
"""

from __future__ import annotations

import shutil
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dw_cli.bench.updates import per_second, timed_updates

#: the env steps/s wanted on one H100/H200 (issue 50 item 4)
GOAL = 50_000.0
#: seconds between two utilisation samples
INTERVAL = 0.5
#: the shortest measurement of a case (seconds, the first update left out): a standard_gpu update takes 5-10 s
MIN_SECONDS = 60.0
CONFIG = Path(__file__).resolve().parents[2] / "configs" / "standard_gpu.yaml"

#: the cases measured: name -> overrides (``--set`` items) of configs/standard_gpu.yaml
CASES: dict[str, tuple[str, ...]] = {
    "standard_gpu": (),
    "standard_gpu, overlap": ("run.overlap=true",),
    "standard_gpu, overlap, packed": ("run.overlap=true", "env.packed_observations=true"),
}
NVIDIA_SMI = ("nvidia-smi", "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits")


def require_cuda() -> None:
    """Raise ValueError (``dw bench`` exits 2 with its one line) unless torch sees a CUDA device."""
    import torch

    if not torch.cuda.is_available():
        built = torch.version.cuda or "none (a CPU-only build)"
        raise ValueError(
            f"--device cuda asked for a CUDA GPU, but torch {torch.__version__} sees none (its CUDA: {built}); "
            "allowed here: --device cpu (the default)"
        )


def parse_utilization(text: str) -> list[float]:
    """Return the utilisation (percent) of each GPU in ``nvidia-smi``'s csv,noheader,nounits output.

    ValueError naming the line when one is not a number in 0..100 (``[N/A]``, a driver's error text).
    """
    values = []
    for line in text.strip().splitlines():
        item = line.strip()
        try:
            value = float(item)
        except ValueError:
            value = float("nan")
        if not 0.0 <= value <= 100.0:  # false for nan
            raise ValueError(f"nvidia-smi utilization: expected a percentage 0..100 per line, got {item[:60]!r}")
        values.append(value)
    if not values:
        raise ValueError("nvidia-smi utilization: empty output; expected a percentage 0..100 per GPU")
    return values


def read_utilization(device: int = 0) -> float:
    """Return GPU ``device``'s utilisation now (percent): torch's (pynvml) or nvidia-smi's reading."""
    import torch

    try:
        return float(torch.cuda.utilization(device))
    except (ModuleNotFoundError, ImportError, RuntimeError):  # no pynvml: ask nvidia-smi
        pass
    if shutil.which(NVIDIA_SMI[0]) is None:
        raise ValueError("GPU utilisation: neither pynvml nor nvidia-smi is installed")
    out = subprocess.run(NVIDIA_SMI, capture_output=True, text=True, timeout=30, check=True).stdout
    return parse_utilization(out)[device]


@dataclass
class UtilizationSampler:
    """Samples ``read()`` every ``interval`` seconds on a background thread until :meth:`stop`; keeps
    (time.monotonic(), percent) pairs. A failing read ends the sampling and is kept in ``error``."""

    read: Callable[[], float] = read_utilization
    interval: float = INTERVAL
    samples: list[tuple[float, float]] = field(default_factory=list)
    error: str | None = None
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> UtilizationSampler:
        self._thread = threading.Thread(target=self._run, name="dw-gpu-sampler", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.samples.append((time.monotonic(), self.read()))
            except (ValueError, OSError, subprocess.SubprocessError) as exc:
                self.error = str(exc)[:200]
                return
            self._stop.wait(self.interval)  # pacing only: stop() ends the wait at once

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def mean(self, start: float = float("-inf"), end: float = float("inf")) -> float:
        """Return the mean of the samples taken in ``start..end`` (nan without one)."""
        kept = [value for at, value in self.samples if start <= at <= end]
        return sum(kept) / len(kept) if kept else float("nan")


def bench_config(case: str, seconds: float, out_dir: str) -> Any:
    """Return configs/standard_gpu.yaml with the case's overrides, on CUDA, for ``seconds``, no warm start."""
    from training.ppo.config import load

    sets = [
        *CASES[case],
        "run.device=cuda",
        f"run.max_minutes={seconds / 60}",
        f"run.out_dir={out_dir}",
        "run.progress=false",
        "run.checkpoint_every=1000000",
        "eval.final_games=0",
        "imitation.teacher=none",
    ]
    return load(CONFIG, sets)


def measure_here(case: str, seconds: float, out: str | None = None) -> dict[str, Any]:
    """Train ``case`` on CUDA for ``seconds`` here, the GPU sampled meanwhile; return the figures."""
    import tempfile

    from training.ppo.ppo import train

    with tempfile.TemporaryDirectory(dir=out) as folder:
        sampler = UtilizationSampler().start()
        try:
            result = train(bench_config(case, seconds, folder))
        finally:
            end = time.monotonic()
            sampler.stop()
    history, secs = timed_updates(result, case, seconds)
    return {
        "env_steps_per_s": per_second(history, "steps", secs),
        "gpu_utilization": sampler.mean(end - secs, end),
        "rollout_share": per_second(history, "rollout", secs),
        "updates": len(history),
        "sampler_error": sampler.error or "",
    }


def run(seconds: float = 5.0) -> dict[str, Any]:
    """Measure every case on the GPU, print the table against :data:`GOAL` and return the numbers."""
    import os

    import torch

    from dw_cli.bench.machine import describe
    from dw_cli.bench.train import measure

    require_cuda()
    gpu = torch.cuda.get_device_name(0)
    results: dict[str, Any] = {"machine": describe(), "gpu": gpu}
    print(f"dw bench train --device cuda: PPO self-play on {gpu}, {os.cpu_count()} CPU cores ({results['machine']})")
    for case in CASES:
        results[case] = measure(case, max(seconds, MIN_SECONDS), measure_here)
    width = max(len(case) for case in CASES)
    print(f"  {'case':<{width}} env steps/s  x goal  GPU busy  rollout share  updates measured")
    for case in CASES:
        r = results[case]
        print(
            f"  {case:<{width}} {r['env_steps_per_s']:11,.0f}  {r['env_steps_per_s'] / GOAL:6.2f}  "
            f"{r['gpu_utilization']:7.0f}%  {r['rollout_share']:13.0%}  {r['updates']:16d}"
        )
        if r["sampler_error"]:
            print(f"    (GPU utilisation not read: {r['sampler_error']})")
    best = max(CASES, key=lambda c: results[c]["env_steps_per_s"])
    rate = results[best]["env_steps_per_s"]
    results["best_vs_goal"] = rate / GOAL
    print(f"  best: {best}, {rate:,.0f} env steps/s = {rate / GOAL:.2f}x the {GOAL:,.0f} goal (issue 50)")
    return results
