"""What makes the network's passes faster on a CPU without changing what a run computes.

* ``policies/allocator.py``: freed activations stay in the heap instead of being page-faulted in again;
* ``run.conv_precision``: the hex convolutions in bfloat16 (a close approximation: float32 weights, gradients
  and residual stream);
* ``policies.domain_wheel.network.policy_steps``: the rollout's networks (learner and frozen opponents) share the
  threads, with the same results and random draws as one ``policy_step`` after the other.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from test_network_turn_trunk import played  # noqa: E402  (observations and masks of random games)

from dw_env.geometry import build_geometry  # noqa: E402
from dw_env.options import GameOptions  # noqa: E402
from policies.domain_wheel.network import (  # noqa: E402
    HexPolicyNet,
    StepBatch,
    TrunkCache,
    evaluate_actions,
    policy_step,
    policy_steps,
)
from training.ppo.config import ConfigError, TrainConfig, from_dict  # noqa: E402
from training.ppo.network_threads import NetworkThreads  # noqa: E402
from training.ppo.ppo import conv_dtype, make_network  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SMALL = GameOptions(land_radius=1, map_radius=2, max_rounds=60)

PAGE_FAULTS = """
import resource, sys
import numpy as np
if sys.argv[1] == "keep":
    from policies.allocator import keep_freed_memory
    assert keep_freed_memory() and keep_freed_memory()  # idempotent
def passes(n):  # blocks of 1.2-6 MB, as a pass's activations: allocated, written, freed
    for i in range(n):
        blocks = [np.ones(((i % 5) + 1) * 300_000, dtype=np.float32) for _ in range(4)]
        del blocks
passes(5)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
passes(50)
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc settings (Linux)")
def test_keeping_freed_memory_stops_the_page_faults_of_repeated_passes() -> None:
    def faults(mode: str) -> int:
        out = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(PAGE_FAULTS), mode], cwd=ROOT, capture_output=True, text=True
        )
        assert out.returncode == 0, out.stderr
        return int(out.stdout.split()[-1])

    default, kept = faults("default"), faults("keep")
    assert default > 10_000  # glibc's defaults give the blocks back and fault them in again
    assert kept < default / 100


def _network(options: GameOptions, seed: int, turn_trunk: int = 0) -> HexPolicyNet:
    torch.manual_seed(seed)
    geometry = build_geometry(options.land_radius, options.map_radius)
    net = HexPolicyNet(geometry, channels=16, cell_layers=2, land_layers=2, head_hidden=16, turn_trunk=turn_trunk)
    for head in (net.pass_end_head, net.value_head):
        torch.nn.init.normal_(head[-1].weight)
    return net


@pytest.mark.parametrize("options", [SMALL, GameOptions(max_rounds=60)], ids=["small", "standard"])
def test_bfloat16_convolutions_approximate_the_float32_network(options: GameOptions) -> None:
    obs, masks = played(options, 8, 12, seed=1)[-1]
    x, m = torch.from_numpy(obs), torch.from_numpy(masks)
    results = []
    for dtype in (None, torch.bfloat16):
        net = _network(options, seed=2)
        net.conv_dtype = dtype
        logits, value = net(x)
        assert logits.dtype == value.dtype == torch.float32
        actions = (m > 0).float().multinomial(1, generator=torch.Generator().manual_seed(0)).squeeze(1)
        logp, entropy = evaluate_actions(logits, m, actions)
        (logp.sum() + entropy.sum() + value.sum()).backward()
        grads = {k: p.grad for k, p in net.named_parameters()}
        assert all(g is not None and g.dtype == torch.float32 and g.isfinite().all() for g in grads.values())
        results.append((logits.detach(), value.detach(), logp.detach(), grads))
    (l32, v32, p32, g32), (l16, v16, p16, g16) = results
    legal = m > 0
    assert not torch.equal(l16[legal], l32[legal])  # the convolutions did run in bfloat16
    torch.testing.assert_close(l16[legal], l32[legal], rtol=0.05, atol=0.05)
    torch.testing.assert_close(v16, v32, rtol=0.05, atol=0.05)
    torch.testing.assert_close(p16, p32, rtol=0.05, atol=0.05)
    for name, g in g32.items():  # the same descent direction, layer by layer
        if g.norm() < 1e-5:  # attend.bias: a softmax ignores it, its gradient is 0 up to rounding
            continue
        cosine = torch.nn.functional.cosine_similarity(g.flatten(), g16[name].flatten(), dim=0)
        assert cosine > 0.99, name


