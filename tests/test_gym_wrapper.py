"""The single-seat Gymnasium wrapper: Gymnasium's env checker, opponents, rewards, and a MaskablePPO smoke run."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from dw_env.engine import PASS_MOVE, Game, Move
from dw_env.envs.gym_single import SingleSeatEnv

SMALL = {"land_radius": 1, "map_radius": 2, "max_rounds": 8}


class PassingPolicy:
    """Always passes (rule 3.2b); counts its calls."""

    def __init__(self) -> None:
        self.calls: list[int] = []

    def act(self, game: Game, seat: int) -> Move:
        assert game.turn == seat
        self.calls.append(seat)
        return PASS_MOVE


@pytest.fixture(autouse=True)
def _sb3_logs_in_tmp_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """stable-baselines3 makes an empty ``SB3-<time>`` folder in the system's temp dir on every learn() unless
    ``SB3_LOGDIR`` names one: the suite left a dozen there per run."""
    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path / "sb3"))


def test_spaces_and_illegal_actions() -> None:
    # gymnasium's check_env steps unmasked random actions, which a masked env rightly refuses
    env = SingleSeatEnv(seat=1, **SMALL)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs) and env.action_space.n == len(env.action_masks())
    assert info["phase"] == 1
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.raises(ValueError, match=f"action {illegal} is not legal for player_1"):
        env.step(illegal)


@pytest.mark.parametrize("seat", [0, 1, 2])
def test_the_learner_acts_only_on_its_own_turns(seat: int) -> None:
    passer = PassingPolicy()
    env = SingleSeatEnv(seat=seat, opponents=passer, **SMALL)
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(seat)
    done = False
    steps = 0
    while not done:
        assert env.env.game.turn == seat and info["phase"] in (1, 2)
        mask = env.action_masks()
        assert mask.dtype == bool and mask.any()
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        done = terminated or truncated
        steps += 1
    assert truncated and reward == 0.0 and info["end_reason"] == "truncation"
    assert sorted(set(passer.calls)) == sorted({0, 1, 2} - {seat})
    assert steps >= SMALL["max_rounds"]


def test_opponent_forms_are_checked() -> None:
    with pytest.raises(ValueError, match="seat must be"):
        SingleSeatEnv(seat=3)
    with pytest.raises(ValueError, match="two opponent policies"):
        SingleSeatEnv(opponents=[PassingPolicy()])
    with pytest.raises(ValueError, match="act"):
        SingleSeatEnv(opponents=object())
    env = SingleSeatEnv(seat=2, opponents={0: PassingPolicy(), 1: PassingPolicy()}, **SMALL)
    env.reset()
    assert env.env.game.turn == 2


def test_default_opponents_play_random_legal_moves_reproducibly() -> None:
    def trace(seed: int) -> list[int]:
        env = SingleSeatEnv(seat=1, **SMALL)
        obs, _ = env.reset(seed=seed)
        out = [int(obs.sum())]
        done = False
        while not done:
            obs, _, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
            out.append(int(obs.sum()))
            done = terminated or truncated
        return out

    assert trace(5) == trace(5)


def test_maskable_ppo_trains_on_the_wrapper() -> None:
    sb3_contrib = pytest.importorskip("sb3_contrib")
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # a tiny network: extra threads only contend with the env
    try:
        env = SingleSeatEnv(seat=0, **SMALL)
        model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=256, batch_size=64, n_epochs=2, seed=0, verbose=0)
        model.learn(total_timesteps=2048)
    finally:
        torch.set_num_threads(threads)
    assert model.num_timesteps >= 2048
    obs, _ = env.reset(seed=1)
    action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)]


def test_example_training_script_runs_end_to_end(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib")
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    script = Path(__file__).resolve().parents[1] / "examples" / "train_maskable_ppo.py"
    spec = importlib.util.spec_from_file_location("train_maskable_ppo", script)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    try:
        argv = ["--timesteps", "512", "--eval-games", "2", "--max-rounds", "4", "--save", str(tmp_path / "m.zip")]
        assert module.main(argv) == 0
    finally:
        torch.set_num_threads(threads)
    out = capsys.readouterr().out
    assert "2 games" in out and (tmp_path / "m.zip").exists()
