"""The batched vector env: identical trajectories to the AEC env, automatic reset, thread-count independence."""

from __future__ import annotations

from typing import Any

import numba
import numpy as np
import pytest

from dw_env import domain_wheel_v0
from dw_env.envs.domain_wheel import raw_env
from dw_env.envs.vector import DomainWheelVectorEnv
from dw_env.rules import layout as lay

OPTIONS: dict[str, Any] = {"land_radius": 1, "map_radius": 2, "max_rounds": 25, "turns_to_conquer": 2}


def _aec_reward(env: raw_env) -> np.ndarray:
    return np.array([env.rewards[a] for a in env.possible_agents], dtype=np.float32)


@pytest.mark.parametrize("shaping", [False, True], ids=["terminal", "shaped"])
def test_vector_env_matches_the_aec_env_step_for_step(shaping: bool, biased_player: type) -> None:
    """Same actions, same trajectories: observations, masks, acting seat, rewards, ends (biased + random games)."""
    n = 6
    venv = DomainWheelVectorEnv(n, options=OPTIONS, seed=1, score_shaping=shaping, truncation_reward=-0.1)
    aecs = [raw_env(score_shaping=shaping, truncation_reward=-0.1, **OPTIONS) for _ in range(n)]
    players = [biased_player(100 + i) if i % 2 == 0 else None for i in range(n)]
    pending: list[list[int]] = [[] for _ in range(n)]
    steps = np.zeros(n, dtype=int)
    obs, masks, acting = venv.reset()
    for env in aecs:
        env.reset()
    ends = {"terminated": 0, "truncated": 0}
    for _ in range(900):
        actions = venv.sample_actions()
        for i, env in enumerate(aecs):
            agent = env.agent_selection
            assert acting[i] == env.possible_agents.index(agent)
            ref = env.observe(agent)
            assert np.array_equal(obs[i], ref["observation"]) and np.array_equal(masks[i], ref["action_mask"])
            player = players[i]
            if player is not None:
                if not pending[i]:
                    move = player.choose(env.game)
                    pending[i] = domain_wheel_v0.move_to_actions(env.geometry, int(acting[i]), move)
                actions[i] = pending[i].pop(0)
        obs, masks, acting, rewards, terminated, truncated, infos = venv.step(actions)
        for i, env in enumerate(aecs):
            env.step(int(actions[i]))
            steps[i] += 1
            assert np.array_equal(rewards[i], _aec_reward(env))
            assert terminated[i] == all(env.terminations.values())
            assert truncated[i] == all(env.truncations.values())
            if terminated[i] or truncated[i]:
                info = env.infos[env.agent_selection]
                assert list(infos["final_scores"][i]) == [info["scores"][a] for a in env.possible_agents]
                assert infos["end_reason"][i] == lay.END_REASON_NAMES.index(info["end_reason"])
                assert list(infos["winners"][i]) == [int(a in info.get("winners", [])) for a in env.possible_agents]
                assert infos["final_round"][i] == info["round"]
                assert infos["episode_steps"][i] == steps[i]
                ends["terminated" if terminated[i] else "truncated"] += 1
                env.reset()
                pending[i], steps[i] = [], 0
                if players[i] is not None:
                    players[i] = biased_player(int(1000 + 10 * i + ends["terminated"] + ends["truncated"]))
            else:
                assert infos["episode_steps"][i] == 0
    assert ends["terminated"] > 0 and ends["truncated"] > 0, ends


def test_finished_games_reset_automatically() -> None:
    venv = DomainWheelVectorEnv(3, options={**OPTIONS, "max_rounds": 1}, seed=0)
    first_obs, first_masks, _ = venv.reset()
    done = np.zeros(3, dtype=bool)
    for _ in range(60):
        obs, masks, acting, _, terminated, truncated, infos = venv.step(venv.sample_actions())
        ended = terminated | truncated
        for i in np.flatnonzero(ended):
            assert acting[i] == 0 and np.array_equal(obs[i], first_obs[i]) and np.array_equal(masks[i], first_masks[i])
            assert infos["final_round"][i] == 1 and infos["episode_steps"][i] >= 3
        done |= ended
    assert done.all()


def test_thread_count_does_not_change_results() -> None:
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("needs 2 numba threads")
    outputs = []
    for threads in (1, 2):
        venv = DomainWheelVectorEnv(16, options=OPTIONS, num_threads=threads, seed=7)
        trace = [venv.reset()]
        for _ in range(300):
            trace.append(venv.step(venv.sample_actions()))
        outputs.append(trace)
    for a, b in zip(*outputs, strict=True):
        for x, y in zip(a, b, strict=True):
            if isinstance(x, dict):
                assert all(np.array_equal(x[k], y[k]) for k in x)
            else:
                assert np.array_equal(x, y)


