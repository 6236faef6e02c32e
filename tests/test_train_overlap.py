"""``run.overlap`` (training/ppo/overlap.py): rollout k+1 collected while the learner updates on rollout k.

The smoke config (configs/smoke.yaml, no warm start) runs 4 updates of 16 games x 24 steps. Two overlapped
runs of one seed must end with equal weights (no race between the two threads' random streams); an
overlapped run stopped after 2 updates and resumed must end as the straight one (the pending rollout and the
update's generator travel in the checkpoint); the overlapped weights differ from the default run's (the
behaviour policy really lags one update: compared after 2 updates).
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("tensorboard")

from dw_cli.main import main  # noqa: E402
from policies import checkpoint  # noqa: E402
from training.ppo import overlap  # noqa: E402

CONFIG = str(Path(__file__).resolve().parent.parent / "configs" / "smoke.yaml")
QUICK = ["--set", "eval.final_games=0", "--set", "imitation.teacher=none"]


def _train(run_dir: Path, *sets: str) -> int:
    args = ["train", "--config", CONFIG, "--run-dir", str(run_dir), *QUICK]
    for item in sets:
        args += ["--set", item]
    return main(args)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    base = tmp_path_factory.mktemp("overlap")
    switch = sys.getswitchinterval()
    assert _train(base / "a", "run.overlap=true") == 0
    assert sys.getswitchinterval() == switch  # overlap.SWITCH_INTERVAL lasts only while both threads run
    assert _train(base / "b", "run.overlap=true") == 0
    assert _train(base / "split", "run.overlap=true", "run.stop_after_updates=2") == 0
    first = checkpoint.load(base / "split" / "checkpoint.pt")
    resume = ["train", "--resume", str(base / "split" / "checkpoint.pt"), "--set", "run.stop_after_updates=0"]
    assert main(resume) == 0
    assert _train(base / "default", "run.stop_after_updates=2") == 0
    return {
        "base": base,
        "first": first,
        **{k: checkpoint.load(base / k / "checkpoint.pt") for k in ("a", "b", "split", "default")},
    }


def _same_weights(one: dict[str, Any], other: dict[str, Any]) -> bool:
    return all(torch.equal(one["model"][k], v) for k, v in other["model"].items())


def test_overlap_is_deterministic_for_a_seed(runs: dict[str, Any]) -> None:
    assert runs["a"]["counters"]["updates"] == 4 and runs["a"]["counters"]["env_steps"] == 4 * 16 * 24
    assert _same_weights(runs["a"], runs["b"])


def test_overlap_resume_continues_exactly(runs: dict[str, Any]) -> None:
    first = runs["first"]
    assert first["counters"]["updates"] == 2
    assert "pending" in first["training"][overlap.ENTRY]  # rollout 3 was collected during update 2
    keys = ("env_steps", "updates", "games", "decisions")
    assert {k: runs["split"]["counters"][k] for k in keys} == {k: runs["a"]["counters"][k] for k in keys}
    assert _same_weights(runs["split"], runs["a"])


def test_overlap_trains_with_a_one_update_lag(runs: dict[str, Any]) -> None:
    """The default run's rollout 2 comes from weights W1, the overlapped run's from W0: after 2 updates they part."""
    assert "overlap" not in runs["default"]["training"]
    assert runs["default"]["counters"]["updates"] == runs["first"]["counters"]["updates"] == 2
    assert not _same_weights(runs["first"], runs["default"])


def test_an_overlapped_checkpoint_is_refused_without_overlap(runs: dict[str, Any]) -> None:
    payload = {"training": {overlap.ENTRY: runs["first"]["training"][overlap.ENTRY]}}
    with pytest.raises(checkpoint.CheckpointError, match=r"x.pt: written by an overlapped run.*run.overlap: true"):
        overlap.take_state(payload, False, None, "x.pt")
    assert overlap.ENTRY in payload["training"]  # nothing taken


def _rollout() -> Any:
    from training.ppo.ppo import Rollout

    return Rollout.allocate(8, 3, 5, 4)


def test_a_damaged_pending_rollout_is_refused_naming_the_entry(runs: dict[str, Any]) -> None:
    rollout = _rollout()
    good = {
        "update_rng": torch.Generator().get_state(),
        "pending": {
            "arrays": {name: torch.from_numpy(getattr(rollout, name).copy()) for name in rollout.ARRAYS},
            "count": torch.zeros(3, dtype=torch.int64),
            "open": torch.zeros(3, dtype=torch.bool),
            "steps": 24,
            "games": 1,
        },
    }
    assert overlap.read_state(good, rollout)["pending"]["steps"] == 24
    wrong_shape = {**good, "pending": {**good["pending"], "count": torch.zeros(4, dtype=torch.int64)}}
    with pytest.raises(ValueError, match=r"training.overlap.pending.count: must be int64 of shape \(3,\).*\(4,\)"):
        overlap.read_state(wrong_shape, rollout)
    too_many = {**good, "pending": {**good["pending"], "count": torch.full((3,), 99, dtype=torch.int64)}}
    with pytest.raises(ValueError, match=r"pending.count: values must be in 0..8, got 99..99"):
        overlap.read_state(too_many, rollout)
    bad_actions = {name: t.clone() for name, t in good["pending"]["arrays"].items()}
    bad_actions["actions"][0, 0] = 4
    with pytest.raises(ValueError, match=r"pending.arrays.actions: values must be in 0..3, got 0..4"):
        overlap.read_state({**good, "pending": {**good["pending"], "arrays": bad_actions}}, rollout)
    with pytest.raises(ValueError, match=r"training.overlap: unknown 'extra'"):
        overlap.read_state({**good, "extra": 1}, rollout)
    with pytest.raises(ValueError, match=r"update_rng: must be a generator state"):
        overlap.read_state({"update_rng": "seed"}, rollout)


def test_carry_into_moves_open_decisions_and_keeps_the_source() -> None:
    source, target = _rollout(), _rollout()
    source.count[:] = [3, 2, 0]
    source.open[:] = [True, False, False]
    source.values[2, 0], source.values[1, 1] = 7.0, 5.0
    overlap.carry_into(source, target)
    assert target.count.tolist() == [1, 0, 0] and target.open.tolist() == [True, False, False]
    assert target.values[0, 0] == 7.0 and target.values[0, 1] == 0.0
    assert source.count.tolist() == [3, 2, 0] and source.values[2, 0] == 7.0  # the update still reads them


def test_the_collector_hands_back_the_collection_error() -> None:
    started = threading.Event()

    def fail() -> dict[str, Any]:
        started.set()
        raise RuntimeError("env broke")

    collector = overlap.Collector.start(fail)
    with pytest.raises(RuntimeError, match="env broke"):
        collector.result()
    assert started.is_set() and not collector.thread.is_alive()


def test_the_update_generator_leaves_the_global_stream_alone() -> None:
    """grouped_order draws from the generator given: the collect thread's global stream does not move."""
    from training.ppo.ppo import grouped_order

    group = np.arange(50)
    torch.manual_seed(5)
    before = torch.get_rng_state()
    order, _ = grouped_order(group, torch.device("cpu"), torch.Generator().manual_seed(2))
    assert torch.equal(torch.get_rng_state(), before)
    again, _ = grouped_order(group, torch.device("cpu"), torch.Generator().manual_seed(2))
    assert torch.equal(order, again)
    default, _ = grouped_order(group, torch.device("cpu"))
    assert not torch.equal(torch.get_rng_state(), before)  # no generator: the global stream, as before
    assert sorted(default.tolist()) == list(range(50))


def test_overlap_with_ray_rollouts_is_refused() -> None:
    from training.ppo.config import TrainConfig, from_dict

    data = TrainConfig().to_dict()
    data["run"].update(overlap=True, rollout_workers=2)
    with pytest.raises(ValueError, match=r"run.overlap: rollouts on Ray actors.*allowed: false"):
        from_dict(data)


def test_update_replicas_are_made_without_forking_the_global_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    """fork_rng's restore in the update's thread would undo the draws the rollout thread made meanwhile."""
    from torch import nn

    from training.ppo.network_threads import NetworkThreads

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("fork_rng restores torch's global stream under the rollout thread's feet")

    monkeypatch.setattr(torch.random, "fork_rng", forbidden)
    threads = NetworkThreads(nn.Linear(3, 2), 2)
    try:
        threads._sync(2)
    finally:
        threads.close()
    assert len(threads.replicas) == 2 and torch.equal(threads.replicas[1].weight, threads.replicas[0].weight)


def test_on_a_cpu_the_rollout_thread_needs_no_stream_of_its_own() -> None:
    assert overlap.side_stream(torch.device("cpu")) is None
