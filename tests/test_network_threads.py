"""The trainer's network passes on several threads (``run.network_threads``, training/ppo/network_threads.py).

Rollouts must be the same bit for bit for any thread count (each chunk's numbers do not depend on its thread),
and an update must be the sum of its chunks' gradients whatever thread computed them: exact for a given count,
equal up to rounding across counts, and ``--resume`` exact.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from dw_env.geometry import build_geometry  # noqa: E402
from dw_env.options import GameOptions  # noqa: E402
from policies import checkpoint, traced_forward  # noqa: E402
from policies.domain_wheel.network import HexPolicyNet  # noqa: E402
from training.ppo.config import ConfigError, from_dict  # noqa: E402
from training.ppo.network_threads import NetworkThreads, thread_count  # noqa: E402

SMALL = GameOptions(land_radius=1, map_radius=2, max_rounds=60)
CONFIG = Path(__file__).resolve().parents[1] / "configs" / "smoke.yaml"


def network(seed: int = 0) -> HexPolicyNet:
    torch.manual_seed(seed)
    geometry = build_geometry(SMALL.land_radius, SMALL.map_radius)
    return HexPolicyNet(geometry, channels=8, cell_layers=1, land_layers=2, head_hidden=16)


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_map_returns_every_result_in_order_with_the_shares_running_at_once(threads: int) -> None:
    pool = NetworkThreads(network(), threads)
    meet = threading.Barrier(threads, timeout=30)  # passed only when every share is running at the same time
    names: set[str] = set()

    def square(x: int) -> int:
        if x < threads:  # the first item of each share (round-robin)
            names.add(threading.current_thread().name)
            meet.wait()
        return x * x

    try:
        assert pool.map(square, range(11)) == [x * x for x in range(11)]
        assert len(names) == threads  # the caller's thread and threads - 1 workers
        assert pool.map(lambda x: -x, [5]) == [-5]  # fewer items than threads
        assert pool.map(lambda x: -x, []) == []
    finally:
        pool.close()
    assert pool.map(lambda x: x + 1, [1, 2, 3]) == [2, 3, 4]  # closed: the caller's thread does it all


def test_an_error_in_a_worker_reaches_the_caller_after_every_thread_stopped() -> None:
    pool = NetworkThreads(network(), 2)
    finished: list[int] = []

    def fail_on_odd(x: int) -> int:
        if x % 2:
            raise ValueError(f"chunk {x} failed")
        finished.append(x)
        return x

    try:
        with pytest.raises(ValueError, match="chunk 1 failed"):
            pool.map(fail_on_odd, [0, 1, 2, 3])
        assert sorted(finished) == [0, 2]  # the caller's share ran to its end before the error was raised
        assert pool.map(lambda x: x + 1, [1, 2, 3]) == [2, 3, 4]  # the pool still works
    finally:
        pool.close()


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_the_scripted_moves_run_beside_the_passes_once_and_on_the_calling_thread(threads: int) -> None:
    """training/ppo/ppo.py plays the scripted AIs' moves (``side``) while the workers start the network's chunks."""
    import sys

    pool = NetworkThreads(network(), threads)
    started = threading.Event()
    sides: list[str] = []
    interval = sys.getswitchinterval()

    def side() -> None:
        if threads > 1:  # a worker computes an item while the calling thread is still here
            assert started.wait(30)
        sides.append(threading.current_thread().name)

    def square(x: int) -> int:
        started.set()
        return x * x

    try:
        chunk_map = pool.beside(side)
        assert chunk_map(square, range(9)) == [x * x for x in range(9)]
        assert chunk_map(lambda x: -x, [1, 2]) == [-1, -2]  # a second call: the side job does not run again
        assert sides == [threading.current_thread().name]
        assert sys.getswitchinterval() == interval  # restored
        assert pool.map_beside(square, [], lambda: sides.append("empty")) == [] and sides[-1] == "empty"
    finally:
        pool.close()


def test_an_error_beside_the_passes_reaches_the_caller_after_the_workers_stopped() -> None:
    import sys

    pool = NetworkThreads(network(), 2)
    done: list[int] = []
    interval = sys.getswitchinterval()

    def side() -> None:
        raise RuntimeError("a scripted AI failed")

    try:
        with pytest.raises(RuntimeError, match="a scripted AI failed"):
            pool.map_beside(lambda x: done.append(x), range(5), side)
        assert sorted(done) == list(range(5))  # the worker took every item and stopped before the error came
        assert pool.map(lambda x: x + 1, [1]) == [2] and len(done) == 5
        assert sys.getswitchinterval() == interval
    finally:
        pool.close()


def chunk_gradients(threads: int, steps: int = 3) -> tuple[list[torch.Tensor], list[dict[str, float]]]:
    """Take ``steps`` Adam steps over random observations' chunks on ``threads`` threads; return grads and stats."""
    from dw_env.envs.vector import DomainWheelVectorEnv

    net = network(seed=3)
    env = DomainWheelVectorEnv(12, SMALL, seed=5)
    obs, *_ = env.reset(seed=5)
    for _ in range(7):
        obs, *_ = env.step(env.sample_actions())
    x = torch.from_numpy(obs.copy())
    optimizer = torch.optim.Adam(net.parameters(), lr=0.01)
    pool = NetworkThreads(net, threads)
    stats: list[dict[str, float]] = []

    def work(model: torch.nn.Module, s: int, e: int) -> dict[str, torch.Tensor]:
        logits, value = model(x[s:e])
        loss = logits.logsumexp(-1).sum() + value.pow(2).sum()
        loss.backward()
        return {"loss": loss.detach(), "rows": torch.tensor(float(e - s))}

    try:
        for _ in range(steps):  # the replicas must follow the network's new weights every step
            optimizer.zero_grad(set_to_none=True)
            got = pool.run([(0, 3), (3, 5), (5, 9), (9, 12)], work)
            stats.append({k: float(v) for k, v in got.items()})
            grads = [p.grad.clone() for p in net.parameters()]  # type: ignore[union-attr]
            optimizer.step()
    finally:
        pool.close()
    return grads, stats


