"""Search-guided self-play on Ray actors (``run.selfplay_workers`` with ``run.cluster``): the same run as in process.

A one-node loopback cluster (training/distributed/cluster.py) with two CPUs, the actors importing the project
by name as on a real cluster; Conquer 3x3's smoke config.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

from training.distributed import cluster
from training.search_guided import config as sg
from training.search_guided.search_guided import train

try:
    import ray
except ImportError:  # the fixture fails the test with the install hint
    ray = None

ROOT = Path(__file__).resolve().parents[1]
RUN = ["eval.games=0", "learn.games_per_iteration=3", "run.iterations=1"]


@pytest.fixture(scope="module")
def loopback() -> Iterator[cluster.LoopbackCluster]:
    if ray is None:
        pytest.fail(f"Ray is not installed, so the cluster tests cannot run: {cluster.INSTALL_HINT}")
    with cluster.loopback_cluster(nodes=1, cpus_per_node=2, timeout=60.0) as lc:
        yield lc


def test_two_ray_actors_give_the_in_process_weights(loopback: cluster.LoopbackCluster, tmp_path: Path) -> None:
    smoke = sg.load(ROOT / "configs" / "search_guided_smoke.yaml").to_dict()
    on_ray = ["run.selfplay_workers=2", f"run.cluster={loopback.address}"]
    train(sg.from_dict(smoke, RUN), run_dir=tmp_path / "here")
    result = train(sg.from_dict(smoke, [*RUN, *on_ray]), run_dir=tmp_path / "ray")
    assert result["counters"]["games"] == 3 and result["counters"]["targets"] > 0
    here, there = (torch.load(tmp_path / r / "checkpoint.pt", weights_only=True) for r in ("here", "ray"))
    for key, tensor in here["model"].items():
        assert torch.equal(there["model"][key], tensor), key
    assert torch.equal(here["training"]["replay"]["policy"], there["training"]["replay"]["policy"])
    assert ray is not None and ray.is_initialized()  # the run used the test's cluster and left it connected
