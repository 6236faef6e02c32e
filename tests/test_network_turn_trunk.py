"""One trunk per turn (``network.turn_trunk``): the two decisions of a turn (rule 3.2) share the trunk exactly.

policies/domain_wheel/network.py: the trunk reads only the turn-fixed inputs, so the phase-2 observation (the
selected piece and its destinations) has its phase-1 observation's trunk; the rollout reuses it (TrunkCache) and
the update computes it once per turn (training/ppo/ppo.py turn_groups). These tests hold the reuse to the plain
forward pass.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from dw_env.envs.observation import CELL_FEATURES, GLOBAL_FEATURES  # noqa: E402
from dw_env.envs.vector import DomainWheelVectorEnv  # noqa: E402
from dw_env.geometry import build_geometry  # noqa: E402
from dw_env.options import GameOptions  # noqa: E402
from policies import checkpoint  # noqa: E402
from policies.domain_wheel.network import (  # noqa: E402
    HexPolicyNet,
    TrunkCache,
    draw_actions,
    forward_cached,
    forward_grouped,
    policy_step,
    same_turn_inputs,
)
from training.ppo.config import ConfigError, from_dict  # noqa: E402
from training.ppo.ppo import Rollout, balanced_cuts, group_cuts, grouped_order, turn_groups  # noqa: E402

SMALL = GameOptions(land_radius=1, map_radius=2, max_rounds=60)
PHASE = len(GLOBAL_FEATURES) - GLOBAL_FEATURES.index("phase")  # the phase global, counted from the end


def played(options: GameOptions, games: int, steps: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Return (observations, masks) of ``games`` random games after each of ``steps`` steps."""
    env = DomainWheelVectorEnv(games, options, seed=seed)
    obs, masks, _ = env.reset(seed=seed)
    out = [(obs.copy(), masks.copy())]
    for _ in range(steps):
        obs, masks, *_ = env.step(env.sample_actions())
        out.append((obs.copy(), masks.copy()))
    return out


def network(options: GameOptions, seed: int = 0, turn_trunk: int = 1) -> HexPolicyNet:
    torch.manual_seed(seed)
    geometry = build_geometry(options.land_radius, options.map_radius)
    return HexPolicyNet(geometry, channels=8, cell_layers=1, land_layers=2, head_hidden=16, turn_trunk=turn_trunk)


@pytest.mark.parametrize("options", [SMALL, GameOptions(max_rounds=60)], ids=["small", "standard"])
def test_a_turns_second_decision_has_its_firsts_trunk_bit_for_bit(options: GameOptions) -> None:
    """Rule 3.2: choosing a destination changes only the phase inputs; the trunk sees none of them."""
    net = network(options).eval()
    frames = played(options, 6, 40, seed=3)
    pairs = 0
    with torch.inference_mode():
        for (before, _), (after, _) in zip(frames[:-1], frames[1:], strict=True):
            second = np.flatnonzero(after[:, -PHASE] == 1)  # phase 2 now: the previous step chose the piece
            if len(second) == 0:
                continue
            assert same_turn_inputs(before[second], after[second], net.geometry.num_cells).all()
            a, b = net.trunk(torch.from_numpy(before[second])), net.trunk(torch.from_numpy(after[second]))
            for x, y in zip(a, b, strict=True):
                assert torch.equal(x, y)
            logits_a, _ = net(torch.from_numpy(before[second]))
            logits_b, _ = net(torch.from_numpy(after[second]))
            assert not torch.equal(logits_a, logits_b)  # the heads do see the phase
            pairs += len(second)
    assert pairs > 20


