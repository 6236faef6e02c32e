"""``dw bench train --device cuda`` (dw_cli/bench/gpu_train.py): its refusal without a GPU, the utilisation
sampler's parsing and pacing, and its cases (configs/standard_gpu.yaml on CUDA, overlapped or not)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from dw_cli.bench import gpu_train  # noqa: E402
from dw_cli.main import main  # noqa: E402


def test_without_cuda_the_bench_exits_2_naming_asked_found_and_allowed(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert main(["bench", "train", "--device", "cuda", "--seconds", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err  # one line
    assert "--device cuda asked for a CUDA GPU" in err and "sees none" in err and "allowed here: --device cpu" in err


def test_cuda_is_refused_for_the_other_benches(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "env", "--device", "cuda"]) == 2
    assert "--device cuda is for dw bench train (Domain Wheel); got dw bench env" in capsys.readouterr().err


def test_nvidia_smi_output_is_parsed_per_gpu() -> None:
    assert gpu_train.parse_utilization("87\n") == [87.0]
    assert gpu_train.parse_utilization(" 0\n100\n 35 \n") == [0.0, 100.0, 35.0]


@pytest.mark.parametrize("text", ["[N/A]\n", "101\n", "-1\n", "nan\n", "", "NVIDIA-SMI has failed\n"])
def test_nvidia_smi_output_that_is_no_percentage_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match=r"nvidia-smi utilization: .*(percentage 0..100|empty output)"):
        gpu_train.parse_utilization(text)


def test_the_sampler_reads_until_stopped_and_averages_a_window() -> None:
    values = iter([10.0, 30.0, 50.0, 70.0, 90.0, 90.0, 90.0, 90.0])
    three = threading.Event()
    calls = []

    def read() -> float:
        calls.append(1)
        if len(calls) >= 3:
            three.set()
        return next(values)

    sampler = gpu_train.UtilizationSampler(read, interval=0.001).start()
    assert three.wait(timeout=60)  # a safety net only: the reads set the event
    sampler.stop()
    assert sampler.error is None and len(sampler.samples) >= 3
    assert [v for _, v in sampler.samples[:3]] == [10.0, 30.0, 50.0]
    times = [t for t, _ in sampler.samples]
    assert times == sorted(times)
    assert sampler.mean(times[1], times[2]) == 40.0  # only the samples inside the window
    assert sampler.mean(times[-1] + 1.0) != sampler.mean(times[-1] + 1.0)  # none: nan


def test_a_failing_read_ends_the_sampling_with_its_reason() -> None:
    def read() -> float:
        raise ValueError("nvidia-smi utilization: expected a percentage 0..100 per line, got '[N/A]'")

    sampler = gpu_train.UtilizationSampler(read, interval=0.001).start()
    sampler.stop()
    assert sampler.samples == [] and "[N/A]" in str(sampler.error)


def test_the_cases_run_the_gpu_config_on_cuda_without_warm_start(tmp_path: Path) -> None:
    plain = gpu_train.bench_config("standard_gpu", 90, str(tmp_path))
    overlapped = gpu_train.bench_config("standard_gpu, overlap", 90, str(tmp_path))
    packed = gpu_train.bench_config("standard_gpu, overlap, packed", 90, str(tmp_path))
    assert (plain.options.land_radius, plain.options.map_radius, plain.env.num_envs) == (2, 4, 1024)
    assert plain.run.device == "cuda" and plain.run.max_minutes == 1.5 and plain.imitation.teacher == "none"
    assert not plain.run.overlap and overlapped.run.overlap and packed.run.overlap
    assert overlapped.run.model_dump(exclude={"overlap"}) == plain.run.model_dump(exclude={"overlap"})
    assert packed.env.packed_observations and not overlapped.env.packed_observations
    assert overlapped.network == plain.network and overlapped.ppo == plain.ppo


def test_update_tensors_stay_in_place_on_a_cpu() -> None:
    """device_buffers.to_device on a CPU: the rollout's memory itself, as torch.from_numpy gave before."""
    import numpy as np

    from training.ppo.device_buffers import to_device

    array = np.arange(6, dtype=np.float32)
    tensor = to_device(array, torch.device("cpu"))
    assert tensor.data_ptr() == array.ctypes.data and tensor.dtype == torch.float32


def test_update_tensors_cross_to_cuda_pinned_and_non_blocking() -> None:
    from training.ppo.device_buffers import to_device

    calls: list[tuple[str, object]] = []

    class Host:  # a CPU tensor's two calls, recorded (no GPU here)
        def pin_memory(self) -> Host:
            calls.append(("pin_memory", None))
            return self

        def to(self, device: torch.device, non_blocking: bool = False) -> str:
            calls.append(("to", (device.type, non_blocking)))
            return "on the GPU"

    assert to_device(Host(), torch.device("cuda")) == "on the GPU"
    assert calls == [("pin_memory", None), ("to", ("cuda", True))]
