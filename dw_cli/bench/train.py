"""``dw bench train``: end-to-end training throughput (rollout + PPO update), env steps per second.

An env step is one action of any seat in one game (both phases of a turn count), the unit of
``run.total_env_steps``. The clock covers whole updates (playing the rollout, the scripted AIs' moves, GAE
and the PPO epochs), so the number is what a training run achieves, not the env alone. The first update is
a warm-up (allocations, caches) and is left out. Each map runs the default training config
(``configs/small.yaml``'s settings) with only the time limit changed and the warm start and the final
evaluation left out: the small map as configured, the standard map with the same settings on this
machine's CPU (one torch thread, one env thread), against the target of :data:`TARGET` env steps/s
(issue 11). ``configs/standard_gpu.yaml`` needs a GPU. Two torch threads were 1.6x faster on the
standard map on a quiet machine but over 20x slower when other jobs shared the two cores (every
small op then waits for a descheduled OpenMP worker), so the default stays at one.

Each line also gives the share of the time spent playing the rollout (network forward passes, the
env, the scripted AIs); the rest is GAE and the PPO epochs.
"""

from __future__ import annotations

import tempfile
from typing import Any

from training.config import TrainConfig, from_dict

#: the standard map's end-to-end training throughput wanted on 2 CPU cores (env steps/s)
TARGET = 3000.0


def bench_config(map_name: str, seconds: float, out_dir: str) -> TrainConfig:
    """Return the training config measured for ``map_name`` ("small" or "standard")."""
    data: dict[str, Any] = TrainConfig().to_dict()
    if map_name == "standard":
        data["game"] = {"land_radius": 2, "map_radius": 4, "max_rounds": 200}
    data["run"].update(
        name=f"bench-{map_name}", out_dir=out_dir, max_minutes=seconds / 60, progress=False, checkpoint_every=10**6
    )
    data["eval"]["final_games"] = 0
    data["imitation"]["teacher"] = "none"  # the warm start is a one-off before training, not its speed
    return from_dict(data)


def measure(map_name: str, seconds: float) -> dict[str, float]:
    """Return env steps/s and learner decisions/s of training ``map_name`` for about ``seconds``."""
    from dw_env.envs.vector import DomainWheelVectorEnv
    from training.ppo import train

    config = bench_config(map_name, seconds, ".")
    warm = DomainWheelVectorEnv(2, config.options)  # compile (or load) the env kernels outside the clock
    warm.reset()
    warm.step(warm.sample_actions())
    with tempfile.TemporaryDirectory() as out:
        result = train(bench_config(map_name, seconds, out))
    history = result["history"][1:] or result["history"]
    if not history:
        raise RuntimeError(f"no update of the {map_name} map finished in {seconds:.0f} s; try a larger --seconds")
    steps = sum(h["steps"] for h in history)
    secs = sum(h["seconds"] for h in history)
    decisions = sum(h["decisions"] for h in history)
    rollout = sum(h["rollout"] for h in history)
    return {
        "env_steps_per_s": steps / secs,
        "decisions_per_s": decisions / secs,
        "rollout_share": rollout / secs,
        "updates": len(history),
    }


def run(seconds: float = 5.0) -> dict[str, Any]:
    """Run the benchmark, print a table and return the numbers."""
    import os

    seconds = max(seconds, 20.0)  # several updates are needed for a stable number
    print(f"dw bench train: PPO self-play, rollout + update, {os.cpu_count()} CPU cores visible (higher is better)")
    results: dict[str, Any] = {}
    for map_name in ("small", "standard"):
        results[map_name] = measure(map_name, seconds)
    print("  map        env steps/s  learner decisions/s  rollout share  updates measured")
    for map_name, r in results.items():
        print(
            f"  {map_name:<9} {r['env_steps_per_s']:12,.0f}  {r['decisions_per_s']:19,.0f}  "
            f"{r['rollout_share']:13.0%}  {r['updates']:16d}"
        )
    standard, small = results["standard"]["env_steps_per_s"], results["small"]["env_steps_per_s"]
    results["standard_vs_target"] = standard / TARGET
    print(
        f"  standard map: {standard:,.0f} env steps/s = {standard / TARGET:.2f}x the {TARGET:,.0f} target, "
        f"{standard / small:.2f}x the small map's"
    )
    return results