def test_same_turn_inputs_sees_every_turn_fixed_input_and_no_phase_input() -> None:
    net = network(SMALL)
    obs, _ = played(SMALL, 2, 5, seed=1)[-1]
    c, fc = net.geometry.num_cells, len(CELL_FEATURES)
    phase_cells = [CELL_FEATURES.index(f) for f in ("selected", "dest_step", "movable")]
    for cell in (0, c - 1):
        for feature in range(fc):
            changed = obs.copy()
            changed[0, cell * fc + feature] ^= 1
            same = same_turn_inputs(obs, changed, c)
            assert same[1] and same[0] == (feature in range(phase_cells[0], fc)), (cell, feature)
    for pos in range(c * fc, obs.shape[1]):  # the lands and the globals
        changed = obs.copy()
        changed[0, pos] ^= 1
        is_phase = obs.shape[1] - pos in (PHASE, PHASE - 1)  # phase and end_request_legal
        assert same_turn_inputs(obs, changed, c)[0] == is_phase, pos


def test_the_cell_head_scores_every_legal_cell_as_scoring_every_cell_would() -> None:
    """The sparse cell head (candidate cells only) gives each legal cell the logit a dense pass gives it."""
    net = network(SMALL, seed=2).eval()
    obs, masks = played(SMALL, 8, 30, seed=5)[-1]
    x = torch.from_numpy(obs)
    c = net.geometry.num_cells
    captured: dict[str, tuple[torch.Tensor, ...]] = {}
    scores = net.candidate_scores

    def spy(context: tuple[torch.Tensor, ...], rows: torch.Tensor, where: torch.Tensor) -> torch.Tensor:
        captured["context"] = context
        return scores(context, rows, where)

    net.candidate_scores = spy  # type: ignore[method-assign]
    with torch.inference_mode():
        logits, _ = net(x)
        every = torch.arange(len(x)).repeat_interleave(c), torch.arange(c).repeat(len(x))
        cells = net.trunk(x).cells[every[0], net.cell_row[every[1]]]  # every cell's trunk features, not just the scored
        dense = scores((cells, *captured["context"][1:]), *every).view(len(x), c)
    legal = torch.from_numpy(masks[:, :c] > 0)
    phase = torch.from_numpy(obs[:, : c * len(CELL_FEATURES)].reshape(len(x), c, -1)[:, :, 7:] > 0).any(-1)
    assert legal.sum() > 20 and not (legal & ~phase).any()  # every legal cell is a candidate
    assert (logits[:, :c][~phase] == 0).all()
    torch.testing.assert_close(logits[:, :c][legal], dense[legal], rtol=1e-5, atol=1e-5)


def test_policy_step_with_a_trunk_cache_matches_the_plain_forward_pass() -> None:
    net = network(SMALL, seed=4).eval()
    frames = played(SMALL, 10, 60, seed=7)
    cache = TrunkCache(net, 10)
    rows = np.arange(10)
    reused = 0
    with torch.inference_mode():
        for obs, _ in frames:
            reused += int(cache.lookup(obs, rows).sum())
            cached = forward_cached(net, torch.from_numpy(obs), 2, cache, rows, obs)  # heads in chunks of 8 and 2
            plain = net(torch.from_numpy(obs))
            torch.testing.assert_close(cached[0], plain[0], rtol=1e-6, atol=1e-6)
            torch.testing.assert_close(cached[1], plain[1], rtol=1e-6, atol=1e-6)
    assert reused > 100  # the second decision of most turns reused the first's trunk
    cache.clear()
    assert not cache.lookup(frames[-1][0], rows).any()
    obs, masks = frames[-1]
    torch.manual_seed(9)
    a, logp, v = policy_step(net, obs, masks, torch.device("cpu"), False, True, cache, rows)
    b, logq, w = policy_step(net, obs, masks, torch.device("cpu"), False, True)
    assert (a == b).all() and np.allclose(logp, logq, atol=1e-6) and np.allclose(v, w, atol=1e-6)
    assert masks[rows, a].all()