def test_an_update_on_threads_adds_up_the_same_gradients_as_one_thread() -> None:
    one, stats_one = chunk_gradients(1)
    for threads in (2, 3):
        many, stats_many = chunk_gradients(threads)
        for a, b in zip(one, many, strict=True):
            torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)
        for a, b in zip(stats_one, stats_many, strict=True):
            assert a["rows"] == b["rows"] == 12
            assert a["loss"] == pytest.approx(b["loss"], rel=1e-6)
        again, _ = chunk_gradients(threads)
        for a, b in zip(many, again, strict=True):
            assert torch.equal(a, b)  # a given thread count is exact


@pytest.mark.parametrize("turn_trunk", [False, True])
def test_a_rollout_is_the_same_bit_for_bit_on_one_and_on_two_threads(tmp_path, turn_trunk: bool) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("tensorboard")
    from training.ppo.ppo import collect_rollout, start_session

    def rollout(threads: int) -> dict[str, np.ndarray]:
        data = from_dict(
            {
                "run": {"network_threads": threads, "progress": False, "out_dir": str(tmp_path)},
                "game": {"land_radius": 1, "map_radius": 2, "max_rounds": 40},
                "env": {"num_envs": 16, "num_steps": 40},
                "network": {"channels": 8, "turn_trunk": turn_trunk},
                "league": {"weights": {"latest": 0.5, "random": 0.2, "balanced": 0.3}},  # AIs beside the network
                "imitation": {"teacher": "none"},
                "eval": {"final_games": 0},
            }
        )
        s = start_session(data, None, tmp_path / f"run-{threads}")
        try:
            assert s.ctx["threads"].threads == threads
            collect_rollout(s.table, s.rollout, s.net, s.frozen, 40, s.ctx)
            assert (s.net in traced_forward._TRACES) == (threads > 1 and not turn_trunk)  # GIL-free traced passes
        finally:
            s.ctx["threads"].close()
            s.writer.close()
        return {name: getattr(s.rollout, name).copy() for name in (*s.rollout.ARRAYS, "count")}

    one, two = rollout(1), rollout(2)
    assert one["count"].sum() > 100
    for name, values in one.items():
        assert np.array_equal(values, two[name]), name


