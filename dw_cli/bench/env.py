"""``dw bench env``: the RL environments' speed, against PettingZoo's go_v5 19x19 in the same run.

AEC: µs per ``env.step`` driven as a user drives it, through the public API of
``domain_wheel_v0.env()`` (PettingZoo's wrapper chain included): ``env.last()`` (observation
and mask), a uniformly random legal action from the mask, ``env.step``; finished games are
reset. PettingZoo's ``go_v5`` 19x19 (the ``bench`` extra) is driven by the same loop. The
envs take turns in short slices and the median slice counts, which keeps the ratio fair on
a busy machine; times are the driving thread's CPU time (wall time is printed too).

Plain loop: the same envs driven by PettingZoo's documented loop and nothing else, on the wall
clock: ``for agent in env.agent_iter()``, ``env.last()``, ``env.action_space(agent).sample(mask)``
(``None`` for a finished agent), ``env.step``; a finished game is reset. It counts what a user's
first script pays (the iterator, gymnasium's masked sampling), interleaved with go_v5 the same way.

Vector env: steps per second of ``DomainWheelVectorEnv`` (``copy=False``, as training uses it)
at N = 64, 256 and 1024 games on 1, 2 and (where the machine has more) all numba threads, with
random legal actions (``sample_actions``), per wall second and per CPU second. Thread scaling
is judged against a reference measured in the same run, interleaved with the env: a compiled
busy loop that splits fixed work over the same threads with no memory traffic, i.e. the speed-up
the machine grants right now. On a shared machine two threads may get less than two cores; the
env's speed-up over the reference's (``efficiency``) is what the env itself loses to threading.
Also: bytes per observation (observation plus mask, int8), and for packed observations
(``packed_observations=True``: the 0/1 planes as bits, :mod:`dw_env.envs.packed`) their bytes per
observation on each map and the vector env's steps/s packed against unpacked on the standard map
(N = 256, 2 threads where the machine has them), in interleaved slices of the same run.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numba
import numpy as np

from dw_cli.bench.engine import goal_note
from dw_env.envs.observation import describe_observation
from dw_env.envs.packed import observation_packing
from dw_env.envs.vector import DomainWheelVectorEnv  # first: it sets OMP_WAIT_POLICY before any parallel call
from dw_env.options import GameOptions

MAPS: dict[str, GameOptions] = {
    "standard (n=2, R=4)": GameOptions(),
    "smallest (n=1, R=2)": GameOptions(land_radius=1, map_radius=2),
}
VECTOR_SIZES = (64, 256, 1024)
GO = "PettingZoo go_v5 19x19"
SLICES = 5
GOAL_RATIO = 0.2  # issue 50: an AEC step costs at most a fifth of go_v5's, by both loops


class _AecDriver:
    """Plays random legal actions from the mask through an AEC env, resetting finished games."""

    def __init__(self, env: Any, seed: int) -> None:
        self.env = env
        self.rng = np.random.default_rng(seed)
        env.reset(seed=seed)

    def run(self, seconds: float) -> tuple[float, float, int]:
        """Play for about ``seconds`` of CPU time; return (CPU s, wall s, steps)."""
        env, rng = self.env, self.rng
        steps = 0
        cpu0, wall0 = time.thread_time(), time.perf_counter()
        while True:
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.reset()
            else:
                legal = np.flatnonzero(obs["action_mask"])
                env.step(int(legal[rng.integers(len(legal))]))
                steps += 1
                if steps % 64 == 0 and time.thread_time() - cpu0 > seconds:
                    break
        return time.thread_time() - cpu0, time.perf_counter() - wall0, steps


class _PlainLoop:
    """PettingZoo's documented AEC loop over one env, in wall-clock slices; finished games are reset."""

    def __init__(self, env: Any, seed: int) -> None:
        self.env, self.seed = env, seed
        self._new_game()
        for agent in env.possible_agents:
            env.action_space(agent).seed(seed)

    def _new_game(self) -> None:
        self.env.reset(seed=self.seed)
        self.agents = iter(self.env.agent_iter())

    def run(self, seconds: float) -> tuple[float, float, int]:
        """Play for about ``seconds`` of wall time; return (CPU s, wall s, actions played)."""
        env, steps = self.env, 0
        cpu0, wall0 = time.thread_time(), time.perf_counter()
        while steps < 64 or time.perf_counter() - wall0 < seconds:
            agent = next(self.agents, None)
            if agent is None:
                self._new_game()
                continue
            observation, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
            else:
                env.step(env.action_space(agent).sample(observation["action_mask"]))
                steps += 1
        return time.thread_time() - cpu0, time.perf_counter() - wall0, steps