def test_draw_actions_follows_the_masked_policy_and_never_draws_an_illegal_action() -> None:
    torch.manual_seed(0)
    logits = torch.randn(3, 40)
    mask = (torch.rand(3, 40) < 0.25).to(torch.int8)
    mask[:, 0] = 0  # the first action illegal: a uniform 0 must not pick it
    mask[:, 5] = 1
    counts = torch.zeros(3, 40)
    for _ in range(6000):
        actions, logp = draw_actions(logits, mask)
        counts[torch.arange(3), actions] += 1
    p = torch.softmax(logits.masked_fill(mask == 0, -1e9), -1)
    assert counts[mask == 0].sum() == 0
    assert (counts / 6000 - p).abs().max() < 0.03
    torch.testing.assert_close(logp, p[torch.arange(3), actions].log())


def test_the_update_computes_one_trunk_per_turn_with_the_same_gradients() -> None:
    """policies/domain_wheel/network.py forward_grouped (the update's pass): outputs and gradients of one trunk
    per decision."""
    net = network(SMALL, seed=6)
    frames = played(SMALL, 1, 40, seed=11)
    obs = np.concatenate([f[0] for f in frames])  # one game in time order
    groups = np.arange(len(obs))
    for t in range(1, len(obs)):
        if same_turn_inputs(obs[t - 1 : t], obs[t : t + 1], net.geometry.num_cells)[0]:
            groups[t] = groups[t - 1]
    starts = np.ones(len(obs), dtype=np.bool_)
    starts[1:] = groups[1:] != groups[:-1]
    assert starts.sum() < len(obs) - 5  # several turns of two decisions
    x = torch.from_numpy(obs)

    def grads(grouped: bool) -> tuple[torch.Tensor, list[torch.Tensor]]:
        net.zero_grad()
        logits, value = forward_grouped(net, x, starts) if grouped else net(x)
        (logits.sum() + value.pow(2).sum()).backward()
        return logits.detach(), [p.grad.clone() for p in net.parameters() if p.grad is not None]

    (la, ga), (lb, gb) = grads(True), grads(False)
    torch.testing.assert_close(la, lb, rtol=1e-5, atol=1e-5)
    assert len(ga) == len(gb) == len([p for p in net.parameters()])
    for a, b in zip(ga, gb, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("options", [SMALL, GameOptions(max_rounds=60)], ids=["small", "standard"])
@pytest.mark.parametrize("turn_trunk", [1, 0])
def test_the_heads_read_a_shared_trunk_as_they_read_a_copy_per_decision(options: GameOptions, turn_trunk: int) -> None:
    """heads(trunk, obs, member) gathers the cells it scores from the shared rows: the numbers of a copied trunk."""
    net = network(options, seed=8, turn_trunk=turn_trunk)
    frames = played(options, 7, 30, seed=2)
    obs = torch.from_numpy(np.concatenate([f[0] for f in frames[-6:]]))  # phase 1 and phase 2 observations
    shared = obs[::3]  # the trunks of a third of them, each shared by 3 observations (any rows would do)
    member = torch.arange(len(obs)) // 3

    def run(copy: bool) -> tuple[torch.Tensor, torch.Tensor, list[torch.Tensor]]:
        net.zero_grad()
        trunk = net.trunk(shared)
        logits, value = net.heads(trunk.take(member), obs) if copy else net.heads(trunk, obs, member)
        (logits.sum() + value.pow(2).sum()).backward()
        return logits.detach(), value.detach(), [p.grad.clone() for p in net.parameters() if p.grad is not None]

    (la, va, ga), (lb, vb, gb) = run(True), run(False)
    assert torch.equal(la, lb) and torch.equal(va, vb)
    assert len(ga) == len(gb) and len(ga) > 10
    for a, b in zip(ga, gb, strict=True):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)
    if turn_trunk:  # phase 2 rows read their selected piece's features from the shared row
        assert (
            obs[:, : net.geometry.num_cells * len(CELL_FEATURES)].view(len(obs), -1, len(CELL_FEATURES))[:, :, 7] > 0
        ).any()