def test_conv_precision_is_validated_and_picks_the_convolutions_dtype() -> None:
    cpu, cuda = torch.device("cpu"), torch.device("cuda")

    def config(value: str) -> TrainConfig:
        return from_dict({"run": {"conv_precision": value}})

    assert TrainConfig().run.conv_precision == "auto"
    with pytest.raises(ConfigError, match="conv_precision"):
        config("float16")
    assert conv_dtype(config("float32"), cpu) is None
    assert conv_dtype(config("bfloat16"), cpu) == torch.bfloat16
    assert conv_dtype(config("bfloat16"), cuda) is None  # on CUDA run.amp decides
    from policies.domain_wheel.network import cpu_has_bf16_units

    assert conv_dtype(config("auto"), cpu) == (torch.bfloat16 if cpu_has_bf16_units() else None)
    net = make_network(from_dict({"run": {"conv_precision": "bfloat16"}, "game": {"map_radius": 2}}), cpu)
    assert net.conv_dtype == torch.bfloat16
    assert all(p.dtype == torch.float32 for p in net.parameters())  # the weights stay float32


@pytest.mark.parametrize("threads", [1, 2])
def test_policy_steps_give_each_network_what_policy_step_gives_it_one_after_another(threads: int) -> None:
    """The rollout's batches (a turn_trunk learner with its cache, two plain opponents) computed together on
    the threads: the same actions, log-probabilities and values, and the same random stream, as one
    policy_step after the other."""
    options = GameOptions(max_rounds=60)  # the standard map: several chunks a batch
    learner, first, second = _network(options, 3, turn_trunk=1), _network(options, 4), _network(options, 5)
    for net in (learner, first, second):
        net.eval()
    frames = played(options, 48, 8, seed=5)
    cpu = torch.device("cpu")
    pool = NetworkThreads(learner, threads)
    together_cache, alone_cache = TrunkCache(learner, 48), TrunkCache(learner, 48)
    split = [np.arange(0, 30), np.arange(30, 41), np.arange(41, 48)]
    try:
        for step, (obs, masks) in enumerate(frames):
            seated = [(learner, split[0]), (first, split[1]), (second, split[2])]
            torch.manual_seed(step)
            together = policy_steps(
                [
                    StepBatch(net, obs[rows], masks[rows], together_cache if net is learner else None, rows)
                    for net, rows in seated
                ],
                cpu,
                False,
                False,
                draw=True,
                chunk_map=pool.map,
            )
            torch.manual_seed(step)
            for (net, rows), got in zip(seated, together, strict=True):
                cache = alone_cache if net is learner else None
                alone = policy_step(net, obs[rows], masks[rows], cpu, False, False, cache, rows, draw=True)
                for a, b in zip(got, alone, strict=True):
                    assert np.array_equal(a, b)
                assert masks[rows, got[0]].all()
    finally:
        pool.close()


def test_a_run_saved_before_the_option_resumes_with_float32_convolutions() -> None:
    from training.ppo.resume import saved_config

    data = from_dict({}).to_dict()
    del data["run"]["conv_precision"]
    assert saved_config({"config": data}, "old/checkpoint.pt").run.conv_precision == "float32"
    data["run"]["conv_precision"] = "auto"
    assert saved_config({"config": data}, "new/checkpoint.pt").run.conv_precision == "auto"
    assert saved_config({"config": data}, "new/checkpoint.pt", ["run.conv_precision=bfloat16"]).run.conv_precision == (
        "bfloat16"
    )
