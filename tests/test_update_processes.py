"""The PPO update's second and later replicas in worker processes (training/ppo/update_processes.py): the same
gradients as threads bit for bit, errors that reach the trainer, and no hang or second run whatever happens.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from dw_env.geometry import build_geometry  # noqa: E402
from dw_env.options import GameOptions  # noqa: E402
from policies.domain_wheel.network import HexPolicyNet  # noqa: E402
from training.ppo.network_threads import NetworkThreads  # noqa: E402
from training.ppo.update_processes import UpdateProcess, is_batched_work  # noqa: E402

pytestmark = pytest.mark.skipif(os.name != "posix", reason="update processes are POSIX-only (threads elsewhere)")

SMALL = GameOptions(land_radius=1, map_radius=2, max_rounds=60)
ROOT = Path(__file__).resolve().parents[1]
CHUNKS = [(0, 3), (3, 5), (5, 9), (9, 12)]


@dataclass
class SquareLoss:
    """A chunk's loss for these tests; refuses the chunks from row ``fail_from`` on (-1: none)."""

    batch: dict[str, torch.Tensor]
    fail_from: int = -1
    tag: list[int] = field(default_factory=list)  # a field that travels with every minibatch

    def __call__(self, model: torch.nn.Module, s: int, e: int) -> dict[str, torch.Tensor]:
        if 0 <= self.fail_from <= s:
            raise ValueError(f"chunk {s}:{e} refused")
        logits, value = model(self.batch["obs"][s:e])
        loss = logits.logsumexp(-1).sum() + value.pow(2).sum()
        loss.backward()
        return {"loss": loss.detach(), "rows": torch.tensor(float(e - s))}


def network(seed: int = 3) -> HexPolicyNet:
    torch.manual_seed(seed)
    geometry = build_geometry(SMALL.land_radius, SMALL.map_radius)
    return HexPolicyNet(geometry, channels=8, cell_layers=1, land_layers=2, head_hidden=16)


def observations() -> torch.Tensor:
    from dw_env.envs.vector import DomainWheelVectorEnv

    env = DomainWheelVectorEnv(12, SMALL, seed=5)
    obs, *_ = env.reset(seed=5)
    for _ in range(7):
        obs, *_ = env.step(env.sample_actions())
    return torch.from_numpy(obs.copy())


