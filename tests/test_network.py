"""The policy network (policies/network.py) and the network seat policy (policies/network_policy.py)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from dw_env.engine import Game  # noqa: E402
from dw_env.envs.observation import describe_observation  # noqa: E402
from dw_env.geometry import build_geometry  # noqa: E402
from dw_env.options import GameOptions  # noqa: E402
from policies.network import HexConv, HexPolicyNet, evaluate_actions, sample_actions  # noqa: E402

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
    from policies.network_policy import load

    policy = load(_policy_file(tmp_path), seed=3, greedy=greedy)
    game = Game.new(SMALL)
    while not game.over:
        move = policy.act(game, game.turn)
        assert move in game.legal_moves()
        game.play(move)
    assert game.over


def test_network_policy_is_a_seat_spec_by_path(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from policies.files import make_seat_policy
    from policies.network_policy import NetworkPolicy

    policy = make_seat_policy(_policy_file(tmp_path), seed=0)
    assert isinstance(policy, NetworkPolicy)


def test_network_policy_is_seed_determined(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from policies.network_policy import load

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
    from policies.network_policy import load

    policy = load(_policy_file(tmp_path), seed=0)
    game = Game.new(land_radius=1, map_radius=3, max_rounds=5)
    with pytest.warns(UserWarning, match="trained on land_radius=1, map_radius=2"):
        move = policy.act(game, game.turn)
    assert move in game.legal_moves()
