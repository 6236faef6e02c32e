"""``dw bench train``: end-to-end training throughput (rollout + PPO update), env steps per second.

An env step is one action of any seat in one game (both phases of a turn count), the unit of
``run.total_env_steps``. The clock covers whole updates (playing the rollout, the scripted AIs' moves, GAE
and the PPO epochs), so the number is what a training run achieves, not the env alone. The first update is
a warm-up (allocations, caches) and is left out. Each case trains for ``--seconds``, at least
:data:`MIN_SECONDS` (20 on the small map, 45 on the standard map). Each case runs the default training config
(``configs/small.yaml``'s settings) with only the time limit changed and the warm start and the final
evaluation left out:

* ``small``: the small map as configured but on one core (one torch thread, one env thread,
  ``run.network_threads: 1``);
* ``small, all cores``: the same with ``run.network_threads: 0`` (training/ppo/network_threads.py: the network's
  chunks of the rollout and of the update on a thread per core, traced rollouts, the update's other replicas
  in worker processes; the same rollouts and updates). On 2 cores this is the default run's setting (2);
* ``small, plain network, all cores``: the same with ``network.turn_trunk: false``, every input in the trunk
  (the network of the shipped agents; the default shares the trunk between the two decisions of a turn,
  policies/domain_wheel/network.py);
* ``standard``: the standard map with the small map's settings on one core, the reference measured in the
  same run;
* ``standard, plain network``: the same with ``network.turn_trunk: false``;
* ``standard, all cores`` and ``standard, plain network, all cores``: the default and the plain network with
  ``run.network_threads: 0``, what a run on a machine of its own can use; the target of :data:`TARGET` env
  steps/s on 2 CPU cores (issue 11) is read on these lines, the default network's first. torch's own threads
  (``run.torch_threads: 0``) gained less: they split every small op and wait on each other (1,022 against
  882 env steps/s on one thread, on a slow day), and only with OpenMP workers that spin between ops, which
  other jobs on the cores then slow down many times;
* ``standard, all cores, float32 conv``: the default network on every core with ``run.conv_precision:
  float32`` (the hex convolutions in float32): what the bfloat16 convolutions gain where the CPU has bf16
  matrix units (``auto``, the default, picks them there; elsewhere both lines run float32);
* ``standard, all cores, packed observations``: the default on every core with ``env.packed_observations:
  true`` (the 0/1 planes as bits in the env's output and the rollout, unpacked for the network): the same
  weights as the default's, so only the speed differs; printed as a ratio to ``standard, all cores``;
* ``standard, all cores, no AMX``: ``standard, all cores`` with oneDNN kept from AMX
  (``ONEDNN_MAX_CPU_ISA=AVX512_CORE_BF16`` in its process's environment, :data:`CASE_ENVIRONMENT`): the stand-in
  for a CPU whose bfloat16 units are AVX512-BF16 alone. On a CPU without AMX it measures the first case again.

The standard map on every core, as is and without AMX, is read against :data:`GOAL` (issue 50), next to the
:data:`TARGET` floor.

Each case runs in a fresh process, as a training run would: a process whose torch and numba thread pools
were made for one thread ran the all-cores case at half its speed.

The header names the CPU and its bfloat16 units (dw_cli/bench/machine.py): the standard-map figure depends on
them (4,165 env steps/s on an Intel Xeon with AMX, 2,053 on an AMD EPYC without it, docs/TRAINING.md).

Each line also gives the share of the time spent playing the rollout (network forward passes, the
env, the scripted AIs); the rest is GAE and the PPO epochs.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator
from typing import Any

from dw_cli.bench.updates import training_rates
from training.ppo.config import TrainConfig, from_dict

#: the standard map's end-to-end training throughput wanted on 2 CPU cores (env steps/s): the floor (issue 11)
TARGET = 3000.0

#: the standard map's end-to-end training throughput aimed at on 2 CPU cores, with and without AMX (issue 50)
GOAL = 5000.0

#: oneDNN's instruction-set cap of the ``no AMX`` case: bfloat16 dot products (AVX512-BF16) but no AMX tiles
NO_AMX = {"ONEDNN_MAX_CPU_ISA": "AVX512_CORE_BF16"}


#: every core: the network's passes on a thread per core (training/ppo/network_threads.py)
ALL_CORES: dict[str, Any] = {"network_threads": 0}

#: one core: the network's passes on the calling thread only
ONE_THREAD: dict[str, Any] = {"network_threads": 1}

#: the plain network: every input in the trunk (``network.turn_trunk: false``)
PLAIN: dict[str, Any] = {"turn_trunk": False}

#: the cases measured: name -> (map, overrides of the run and network sections)
CASES: dict[str, tuple[str, dict[str, dict[str, Any]]]] = {
    "small": ("small", {"run": ONE_THREAD}),
    "small, all cores": ("small", {"run": ALL_CORES}),
    "small, plain network, all cores": ("small", {"network": PLAIN, "run": ALL_CORES}),
    "standard": ("standard", {"run": ONE_THREAD}),
    "standard, plain network": ("standard", {"network": PLAIN, "run": ONE_THREAD}),
    "standard, all cores": ("standard", {"run": ALL_CORES}),
    "standard, plain network, all cores": ("standard", {"network": PLAIN, "run": ALL_CORES}),
    "standard, all cores, float32 conv": ("standard", {"run": {**ALL_CORES, "conv_precision": "float32"}}),
    "standard, all cores, packed observations": ("standard", {"run": ALL_CORES, "env": {"packed_observations": True}}),
    "standard, all cores, no AMX": ("standard", {"run": ALL_CORES}),
}

#: environment variables a case's process starts with (oneDNN reads its cap once, at its first kernel, so the
#: cap must be in the environment the process starts with; its update processes inherit it)
CASE_ENVIRONMENT: dict[str, dict[str, str]] = {"standard, all cores, no AMX": NO_AMX}


#: each case's shortest measurement per map (seconds, the first update left out): a standard-map update takes
#: 6-15 s on 2 cores, and fewer than 3 measured updates gave figures 30% apart from one run to the next
MIN_SECONDS = {"small": 20.0, "standard": 45.0}


def bench_config(
    map_name: str, seconds: float, out_dir: str, overrides: dict[str, dict[str, Any]] | None = None
) -> TrainConfig:
    """Return the training config measured for ``map_name`` ("small" or "standard") with ``overrides``."""
    data: dict[str, Any] = TrainConfig().to_dict()
    if map_name == "standard":
        data["game"] = {"land_radius": 2, "map_radius": 4, "max_rounds": 200}
    for section, values in (overrides or {}).items():
        data[section].update(values)
    data["run"].update(
        name=f"bench-{map_name}", out_dir=out_dir, max_minutes=seconds / 60, progress=False, checkpoint_every=10**6
    )
    data["eval"]["final_games"] = 0
    data["imitation"]["teacher"] = "none"  # the warm start is a one-off before training, not its speed
    return from_dict(data)


def measure(case: str, seconds: float, here: Callable[[str, float, str], Any] | None = None) -> dict[str, float]:
    """Return env steps/s and learner decisions/s of training the :data:`CASES` entry ``case`` for ``seconds``
    (``here``: what the process runs, :func:`measure_here` by default; the GPU bench's is
    dw_cli/bench/gpu_train.py's).

    The case runs in a fresh (spawned) process that dies with this one, started with the case's
    :data:`CASE_ENVIRONMENT`; interrupted, this process kills it (it ignores the group's signals,
    training/distributed/worker_process.py) and removes its run folder.
    """
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from training.distributed.worker_process import ignore_stop_signals, kill_pool, stop_signals_blocked

    spawn = multiprocessing.get_context("spawn")
    with tempfile.TemporaryDirectory() as out:
        pool = ProcessPoolExecutor(max_workers=1, mp_context=spawn, initializer=ignore_stop_signals)
        try:
            # the process starts at the submit, with a copy of this process's environment then
            with stop_signals_blocked(), environment(CASE_ENVIRONMENT.get(case, {})):
                run = pool.submit(here or case_runner(case), case, seconds, out)
            result: dict[str, float] = run.result()
            return result
        except BaseException:
            kill_pool(pool)
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


def case_runner(case: str) -> Callable[[str, float, str], Any]:
    """Return what measures ``case`` in its process: Frontera's cases (dw_cli/bench/frontera_cases.py) or these."""
    from dw_cli.bench import frontera_cases

    return frontera_cases.measure_here if case in frontera_cases.CASES else measure_here


@contextlib.contextmanager
def environment(values: dict[str, str]) -> Iterator[None]:
    """Set the environment variables ``values`` in this process for the block; restore the previous ones after."""
    before = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def measure_here(case: str, seconds: float, out: str | None = None) -> dict[str, float]:
    """:func:`measure` in this process, the run written under ``out`` (default: a temporary folder)."""
    from dw_env.envs.vector import DomainWheelVectorEnv
    from training.ppo.ppo import train

    map_name, overrides = CASES[case]
    config = bench_config(map_name, seconds, ".", overrides)
    warm = DomainWheelVectorEnv(2, config.options)  # compile (or load) the env kernels outside the clock
    warm.reset()
    warm.step(warm.sample_actions())
    with tempfile.TemporaryDirectory(dir=out) as folder:
        result = train(bench_config(map_name, seconds, folder, overrides))
    return training_rates(result, case, seconds)


def run(seconds: float = 5.0) -> dict[str, Any]:
    """Run the benchmark, print a table and return the numbers."""
    from dw_cli.bench import frontera_cases
    from dw_cli.bench.machine import describe
    from policies.domain_wheel.network import cpu_has_bf16_units

    results: dict[str, Any] = {"machine": describe()}
    print(
        f"dw bench train: PPO self-play, rollout + update, {os.cpu_count()} CPU cores visible ({results['machine']}; "
        "higher is better)"
    )
    for case in CASES:
        results[case] = measure(case, max(seconds, MIN_SECONDS[CASES[case][0]]))
    width = max(len(case) for case in CASES)
    print(f"  {'case':<{width}} env steps/s  learner decisions/s  rollout share  updates measured")
    for case in CASES:
        r = results[case]
        print(
            f"  {case:<{width}} {r['env_steps_per_s']:11,.0f}  {r['decisions_per_s']:19,.0f}  "
            f"{r['rollout_share']:13.0%}  {r['updates']:16d}"
        )
    rate = {case: results[case]["env_steps_per_s"] for case in CASES}
    small, small_cores, standard = rate["small"], rate["small, all cores"], rate["standard"]
    small_plain, plain = rate["small, plain network, all cores"], rate["standard, plain network"]
    cores, plain_cores = rate["standard, all cores"], rate["standard, plain network, all cores"]
    conv32 = rate["standard, all cores, float32 conv"]
    packed = rate["standard, all cores, packed observations"]
    no_amx = rate["standard, all cores, no AMX"]
    results["packed_vs_unpacked"] = packed / cores
    results["standard_vs_target"] = cores / TARGET
    results["standard_vs_goal"] = cores / GOAL
    results["no_amx_vs_goal"] = no_amx / GOAL
    results["plain_vs_target"] = plain_cores / TARGET
    results["plain_vs_standard"] = plain / standard
    results["all_cores_vs_one"] = cores / standard
    print(
        f"  standard map: {standard:,.0f} env steps/s ({standard / small:.2f}x the small map's), one thread; the "
        f"plain network (turn_trunk: false) {plain:,.0f} = {plain / standard:.2f}x it"
    )
    print(
        f"  all {os.cpu_count()} cores: small map {small_cores:,.0f} = {small_cores / small:.2f}x one thread (plain "
        f"network {small_plain:,.0f}); standard map {cores:,.0f} = {cores / standard:.2f}x one thread"
    )
    print(
        f"  standard map, all {os.cpu_count()} cores: {cores:,.0f} env steps/s = {cores / TARGET:.2f}x the "
        f"{TARGET:,.0f} target (the default network); the plain network {plain_cores:,.0f} = "
        f"{plain_cores / TARGET:.2f}x"
    )
    print(
        f"  standard map, all {os.cpu_count()} cores, against the {GOAL:,.0f} goal: as is {cores:,.0f} env steps/s = "
        f"{cores / GOAL:.2f}x; without AMX ({_assignments(NO_AMX)}) {no_amx:,.0f} = {no_amx / GOAL:.2f}x"
    )
    print(
        f"  convolutions ({'bfloat16' if cpu_has_bf16_units() else 'float32: no bf16 matrix units'}): "
        f"{cores:,.0f} env steps/s = {cores / conv32:.2f}x the float32 convolutions' {conv32:,.0f}"
    )
    print(
        f"  packed observations, all cores: {packed:,.0f} env steps/s = {packed / cores:.2f}x unpacked ({cores:,.0f})"
    )
    frontera_cases.report(results, seconds, measure)
    return results


def _assignments(values: dict[str, str]) -> str:
    return " ".join(f"{name}={value}" for name, value in values.items())
