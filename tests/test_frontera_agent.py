"""Frontera's learned agent (docs/FRONTERA.md, "Learned agent"): its graph network, inputs and seats.

* one network for every map size and 2 to 6 players: shapes, and masked draws that are legal (spec 6.2, 6.3);
* per-territory and per-edge logits are equivariant under a relabelling of the territories;
* the agent's inputs come from its own view only (R-13): perturbing every hidden field leaves them unchanged,
  in the training env's packing and the arena seat's alike (the two are the same vector);
* the arena seat and the training env's scripted seats play only legal actions.
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from frontera_env import frontera_v0  # noqa: E402
from frontera_env.engine import Game  # noqa: E402
from frontera_env.map_file import reference_map  # noqa: E402
from frontera_env.observation import GLOBALS  # noqa: E402
from policies.frontera.agent_seat import FronteraAgentSeat  # noqa: E402
from policies.frontera.expansionist import ExpansionistSeat  # noqa: E402
from policies.frontera.inputs import MapGraph, pack  # noqa: E402
from policies.frontera.network import FronteraGraphNet  # noqa: E402
from tests.frontera_helpers import check_hidden_state_perturbations  # noqa: E402


@pytest.fixture(scope="module")
def net() -> FronteraGraphNet:
    torch.manual_seed(0)
    return FronteraGraphNet(MapGraph.of_map(reference_map("small")), channels=16, land_layers=2, head_hidden=16).eval()


def _first_observation(size: str, players: int, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    env = frontera_v0.raw_env(players=players, size=size)
    env.reset(seed=seed)
    seen = env.observe(env.agent_selection)
    return seen["observation"], seen["action_mask"]


@pytest.mark.parametrize(("size", "players"), [("small", 2), ("medium", 4), ("large", 6), ("small", 6), ("large", 2)])
def test_6_2_one_network_scores_every_action_of_every_map_and_player_count(
    net: FronteraGraphNet, size: str, players: int
) -> None:
    board = reference_map(size)
    net.set_map(MapGraph.of_map(board))
    obs, mask = _first_observation(size, players)
    with torch.no_grad():
        logits, value = net(torch.from_numpy(pack(obs)[None]))
    assert logits.shape == (1, mask.shape[0]) and value.shape == (1,)
    assert torch.isfinite(logits).all()
    masked = logits.masked_fill(torch.from_numpy(mask[None]) == 0, -1e9)
    draws = torch.distributions.Categorical(logits=masked).sample((200,))[:, 0].numpy()
    assert mask[draws].all()  # the masked policy draws legal actions only (6.3)
    with pytest.raises(ValueError, match="does not fit this network's map"):
        net(torch.zeros(1, obs.shape[0] + 1, dtype=torch.int8))


def test_network_weights_do_not_depend_on_the_map() -> None:
    small = FronteraGraphNet(MapGraph.of_map(reference_map("small")), channels=8, land_layers=1, head_hidden=8)
    large = FronteraGraphNet(MapGraph.of_map(reference_map("large")), channels=8, land_layers=1, head_hidden=8)
    shapes = {k: v.shape for k, v in small.state_dict().items()}
    assert shapes == {k: v.shape for k, v in large.state_dict().items()}
    assert not any(k.startswith("graph_") for k in shapes)  # the map's tables are not weights


def _permuted_observation(obs: np.ndarray, perm: np.ndarray, row: int, n: int) -> np.ndarray:
    rows = obs[: n * row].reshape(n, row)
    out = np.empty_like(rows)
    out[perm] = rows
    return np.concatenate([out.reshape(-1), obs[n * row :]])


def test_territory_and_edge_logits_are_equivariant_under_a_relabelling(net: FronteraGraphNet) -> None:
    board = reference_map("small")
    graph = MapGraph.of_map(board)
    n, row, b = graph.n, graph.row, 5
    env = frontera_v0.raw_env(players=3, size="small")
    env.reset(seed=9)
    pick = np.random.default_rng(1)
    for _ in range(120):  # into the game: owners and armies differ from territory to territory
        env.step(int(pick.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    obs = pack(env.observe(env.agent_selection)["observation"])
    perm = np.random.default_rng(7).permutation(n)
    moved = graph.permuted(perm)
    net.set_map(graph)
    with torch.no_grad():
        logits, value = net(torch.from_numpy(obs[None]))
        net.set_map(moved)
        logits2, value2 = net(torch.from_numpy(_permuted_observation(obs, perm, row, n)[None]))
    a, a2 = logits[0].numpy(), logits2[0].numpy()
    deploy, deploy2 = a[: n * b].reshape(n, b), a2[: n * b].reshape(n, b)
    np.testing.assert_allclose(deploy2[perm], deploy, atol=1e-5)
    e = graph.edge_index.shape[1]
    at = n * b + 13
    index2 = {(int(s), int(t)): i for i, (s, t) in enumerate(moved.edge_index.T)}
    mapped = np.array([index2[(int(perm[s]), int(perm[t]))] for s, t in graph.edge_index.T])
    np.testing.assert_allclose(a2[at : at + e][mapped], a[at : at + e], atol=1e-5)  # ATTACK
    np.testing.assert_allclose(a2[at + e : at + 2 * e][mapped], a[at + e : at + 2 * e], atol=1e-5)  # BLITZ
    rf = at + 2 * e + b + 2
    np.testing.assert_allclose(a2[rf : rf + n][perm], a[rf : rf + n], atol=1e-5)  # REGROUP_FROM
    np.testing.assert_allclose(value2.numpy(), value.numpy(), atol=1e-5)
    assert not np.allclose(deploy2, deploy, atol=1e-3)  # the check can fail: the relabelling moved the logits


@pytest.mark.parametrize("fog", [False, True], ids=["open", "fog"])
def test_R13_the_agent_inputs_do_not_change_when_hidden_state_is_perturbed(fog: bool) -> None:
    seat_net = FronteraGraphNet(MapGraph.of_map(reference_map("small")), channels=8, land_layers=1, head_hidden=8)
    agent = FronteraAgentSeat(seat_net, seed=0)
    assert check_hidden_state_perturbations(fog, agent.inputs) >= 10


def test_agent_seat_plays_only_legal_engine_actions_through_a_game(net: FronteraGraphNet) -> None:
    game = Game.new(reference_map("small"), 2, seed=4, fog=True, max_turns=16)
    seats = [FronteraAgentSeat(net, seed=1), ExpansionistSeat(seed=2)]
    kinds: set[str] = set()
    while not game.over:
        action = seats[game.current].act(game, game.current)
        if game.current == 0:
            kinds.add(type(action).__name__)
        game.apply(action)  # IllegalAction (a ValueError) if the seat ever plays outside the rules
    assert {"Place", "EndTurn"} <= kinds or {"Place", "EndAttack"} <= kinds


def test_scripted_seats_play_legal_indices_in_the_training_env() -> None:
    from policies.games.frontera import Frontera, FronteraOptions
    from training.ppo.league import ScriptedSeats

    adapter = Frontera().for_options({"players": 2})
    env = adapter.make_vector_env(4, FronteraOptions(map="small", players=2, max_turns=8), 1, 0, fog_rows=0.5)
    assert env.fog.tolist() == [False, True, False, True]  # spread: every league group gets its share
    obs, masks, player = env.reset()
    assert obs.dtype == np.int8
    kinds = ["expansionist", "aggressor", "continental", "defender"]
    seats = ScriptedSeats(env, adapter.training_seats(env))
    for slot, kind in enumerate(kinds):
        seats.start_game(slot, kind, slot)
    ended = 0
    for _ in range(300):  # the vector env refuses an illegal index with a ValueError naming it
        obs, masks, player, rewards, terminated, truncated, info = env.step(seats.actions(np.arange(4), kinds, player))
        for slot in np.flatnonzero(terminated | truncated):
            ended += 1
            assert 0 < info["final_scores"][slot].sum() <= 35  # territories owned at the end (small map: 35)
            assert info["winners"][slot].sum() == int(bool(terminated[slot]))
            seats.start_game(int(slot), kinds[slot], 100 + ended)
    assert ended > 0


def test_config_fog_rows_is_refused_for_a_game_without_fog() -> None:
    from training.ppo.config import ConfigError, from_dict

    with pytest.raises(ConfigError, match="fog_rows"):
        from_dict({"env": {"fog_rows": 0.5}})  # Domain Wheel has no fog option
    with pytest.raises(ConfigError, match="fog_rows"):
        from_dict({"game": {"name": "frontera"}, "env": {"fog_rows": 1.5}})
    config = from_dict({"game": {"name": "frontera", "players": 3}, "env": {"fog_rows": 0.25}})
    assert config.env.fog_rows == 0.25 and config.options.players == 3


@pytest.mark.parametrize(
    ("rows", "fogged", "expected"),
    [
        (8, 4, [0, 1, 0, 1, 0, 1, 0, 1]),
        (10, 3, [0, 0, 0, 1, 0, 0, 1, 0, 0, 1]),
        (5, 0, [0, 0, 0, 0, 0]),
        (5, 5, [1, 1, 1, 1, 1]),
        (6, 1, [0, 0, 0, 0, 0, 1]),
    ],
)
def test_fog_rows_are_spread_evenly(rows: int, fogged: int, expected: list[int]) -> None:
    from policies.frontera.train_env import fog_layout

    assert fog_layout(rows, fogged).astype(int).tolist() == expected
    assert fog_layout(rows, fogged, spread=False).astype(int).tolist() == sorted(expected)  # the old layout


def test_fog_layout_refuses_a_count_outside_the_rows() -> None:
    from policies.frontera.train_env import fog_layout

    for bad in (-1, 5):
        with pytest.raises(ValueError, match=r"fog rows: got .* of 4; allowed: 0\.\.4"):
            fog_layout(4, bad)


@pytest.mark.parametrize("spread", [True, False])
def test_every_row_of_the_training_env_is_its_own_game_in_either_fog_layout(spread: bool) -> None:
    """Rows keep their games: each row's mask, fog flag and final scores are its game's, whatever the layout."""
    from policies.games.frontera import Frontera, FronteraOptions

    adapter = Frontera().for_options({"players": 2})
    options = FronteraOptions(map="small", players=2, max_turns=8)
    env = adapter.make_vector_env(6, options, 1, 3, fog_rows=0.5, fog_spread=spread)
    assert env.fog.tolist() == ([False, True] * 3 if spread else [False] * 3 + [True] * 3)
    obs, masks, player = env.reset()
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(400):
        for slot in range(6):
            row = env.game(slot)
            assert bool(row.game.ctx.fog) == bool(env.fog[slot])
            assert (row.mask == masks[slot]).all() and int(row.game.current) == int(player[slot])
            assert obs[slot, 71 - GLOBALS] == (12 if env.fog[slot] else 0)  # the fog flag (global 71), packed
        legal = [int(rng.choice(np.flatnonzero(m))) for m in masks]
        obs, masks, player, rewards, terminated, truncated, info = env.step(np.array(legal))
        ended += int((terminated | truncated).sum())
    assert ended > 0


def test_a_run_saved_before_fog_spread_resumes_with_the_fog_in_the_last_rows() -> None:
    from training.ppo.resume import saved_config

    data = {"game": {"name": "frontera", "players": 2}, "env": {"fog_rows": 0.5}}
    assert saved_config({"config": data}, "old.pt").env.fog_spread is False
    data["env"]["fog_spread"] = True
    assert saved_config({"config": data}, "new.pt").env.fog_spread is True