def test_turn_groups_join_the_two_decisions_of_a_turn_of_one_slot() -> None:
    net = network(SMALL)
    frames = played(SMALL, 2, 30, seed=2)
    t_len = len(frames)
    rollout = Rollout.allocate(2 * t_len, 2, frames[0][0].shape[1], frames[0][1].shape[1])
    for obs, masks in frames:
        rollout.store(np.arange(2), obs, masks, np.zeros(2), np.zeros(2), np.zeros(2), np.zeros(2))
    rollout.open[:] = False
    valid = rollout.trainable()
    group = turn_groups(rollout, valid, net)
    assert len(group) == 2 * t_len
    flat = np.cumsum(valid.reshape(-1)).reshape(valid.shape) - 1
    for t in range(1, t_len):
        for s in range(2):
            second = frames[t][0][s, -PHASE] == 1
            assert (group[flat[t, s]] == group[flat[t - 1, s]]) == second, (t, s)
    rollout.dones[3, 0] = True  # a game ended after decision 3: decision 4 is another game's
    rollout.obs[4, 0] = rollout.obs[3, 0]
    assert turn_groups(rollout, valid, net)[flat[4, 0]] == flat[4, 0]
    plain = network(SMALL, turn_trunk=0)
    assert (turn_groups(rollout, valid, plain) == np.arange(2 * t_len)).all()


def test_grouped_order_keeps_groups_together_and_cuts_never_split_one() -> None:
    group = np.array([0, 0, 2, 3, 3, 3, 6, 7, 7, 9])
    torch.manual_seed(1)
    order, starts = grouped_order(group, torch.device("cpu"))
    ordered = group[order.numpy()]
    assert sorted(order.tolist()) == list(range(10))
    runs = [ordered[0]]
    for g, s in zip(ordered[1:], starts[1:], strict=True):
        assert s == (g != runs[-1])
        runs.append(g)
    assert len(set(ordered[starts])) == starts.sum() == 6  # each group once, in one piece
    cuts = group_cuts(starts, 3, 3)
    assert cuts[0] == 0 and all(starts[c] for c in cuts if c < 10) and cuts == sorted(cuts)
    singles = np.ones(7, dtype=np.bool_)
    assert group_cuts(singles, 2, 3) == [0, 2, 4, 6]
    torch.manual_seed(5)
    order, starts = grouped_order(np.arange(12), torch.device("cpu"))
    torch.manual_seed(5)
    assert order.tolist() == torch.randperm(12).tolist() and starts.all()  # the ungrouped update's stream


def test_balanced_cuts_give_every_thread_an_equal_share_of_chunks_no_larger_than_asked() -> None:
    def sizes(cuts: list[int]) -> list[int]:
        return [e - s for s, e in zip(cuts[:-1], cuts[1:], strict=True)]

    singles = np.ones(512, dtype=np.bool_)  # a standard-map minibatch of a plain network, chunks of 28
    cuts = balanced_cuts(singles, 28, 2)
    assert cuts[0] == 0 and cuts[-1] == 512 and len(sizes(cuts)) == 20 and max(sizes(cuts)) <= 28
    share = [sum(sizes(cuts)[k::2]) for k in range(2)]  # the round-robin shares of training/ppo/network_threads.py
    assert share == [256, 256]
    assert sizes(balanced_cuts(np.ones(516, dtype=np.bool_), 984, 2)) == [258, 258]  # one chunk would idle a thread
    assert sizes(balanced_cuts(np.ones(100, dtype=np.bool_), 28, 1)) == [25, 25, 25, 25]  # one thread: as few as fit
    starts = np.zeros(12, dtype=np.bool_)
    starts[::2] = True  # groups of two decisions: no cut inside one
    cuts = balanced_cuts(starts, 3, 2)
    assert cuts[-1] == 12 and all(starts[c] for c in cuts[:-1]) and all(s > 0 for s in sizes(cuts))
    assert balanced_cuts(np.ones(0, dtype=np.bool_), 28, 2) == [0]


