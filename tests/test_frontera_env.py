"""``frontera_v0`` (spec 6): PettingZoo's api_test and seed_test on every map and player count, fog on and off;
zero-sum rewards, eliminated seats' dead steps, truncation, options and the graph in ``info``."""

from __future__ import annotations

import hashlib
import warnings
from typing import Any

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from frontera_env import frontera_v0
from frontera_env.engine import Game
from frontera_env.map_file import reference_map
from tests.frontera_helpers import position, roll
from tests.test_frontera_env_mask import _choose

SMALL = reference_map("small")


@pytest.mark.parametrize("fog", [False, True], ids=["open", "fog"])
@pytest.mark.parametrize("players", [2, 3, 4, 6])
@pytest.mark.parametrize("size", ["small", "medium", "large"])
def test_6_pettingzoo_api_test_and_seed_test(size: str, players: int, fog: bool) -> None:
    options = {"players": players, "size": size, "fog": fog, "max_turns": 3 * players}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # api_test's notes (e.g. off-turn all-zero masks) are not failures
        api_test(frontera_v0.env(**options), num_cycles=60)
        seed_test(lambda: frontera_v0.env(**options), num_cycles=60)


def test_6_api_test_on_the_raw_env_through_a_whole_truncated_game() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(frontera_v0.raw_env(players=3, max_turns=6), num_cycles=400)


def _blitz_edge(env: Any, source: int, target: int) -> int:
    return int(env.layout.blitz + SMALL.edges.index((source, target)))


def _deploy_all(env: Any, territory: int) -> int:
    """Return the index that deploys the whole pool on ``territory`` (its top usable bucket)."""
    b = env.layout.buckets
    allowed = [i for i in range(territory * b, territory * b + b) if env._mask[i]]
    return allowed[-1]


def _frontline_position(players: int, max_turns: int, mine: int) -> tuple[Game, int, int]:
    """Return a small-map game where seat 0 owns ``mine`` territories and a one-territory seat 2 borders it."""
    source, target = SMALL.edges[0]
    owners = [1] * SMALL.territory_count
    others = [t for t in range(SMALL.territory_count) if t not in (source, target)]
    for t in [source, *others[: mine - 1]]:
        owners[t] = 0
    owners[target] = 2
    if players > 3:
        owners[others[-1]] = 3
    armies = [1] * SMALL.territory_count
    armies[source] = 10
    game = position(SMALL, owners, armies, players=players, max_turns=max_turns)
    return game, source, target


def _play_conquest(env: Any, source: int, target: int) -> dict[str, float]:
    """Deploy seat 0's pool on ``source`` and blitz ``target`` with winning dice; return the step's rewards."""
    env.step(_deploy_all(env, source))
    roll(env.game, 6, 6, 6, 1)
    env.step(_blitz_edge(env, source, target))
    return dict(env.rewards)


def test_6_5_an_eliminated_seat_gets_its_share_at_once_and_leaves_by_a_dead_step() -> None:
    env = frontera_v0.raw_env(players=4, max_turns=40)
    game, source, target = _frontline_position(4, 40, 5)
    env.reset(options={"position": game})
    rewards = _play_conquest(env, source, target)
    assert rewards["player_2"] == pytest.approx(-1 / 3) and env.terminations["player_2"]
    assert not env.terminations["player_0"] and rewards["player_0"] == 0
    assert env.agent_selection == "player_2"  # PettingZoo: the dead agent steps None before play goes on
    obs, reward, terminated, _, _ = env.last()
    assert terminated and reward == pytest.approx(-1 / 3) and not obs["action_mask"].any()
    env.step(None)
    assert "player_2" not in env.agents and env.agent_selection == "player_0"
    assert env._mask.any()  # seat 0 plays on in its window or attack phase


def test_6_5_a_win_pays_one_and_minus_one_over_p_minus_one_summing_to_zero() -> None:
    env = frontera_v0.raw_env(players=3, max_turns=30)
    game, source, target = _frontline_position(3, 30, SMALL.win_threshold - 1)
    env.reset(options={"position": game})
    rewards = _play_conquest(env, source, target)  # the 25th territory also eliminates seat 2
    assert rewards == {"player_0": 1.0, "player_1": -0.5, "player_2": -0.5}
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.infos["player_1"]["winner"] == "player_0" and env.infos["player_1"]["truncated"] is False
    while env.agents:
        env.step(None)