def test_a_run_on_two_threads_is_reproducible_and_resumes_bit_identically(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The update's second replica in a worker process (the default) or on a thread: the same run, bit for bit."""
    pytest.importorskip("tensorboard")
    from dw_cli.main import main

    # chunks of 6 observations (24 in the update of a turn_trunk network), so that both the rollout's
    # forward passes (of up to 16 games) and the update's minibatches of this small run are shared out
    monkeypatch.setattr("policies.domain_wheel.network.CPU_CHUNK_CELLS", 6 * 133)
    spread, beside, in_processes = NetworkThreads._spread, NetworkThreads.map_beside, NetworkThreads._run_in_processes
    calls = {"map": 0, "run": 0, "processes": 0, "beside": 0}

    def counted(self, jobs, fn):  # type: ignore[no-untyped-def]
        calls["run" if isinstance(jobs[0], tuple) else "map"] += 1
        return spread(self, jobs, fn)

    def counted_beside(self, fn, items, side):  # type: ignore[no-untyped-def]
        calls["beside"] += self.pool is not None and len(items) > 1  # chunks for the worker and this thread
        return beside(self, fn, items, side)

    def counted_processes(self, shares, work):  # type: ignore[no-untyped-def]
        done = in_processes(self, shares, work)
        calls["processes"] += done is not None
        return done

    monkeypatch.setattr(NetworkThreads, "_spread", counted)
    monkeypatch.setattr(NetworkThreads, "map_beside", counted_beside)
    monkeypatch.setattr(NetworkThreads, "_run_in_processes", counted_processes)

    common = ["--set", "run.network_threads=2", "--set", "network.turn_trunk=true", "--set", "ppo.num_minibatches=1"]
    common += ["--set", "eval.final_games=0"]  # minibatches of about 250 decisions: 3 chunks, on two threads
    split, straight, again, threads = (tmp_path / name for name in ("split", "straight", "again", "threads"))
    first = ["train", "--config", str(CONFIG), "--run-dir", str(split), "--set", "run.stop_after_updates=2"]
    assert main([*first, *common]) == 0
    resume = ["train", "--resume", str(split), "--set", "run.stop_after_updates=0", "--set", "eval.final_games=0"]
    assert main(resume) == 0
    assert main(["train", "--config", str(CONFIG), "--run-dir", str(straight), *common]) == 0
    assert main(["train", "--config", str(CONFIG), "--run-dir", str(again), *common]) == 0
    # every minibatch of these 12 updates (2 epochs of one) had its second replica in a worker process, and so
    # had the warm start's clone of each of the 3 fresh runs (300 demonstrations: one minibatch)
    assert calls["processes"] == 24 + 3 and calls["run"] == 0 and calls["beside"] > 50
    on_threads = ["--set", "run.update_processes=false"]
    assert main(["train", "--config", str(CONFIG), "--run-dir", str(threads), *common, *on_threads]) == 0
    assert calls["processes"] == 27 and calls["run"] == 8 + 1  # 4 updates and the clone, both replicas on threads
    a, b, c, d = (checkpoint.load(run / "checkpoint.pt") for run in (split, straight, again, threads))
    assert a["config"]["run"]["network_threads"] == 2
    assert a["counters"]["updates"] == b["counters"]["updates"] == d["counters"]["updates"] == 4
    for name, tensor in b["model"].items():
        assert torch.equal(a["model"][name], tensor), name
        assert torch.equal(c["model"][name], tensor), name
        assert torch.equal(d["model"][name], tensor), name


def test_network_threads_is_checked_and_0_means_one_per_core() -> None:
    assert from_dict({"run": {"network_threads": 3}}).run.network_threads == 3
    assert thread_count(0) == (os.cpu_count() or 1) and thread_count(2) == 2
    with pytest.raises(ConfigError, match=r"run\.network_threads.*-1"):
        from_dict({"run": {"network_threads": -1}})
    with pytest.raises(ConfigError, match=r"run\.network_threads"):
        from_dict({"run": {"network_threads": "2"}})
    with pytest.raises(ValueError, match="network threads must be >= 1"):
        NetworkThreads(network(), 0)
    with pytest.raises(ValueError, match="no batch norm"):  # its copies' running statistics would drift apart
        NetworkThreads(torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.BatchNorm1d(3)), 2)
    NetworkThreads(torch.nn.Sequential(torch.nn.BatchNorm1d(3)), 1).close()  # one thread: nothing to keep in step
