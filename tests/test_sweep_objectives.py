"""Exploiter objectives (training/ppo/objectives.py): the rewards they give, and the env that gives them."""

from __future__ import annotations

import numpy as np
import pytest

from dw_env.options import GameOptions
from training.ppo.objectives import CENTRE_STEP, ObjectiveVectorEnv, centre_denial, lead_at_truncation


def test_lead_at_truncation_pays_only_the_leaders_of_truncated_games() -> None:
    scores = np.array([[10, 4, 2], [5, 5, 1], [9, 1, 1]])
    truncated = np.array([True, True, False])
    reward = lead_at_truncation(scores, truncated)
    assert reward.tolist() == [[1.0, -1.0, -1.0], [0.5, 0.5, -1.0], [0.0, 0.0, 0.0]]


def test_centre_denial_pays_the_seat_that_ends_its_turn_on_the_throne() -> None:
    kings = np.array([[7, 3, 4], [1, 2, 7], [7, 2, 3]])
    acted = np.array([0, 2, 0])
    running = np.array([True, True, False])
    reward = centre_denial(kings, acted, running, centre_throne=7)
    assert reward[0].tolist() == pytest.approx([CENTRE_STEP, 0.0, 0.0])
    assert reward[1].tolist() == pytest.approx([0.0, 0.0, CENTRE_STEP])
    assert not reward[2].any()  # the game ended: that row is already the next game


@pytest.mark.parametrize("objective", ["lead_at_truncation", "centre_denial"])
def test_objective_env_replaces_the_rewards(objective: str) -> None:
    options = GameOptions(land_radius=1, map_radius=2, max_rounds=4)
    env = ObjectiveVectorEnv(8, options, 1, 0, objective=objective)
    env.reset()
    throne = int(env.geometry.land_throne[env.geometry.centre_land])
    seen_truncation = False
    for _ in range(40):
        acting = np.array(env._acting)
        _, _, _, rewards, terminated, truncated, infos = env.step(env.sample_actions())
        if objective == "lead_at_truncation":
            assert (rewards[~truncated] == 0).all()
            seen_truncation |= bool(truncated.any())
        else:
            kings = env._scalars[:, 7:10]
            running = ~(terminated | truncated)
            on = running & (kings[np.arange(8), acting] == throne)
            assert np.allclose(rewards.sum(axis=1), np.where(on, CENTRE_STEP, 0.0))
    assert seen_truncation or objective == "centre_denial"


def test_unknown_objective_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown objective 'lose'; allowed: win, lead_at_truncation"):
        ObjectiveVectorEnv(2, GameOptions(land_radius=1, map_radius=2), 1, 0, objective="lose")
