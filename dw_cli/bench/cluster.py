"""``dw bench cluster``: the arena and training on Ray against the same work done here, in the same run.

Every Ray figure comes from a loopback cluster started for it (training/distributed/cluster.py: nodes on 127.0.0.1,
one CPU each, no dashboard); cluster start-up and the workers' first import are outside the clock.

* **Arena games/s**: the same schedule (scripted line-ups on the small map) played here in this process
  ("0 workers", the reference), then as Ray tasks on 1 and on 2 worker CPUs (``dw arena --cluster``);
  the local pool of 2 processes (``dw arena --workers 2``) is shown beside them, and the local figure
  again at the end (how much the machine drifted during the run).
* **Training env steps/s**: PPO self-play on the small map (64 games x 32 steps, a small network) here,
  then with ``run.rollout_workers`` 1 and 2 (rollouts on Ray actors, each with a share of the games, the
  update here; each update ships the weights and the training state both ways).
* **Per-task overhead**: a task that returns its argument, one in flight at a time (the round trip of one
  task) and many in flight (what each task costs when they are pipelined).

On a 2-core machine shared with other jobs, two Ray workers plus the driver compete for the cores: the
figures show the overhead, not the gain one gets from more machines.
"""

from __future__ import annotations

import tempfile
import time
from typing import Any

from dw_cli.bench.updates import per_second, timed_updates
from dw_env.options import GameOptions
from training.distributed import cluster
from training.evaluation.arena import play_all
from training.evaluation.arena_config import ArenaConfig

#: the arena's line-ups: fast scripted seats, so that the games (not the AIs) are measured
LINEUPS = (("balanced", "center", "random"), ("guardian", "random", "random"))
SMALL = GameOptions(land_radius=1, map_radius=2, max_rounds=60)
#: training updates measured per configuration (the first one, a warm-up, is left out)
TRAIN_UPDATES = 5


def echo(x: int) -> int:
    """Return ``x``: the empty task of the overhead measurement."""
    return x


def _arena(games_per_lineup: int) -> ArenaConfig:
    return ArenaConfig(LINEUPS, games_per_lineup, 0, SMALL)


def _games_per_s(config: ArenaConfig, **where: Any) -> float:
    started = time.perf_counter()
    rows = play_all(config, progress=False, **where)
    return len(rows) / (time.perf_counter() - started)


def train_config(seconds: float, out_dir: str, address: str | None, actors: int = 1) -> Any:
    """Return the measured training config: the small map, 64 games x 32 steps, a small network.

    It trains until ``seconds`` have passed (at least :data:`TRAIN_UPDATES` updates when they fit in ten
    times that), with rollouts on ``actors`` Ray actors of the cluster at ``address`` when given.
    """
    from training.ppo.config import TrainConfig, from_dict

    data: dict[str, Any] = TrainConfig().to_dict()
    data["game"] = {"land_radius": 1, "map_radius": 2, "max_rounds": 30}
    data["env"].update(num_envs=64, num_steps=32)
    data["network"] = {"channels": 16, "cell_layers": 1, "land_layers": 1, "head_hidden": 32}
    data["run"].update(
        name="bench-cluster",
        out_dir=out_dir,
        max_minutes=10 * seconds / 60,
        stop_after_updates=TRAIN_UPDATES,
        progress=False,
        checkpoint_every=10**6,
        device="cpu",
    )
    data["eval"]["final_games"] = 0
    data["imitation"]["teacher"] = "none"
    if address is not None:
        data["run"].update(rollout_workers=actors, cluster=address)
    return from_dict(data)


def _train_steps_per_s(seconds: float, address: str | None, actors: int = 1) -> dict[str, float]:
    from training.ppo.ppo import train

    with tempfile.TemporaryDirectory() as out:
        result = train(train_config(seconds, out, address, actors))
    history, secs = timed_updates(result, "the cluster's training", seconds)
    return {
        "env_steps_per_s": per_second(history, "steps", secs),
        "rollout_share": per_second(history, "rollout", secs),
        "updates": len(history),
    }


def _overhead(tasks: int) -> dict[str, float]:
    started = time.perf_counter()
    for _ in cluster.imap(echo, list(range(tasks)), max_in_flight=1):
        pass
    latency = (time.perf_counter() - started) / tasks
    started = time.perf_counter()
    for _ in cluster.imap(echo, list(range(4 * tasks)), max_in_flight=32):
        pass
    pipelined = (time.perf_counter() - started) / (4 * tasks)
    return {"round_trip_ms": latency * 1e3, "pipelined_ms": pipelined * 1e3}


def run(seconds: float = 5.0) -> dict[str, Any]:
    """Measure the arena and training here and on 1 and 2 Ray workers; print the table; return the numbers."""
    if not 0.1 <= seconds <= 3600:  # also refuses nan and inf
        raise ValueError(f"seconds must be in 0.1..3600, got {seconds!r}")
    cluster.require_ray()
    results: dict[str, Any] = {"arena": {}, "train": {}}
    _games_per_s(_arena(6))  # compile (or load) every kernel before any clock
    rate = _games_per_s(_arena(6))  # calibrate: about `seconds` of games here
    per_lineup = max(6, 6 * round(rate * seconds / (6 * len(LINEUPS))))
    config = _arena(per_lineup)
    arena, train = results["arena"], results["train"]
    arena["local"] = _games_per_s(config)
    arena["local pool, 2 processes"] = _games_per_s(config, workers=2)
    train_seconds = max(seconds, 10.0)
    train["local"] = _train_steps_per_s(train_seconds, None)
    for workers in (1, 2):
        with cluster.loopback_cluster(nodes=workers, cpus_per_node=1) as lc:
            _games_per_s(_arena(6), cluster=lc.address)  # the workers import and load kernels
            arena[f"ray, {workers} worker(s)"] = _games_per_s(config, cluster=lc.address)
            if workers == 1:
                results["overhead"] = _overhead(100)
            train[f"ray, {workers} rollout actor(s)"] = _train_steps_per_s(train_seconds, lc.address, workers)
    arena["local, again"] = _games_per_s(config)  # the machine's drift over the run
    total = len(LINEUPS) * per_lineup
    local = arena["local"]
    print(f"dw bench cluster: Ray on a loopback cluster against this process (higher is better), {total} games")
    print("  arena (small map, scripted seats)   games/s   vs local")
    for name, value in arena.items():
        print(f"  {name:<34} {value:8.1f}   {value / local:7.2f}x")
    local_steps = train["local"]["env_steps_per_s"]
    print("  training (small map, 64 x 32)     env steps/s   vs local   rollout share   updates")
    for name, r in train.items():
        print(
            f"  {name:<32} {r['env_steps_per_s']:12,.0f}   {r['env_steps_per_s'] / local_steps:7.2f}x"
            f"   {r['rollout_share']:13.0%}   {r['updates']:7d}"
        )
    over = results["overhead"]
    print(
        f"  per-task overhead: {over['round_trip_ms']:.2f} ms round trip (one task in flight), "
        f"{over['pipelined_ms']:.2f} ms per task pipelined"
    )
    return results
