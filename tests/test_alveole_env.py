"""The PettingZoo AEC env (alveole_v0) and the vector env (AlveoleVectorEnv): API tests, rewards, truncation, errors."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from alveole_env import END_REASONS, NUM_ACTIONS, OBS_SIZE, AlveoleGame, AlveoleOptions, IllegalActionError, alveole_v0
from alveole_env.position import from_dict
from alveole_env.vector import AlveoleVectorEnv


def test_pettingzoo_api_test() -> None:
    api_test(alveole_v0.env(), num_cycles=200)
    api_test(alveole_v0.raw_env(), num_cycles=200)


def test_pettingzoo_seed_test() -> None:
    seed_test(alveole_v0.env, num_cycles=100)


def _play_out(env: alveole_v0.raw_env, seed: int) -> tuple[dict[str, float], dict[str, dict[str, object]]]:
    """Play random legal moves to the end; return each agent's final (reward, info) from ``last()``."""
    rng = np.random.default_rng(seed)
    rewards, infos = {}, {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            rewards[agent], infos[agent] = reward, info
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return rewards, infos


def test_rule_ending_rewards_and_infos() -> None:
    env = alveole_v0.raw_env()
    env.reset()
    game = env.game
    rewards, infos = _play_out(env, 0)
    winner = f"player_{game.winners[0]}"
    loser = f"player_{1 - game.winners[0]}"
    assert rewards == {winner: 1.0, loser: -1.0}
    assert infos[loser]["end_reason"] == game.end_reason and game.end_reason in END_REASONS[:3]
    assert infos[winner]["winners"] == [winner]


def test_truncation_is_a_truncation_not_a_termination() -> None:
    env = alveole_v0.raw_env(max_plies=4)
    env.reset()
    for _ in range(4):
        obs, *_ = env.last()
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.rewards == {"player_0": 0.0, "player_1": 0.0}
    assert env.infos["player_0"]["end_reason"] == "truncated" and env.infos["player_0"]["winners"] == []


def test_observations_are_egocentric_and_masks_only_for_the_mover() -> None:
    env = alveole_v0.raw_env()
    env.reset()
    mine, theirs = env.observe("player_0"), env.observe("player_1")
    assert mine["observation"].shape == (OBS_SIZE,) and mine["action_mask"].sum() == 15
    assert theirs["action_mask"].sum() == 0
    a, b = mine["observation"].reshape(6, 81), theirs["observation"].reshape(6, 81)
    assert (a[0] == b[1]).all() and (a[1] == b[0]).all() and (a[2:] == b[2:]).all()
    game_obs, game_mask = env.game.observe()
    assert (game_obs == mine["observation"]).all() and (game_mask == mine["action_mask"]).all()


def test_illegal_action_raises_in_raw_env_and_changes_nothing() -> None:
    env = alveole_v0.raw_env()
    env.reset()
    before = env.game.board.copy()
    with pytest.raises(IllegalActionError, match="legal actions"):
        env.step(0)
    with pytest.raises(IllegalActionError, match="integer"):
        env.step("a")
    assert (env.game.board == before).all() and env.agent_selection == "player_0"


def test_illegal_action_in_wrapped_env_ends_the_game() -> None:
    env = alveole_v0.env()
    env.reset()
    env.step(0)
    assert env.rewards == {"player_0": -1, "player_1": 0} and all(env.terminations.values())


def test_reset_from_a_position_and_bad_arguments() -> None:
    env = alveole_v0.raw_env()
    start = {"to_move": 2, "pieces": [[0, 0, 1], [2, -1, 1], [-3, -1, 2], [3, 1, 2]]}
    env.reset(options={"position": start})
    assert env.agent_selection == "player_1"
    with pytest.raises(ValueError, match="seed must be an integer"):
        env.reset(seed="x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="unknown option"):
        alveole_v0.raw_env(max_rounds=3)
    with pytest.raises(ValueError, match="render_mode"):
        alveole_v0.raw_env(render_mode="window")
    with pytest.raises(RuntimeError, match="reset"):
        alveole_v0.raw_env().step(0)


def test_render_modes() -> None:
    env = alveole_v0.raw_env(render_mode="ansi")
    env.reset()
    assert "player 1 (X) to move" in env.render()
    env = alveole_v0.raw_env(render_mode="rgb_array", render_width=200)
    env.reset()
    assert env.render().shape == (200, 200, 3)


# ---- vector env ------------------------------------------------------------------------------


def test_vector_env_matches_the_engine_step_by_step() -> None:
    venv = AlveoleVectorEnv(8, seed=1, options={"max_plies": 60})
    obs, masks, acting = venv.reset()
    games = [AlveoleGame.new(AlveoleOptions(max_plies=60)) for _ in range(8)]
    ended = 0
    for _ in range(150):
        for i, game in enumerate(games):
            o, m = game.observe()
            assert (o == obs[i]).all() and (m == masks[i]).all() and acting[i] == game.turn
        actions = venv.sample_actions()
        obs, masks, acting, rewards, term, trunc, infos = venv.step(actions)
        for i, game in enumerate(games):
            game.play(int(actions[i]))
            assert term[i] == (game.over and not game.truncated) and trunc[i] == game.truncated
            if game.over:
                ended += 1
                assert infos["end_reason"][i] == END_REASONS.index(game.end_reason)
                assert infos["final_scores"][i].tolist() == game.scores()
                assert infos["episode_steps"][i] == game.ply
                expected = np.zeros(2, dtype=np.float32)
                if game.winners:
                    expected[game.winners[0]], expected[1 - game.winners[0]] = 1, -1
                    assert infos["winners"][i].tolist() == [int(p in game.winners) for p in (0, 1)]
                assert rewards[i].tolist() == expected.tolist()
                games[i] = AlveoleGame.new(AlveoleOptions(max_plies=60))
            else:
                assert rewards[i].tolist() == [0.0, 0.0] and infos["end_reason"][i] == -1
    assert ended > 8


def test_vector_env_two_threads_give_the_same_trajectories() -> None:
    runs = []
    for threads in (1, 2):
        venv = AlveoleVectorEnv(5, num_threads=threads, seed=3)
        venv.reset()
        total = np.zeros((5, 2), dtype=np.float32)
        for _ in range(300):
            _, masks, _, rewards, *_ = venv.step(venv.sample_actions())
            total += rewards
        runs.append((masks, total))
    assert (runs[0][0] == runs[1][0]).all() and (runs[0][1] == runs[1][1]).all()


def test_vector_env_refuses_illegal_actions_and_steps_nothing() -> None:
    venv = AlveoleVectorEnv(3, seed=0)
    obs, masks, _ = venv.reset()
    actions = venv.sample_actions()
    actions[1] = 0
    with pytest.raises(ValueError, match="action 0 of env 1 is not legal"):
        venv.step(actions)
    assert (venv.game(0).board == AlveoleGame.new().board).all() and venv.game(2).ply == 0
    with pytest.raises(ValueError, match="shape"):
        venv.step(np.zeros(2, dtype=np.int64))
    with pytest.raises(ValueError, match="env index"):
        venv.game(3)
    with pytest.raises(ValueError, match="num_envs"):
        AlveoleVectorEnv(0)
    with pytest.raises(RuntimeError, match="reset"):
        AlveoleVectorEnv(1).step(np.zeros(1, dtype=np.int64))


def test_vector_env_game_is_an_independent_copy() -> None:
    venv = AlveoleVectorEnv(2, seed=0)
    venv.reset()
    venv.step(venv.sample_actions())
    game = venv.game(0)
    assert game.ply == 1 and NUM_ACTIONS == 486
    game.play(game.legal_actions()[0])
    assert venv.game(0).ply == 1
    assert from_dict({"to_move": 1, "pieces": [[0, 0, 1], [2, -1, 1], [-3, -1, 2], [3, 1, 2]]}).ply == 0
