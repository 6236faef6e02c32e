"""The network's inference pass as a TorchScript trace (policies/traced_forward.py): the same numbers, bit for
bit, as the eager pass; made again whenever the network is no longer the one traced; used only where it may be.
"""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from dw_env.envs.vector import DomainWheelVectorEnv  # noqa: E402
from dw_env.geometry import build_geometry  # noqa: E402
from dw_env.options import GameOptions  # noqa: E402
from policies import traced_forward as traced_module  # noqa: E402
from policies.domain_wheel.network import (  # noqa: E402
    Batch,
    HexPolicyNet,
    StepBatch,
    Trunk,
    TrunkCache,
    forward_batches,
    policy_steps,
)
from policies.traced_forward import traced_forward, traced_turn  # noqa: E402

SMALL = GameOptions(land_radius=1, map_radius=2, max_rounds=60)
STANDARD = GameOptions(max_rounds=60)


def observations(options: GameOptions, games: int, steps: int, seed: int = 4) -> torch.Tensor:
    env = DomainWheelVectorEnv(games, options, seed=seed)
    obs, *_ = env.reset(seed=seed)
    for _ in range(steps):
        obs, *_ = env.step(env.sample_actions())
    return torch.from_numpy(obs.copy())


def network(options: GameOptions, cell_layers: int = 1, seed: int = 0, turn_trunk: int = 0) -> HexPolicyNet:
    torch.manual_seed(seed)
    geometry = build_geometry(options.land_radius, options.map_radius)
    return HexPolicyNet(
        geometry, channels=8, cell_layers=cell_layers, land_layers=2, head_hidden=16, turn_trunk=turn_trunk
    )


def same(a: tuple[torch.Tensor, torch.Tensor], b: tuple[torch.Tensor, torch.Tensor]) -> bool:
    return all(torch.equal(x, y) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("options", [SMALL, STANDARD], ids=["small", "standard"])
@pytest.mark.parametrize("cell_layers", [0, 1, 2])
@pytest.mark.parametrize("conv_dtype", [None, torch.bfloat16], ids=["float32", "bfloat16"])
def test_the_trace_computes_the_eager_numbers_bit_for_bit_for_any_batch(options, cell_layers, conv_dtype) -> None:  # type: ignore[no-untyped-def]
    obs = observations(options, 9, 25)
    net = network(options, cell_layers)
    net.conv_dtype = conv_dtype
    with torch.inference_mode():
        trace = traced_forward(net, obs[:4])  # traced on 4 rows, run on others
        for rows in (slice(0, 9), slice(0, 4), slice(2, 3), slice(3, 9)):
            for _ in range(3):  # TorchScript profiles its first runs, then optimizes: the same numbers every time
                assert same(trace(obs[rows]), net(obs[rows])), rows
            chunked = forward_batches([Batch(net, obs[rows], 4)])[0]  # chunks of 4 rows, eager
            assert same(forward_batches([Batch(net, obs[rows], 4)], traced=True)[0], chunked)


def test_a_trace_follows_in_place_weight_updates_and_is_made_again_when_the_network_changes() -> None:
    obs = observations(SMALL, 6, 10)
    net = network(SMALL)
    with torch.no_grad():
        trace = traced_forward(net, obs)
        assert traced_forward(net, obs) is trace  # kept
        for p in net.parameters():  # what an optimizer step does: the trace reads the same tensors
            p.add_(0.01 * torch.randn_like(p))
        assert traced_forward(net, obs) is trace
        assert same(trace(obs), net(obs))

        net.conv_dtype = torch.bfloat16  # the convolutions' dtype is fixed in a trace
        bf16 = traced_forward(net, obs)
        assert bf16 is not trace and same(bf16(obs), net(obs))

        other = network(SMALL, seed=7)  # new parameter tensors (load_state_dict with assign=True)
        net.load_state_dict(other.state_dict(), assign=True)
        assigned = traced_forward(net, obs)
        assert assigned is not bf16 and same(assigned(obs), net(obs))
        assert not same(bf16(obs), assigned(obs))  # the old trace still reads the old tensors

        net.set_geometry(build_geometry(STANDARD.land_radius, STANDARD.map_radius))  # another map
        standard = observations(STANDARD, 3, 5)
        assert same(traced_forward(net, standard)(standard), net(standard))


def test_a_trace_is_released_with_its_network() -> None:
    obs = observations(SMALL, 3, 5)
    net = network(SMALL)
    with torch.no_grad():
        traced_forward(net, obs)
    assert net in traced_module._TRACES
    gone = weakref.ref(net)
    del net
    gc.collect()
    assert gone() is None


def test_forward_batches_traces_only_where_a_trace_gives_what_the_caller_asked_for() -> None:
    obs = observations(SMALL, 5, 8)
    net = network(SMALL, seed=2)
    ((logits, _),) = forward_batches([Batch(net, obs, 4)], traced=True)  # gradients on: eager, recorded by autograd
    assert logits.grad_fn is not None and net not in traced_module._TRACES
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):  # autocast: a trace would not follow it
        ((logits, _),) = forward_batches([Batch(net, obs, 4)], traced=True)
    assert net not in traced_module._TRACES
    with torch.no_grad():
        forward_batches([Batch(net, obs, 4)])  # not asked
        assert net not in traced_module._TRACES
        plain = forward_batches([Batch(net, obs, 4)], traced=True)[0]
        assert net in traced_module._TRACES and same(plain, forward_batches([Batch(net, obs, 4)])[0])