def _go_env() -> Any | None:
    try:
        from pettingzoo.classic import go_v5
    except ImportError:
        return None
    return go_v5.env(board_size=19)


def aec_us_per_step(
    makers: dict[str, Callable[[], Any]],
    seconds: float,
    seed: int = 0,
    loop: Callable[[Any, int], Any] = _AecDriver,
) -> dict[str, dict[str, float]]:
    """Return {name: {"cpu_us", "wall_us", "steps"}} per AEC step of ``loop`` over each env, in interleaved slices."""
    drivers = {name: loop(make(), seed) for name, make in makers.items()}
    for driver in drivers.values():
        driver.run(0.05)  # compile and warm up outside the measurement
    slices: dict[str, list[tuple[float, float, int]]] = {name: [] for name in drivers}
    for _ in range(SLICES):
        for name, driver in drivers.items():
            slices[name].append(driver.run(seconds / SLICES))
    out = {}
    for name, runs in slices.items():
        cpu = float(np.median([c / n * 1e6 for c, _, n in runs]))
        wall = float(np.median([w / n * 1e6 for _, w, n in runs]))
        out[name] = {"cpu_us": cpu, "wall_us": wall, "steps": float(sum(n for *_, n in runs))}
    return out


@numba.njit(cache=True, nogil=True, parallel=True)
def _reference_work(per_thread: int, nthreads: int) -> float:  # pragma: no cover - compiled
    """Spin ``per_thread`` iterations of arithmetic on each of ``nthreads`` threads (the scaling reference)."""
    out = np.zeros(nthreads)
    for t in numba.prange(nthreads):
        x = 1.0 + t
        for _ in range(per_thread):
            x = x * 1.0000001 + 1e-9
        out[t] = x
    return float(out.sum())