def test_6_5_truncation_shares_the_eliminated_seats_losses_among_the_survivors() -> None:
    env = frontera_v0.raw_env(players=3, max_turns=1)
    game, source, target = _frontline_position(3, 1, 5)
    env.reset(options={"position": game})
    total = dict.fromkeys(env.possible_agents, 0.0)
    for agent, r in _play_conquest(env, source, target).items():
        total[agent] += r
    env.step(None)  # seat 2's dead step
    while not env.truncations.get("player_0"):
        mask = env._mask
        index = env.layout.occupy + env.layout.buckets if mask[env.layout.occupy + env.layout.buckets] else None
        for block_end in (env.layout.end_attack, env.layout.end_turn):
            if index is None and mask[block_end]:
                index = block_end
        env.step(index)
        for agent, r in env.rewards.items():
            total[agent] += r
    assert total["player_2"] == pytest.approx(-0.5)
    assert total["player_0"] == total["player_1"] == pytest.approx(0.25)  # 0.5 shared by the two survivors
    assert env.infos["player_0"]["truncated"] is True and env.infos["player_0"]["winner"] is None
    assert sum(env.infos["player_0"]["shares"].values()) == pytest.approx(1.0)


def _random_game(env: Any, seed: int) -> tuple[dict[str, float], list[int]]:
    """Play one game with random legal actions; return each agent's total reward and the actions taken."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    total = dict.fromkeys(env.possible_agents, 0.0)
    actions = []
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        total[agent] += reward
        action = None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        actions.append(-1 if action is None else action)
        env.step(action)
    return total, actions


def test_6_5_a_whole_random_game_with_an_elimination_sums_to_zero() -> None:
    env = frontera_v0.raw_env(players=3, max_turns=None)
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    total = dict.fromkeys(env.possible_agents, 0.0)
    left_early = []
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        total[agent] += reward
        if terminated or truncated:
            left_early += [] if env.game.over else [agent]
            env.step(None)
            continue
        env.step(_choose(obs["action_mask"], env.layout, rng))
    winner = f"player_{env.game.winner}"
    assert len(left_early) == 1 and total[left_early[0]] == -0.5  # eliminated mid-game, its share at once
    assert total[winner] == 1.0 and sum(total.values()) == pytest.approx(0.0)


def test_6_5_win_loss_pays_plus_one_and_minus_one() -> None:
    env = frontera_v0.raw_env(players=3, max_turns=30, rewards="win_loss")
    game, source, target = _frontline_position(3, 30, SMALL.win_threshold - 1)
    env.reset(options={"position": game})
    assert _play_conquest(env, source, target) == {"player_0": 1.0, "player_1": -1.0, "player_2": -1.0}


def test_6_1_the_same_seed_gives_the_same_transcript_and_another_seed_another() -> None:
    env = frontera_v0.raw_env(players=4, max_turns=8)
    first, again, other = _random_game(env, 7), _random_game(env, 7), _random_game(env, 8)
    assert first == again and first[1] != other[1]


def test_6_4_info_carries_the_graph_in_action_order_with_sea_flags_and_regions() -> None:
    env = frontera_v0.raw_env(players=2)
    env.reset(seed=1)
    graph = env.infos["player_0"]["graph"]
    edges = SMALL.edges
    assert graph["edge_index"].shape == (2, len(edges)) and tuple(map(int, graph["edge_index"][:, 5])) == edges[5]
    sea = [(s, t) for s, t in edges if t in SMALL.territories[s].sea]
    assert sea and int(graph["edge_sea"].sum()) == len(sea)
    assert [int(r) for r in graph["region"]] == [t.region for t in SMALL.territories]


def test_6_6_setup_is_sequential_hidden_placement_ready_declared_by_the_env() -> None:
    env = frontera_v0.raw_env(players=3, max_turns=9)
    env.reset(seed=4)
    order = [f"player_{int(s)}" for s in env.game.state.order0]
    first = env.agent_selection
    assert first == order[0]
    while env.agent_selection == first:
        env.step(int(np.flatnonzero(env._mask)[-1]))
    assert env.game.state.ready[int(first[-1])] and env.agent_selection == order[1]
    assert env.game.phase == "setup"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"players": 7}, r"players must be an integer in 2..6, got 7"),
        ({"players": True}, r"players must be an integer in 2..6, got True"),
        ({"size": "huge"}, r"size must be one of small, medium, large, got 'huge'"),
        ({"fgo": True}, r"unknown option 'fgo'; allowed: players, size"),
        ({"fog": "yes"}, r"fog must be True or False, got 'yes'"),
        ({"buckets": 1}, r"buckets must be an integer in 2..64, got 1"),
        ({"max_turns": 0}, r"max_turns must be an integer in 1..1000000000, got 0"),
        ({"rewards": "dense"}, r"rewards must be one of zero_sum, win_loss, got 'dense'"),
        ({"world_code": "A", "map_file": "x.json"}, r"give world_code or map_file, not both"),
        ({"world_code": "bad code!"}, r"world code 'bad code!' is not allowed; allowed: 1-32 characters"),
        ({"render_mode": "video"}, r"render_mode 'video' is not supported"),
    ],
)
def test_6_options_are_checked_naming_the_value_and_what_is_allowed(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        frontera_v0.raw_env(**options)


def test_6_reset_options_change_per_game_options_and_refuse_space_changes() -> None:
    env = frontera_v0.raw_env(players=2)
    env.reset(seed=1, options={"fog": True, "unrelated": 1})
    assert env.game.ctx.fog is True
    with pytest.raises(ValueError, match=r"reset option players would change the spaces \(2 -> 3\)"):
        env.reset(seed=1, options={"players": 3})
    with pytest.raises(ValueError, match=r"seed must be an integer >= 0 or None, got 'x'"):
        env.reset(seed="x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"position' must be a frontera_env.engine.Game"):
        env.reset(options={"position": {"owner": []}})


def test_6_world_code_builds_the_generated_map_and_its_action_count() -> None:
    env = frontera_v0.raw_env(players=2, size="small", world_code="ABC")
    assert env.board.world_code == "ABC" and env.layout.size == 7 * 35 + 2 * len(env.board.edges) + 26


def test_6_render_modes_text_and_image() -> None:
    env = frontera_v0.raw_env(players=2, render_mode="ansi")
    env.reset(seed=2)
    text = env.render()
    assert isinstance(text, str) and text.startswith("turn 0, setup, to act: seat")
    image = frontera_v0.raw_env(players=2, render_mode="rgb_array", render_width=200)
    image.reset(seed=2)
    frame = image.render()
    assert isinstance(frame, np.ndarray) and frame.shape == (200, 200, 3) and frame.dtype == np.uint8


def test_R11_1_6_5_an_abandoning_seat_pays_a_losers_share_and_the_last_one_left_wins() -> None:
    env = frontera_v0.raw_env(players=3)
    env.reset(seed=6)
    total = dict.fromkeys(env.possible_agents, 0.0)
    leaver = env.agent_selection  # it leaves while it deploys (R-11.1: at any moment)
    env.abandon(leaver)
    assert env.terminations[leaver] and env.rewards[leaver] == -0.5 and env.agent_selection == leaver
    total[leaver] += env.rewards[leaver]
    env.step(None)
    assert leaver not in env.agents and env.agent_selection == f"player_{env.game.current}"
    assert env._mask.any() and env.game.phase == "setup"
    second = next(a for a in env.agents if a != env.agent_selection)  # off turn this time
    env.abandon(second)
    for agent, r in env.rewards.items():
        total[agent] += r
    assert env.game.over and all(env.terminations.values())
    assert total == {leaver: -0.5, second: -0.5, env.infos[second]["winner"]: 1.0}
    with pytest.raises(ValueError, match=r"R-10.2: the game is over"):
        env.abandon(env.agent_selection)
    with pytest.raises(ValueError, match=r"agent must be one of player_0, player_1, player_2, got 'player_9'"):
        env.abandon("player_9")


def test_7_golden_transcript_small_two_players_seed_2() -> None:
    """A seeded whole game (OpenSpiel playthrough style): any change to the layout, mask or rules shows here.

    If a deliberate change moves it, re-derive the game and update the pin in the same commit.
    """
    env = frontera_v0.raw_env(players=2, max_turns=None)
    rng = np.random.default_rng(2)
    env.reset(seed=2)
    actions = []
    for _agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        action = None if terminated or truncated else _choose(obs["action_mask"], env.layout, rng)
        actions += [] if action is None else [action]
        env.step(action)
    st = env.game.state
    assert actions[:12] == [14, 41, 64, 116, 149, 315, 307, 388, 406, 377, 430, 506]
    assert len(actions) == 62 and env.game.winner == 0 and st.turn_index == 5
    assert [st.territory_count(p) for p in range(2)] == [25, 10] and int(st.armies.sum()) == 62
    assert hashlib.sha256(",".join(map(str, actions)).encode()).hexdigest()[:16] == "820bc7573b4b9f54"
