"""``frontera_env.vector.FronteraVectorEnv``: the AEC env's trajectories row by row, zero-sum games, restarts,
and refused actions that step no game."""

from __future__ import annotations

import numpy as np
import pytest

from frontera_env import frontera_v0
from frontera_env.vector import FronteraVectorEnv


def test_6_vector_rows_follow_the_aec_env_with_the_row_seed() -> None:
    venv = FronteraVectorEnv(3, seed=10, players=3, max_turns=6)
    obs, masks, acting = venv.reset()
    twin = frontera_v0.raw_env(players=3, max_turns=6)
    twin.reset(seed=11)  # row 1's first game
    for _ in range(120):
        assert twin.agent_selection == f"player_{acting[1]}"
        assert np.array_equal(twin.observe(twin.agent_selection)["observation"], obs[1])
        actions = venv.sample_actions()
        obs, masks, acting, _, terminated, truncated, _ = venv.step(actions)
        if terminated[1] or truncated[1]:
            break
        twin.step(int(actions[1]))
        while twin.terminations[twin.agent_selection]:
            twin.step(None)
    assert masks.shape == (3, twin.layout.size) and obs.shape == (3, twin.obs_layout.size)


def test_6_5_vector_games_sum_to_zero_and_restart_with_the_next_seed() -> None:
    venv = FronteraVectorEnv(2, seed=0, players=3, max_turns=3)
    venv.reset()
    totals = np.zeros((2, 3))
    ended = 0
    for _ in range(400):
        _, masks, _, rewards, terminated, truncated, infos = venv.step(venv.sample_actions())
        totals += rewards
        for i in np.flatnonzero(terminated | truncated):
            assert totals[i].sum() == pytest.approx(0.0) and infos["episode_steps"][i] > 0
            totals[i] = 0
            ended += 1
        assert masks.any(axis=1).all()  # every row has a legal action: finished rows restarted at once
    assert ended >= 2 and venv._games.min() >= 2


def test_6_3_vector_refuses_an_illegal_action_naming_the_row_and_steps_no_game() -> None:
    venv = FronteraVectorEnv(2, seed=3, players=2)
    _, masks, _ = venv.reset()
    before = [env.game.state.copy() for env in venv.envs]
    actions = np.array([int(np.flatnonzero(masks[0])[0]), int(np.flatnonzero(masks[1] == 0)[0])])
    with pytest.raises(ValueError, match=r"row 1: action \d+ is not legal for seat \d; allowed: "):
        venv.step(actions)
    assert all(env.game.state.equals(b) for env, b in zip(venv.envs, before, strict=True))
    with pytest.raises(ValueError, match=r"actions must be 2 integers, one per row"):
        venv.step([0.5, 1.0])
    with pytest.raises(ValueError, match=r"num_envs must be an integer in 1..65536, got 0"):
        FronteraVectorEnv(0)