def steps(processes: bool, count: int = 3) -> tuple[list[list[torch.Tensor]], list[dict[str, float]], int]:
    """Take ``count`` Adam steps on two replicas; return each step's gradients, statistics and workers used."""
    net = network()
    optimizer = torch.optim.Adam(net.parameters(), lr=0.01)
    pool = NetworkThreads(net, 2, processes=processes)
    grads, stats = [], []
    try:
        for k in range(count):  # a new batch every other step: sent again only then
            work = SquareLoss({"obs": observations()[k // 2 :]}, tag=[k])
            optimizer.zero_grad(set_to_none=True)
            got = pool.run(CHUNKS, work)
            stats.append({key: float(v) for key, v in got.items()})
            grads.append([p.grad.clone() for p in net.parameters()])  # type: ignore[union-attr]
            optimizer.step()
        workers = len(pool.workers)
    finally:
        pool.close()
    assert pool.workers == []
    return grads, stats, workers


def test_a_worker_process_computes_the_gradients_of_a_thread_bit_for_bit() -> None:
    assert is_batched_work(SquareLoss({})) and not is_batched_work(lambda m, s, e: {})
    on_processes, stats_p, workers = steps(processes=True)
    on_threads, stats_t, none = steps(processes=False)
    assert workers == 1 and none == 0
    for step_p, step_t in zip(on_processes, on_threads, strict=True):
        for a, b in zip(step_p, step_t, strict=True):
            assert torch.equal(a, b)
    assert stats_p == stats_t and stats_p[0]["rows"] == 12


def test_a_closure_runs_on_threads_even_when_processes_are_allowed() -> None:
    net = network()
    obs = observations()
    pool = NetworkThreads(net, 2, processes=True)

    def work(model: torch.nn.Module, s: int, e: int) -> dict[str, torch.Tensor]:
        return SquareLoss({"obs": obs})(model, s, e)

    try:
        got = pool.run(CHUNKS, work)
        assert float(got["rows"]) == 12 and pool.workers == []  # not picklable: no process was started
    finally:
        pool.close()


@pytest.fixture
def started() -> Iterator[tuple[NetworkThreads, UpdateProcess, torch.Tensor]]:
    """A pool of two replicas whose worker process has run one minibatch; closed afterwards."""
    obs = observations()
    pool = NetworkThreads(network(), 2, processes=True)
    try:
        pool.run(CHUNKS, SquareLoss({"obs": obs}))
        yield pool, pool.workers[0], obs
    finally:
        pool.close()


def test_an_error_in_a_worker_process_reaches_the_trainer_and_the_worker_keeps_serving(started) -> None:  # type: ignore[no-untyped-def]
    pool, worker, obs = started
    with pytest.raises(ValueError, match="chunk 9:12 refused"):  # 9:12 is the worker's (shares 0, 2 | 1, 3)
        pool.run(CHUNKS, SquareLoss({"obs": obs}, fail_from=9))
    with pytest.raises(ValueError, match="chunk 5:9 refused"):  # the trainer's share fails, the worker's too
        pool.run(CHUNKS, SquareLoss({"obs": obs}, fail_from=5))
    pool.net.zero_grad(set_to_none=True)
    got = pool.run(CHUNKS, SquareLoss({"obs": obs}))
    assert float(got["rows"]) == 12 and pool.workers == [worker] and worker.process.poll() is None
    pool.close()
    assert worker.process.poll() is not None  # stopped by close()
    pool.close()  # idempotent


def test_a_killed_worker_is_an_error_naming_its_exit_code_not_a_hang(started) -> None:  # type: ignore[no-untyped-def]
    pool, worker, obs = started
    os.kill(worker.process.pid, signal.SIGKILL)
    worker.process.wait(timeout=30)
    with pytest.raises(RuntimeError, match=f"exit code {-signal.SIGKILL}"):
        pool.run(CHUNKS, SquareLoss({"obs": obs}))


def test_a_worker_that_cannot_start_leaves_the_update_to_threads_with_a_warning(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    def refuse(self, net, threads):  # type: ignore[no-untyped-def]
        raise RuntimeError("the PPO update's worker process did not start (test)")

    monkeypatch.setattr(UpdateProcess, "__init__", refuse)
    net = network()
    pool = NetworkThreads(net, 2, processes=True)
    try:
        with pytest.warns(RuntimeWarning, match="runs on threads instead"):
            got = pool.run(CHUNKS, SquareLoss({"obs": observations()}))
        assert float(got["rows"]) == 12 and not pool.processes
    finally:
        pool.close()


def test_a_worker_whose_network_does_not_unpickle_there_is_refused_at_start(tmp_path) -> None:  # type: ignore[no-untyped-def]
    class Local(HexPolicyNet):  # a class of a function's scope: the worker cannot import it
        pass

    torch.manual_seed(0)
    net = Local(build_geometry(1, 2), channels=8, cell_layers=1, land_layers=2, head_hidden=16)
    with pytest.raises(RuntimeError, match="did not start"):
        UpdateProcess(net, 1)


def test_an_unguarded_training_script_trains_once_with_its_update_in_a_worker(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """multiprocessing's spawn would import the script again and train twice; a fresh interpreter does not."""
    pytest.importorskip("tensorboard")
    script = tmp_path / "unguarded.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import sys
            import policies.domain_wheel.network
            from training.ppo.config import load
            from training.ppo.network_threads import NetworkThreads
            from training.ppo.ppo import train

            runs = []
            original = NetworkThreads._run_in_processes
            def counted(self, shares, work):
                done = original(self, shares, work)
                runs.append(done is not None)
                return done
            NetworkThreads._run_in_processes = counted
            policies.domain_wheel.network.CPU_CHUNK_CELLS = 6 * 133  # chunks of 6 small-map rows: several per minibatch
            config = load({str(ROOT / "configs" / "smoke.yaml")!r}, [
                "run.network_threads=2", "run.stop_after_updates=1", "eval.final_games=0",
                "run.out_dir={tmp_path}", "run.progress=false", "imitation.teacher=none",
            ])
            train(config)
            print("TRAINED", sys.argv[0], sum(runs), all(runs))
            """
        )
    )
    done = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [line for line in done.stdout.splitlines() if line.startswith("TRAINED")]
    assert len(lines) == 1  # once: the worker did not run the script
    _, _, count, every = lines[0].split()
    assert int(count) > 0 and every == "True"