def test_illegal_actions_raise_and_step_no_game() -> None:
    venv = DomainWheelVectorEnv(4, options=OPTIONS, seed=0)
    obs, masks, _ = venv.reset()
    actions = venv.sample_actions()
    bad = int(np.flatnonzero(masks[2] == 0)[0])
    actions[2] = bad
    with pytest.raises(ValueError, match=rf"action {bad} of env 2 is not legal in phase 1"):
        venv.step(actions)
    with pytest.raises(ValueError, match="shape"):
        venv.step(actions[:3])
    assert venv.phase().tolist() == [1, 1, 1, 1]  # nothing was stepped
    assert all(np.array_equal(venv.game(i).board, venv.game(0).board) for i in range(4))
    actions[2] = int(np.flatnonzero(masks[2])[0])  # a piece
    venv.step(actions)
    with pytest.raises(ValueError, match="num_threads"):
        DomainWheelVectorEnv(2, num_threads=0)


def test_outputs_are_fresh_arrays_unless_copy_is_off() -> None:
    venv = DomainWheelVectorEnv(2, options=OPTIONS, seed=0)
    obs, *_ = venv.reset()
    obs2, *_ = venv.step(venv.sample_actions())
    assert not np.shares_memory(obs, obs2)
    fast = DomainWheelVectorEnv(2, options=OPTIONS, seed=0, copy=False)
    obs, *_ = fast.reset()
    obs2, *_ = fast.step(fast.sample_actions())
    assert np.shares_memory(obs, obs2)


def test_shapes_and_dtypes_follow_the_layout() -> None:
    venv = DomainWheelVectorEnv(5, seed=0)
    obs, masks, acting = venv.reset()
    layout = venv.observation_layout
    assert obs.shape == (5, layout.size) and obs.dtype == np.int8
    assert masks.shape == (5, layout.mask_size) and masks.dtype == np.int8
    assert acting.dtype == np.int32 and acting.tolist() == [0] * 5
    _, _, _, rewards, terminated, truncated, infos = venv.step(venv.sample_actions())
    assert rewards.shape == (5, 3) and rewards.dtype == np.float32
    assert terminated.dtype == truncated.dtype == np.bool_
    assert infos["final_scores"].shape == (5, 3)


def test_sampling_does_not_depend_on_the_thread_count() -> None:
    from dw_env.envs.vector import sample_masked

    rng = np.random.default_rng(0)
    masks = (rng.random((257, 40)) < 0.2).astype(np.int8)
    masks[:, 0] = 1
    uniform = rng.random(257)
    one, many = np.empty(257, np.int32), np.empty(257, np.int32)
    sample_masked(masks, uniform, one, 1)
    sample_masked(masks, uniform, many, min(3, int(numba.config.NUMBA_NUM_THREADS)))
    assert np.array_equal(one, many)
    assert masks[np.arange(257), one].all()


def test_returned_masks_are_the_callers_own() -> None:
    venv = DomainWheelVectorEnv(3, options=OPTIONS, seed=0)
    _, masks, _ = venv.reset()
    actions = venv.sample_actions()
    masks[:] = 0  # the caller's copy: the env still checks against its own
    venv.step(actions)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), 2.0, True, "0"])
def test_truncation_reward_must_be_a_finite_reward(value: Any) -> None:
    """The same rule as the AEC env: a number in the reward range (dw_env.info.REWARD_RANGE)."""
    with pytest.raises(ValueError, match="truncation_reward"):
        DomainWheelVectorEnv(2, {"land_radius": 1, "map_radius": 2}, truncation_reward=value)


@pytest.mark.parametrize("index", [True, 2, -1, 1.0])
def test_game_index_must_be_an_integer_in_range(index: Any) -> None:
    env = DomainWheelVectorEnv(2, {"land_radius": 1, "map_radius": 2})
    with pytest.raises(ValueError, match="env index"):
        env.game(index)


def test_state_arrays_are_copies_of_the_games_rows() -> None:
    env = DomainWheelVectorEnv(5, {"land_radius": 1, "map_radius": 2}, seed=3)
    env.reset()
    for _ in range(30):
        env.step(env.sample_actions())
    boards, lands, scalars = env.state_arrays(np.array([4, 1, 4]))
    for j, slot in enumerate([4, 1, 4]):
        game = env.game(slot)
        assert np.array_equal(boards[j], game.board) and boards[j].dtype == game.board.dtype
        assert np.array_equal(lands[j], game.lands) and np.array_equal(scalars[j], game.scalars)
    before = env.game(4).board
    boards[0][...] = 0  # a copy: the env's game is untouched
    assert before.any() and np.array_equal(env.game(4).board, before)
    assert [len(a) for a in env.state_arrays(np.array([], dtype=np.int64))] == [0, 0, 0]


@pytest.mark.parametrize("slots", [[5], [-1], [[0]], [0.5], "0"])
def test_state_arrays_refuse_what_is_not_a_list_of_env_indices(slots: Any) -> None:
    env = DomainWheelVectorEnv(5, {"land_radius": 1, "map_radius": 2})
    with pytest.raises(ValueError, match="slots must be a 1-d array of env indices|env indices must be in 0..4"):
        env.state_arrays(np.asarray(slots) if not isinstance(slots, str) else slots)
