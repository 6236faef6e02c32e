"""Whole games through the AEC API: every game ends, masks are never empty, observations match the engine.

The expected observation is rebuilt here in plain Python from the engine's public
``Game`` API and the geometry tables (a second, independent copy of the layout in
``dw_env/envs/observation.py``), and compared with the compiled encoder's output.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from dw_env import domain_wheel_v0
from dw_env.engine import Game
from dw_env.envs.domain_wheel import raw_env
from dw_env.envs.observation import CELL_FEATURES, GLOBAL_FEATURES, LAND_FEATURES
from dw_env.rules import layout as lay

OPTION_SETS: list[dict[str, Any]] = [
    {"land_radius": 1, "map_radius": 2, "max_rounds": 12},
    {"land_radius": 1, "map_radius": 3, "max_rounds": 8, "turns_to_conquer": 1},
    {"land_radius": 2, "map_radius": 2, "max_rounds": 6, "fast_knights": False, "king_may_be_alone": False},
    {"land_radius": 1, "map_radius": 2, "max_rounds": 15, "turns_to_conquer": 2, "king_may_be_alone": False},
]
GAMES_PER_SET = 250  # 1,000 random games in all
SEAT_FEATURES = [GLOBAL_FEATURES.index(f"seat_{c}") for c in ("blue", "green", "red")]


def expected_observation(env: raw_env, viewer: int) -> tuple[np.ndarray, np.ndarray]:
    """Return (observation, mask) of ``viewer`` built from the Game API (see the module docstring)."""
    game, g = env.game, env.geometry
    cell_to, land_to = g.rotation_power((3 - viewer) % 3)
    cells = np.zeros((g.num_cells, len(CELL_FEATURES)), dtype=np.int64)
    lands = np.zeros((g.num_lands, len(LAND_FEATURES)), dtype=np.int64)
    glob = np.zeros(len(GLOBAL_FEATURES), dtype=np.int64)
    mask = np.zeros(g.num_cells + 2, dtype=np.int64)

    def rel(player: int) -> int:
        return (player - viewer) % 3

    rels = ("me", "next", "after")
    for p in range(3):
        king, knights = game.pieces(p)
        cells[cell_to[king], CELL_FEATURES.index(f"{'my' if p == viewer else rels[rel(p)]}_king")] = 1
        for k in knights:
            cells[cell_to[k], CELL_FEATURES.index(f"{'my' if p == viewer else rels[rel(p)]}_knight")] = 1
    cells[cell_to[g.land_throne], CELL_FEATURES.index("throne")] = 1
    acting = not game.over and game.turn == viewer
    if env.phase == 2:
        cells[cell_to[env.selected_cell], CELL_FEATURES.index("selected")] = 1
    if acting and env.phase == 2:
        for dst, flags in game.destinations(env.selected_cell).items():
            mask[cell_to[dst]] = 1
            for bit, name in enumerate(lay.MOVE_KIND_NAMES):
                if flags >> bit & 1:
                    cells[cell_to[dst], CELL_FEATURES.index(f"dest_{name}")] = 1
    end_legal = acting and env.phase == 1 and game.can_request_end()
    if acting and env.phase == 1:
        for c in game.movable_pieces():
            cells[cell_to[c], CELL_FEATURES.index("movable")] = 1
            mask[cell_to[c]] = 1
        mask[g.num_cells] = 1
        mask[g.num_cells + 1] = int(end_legal)

    for land in range(g.num_lands):
        row = lands[land_to[land]]
        if game.owner(land) >= 0:
            row[LAND_FEATURES.index(f"owner_{rels[rel(game.owner(land))]}")] = 1
        row[LAND_FEATURES.index("points")] = g.land_points[land]
        row[LAND_FEATURES.index("ring")] = g.land_ring[land]
        row[LAND_FEATURES.index("start_land")] = g.is_start_land[land]
    for q in range(3):
        terr = game.territory(q)
        name = rels[rel(q)]
        for land in range(g.num_lands):
            row = lands[land_to[land]]
            row[LAND_FEATURES.index(f"territory_{name}")] = int(land in terr)
            row[LAND_FEATURES.index(f"hold_{name}")] = game.lands[lay.HOLD + q, land]
            row[LAND_FEATURES.index(f"lib_{name}")] = game.lands[lay.LIB + q, land]
            first_knight = not g.is_start_land[land] and land != g.centre_land and not game.lands[lay.FIRST + q, land]
            row[LAND_FEATURES.index(f"first_knight_{name}")] = int(first_knight)
            row[LAND_FEATURES.index(f"distance_{name}")] = min(g.land_distance[land, m] for m in terr)

    def put(name: str, value: int) -> None:
        glob[GLOBAL_FEATURES.index(f"{name}_hi")], glob[GLOBAL_FEATURES.index(f"{name}_lo")] = divmod(value, 100)

    scores = game.scores()
    for q in range(3):
        put(f"score_{rels[rel(q)]}", scores[q])
    glob[GLOBAL_FEATURES.index("end_request_points")] = g.end_request_points
    glob[GLOBAL_FEATURES.index("centre_min_points")] = g.centre_min_points
    glob[GLOBAL_FEATURES.index("turns_to_conquer")] = game.options.turns_to_conquer
    put("round", game.round)
    put("rounds_left", game.options.max_rounds - game.round)
    if game.countdown:
        holder, left = game.countdown
        glob[GLOBAL_FEATURES.index(f"countdown_{rels[rel(holder)]}")] = 1
        glob[GLOBAL_FEATURES.index("countdown_left")] = left
    glob[GLOBAL_FEATURES.index("phase")] = env.phase - 1
    glob[GLOBAL_FEATURES.index("end_request_legal")] = int(end_legal)
    glob[GLOBAL_FEATURES.index("fast_knights")] = int(game.options.fast_knights)
    glob[GLOBAL_FEATURES.index("king_may_be_alone")] = int(game.options.king_may_be_alone)
    glob[SEAT_FEATURES[viewer]] = 1
    glob[GLOBAL_FEATURES.index("to_act")] = int(acting)
    glob[GLOBAL_FEATURES.index("game_over")] = int(game.over)
    obs = np.concatenate([cells.ravel(), lands.ravel(), glob])
    return obs.astype(np.int8), mask.astype(np.int8)


def check_observation(env: raw_env, viewer: int) -> None:
    got = env.observe(env.possible_agents[viewer])
    want_obs, want_mask = expected_observation(env, viewer)
    if not np.array_equal(got["observation"], want_obs):
        layout = env.observation_layout
        bad = int(np.flatnonzero(got["observation"] != want_obs)[0])
        raise AssertionError(f"viewer {viewer}: observation differs first at {bad} ({_feature_at(layout, bad)})")
    assert np.array_equal(got["action_mask"], want_mask), f"viewer {viewer}: action masks differ"


def _feature_at(layout: Any, index: int) -> str:
    for name, (offset, shape, features) in layout.blocks.items():
        size = int(np.prod(shape))
        if offset <= index < offset + size:
            row, col = divmod(index - offset, len(features))
            return f"{name} row {row} feature {features[col]}"
    return "?"


def play_random_games(options: dict[str, Any], games: int, seed: int, check_every: int) -> dict[str, int]:
    """Play ``games`` uniformly random (mask-legal) games through env(); check invariants; return tallies."""
    rng = np.random.default_rng(seed)
    env = domain_wheel_v0.env(**options)
    raw = env.unwrapped
    tallies = {"terminated": 0, "truncated": 0, "steps": 0, "checked": 0}
    for _ in range(games):
        env.reset()
        for agent in env.agent_iter(max_iter=20_000):
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            mask = obs["action_mask"]
            legal = np.flatnonzero(mask)
            assert len(legal) > 0, f"empty mask for the acting agent {agent}"
            assert obs["observation"][raw.observation_layout.global_offset + GLOBAL_FEATURES.index("to_act")] == 1
            if tallies["steps"] % check_every == 0:
                for viewer in range(3):
                    check_observation(raw, viewer)
                tallies["checked"] += 1
            env.step(int(legal[rng.integers(len(legal))]))
            tallies["steps"] += 1
        assert not env.agents, "the game did not end"
        tallies["truncated" if raw.game.truncated else "terminated"] += 1
    return tallies


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_random_games_all_end_with_non_empty_masks_and_exact_observations(options: dict[str, Any]) -> None:
    tallies = play_random_games(options, GAMES_PER_SET, seed=len(str(options)), check_every=37)
    assert tallies["terminated"] + tallies["truncated"] == GAMES_PER_SET
    assert tallies["checked"] > 50


def test_biased_games_exercise_counters_and_match_the_engine(biased_player: type) -> None:
    """Games aimed at conquests and liberations: every observation matches the engine (rules 6.4, 7.3, 9.2)."""
    options = {"land_radius": 1, "map_radius": 2, "max_rounds": 60, "turns_to_conquer": 2}
    seen = {"hold": 0, "lib": 0, "owned_non_start": 0, "countdown": 0, "ended_by_rule": 0}
    for seed in range(12):
        player = biased_player(seed)
        env = raw_env(**options)
        env.reset()
        while not env.game.over:
            p = env.game.turn
            move = player.choose(env.game)
            for action in domain_wheel_v0.move_to_actions(env.geometry, p, move):
                check_observation(env, p)
                check_observation(env, (p + 1) % 3)
                env.step(action)
            seen["hold"] += int(env.game.lands[lay.HOLD : lay.HOLD + 3].any())
            seen["lib"] += int(env.game.lands[lay.LIB : lay.LIB + 3].any())
            seen["owned_non_start"] += int(((env.game.lands[lay.OWNER] >= 0) & (env.geometry.is_start_land == 0)).any())
            seen["countdown"] += int(env.game.countdown is not None)
        for viewer in range(3):
            check_observation(env, viewer)
        seen["ended_by_rule"] += int(not env.game.truncated)
    assert seen["hold"] and seen["lib"] and seen["owned_non_start"] and seen["ended_by_rule"], seen


def rotate_game(game: Game) -> Game:
    """Return the game turned by 120 degrees with every player renamed to the next (Blue -> Green ...)."""
    g = game.geometry
    cells, lands = g.cell_rotation, g.land_rotation
    board = np.zeros_like(game.board)
    for c in np.flatnonzero(game.board):
        v = int(game.board[c]) - 1
        board[cells[c]] = 1 + 2 * ((v // 2 + 1) % 3) + v % 2
    new_lands = np.zeros_like(game.lands)
    owner = game.lands[lay.OWNER]
    new_lands[lay.OWNER, lands] = np.where(owner >= 0, (owner + 1) % 3, owner)
    for row in (lay.HOLD, lay.LIB, lay.FIRST):
        for q in range(3):
            new_lands[row + (q + 1) % 3, lands] = game.lands[row + q]
    s = game.scalars.copy()
    s[lay.TURN] = (game.turn + 1) % 3
    if s[lay.CD_HOLDER] >= 0:
        s[lay.CD_HOLDER] = (s[lay.CD_HOLDER] + 1) % 3
    for q in range(3):
        s[lay.KING_CELL + (q + 1) % 3] = cells[game.scalars[lay.KING_CELL + q]]
    return Game(game.options, board, new_lands, s)


def test_egocentric_frame_makes_every_seat_see_the_same_opening() -> None:
    """The start position is symmetric: each player's first observation is the same, seat aside."""
    env = raw_env()
    env.reset()
    views = []
    for _ in range(3):
        obs = env.observe(env.agent_selection)
        views.append(obs)
        env.step(env.geometry.num_cells)  # pass
    seat = env.observation_layout.global_offset + np.array(SEAT_FEATURES)
    for p, view in enumerate(views):
        assert list(view["observation"][seat]) == [int(q == p) for q in range(3)]
        rest = np.delete(view["observation"], seat)
        assert np.array_equal(rest, np.delete(views[0]["observation"], seat))
        assert np.array_equal(view["action_mask"], views[0]["action_mask"])
    blue_throne = env.geometry.land_throne[env.geometry.start_lands[0]]
    for p in range(3):
        own_throne = env.geometry.land_throne[env.geometry.start_lands[p]]
        assert domain_wheel_v0.cell_to_action(env.geometry, p, own_throne) == blue_throne


