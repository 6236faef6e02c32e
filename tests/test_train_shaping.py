"""The trainer's potential-based shaping: the score's potential (env.score_potential) and its telescoping in GAE."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from dw_env.engine import Game  # noqa: E402
from dw_env.options import GameOptions  # noqa: E402
from policies import registry  # noqa: E402
from policies.domain_wheel.two_phase import TwoPhaseDriver  # noqa: E402
from training.ppo import config as cfg  # noqa: E402
from training.ppo.ppo import Rollout, compute_advantages, score_potential  # noqa: E402

CONFIGS = Path(__file__).resolve().parent.parent / "configs"
SMALL = GameOptions(land_radius=1, map_radius=2, max_rounds=150)


def _played(rounds: int) -> Game:
    """A small-map game after ``rounds`` rounds of Balanced against Expansionist and Raider (scores differ)."""
    game = Game.new(SMALL)
    seats = [registry.make(name, seed=i) for i, name in enumerate(("balanced", "expansionist", "raider"))]
    while not game.over and game.round < rounds:
        game.play(seats[game.turn].act(game, game.turn))
    return game


def test_score_potential_is_the_margin_over_the_total_points_for_every_viewer() -> None:
    """Rule 9.5's scores: weight x (own - rivals' mean) / total points, read from each viewer's observation."""
    game = _played(40)
    scores = game.scores()
    assert max(scores) > 0, "the test needs a position with points"
    driver = TwoPhaseDriver(SMALL)
    total = driver.geometry.total_points
    for viewer in range(3):
        obs, _ = driver.encode(game, viewer)
        rivals = [scores[p] for p in range(3) if p != viewer]
        expected = 2.5 * (scores[viewer] - sum(rivals) / 2) / total
        got = score_potential(obs[None].copy(), driver.layout, 2.5)
        assert got.dtype == np.float32 and got.shape == (1,)
        assert got[0] == pytest.approx(expected, rel=1e-6)


def test_score_potential_is_zero_when_off_or_without_a_layout() -> None:
    driver = TwoPhaseDriver(SMALL)
    obs, _ = driver.encode(_played(40), 0)
    batch = np.stack([obs, obs])
    assert not score_potential(batch, driver.layout, 0.0).any()
    assert not score_potential(batch, None, 1.0).any()


def test_shaped_returns_hand_the_margin_back_at_the_game_end() -> None:
    """gamma = lambda = 1, values 0: the first decision's advantage is the result minus its own potential.

    Whatever the potentials between (a margin that grew to 0.7), only the terminal reward is left: a
    learner gains nothing from a bigger margin, unlike the env's score_shaping.
    """
    rollout = Rollout.allocate(12, 1, 4, 3)
    potentials = [0.1, 0.3, 0.5, 0.7]
    for phi in potentials:
        rollout.store(np.array([0]), np.zeros(4), np.ones(3), np.array([0]), np.zeros(1), np.zeros(1), phi)
    rollout.rewards[3, 0] = 1.0  # the win, paid at the last decision
    rollout.dones[3, 0], rollout.open[0] = True, False
    adv, valid = compute_advantages(rollout, gamma=1.0, lam=1.0)
    assert valid[:4, 0].all() and not valid[4:, 0].any()
    assert adv[0, 0] == pytest.approx(1.0 - potentials[0])
    assert adv[2, 0] == pytest.approx(1.0 - potentials[2])


def test_score_potential_is_a_validated_env_option() -> None:
    assert cfg.load(None).env.score_potential == 0.0
    assert cfg.load(None, ["env.score_potential=1.5"]).env.score_potential == 1.5
    with pytest.raises(ValueError, match="score_potential"):
        cfg.load(None, ["env.score_potential=-1"])


def test_truncation_reward_reaches_the_training_env() -> None:
    """env.truncation_reward is what every seat gets at game.max_rounds (A57) in the training env: -1 by default."""
    from training.ppo.game_setup import make_env

    assert make_env(cfg.load(None, ["env.num_envs=4"]), 4, 1, 0).truncation_reward == -1.0
    env = make_env(cfg.load(CONFIGS / "small_agent.yaml", ["env.num_envs=4"]), 4, 1, 0)
    assert env.truncation_reward == 0.0  # the shipped agent's config pins what it was trained with
    with pytest.raises(ValueError, match="truncation_reward"):
        cfg.load(None, ["env.truncation_reward=-2"])
    other = make_env(cfg.load(CONFIGS / "alveole.yaml", ["env.num_envs=4"]), 4, 1, 0)
    assert not hasattr(other, "truncation_reward")  # another game's env keeps its own rule


def test_runs_saved_before_truncation_reward_resume_with_zero() -> None:
    """A checkpoint's config without the key was trained with truncations paying 0: it resumes so."""
    from training.ppo.resume import saved_config

    saved = cfg.load(None).to_dict()
    del saved["env"]["truncation_reward"]
    assert saved_config({"config": saved}, "old.pt").env.truncation_reward == 0.0
    saved["env"]["truncation_reward"] = -1.0
    assert saved_config({"config": saved}, "new.pt").env.truncation_reward == -1.0
