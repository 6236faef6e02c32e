"""The policy network (policies/domain_wheel/network.py) and its seat (policies/domain_wheel/network_policy.py)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from dw_env.engine import Game  # noqa: E402
from dw_env.envs.observation import CELL_FEATURES, describe_observation  # noqa: E402
from dw_env.geometry import build_geometry  # noqa: E402
from dw_env.options import GameOptions  # noqa: E402
from policies.domain_wheel.network import CELL_PHASE, HexConv, HexPolicyNet, evaluate_actions, sample_actions  # noqa: E402

SMALL = GameOptions(land_radius=1, map_radius=2, max_rounds=30)


def _obs(options: GameOptions, batch: int, seed: int = 0) -> torch.Tensor:
    size = describe_observation(options).size
    return torch.from_numpy(np.random.default_rng(seed).integers(0, 3, (batch, size), dtype=np.int8))


@pytest.mark.parametrize("radii", [(1, 2), (2, 4), (1, 3)])
def test_same_weights_run_on_every_map_size(radii: tuple[int, int]) -> None:
    torch.manual_seed(0)
    net = HexPolicyNet(build_geometry(1, 2), channels=8, cell_layers=1, land_layers=1, head_hidden=8)
    g = build_geometry(*radii)
    net.set_geometry(g)
    logits, value = net(_obs(GameOptions(land_radius=radii[0], map_radius=radii[1]), 3))
    assert logits.shape == (3, g.num_cells + 2)
    assert value.shape == (3,)
    assert torch.isfinite(logits).all() and torch.isfinite(value).all()


def test_observation_of_another_map_is_refused() -> None:
    net = HexPolicyNet(build_geometry(1, 2), channels=8, cell_layers=1, land_layers=1, head_hidden=8)
    with pytest.raises(ValueError, match="does not fit"):
        net(_obs(GameOptions(), 1))


def test_hex_conv_sees_exactly_the_six_neighbours() -> None:
    """A cell's output depends on itself and its 6 hex neighbours (spec 1.1), never on (q+1, r+1) or (q-1, r-1)."""
    conv = HexConv(1, 1)
    x = torch.zeros(1, 1, 5, 5, requires_grad=True)  # row r, column q
    conv(x)[0, 0, 2, 2].backward()
    seen = {(q - 2, r - 2) for r in range(5) for q in range(5) if x.grad[0, 0, r, q] != 0}
    assert seen == {(0, 0), (1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)}


def test_masked_actions_are_never_sampled_and_carry_no_entropy() -> None:
    logits = torch.zeros(4, 6)
    mask = torch.tensor([[1, 0, 0, 0, 0, 0], [0, 1, 1, 0, 0, 0], [0, 0, 0, 0, 1, 1], [1, 1, 1, 1, 1, 1]])
    for _ in range(20):
        actions, _ = sample_actions(logits, mask)
        assert bool(mask[torch.arange(4), actions].all())
    logp, entropy = evaluate_actions(logits, mask, torch.tensor([0, 1, 5, 3]))
    assert torch.allclose(logp, torch.log(torch.tensor([1.0, 0.5, 0.5, 1 / 6])))
    assert torch.allclose(entropy, torch.log(torch.tensor([1.0, 2.0, 2.0, 6.0])))


def _policy_file(tmp_path, options: GameOptions = SMALL) -> str:  # type: ignore[no-untyped-def]
    from policies import checkpoint

    torch.manual_seed(1)
    hp = {"channels": 8, "cell_layers": 1, "land_layers": 1, "head_hidden": 8}
    net = HexPolicyNet(build_geometry(options.land_radius, options.map_radius), **hp)
    payload = {
        "format": checkpoint.FORMAT,
        "format_version": checkpoint.FORMAT_VERSION,
        "observation_version": net.observation_version,
        "options": options.to_dict(),
        "network": hp,
        "model": net.state_dict(),
        "config": {},
        "counters": {},
    }
    path = tmp_path / "agent.pt"
    checkpoint.save(path, payload)
    return str(path)