@pytest.mark.parametrize("seed", range(4))
def test_rotated_positions_give_the_same_observations(seed: int, biased_player: type) -> None:
    """Turning a position by 120 degrees and renaming the players leaves every observation unchanged."""
    options = {"land_radius": 1, "map_radius": 3, "max_rounds": 40, "turns_to_conquer": 2}
    player = biased_player(seed)
    env, turned = raw_env(**options), raw_env(**options)
    env.reset()
    seat = env.observation_layout.global_offset + np.array(SEAT_FEATURES)
    compared = steps = 0
    while not env.game.over:
        p = env.game.turn
        for action in domain_wheel_v0.move_to_actions(env.geometry, p, player.choose(env.game)):
            if steps % 7 == 0:
                turned.reset(options={"position": rotate_game(env.game.copy())})
                if env.phase == 2:  # the same frame action selects the same (turned) piece
                    turned.step(domain_wheel_v0.cell_to_action(env.geometry, p, env.selected_cell))
                for viewer in range(3):
                    a = env.observe(env.possible_agents[viewer])
                    b = turned.observe(turned.possible_agents[(viewer + 1) % 3])
                    assert np.array_equal(np.delete(a["observation"], seat), np.delete(b["observation"], seat))
                    assert np.array_equal(a["action_mask"], b["action_mask"])
                compared += 1
            env.step(action)
            steps += 1
    assert compared > 10


