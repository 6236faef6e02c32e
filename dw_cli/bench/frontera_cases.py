"""``dw bench train``'s Frontera cases: configs/frontera.yaml's PPO training, env steps per second.

Each case trains configs/frontera.yaml (the medium map, 2 players, fog on half the rows, 64 envs x 128
steps, the graph network at 48 channels and 4 rounds, the league) for ``--seconds``, at least
:data:`MIN_SECONDS`, with the warm start and the final evaluation left out, in a fresh process as
``dw_cli/bench/train.py``'s cases; the first update is a warm-up and is left out:

* ``frontera``: one core (``run.network_threads: 1``, as configured);
* ``frontera, all cores``: ``run.network_threads: 0``, the update's chunks on a thread per core.

An env step is one action of any seat (a Frontera turn is many: deploys, attacks, a regroup). The reference is
Domain Wheel's ``standard`` case on one core, measured in the same run: ``dw bench train`` measures it among
its own cases, ``dw bench train --game frontera`` (dw_cli/bench/frontera_train.py) measures it for the ratio.
docs/FRONTERA.md ("Training speed") keeps the figures.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dw_cli.bench.updates import training_rates
from training.ppo.config import TrainConfig, load

#: the config measured: the learned agent's training run (docs/FRONTERA.md, "Learned agent")
CONFIG = Path(__file__).resolve().parents[2] / "configs" / "frontera.yaml"

#: the cases measured: name -> overrides of the config's sections
CASES: dict[str, dict[str, dict[str, Any]]] = {
    "frontera": {"run": {"network_threads": 1}},
    "frontera, all cores": {"run": {"network_threads": 0}},
}

#: each case's shortest measurement (seconds, the first update left out): an update of 8,192 env steps takes
#: 5-10 s on one core, and 3 measured updates at least keep the figure steady
MIN_SECONDS = 40.0

#: Domain Wheel's case that the Frontera figures are read against (dw_cli/bench/train.py)
REFERENCE = "standard"


def bench_config(seconds: float, out_dir: str, overrides: dict[str, dict[str, Any]] | None = None) -> TrainConfig:
    """Return configs/frontera.yaml with ``overrides``, a time limit of ``seconds``, no warm start or evaluation."""
    changes = (overrides or {}).items()
    sets = [f"{section}.{key}={value}" for section, values in changes for key, value in values.items()]
    sets += [
        f"run.out_dir={out_dir}",
        f"run.max_minutes={seconds / 60}",
        "run.progress=false",
        "run.checkpoint_every=1000000",
        "run.stop_after_updates=0",
        "eval.final_games=0",
        "imitation.teacher=none",  # the warm start is a one-off before training, not its speed
    ]
    return load(CONFIG, sets)


def measure_here(case: str, seconds: float, out: str | None = None) -> dict[str, float]:
    """Return the case's env steps/s, learner decisions/s and rollout share, trained in this process."""
    import tempfile

    from policies.frontera.train_env import FronteraTrainEnv
    from training.ppo.ppo import train

    config = bench_config(seconds, ".", CASES[case])
    warm = FronteraTrainEnv(2, config.options, seed=0)  # compile (or load) the env kernels outside the clock
    warm.reset()
    warm.step(warm.sample_actions())
    with tempfile.TemporaryDirectory(dir=out) as folder:
        result = train(bench_config(seconds, folder, CASES[case]))
    return training_rates(result, case, seconds)


def report(results: dict[str, Any], seconds: float, measure: Callable[[str, float], dict[str, float]]) -> None:
    """Measure the Frontera cases with ``measure`` into ``results``; print them against :data:`REFERENCE`."""
    for case in CASES:
        results[case] = measure(case, max(seconds, MIN_SECONDS))
    reference = results[REFERENCE]["env_steps_per_s"]
    one, cores = results["frontera"]["env_steps_per_s"], results["frontera, all cores"]["env_steps_per_s"]
    results["frontera_vs_standard"] = one / reference
    results["frontera_all_cores_vs_one"] = cores / one
    print("  Frontera (configs/frontera.yaml: medium map, 2 players, 64 envs x 128 steps, graph network 48 x 4):")
    for case in CASES:
        r = results[case]
        print(
            f"    {case:<20} {r['env_steps_per_s']:8,.0f} env steps/s  {r['decisions_per_s']:6,.0f} learner "
            f"decisions/s  rollout {r['rollout_share']:.0%}  ({r['updates']} updates measured)"
        )
    print(
        f"    one core: {one:,.0f} env steps/s = {one / reference:.2f}x Domain Wheel's standard map ({reference:,.0f});"
        f" all {os.cpu_count()} cores: {cores:,.0f} = {cores / one:.2f}x one core"
    )