@pytest.mark.parametrize("greedy", [True, False])
def test_network_policy_plays_legal_games_to_the_end(tmp_path, greedy: bool) -> None:  # type: ignore[no-untyped-def]
    from policies.domain_wheel.network_policy import load

    policy = load(_policy_file(tmp_path), seed=3, greedy=greedy)
    game = Game.new(SMALL)
    while not game.over:
        move = policy.act(game, game.turn)
        assert move in game.legal_moves()
        game.play(move)
    assert game.over


def test_network_policy_is_a_seat_spec_by_path(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from policies.domain_wheel.network_policy import NetworkPolicy
    from policies.files import make_seat_policy

    policy = make_seat_policy(_policy_file(tmp_path), seed=0)
    assert isinstance(policy, NetworkPolicy)


def test_network_policy_is_seed_determined(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from policies.domain_wheel.network_policy import load

    path = _policy_file(tmp_path)

    def moves(seed: int) -> list[object]:
        policy = load(path, seed=0, greedy=False)
        policy.reset(seed)
        game, out = Game.new(SMALL), []
        for _ in range(30):
            move = policy.act(game, game.turn)
            out.append(move)
            game.play(move)
        return out

    assert moves(5) == moves(5)


def test_network_policy_plays_another_map_with_a_warning(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from policies.domain_wheel.network_policy import load

    policy = load(_policy_file(tmp_path), seed=0)
    game = Game.new(land_radius=1, map_radius=3, max_rounds=5)
    with pytest.warns(UserWarning, match="trained on land_radius=1, map_radius=2"):
        move = policy.act(game, game.turn)
    assert move in game.legal_moves()


def _reference_forward(net: HexPolicyNet, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The network's function written plainly in the observation's cell order, one gather per scale change.

    The module computes the same numbers with its cells held land-major (pooling and broadcasting as
    views); this is the formulation the shipped checkpoints were trained with.
    """
    import torch.nn.functional as F

    g = net.geometry
    b, c, n, h = obs.shape[0], g.num_cells, g.num_lands, net.cell_in.out_features
    x = obs.float()
    fc, fl = len(net.cell_scale), len(net.land_scale)
    cells = x[:, : c * fc].view(b, c, fc) * net.cell_scale
    lands = x[:, c * fc : c * fc + n * fl].view(b, n, fl) * net.land_scale
    glob = x[:, c * fc + n * fl :] * net.glob_scale
    cell_land = torch.from_numpy(g.cell_land.astype(np.int64))
    land_cells = torch.from_numpy(g.land_cells.reshape(-1).astype(np.int64))
    s, q0, r0 = g.grid_size, int(g.cell_grid[0]), int(g.cell_grid[1])
    cell_grid = torch.from_numpy(((g.cell_r - r0) * s + (g.cell_q - q0)).astype(np.int64))
    land_h, glob_h = net.land_in(lands), net.glob_in(glob)
    x = F.relu(net.cell_in(cells) + land_h[:, cell_land] + glob_h.unsqueeze(1))
    for layer in net.cell_layers:
        grid = x.new_zeros(b, s * s, h)
        grid[:, cell_grid] = x
        y = layer.conv(grid.view(b, s, s, h).permute(0, 3, 1, 2)).permute(0, 2, 3, 1).reshape(b, s * s, h)
        x = x + F.relu(y[:, cell_grid])
    pooled = x[:, land_cells].view(b, n, -1, h).mean(2)
    z = F.relu(net.land_token(torch.cat([pooled, land_h], -1)))
    for land_layer in net.land_layers:
        z = land_layer(z, {"land_neighbors": net.land_neighbors, "neighbor_count": net.neighbor_count})
    x = F.relu(x + net.land_out(z)[:, cell_land])
    attended = (net.attend(x).softmax(1) * x).sum(1)
    summary = torch.cat([z.mean(1), attended, glob_h], 1)
    logits = torch.cat([net.cell_head(x).squeeze(-1), net.pass_end_head(summary)], 1)
    return logits, net.value_head(summary).squeeze(1)


def _observations(options: GameOptions, steps: int, seed: int = 0) -> torch.Tensor:
    from dw_env.envs.vector import DomainWheelVectorEnv

    venv = DomainWheelVectorEnv(8, options, seed=seed)
    out = [venv.reset()[0]]
    for _ in range(steps):
        out.append(venv.step(venv.sample_actions())[0])
    return torch.from_numpy(np.concatenate(out))


def _assert_reference_logits(net: HexPolicyNet, obs: torch.Tensor, logits: torch.Tensor, ref: torch.Tensor) -> None:
    """The cell head scores only the cells with a phase plane set (every legal cell): their logits, the pass
    and end-request logits are the reference's; the other cells' logits are 0 (they are masked anyway)."""
    c = net.geometry.num_cells
    planes = obs[:, : c * len(CELL_FEATURES)].reshape(len(obs), c, -1)[:, :, CELL_PHASE[0] :]
    scored = torch.cat([(planes > 0).any(-1), torch.ones(len(obs), 2, dtype=torch.bool)], 1)
    assert scored[:, :c].any(1).all()  # every observation of these games has a player to act
    assert (logits[~scored] == 0).all()
    assert torch.allclose(logits[scored], ref[scored], atol=1e-4, rtol=1e-5)


@pytest.mark.parametrize("radii", [(1, 2), (2, 4)])
def test_every_legal_cell_has_a_phase_plane_set(radii: tuple[int, int]) -> None:
    """What lets the cell head score the phase planes' cells only: a legal piece (phase 1) is ``movable``, a
    legal destination (phase 2) has its ``dest_*`` plane set (rules 3.2, 4.2-4.10)."""
    from dw_env.envs.vector import DomainWheelVectorEnv

    options = GameOptions(land_radius=radii[0], map_radius=radii[1], max_rounds=40)
    venv = DomainWheelVectorEnv(16, options, seed=3)
    obs, masks, _ = venv.reset()
    c, seen = build_geometry(*radii).num_cells, 0
    for _ in range(300):
        planes = obs[:, : c * len(CELL_FEATURES)].reshape(len(obs), c, -1)[:, :, CELL_PHASE[0] :]
        legal = masks[:, :c] > 0
        assert not (legal & ~(planes > 0).any(-1)).any()
        seen += int(legal.sum())
        obs, masks = venv.step(venv.sample_actions())[:2]
    assert seen > 10_000


@pytest.mark.parametrize("radii", [(1, 2), (2, 4)])
def test_forward_computes_the_reference_function(radii: tuple[int, int]) -> None:
    options = GameOptions(land_radius=radii[0], map_radius=radii[1])
    torch.manual_seed(0)
    net = HexPolicyNet(build_geometry(*radii), channels=8, cell_layers=2, land_layers=2, head_hidden=16)
    for head in (net.pass_end_head, net.value_head):
        torch.nn.init.normal_(head[-1].weight)  # zero-initialised: give the value and pass logits some signal
    obs = _observations(options, 6)
    with torch.no_grad():
        logits, value = net(obs)
        ref_logits, ref_value = _reference_forward(net, obs)
    _assert_reference_logits(net, obs, logits, ref_logits)
    assert torch.allclose(value, ref_value, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("radii", [(1, 2), (2, 4)])
def test_training_passes_compute_the_reference_function_and_its_gradients(radii: tuple[int, int]) -> None:
    """With gradients the trunk takes the hand-written backward passes (policies/domain_wheel/cell_passes.py):
    its forward is the inference forward bit for bit (the rollout's log-probabilities are the update's first ones), and
    every weight's gradient is the plain reference's up to the order of floating-point sums."""
    options = GameOptions(land_radius=radii[0], map_radius=radii[1])
    torch.manual_seed(1)
    net = HexPolicyNet(build_geometry(*radii), channels=8, cell_layers=2, land_layers=2, head_hidden=16)
    for head in (net.pass_end_head, net.value_head):
        torch.nn.init.normal_(head[-1].weight)
    obs = _observations(options, 6, seed=2)
    with torch.inference_mode():
        played_logits, played_value = net(obs)
    logits, value = net(obs)
    assert torch.equal(logits.detach(), played_logits) and torch.equal(value.detach(), played_value)
    ref_logits, ref_value = _reference_forward(net, obs)
    scored = logits.detach() != 0  # the cells the head scores (and the pass and end-request logits)
    weights = torch.randn(logits.shape, generator=torch.Generator().manual_seed(3))
    params = list(net.parameters())
    grads = torch.autograd.grad((logits * weights * scored).sum() + value.sum(), params)
    ref = torch.autograd.grad((ref_logits * weights * scored).sum() + ref_value.sum(), params)
    scale = max(float(want.abs().max()) for want in ref)
    for (name, _), got, want in zip(net.named_parameters(), grads, ref, strict=True):
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-6 * scale, msg=name)
        if name == "attend.bias":  # the attention's softmax ignores a shift of every score: no gradient
            assert float(got.abs().max()) < 1e-6 * scale
        else:
            assert float(want.abs().max()) > 1e-4 * scale, name  # every other weight is exercised


def test_the_network_trains_under_autocast() -> None:
    """``run.amp: on`` (bfloat16 autocast): every weight gets a finite gradient pointing as float32's does."""
    options = GameOptions(land_radius=1, map_radius=2)
    torch.manual_seed(4)
    net = HexPolicyNet(build_geometry(1, 2), channels=8, cell_layers=2, land_layers=2, head_hidden=16)
    for head in (net.pass_end_head, net.value_head):
        torch.nn.init.normal_(head[-1].weight)
    obs = _observations(options, 4, seed=5)
    grads = []
    for amp in (False, True):
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=amp):
            logits, value = net(obs)
        loss = (logits.float() * (logits.float() != 0)).square().mean() + value.float().square().mean()
        grads.append(torch.autograd.grad(loss, list(net.parameters()), allow_unused=False))
    for (name, _), g32, g16 in zip(net.named_parameters(), *grads, strict=True):
        assert torch.isfinite(g16).all(), name
        if name != "attend.bias":  # a softmax ignores a shift of every score: no gradient to compare
            cosine = torch.nn.functional.cosine_similarity(g32.flatten(), g16.flatten(), dim=0)
            assert cosine > 0.9, (name, float(cosine))


@pytest.mark.parametrize("name", ["small-agent.pt", "small-10m.pt"])
def test_shipped_checkpoint_computes_the_reference_function(name: str) -> None:
    from pathlib import Path

    from policies import checkpoint

    path = Path(__file__).resolve().parent.parent / "checkpoints" / name
    if not path.exists():
        pytest.skip(f"{name} is not shipped")
    payload = checkpoint.load(path)
    options = GameOptions.from_dict(payload["options"])
    net = HexPolicyNet(build_geometry(options.land_radius, options.map_radius), **payload["network"])
    net.load_state_dict(payload["model"])
    obs = _observations(options, 20, seed=1)
    with torch.no_grad():
        logits, value = net(obs)
        ref_logits, ref_value = _reference_forward(net, obs)
    _assert_reference_logits(net, obs, logits, ref_logits)
    assert torch.allclose(value, ref_value, atol=1e-5, rtol=1e-5)


def test_chunked_forward_and_policy_step_match_one_pass() -> None:
    from policies.domain_wheel.network import chunk_rows, forward_chunked, policy_step

    torch.manual_seed(0)
    net = HexPolicyNet(build_geometry(2, 4), channels=8, cell_layers=1, land_layers=1, head_hidden=8)
    cpu = torch.device("cpu")
    assert 1 <= chunk_rows(net, cpu) < 64  # the standard map's 1,159 cells: a few rows per chunk
    assert chunk_rows(net, torch.device("cuda")) > 10**6  # a GPU takes the whole batch
    obs = _observations(GameOptions(), 4)
    with torch.no_grad():
        whole, chunked = net(obs), forward_chunked(net, obs, 7)
    assert torch.allclose(whole[0], chunked[0], atol=1e-6) and torch.allclose(whole[1], chunked[1], atol=1e-6)
    masks = np.ones((len(obs), whole[0].shape[1]), dtype=np.int8)
    torch.manual_seed(3)
    actions, logp, values = policy_step(net, obs.numpy(), masks, cpu, amp=False, greedy=False)
    torch.manual_seed(3)
    expected, _ = sample_actions(whole[0], torch.from_numpy(masks))
    assert np.array_equal(actions, expected.numpy())
    assert np.allclose(values, whole[1].numpy(), atol=1e-6)