def test_action_helpers_round_trip() -> None:
    g = raw_env(land_radius=1, map_radius=2).geometry
    for p in range(3):
        actions = [domain_wheel_v0.cell_to_action(g, p, c) for c in range(g.num_cells)]
        assert sorted(actions) == list(range(g.num_cells))
        assert all(domain_wheel_v0.action_to_cell(g, p, a) == c for c, a in enumerate(actions))
        assert domain_wheel_v0.action_to_cell(g, p, g.num_cells) == lay.PASS
        assert domain_wheel_v0.action_to_cell(g, p, g.num_cells + 1) == lay.END_REQUEST_ACTION
    move = (5, 6)
    acts = domain_wheel_v0.move_to_actions(g, 2, move)
    assert tuple(domain_wheel_v0.actions_to_move(g, 2, acts)) == move
    with pytest.raises(ValueError, match="out of range"):
        domain_wheel_v0.action_to_cell(g, 0, g.num_cells + 2)


def test_rewards_are_zero_sum_and_follow_rule_9_5() -> None:
    from dw_env.envs.transition import terminal_rewards

    def rewards(winners: int, reason: int = lay.END_CENTRE, truncation_reward: float = 0.0) -> list[float]:
        s = np.zeros(lay.NUM_SCALARS, dtype=np.int32)
        s[lay.WINNERS], s[lay.END_REASON] = winners, reason
        out = np.zeros(3)
        terminal_rewards(s, truncation_reward, out)
        return [round(float(x), 6) for x in out]

    assert rewards(0b001) == [1.0, -0.5, -0.5]
    assert rewards(0b110) == [-1.0, 0.5, 0.5]
    assert rewards(0b111) == [0.0, 0.0, 0.0]
    assert rewards(0, lay.END_TRUNCATION, -0.25) == [-0.25, -0.25, -0.25]