def test_policy_steps_draw_the_same_actions_with_and_without_traces() -> None:
    env = DomainWheelVectorEnv(12, SMALL, seed=4)
    obs, masks, _ = env.reset(seed=4)
    for _ in range(14):
        obs, masks, *_ = env.step(env.sample_actions())
    net = network(SMALL, seed=5)
    batch = [StepBatch(net, obs.copy(), masks.copy())]
    device = torch.device("cpu")
    torch.manual_seed(11)
    eager = policy_steps(batch, device, False, False, draw=True)
    assert net not in traced_module._TRACES
    torch.manual_seed(11)
    traced = policy_steps(batch, device, False, False, draw=True, traced=True)
    assert net in traced_module._TRACES
    for a, b in zip(eager[0], traced[0], strict=True):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("options", [SMALL, STANDARD], ids=["small", "standard"])
@pytest.mark.parametrize("conv_dtype", [None, torch.bfloat16], ids=["float32", "bfloat16"])
def test_a_turn_trunk_trace_computes_the_eager_trunk_and_heads_bit_for_bit(options, conv_dtype) -> None:  # type: ignore[no-untyped-def]
    """A ``turn_trunk`` network's rollout: the trunk once a turn, the heads of each decision from a stored trunk."""
    obs = observations(options, 9, 31)
    net = network(options, seed=3, turn_trunk=1)
    net.conv_dtype = conv_dtype
    rng = np.random.default_rng(5)
    with torch.inference_mode():
        trace = traced_turn(net, obs[:4])  # traced on 4 rows, run on others
        assert traced_turn(net, obs) is trace
        for rows in (slice(0, 9), slice(0, 4), slice(2, 3), slice(3, 9)):
            trunk = net.trunk(obs[rows])
            traced_trunk = trace.trunk(obs[rows])
            assert all(torch.equal(a, b) for a, b in zip(trunk, traced_trunk, strict=True))
            for _ in range(3):  # any trunk row for any observation, as a cache hands them out
                member = torch.from_numpy(rng.integers(0, len(trunk.cells), size=9))
                assert same(trace.heads(traced_trunk, obs, member), net.heads(trunk, obs, member)), rows
        assert same(trace.heads(trace.trunk(obs), obs, torch.arange(9)), net(obs))


def test_forward_batches_with_a_trunk_cache_give_the_same_numbers_traced_or_not() -> None:
    env = DomainWheelVectorEnv(10, STANDARD, seed=8)
    obs, *_ = env.reset(seed=8)
    net = network(STANDARD, seed=4, turn_trunk=1)
    rows = np.arange(10)
    eager_cache, traced_cache = TrunkCache(net, 10), TrunkCache(net, 10)
    reused = 0
    with torch.inference_mode():
        for _ in range(24):
            obs, *_ = env.step(env.sample_actions())
            x = torch.from_numpy(obs.copy())
            reused += int(eager_cache.lookup(obs, rows).sum())
            eager = forward_batches([Batch(net, x, 4, eager_cache, rows, obs.copy())])[0]
            traced = forward_batches([Batch(net, x, 4, traced_cache, rows, obs.copy())], traced=True)[0]
            assert same(eager, traced)  # the same chunks: the same numbers
            whole = net(x)  # one pass of all rows: the same up to the rounding of other batch sizes
            torch.testing.assert_close(eager[0], whole[0], rtol=1e-6, atol=1e-6)
            torch.testing.assert_close(eager[1], whole[1], rtol=1e-6, atol=1e-6)
            assert isinstance(traced_cache.trunk, Trunk)
    assert net in traced_module._TURN_TRACES and net not in traced_module._TRACES
    assert reused > 50  # most turns' second decision read its first's stored trunk