def test_turn_trunk_is_checked_in_the_network_the_config_and_the_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match="turn_trunk must be 0 or 1"):
        network(SMALL, turn_trunk=2)
    with pytest.raises(ConfigError, match="network.turn_trunk: alveole has one decision a turn"):
        from_dict({"game": {"name": "alveole"}, "network": {"turn_trunk": True}})
    assert from_dict({"game": {"name": "alveole"}}).network_size() == {
        "channels": 32,
        "cell_layers": 4,
        "land_layers": 0,
        "head_hidden": 64,
    }
    assert from_dict({}).network_size()["turn_trunk"] == 1  # the default
    assert from_dict({"network": {"turn_trunk": False}}).network_size()["turn_trunk"] == 0
    assert from_dict({"network": {"turn_trunk": True}}).network_size()["turn_trunk"] == 1
    net = network(SMALL, turn_trunk=0)
    payload = {"network": {k: v for k, v in net.hparams.items() if k != "turn_trunk"}}
    assert checkpoint.network_size(payload, "old.pt")["turn_trunk"] == 0  # written before the option
    payload["network"]["turn_trunk"] = 2
    with pytest.raises(checkpoint.CheckpointError, match=r"network.turn_trunk must be an integer in 0..1, got 2"):
        checkpoint.network_size(payload, "bad.pt")


def test_a_saved_config_from_before_the_option_resumes_the_old_network() -> None:
    from training.ppo.resume import saved_config

    data = from_dict({}).to_dict()
    del data["network"]["turn_trunk"]
    assert saved_config({"config": data}, "old/checkpoint.pt").network.turn_trunk is False
    data["network"]["turn_trunk"] = True
    assert saved_config({"config": data}, "new/checkpoint.pt").network.turn_trunk is True


def test_a_turn_trunk_network_exports_and_its_package_plays_as_the_checkpoint(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The sparse cell head goes through ONNX (NonZero, ScatterND): parity and the package's value output."""
    pytest.importorskip("onnxruntime")
    pytest.importorskip("onnxscript")
    import json
    from pathlib import Path

    from dw_cli.main import main

    agent = checkpoint.load(Path(__file__).resolve().parents[1] / "checkpoints" / "small-agent.pt")
    torch.manual_seed(8)
    net = HexPolicyNet(build_geometry(1, 2), **{**agent["network"], "turn_trunk": 1})
    payload = {**agent, "network": dict(net.hparams), "model": dict(net.state_dict())}
    checkpoint.save(tmp_path / "tt.pt", payload)
    out = tmp_path / "tt"
    assert main(["export", str(tmp_path / "tt.pt"), "-o", str(out), "--parity", "300", "--no-progress"]) == 0
    parity = json.loads((out / "strategy.json").read_text())["parity"]
    assert parity["agree"] == parity["positions"] == 300
    assert parity["max_abs_logit_diff"] < 1e-4 and parity["max_abs_value_diff"] < 1e-4


def test_a_turn_trunk_run_resumes_bit_identically(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """The trunk cache lives within one rollout and the groups within one update: a split run is exact."""
    pytest.importorskip("tensorboard")
    from pathlib import Path

    from dw_cli.main import main

    config = str(Path(__file__).resolve().parents[1] / "configs" / "smoke.yaml")
    common = ["--set", "network.turn_trunk=true", "--set", "eval.final_games=0"]
    split, straight = tmp_path / "split", tmp_path / "straight"
    assert (
        main(["train", "--config", config, "--run-dir", str(split), "--set", "run.stop_after_updates=2", *common]) == 0
    )
    assert (
        main(["train", "--resume", str(split), "--set", "run.stop_after_updates=0", "--set", "eval.final_games=0"]) == 0
    )
    assert main(["train", "--config", config, "--run-dir", str(straight), *common]) == 0
    a, b = checkpoint.load(split / "checkpoint.pt"), checkpoint.load(straight / "checkpoint.pt")
    assert a["network"]["turn_trunk"] == 1 and a["counters"]["updates"] == b["counters"]["updates"] == 4
    assert a["counters"]["games"] == b["counters"]["games"]
    assert "phase_land.weight" in b["model"]
    for name, tensor in b["model"].items():
        assert torch.equal(a["model"][name], tensor), name