def test_score_shaping_adds_up_to_the_final_score_difference(biased_player: type) -> None:
    """Shaping pays the change of (own score - mean rival score) / total points (rule 8.3); it telescopes."""
    options = {"land_radius": 1, "map_radius": 2, "max_rounds": 60, "turns_to_conquer": 2}
    for seed in range(3):
        player = biased_player(seed)
        shaped, plain = raw_env(score_shaping=True, **options), raw_env(**options)
        shaped.reset()
        plain.reset()
        total, terminal = np.zeros(3), np.zeros(3)
        while not shaped.game.over:
            p = shaped.game.turn
            for action in domain_wheel_v0.move_to_actions(shaped.geometry, p, player.choose(shaped.game)):
                shaped.step(action)
                plain.step(action)
                total += [shaped.rewards[a] for a in shaped.possible_agents]
                terminal += [plain.rewards[a] for a in plain.possible_agents]
        s = shaped.game.scores()
        assert any(s), "the biased game conquered nothing: the test would be vacuous"
        potential = np.array([(s[p] - (sum(s) - s[p]) / 2) / shaped.geometry.total_points for p in range(3)])
        assert np.allclose(total, terminal + potential)
        assert abs(total.sum()) < 1e-9 and abs(terminal.sum()) < 1e-9
