"""The warm start's clone (training/ppo/imitation.py) in chunks on the trainer's threads or processes: the same
objective as one pass over the minibatch, the same weights on any thread count up to rounding, bit for bit on
a given count, and as many chunks for each thread.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from dw_env.geometry import build_geometry  # noqa: E402
from dw_env.options import GameOptions  # noqa: E402
from policies.domain_wheel.network import HexPolicyNet, evaluate_actions  # noqa: E402
from training.ppo.imitation import (  # noqa: E402
    GAMES_IN_FLIGHT,
    CloneLoss,
    clone,
    collect_demonstrations,
    collect_parallel,
    worker_shares,
)
from training.ppo.network_threads import NetworkThreads  # noqa: E402

SMALL = GameOptions(land_radius=1, map_radius=2, max_rounds=60)
BATCH = 40  # 3 minibatches of the 100 demonstrations (40, 40, 20)


@pytest.fixture(scope="module")
def demos() -> dict[str, Any]:
    data = collect_demonstrations(SMALL, "balanced", 100, seed=4, num_envs=8)
    assert len(data["actions"]) >= 100 and len(set(data["actions"].tolist())) > 5
    return data


def network() -> HexPolicyNet:
    torch.manual_seed(3)
    return HexPolicyNet(build_geometry(1, 2), channels=8, cell_layers=1, land_layers=2, head_hidden=16)


def cloned(data: dict[str, Any], threads: int, processes: bool = False) -> tuple[HexPolicyNet, dict[str, float]]:
    net = network()
    pool = NetworkThreads(net, threads, processes=processes)
    try:
        torch.manual_seed(7)  # the epochs' shuffles
        cpu = torch.device("cpu")
        stats = clone(net, data, epochs=2, learning_rate=1e-2, batch_size=BATCH, device=cpu, threads=pool)
    finally:
        pool.close()
    return net, stats


def test_the_chunks_gradient_is_the_minibatchs_mean_loss_gradient(demos, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr("policies.domain_wheel.network.CPU_CHUNK_CELLS", 7 * 133)  # 7 examples a chunk
    net = network()
    batch = {key: torch.from_numpy(demos[key][:BATCH]) for key in ("obs", "masks", "actions", "values")}
    sums = NetworkThreads(net, 1).run([(0, 7), (7, 19), (19, BATCH)], CloneLoss(batch, BATCH))
    chunked = [p.grad.clone() for p in net.parameters()]  # type: ignore[union-attr]
    net.zero_grad()
    logits, value = net(batch["obs"])
    logp, _ = evaluate_actions(logits, batch["masks"], batch["actions"])
    loss = -logp.mean() + 0.5 * ((value - batch["values"]) ** 2).mean()
    loss.backward()
    assert float(sums["loss"]) == pytest.approx(float(loss.detach()), rel=1e-5)
    chosen = logits.masked_fill(batch["masks"] == 0, -1e9).argmax(-1)
    assert float(sums["correct"]) == float((chosen == batch["actions"]).sum())
    for got, p in zip(chunked, net.parameters(), strict=True):
        torch.testing.assert_close(got, p.grad, rtol=1e-4, atol=1e-6)
    assert sum(float(g.abs().sum()) for g in chunked) > 0


@pytest.mark.parametrize("processes", [False, True])
def test_a_clone_on_two_threads_or_processes_is_one_threads_up_to_rounding(demos, monkeypatch, processes) -> None:  # type: ignore[no-untyped-def]
    if processes and os.name != "posix":
        pytest.skip("update processes are POSIX-only")
    monkeypatch.setattr("policies.domain_wheel.network.CPU_CHUNK_CELLS", 9 * 133)  # several chunks a minibatch
    one, stats_one = cloned(demos, 1)
    two, stats_two = cloned(demos, 2, processes)
    start = network()
    for a, b, before in zip(one.parameters(), two.parameters(), start.parameters(), strict=True):
        # Adam's steps (6 of 0.01) divide by the gradients' size, so rounding shows more than in one gradient
        torch.testing.assert_close(a, b, rtol=1e-3, atol=1e-4)
        assert not torch.equal(a, before)
    assert stats_one["accuracy"] == pytest.approx(stats_two["accuracy"], abs=0.02)
    assert 0 < stats_one["accuracy"] <= 1 and np.isfinite(stats_one["loss"])
    again, _ = cloned(demos, 2, processes)
    for a, b in zip(two.parameters(), again.parameters(), strict=True):
        assert torch.equal(a, b)  # a given thread count is exact
    if processes:
        threads, _ = cloned(demos, 2, False)
        for a, b in zip(two.parameters(), threads.parameters(), strict=True):
            assert torch.equal(a, b)  # processes compute what threads compute, bit for bit


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_each_thread_gets_as_many_chunks_of_about_the_same_size(demos, monkeypatch, threads: int) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(
        "policies.domain_wheel.network.CPU_CHUNK_CELLS", 15 * 133
    )  # 40 examples: 3 chunks before rounding up
    seen: list[list[tuple[int, int]]] = []
    run = NetworkThreads.run

    def spy(self, chunks, work):  # type: ignore[no-untyped-def]
        seen.append(list(chunks))
        return run(self, chunks, work)

    monkeypatch.setattr(NetworkThreads, "run", spy)
    cloned(demos, threads)
    assert len(seen) == 2 * 3  # 2 epochs of 3 minibatches
    for chunks in seen:
        sizes = [e - s for s, e in chunks]
        assert chunks[0][0] == 0 and all(a[1] == b[0] for a, b in zip(chunks, chunks[1:], strict=False))
        assert chunks[-1][1] in (BATCH, 100 - 2 * BATCH)
        assert len(chunks) % threads == 0 and max(sizes) - min(sizes) <= 1 and min(sizes) > 0
        assert max(sizes) <= 15


def test_worker_shares_split_the_games_in_flight_and_the_decisions_alike() -> None:
    """Every game slot is played for the same number of steps (give or take one) on any worker count."""
    for decisions in (0, 1, 100, 50_000, 240_001):
        for workers in (1, 2, 3, 16, 64, 100):
            shares = worker_shares(decisions, workers)
            assert len(shares) == min(workers, GAMES_IN_FLIGHT)
            assert sum(games for _, games in shares) == GAMES_IN_FLIGHT
            assert sum(share for share, _ in shares) == decisions
            per_game = [share / games for share, games in shares]
            assert max(per_game) - min(per_game) <= 1.0, (decisions, workers, shares)
    assert worker_shares(50_000, 16) == [(3125, 4)] * 16  # 781 steps of each slot, not 49 (64 games a worker)
    with pytest.raises(ValueError, match="workers >= 1"):
        worker_shares(10, 0)


def test_collect_parallel_plays_the_games_in_flight_across_workers() -> None:
    """Two workers play 32 games each (seeds seed and seed + 1), not 64 each: the same examples as those two
    shares collected here, in order."""
    data = collect_parallel(SMALL, "balanced", 300, seed=7, workers=2)
    parts = [collect_demonstrations(SMALL, "balanced", 150, seed=7 + k, num_envs=32) for k in range(2)]
    for key in ("obs", "masks", "actions", "values"):
        np.testing.assert_array_equal(data[key], np.concatenate([part[key] for part in parts]))
    assert 300 <= len(data["actions"]) < 300 + 2 * 32  # each worker stops within one step of its share


def test_a_clone_reports_each_epoch_and_returns_the_last_epochs_figures(demos) -> None:  # type: ignore[no-untyped-def]
    """A long warm start prints a line per epoch (training/ppo/imitation.py warm_start): it must not look hung."""
    net = network()
    seen: list[tuple[int, dict[str, float]]] = []
    torch.manual_seed(7)
    stats = clone(
        net,
        demos,
        epochs=3,
        learning_rate=1e-2,
        batch_size=BATCH,
        device=torch.device("cpu"),
        report=lambda epoch, figures: seen.append((epoch, dict(figures))),
    )
    assert [epoch for epoch, _ in seen] == [1, 2, 3]
    assert seen[-1][1] == stats
    assert all(0.0 <= figures["accuracy"] <= 1.0 and figures["loss"] > 0 for _, figures in seen)
    assert seen[-1][1]["loss"] < seen[0][1]["loss"]  # the figures are each epoch's own, and training lowers them