def _reference_rate(threads: int, seconds: float) -> float:
    """Return the reference's work units per wall second on ``threads`` threads (fixed total work)."""
    numba.set_num_threads(threads)
    total, calls, wall0 = 4_000_000, 0, time.perf_counter()
    while time.perf_counter() - wall0 < seconds or calls < 2:
        _reference_work(total // threads, threads)
        calls += 1
    return calls * total / (time.perf_counter() - wall0)


def _vector_env(options: GameOptions, num_envs: int, threads: int, packed: bool = False) -> DomainWheelVectorEnv:
    venv = DomainWheelVectorEnv(
        num_envs, options=options, num_threads=threads, seed=0, copy=False, packed_observations=packed
    )
    venv.reset()
    for _ in range(5):
        venv.step(venv.sample_actions())
    return venv


def _drive(venv: DomainWheelVectorEnv, seconds: float) -> dict[str, float]:
    numba.set_num_threads(venv.num_threads)
    calls = 0
    cpu0, wall0 = time.process_time(), time.perf_counter()
    while time.perf_counter() - wall0 < seconds or calls < 3:
        venv.step(venv.sample_actions())
        calls += 1
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
    steps = calls * venv.num_envs
    return {"steps_per_s": steps / wall, "steps_per_cpu_s": steps / cpu, "steps": float(steps)}


def vector_steps_per_second(options: GameOptions, num_envs: int, threads: int, seconds: float) -> dict[str, float]:
    """Return steps/s of the vector env per wall second and per CPU second (random legal actions)."""
    return _drive(_vector_env(options, num_envs, threads), seconds)


def thread_scaling(
    options: GameOptions, sizes: tuple[int, ...], threads: tuple[int, ...], seconds: float
) -> dict[int, dict[int, dict[str, float]]]:
    """Return {N: {T: env and reference rates}}, medians of 3 interleaved slices (env, then reference)."""
    _reference_work(10, 1)  # compile outside the measurement
    out: dict[int, dict[int, dict[str, float]]] = {}
    for n in sizes:
        envs = {t: _vector_env(options, n, t) for t in threads}
        slices: dict[int, list[tuple[float, float, float]]] = {t: [] for t in threads}
        for _ in range(3):
            for t in threads:
                env = _drive(envs[t], seconds / 6)
                slices[t].append((env["steps_per_s"], env["steps_per_cpu_s"], _reference_rate(t, seconds / 6)))
        out[n] = {
            t: {
                "steps_per_s": float(np.median([a for a, _, _ in runs])),
                "steps_per_cpu_s": float(np.median([b for _, b, _ in runs])),
                "reference_per_s": float(np.median([c for _, _, c in runs])),
            }
            for t, runs in slices.items()
        }
    return out


def packed_steps_per_second(
    options: GameOptions, num_envs: int, threads: int, seconds: float
) -> dict[str, dict[str, float]]:
    """Return {"unpacked", "packed"}: the vector env's steps/s (wall and CPU), medians of 5 interleaved slices."""
    envs = {
        "unpacked": _vector_env(options, num_envs, threads),
        "packed": _vector_env(options, num_envs, threads, True),
    }
    slices: dict[str, list[dict[str, float]]] = {name: [] for name in envs}
    for _ in range(SLICES):
        for name, venv in envs.items():
            slices[name].append(_drive(venv, seconds / (2 * SLICES)))
    return {
        name: {key: float(np.median([r[key] for r in runs])) for key in ("steps_per_s", "steps_per_cpu_s")}
        for name, runs in slices.items()
    }


def packed_bytes(options: GameOptions) -> dict[str, int]:
    """Return the bytes of one observation plus its action mask, unpacked and packed, on this map."""
    layout = describe_observation(options)
    return {
        "unpacked": layout.bytes_per_observation,
        "packed": observation_packing(options).packed_size + layout.mask_size,
    }


def print_thread_scaling(table: dict[int, dict[int, dict[str, float]]]) -> None:
    """Print each N's rows: steps/s, per CPU second, speed-up over 1 thread, the reference's, efficiency."""
    print("  games  threads      steps/s   per CPU s   speed-up  reference  efficiency (env / reference speed-up)")
    for n, rows in table.items():
        one = rows[min(rows)]
        for t, r in rows.items():
            speedup = r["steps_per_s"] / one["steps_per_s"]
            reference = r["reference_per_s"] / one["reference_per_s"]
            print(
                f"  N={n:<5} {t:>4}  {r['steps_per_s']:11,.0f}  {r['steps_per_cpu_s']:10,.0f}   "
                f"{speedup:6.2f}x   {reference:6.2f}x      {speedup / reference:5.0%}"
            )


def run(seconds: float = 5.0) -> dict[str, Any]:
    """Run the benchmark, print a table and return the numbers."""
    if not 0.1 <= seconds <= 3600:  # also refuses nan and inf, which would never end a measuring loop
        raise ValueError(f"seconds must be in 0.1..3600, got {seconds!r}")
    from dw_env import domain_wheel_v0

    results: dict[str, Any] = {}

    def maker(options: GameOptions) -> Callable[[], Any]:
        return lambda: domain_wheel_v0.env(**options.to_dict())

    makers = {label: maker(options) for label, options in MAPS.items()}
    if _go_env() is not None:
        makers = {GO: _go_env, **makers}
    aec = aec_us_per_step(makers, seconds * len(makers))
    go = aec.get(GO)
    results["aec"] = aec
    print("dw bench env: AEC env through env() (wrappers included), random legal actions from the mask")
    print("  µs per step, CPU time of the driving thread (median of interleaved slices); wall time in brackets")
    if go is None:
        print("  PettingZoo go_v5 not available (pip install -e '.[bench]'): no reference")
    for name, r in aec.items():
        if go is None or name == GO:
            suffix = "" if go is None else "   (reference)"
        else:
            ratio = r["cpu_us"] / go["cpu_us"]
            suffix = f"   ratio {ratio:.3f}x go_v5 {goal_note(ratio, GOAL_RATIO)}"
        print(f"  {name:<26} {r['cpu_us']:8.1f} µs/step  [{r['wall_us']:7.1f} wall]{suffix}")
    if go:
        results["aec_ratio_vs_go"] = {name: r["cpu_us"] / go["cpu_us"] for name, r in aec.items() if name != GO}
    plain = aec_us_per_step(makers, seconds * len(makers), loop=_PlainLoop)
    results["plain_loop"] = plain
    go_plain = plain.get(GO)
    print("  plain loop over env() (agent_iter, last, action_space.sample(mask), step), wall µs per action")
    for name, r in plain.items():
        suffix = ""
        if go_plain is not None and name != GO:
            ratio = r["wall_us"] / go_plain["wall_us"]
            suffix = f"   ratio {ratio:.3f}x go_v5 {goal_note(ratio, GOAL_RATIO)}"
        print(f"  {name:<26} {r['wall_us']:8.1f} µs/step  [{r['cpu_us']:7.1f} CPU]{suffix}")
    if go_plain:
        results["plain_ratio_vs_go"] = {n: r["wall_us"] / go_plain["wall_us"] for n, r in plain.items() if n != GO}

    standard = MAPS["standard (n=2, R=4)"]
    max_threads = int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]
    threads = tuple(sorted({1, min(2, max_threads), max_threads}))
    print(f"vector env, standard map, random legal actions ({max_threads} numba threads available)")
    scaling = thread_scaling(standard, VECTOR_SIZES, threads, seconds)
    print_thread_scaling(scaling)
    results["vector"] = {f"N={n}, threads={t}": r for n, rows in scaling.items() for t, r in rows.items()}

    print("bytes per observation (int8 observation + action mask)")
    sizes = {}
    for label, options in MAPS.items():
        layout = describe_observation(options)
        sizes[label] = layout.bytes_per_observation
        print(
            f"  {label:<26} {layout.bytes_per_observation:8,d} bytes  (D = {layout.size:,}, mask {layout.mask_size:,})"
        )
    results["bytes_per_observation"] = sizes
    results["packed"] = _run_packed(standard, min(2, max_threads), seconds)
    return results


def _run_packed(standard: GameOptions, threads: int, seconds: float) -> dict[str, Any]:
    """Print and return packed observations' bytes (every map) and steps/s against unpacked (standard map)."""
    print("packed observations (0/1 planes as bits; the mask stays int8): bytes per observation + mask")
    out: dict[str, Any] = {"bytes": {label: packed_bytes(options) for label, options in MAPS.items()}}
    for label, b in out["bytes"].items():
        print(
            f"  {label:<26} {b['unpacked']:8,d} unpacked  {b['packed']:8,d} packed  ({b['packed'] / b['unpacked']:.1%})"
        )
    rates = packed_steps_per_second(standard, 256, threads, seconds)
    ratio = rates["packed"]["steps_per_s"] / rates["unpacked"]["steps_per_s"]
    print(f"  vector env, standard map, N=256, {threads} threads (median of interleaved slices):")
    for name, r in rates.items():
        print(f"  {name:<9} {r['steps_per_s']:11,.0f} steps/s  {r['steps_per_cpu_s']:10,.0f} per CPU s")
    print(f"  packed / unpacked steps/s: {ratio:.3f}x")
    out["steps"], out["ratio"] = rates, ratio
    return out
