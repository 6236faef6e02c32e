"""``frontera_env.vector`` on the compiled kernels: a row follows ``frontera_v0`` through a whole game, rewards and
ending included, and its masks come from the kernel's one call per batch."""

from __future__ import annotations

import numpy as np
import pytest

from frontera_env import arrays, frontera_v0
from frontera_env.encoding import action_mask
from frontera_env.vector import FronteraVectorEnv

#: (players, max_turns, rewards, seed): a 6-player game with eliminations then truncation, a 2-player win
CASES = [(6, 60, "zero_sum", 17), (2, None, "win_loss", 45)]


@pytest.mark.parametrize(("players", "turns", "rewards", "seed"), CASES)
def test_6_5_compiled_vector_row_matches_the_aec_env_to_the_end_with_its_rewards(
    players: int, turns: int | None, rewards: str, seed: int
) -> None:
    venv = FronteraVectorEnv(2, seed=seed, players=players, max_turns=turns, rewards=rewards)
    obs, masks, acting = venv.reset()
    twin = frontera_v0.raw_env(players=players, max_turns=turns, rewards=rewards)
    twin.reset(seed=seed)  # row 0's first game
    eliminations = 0
    total = np.zeros(players)
    for played in range(5000):
        agent = twin.agent_selection
        assert agent == f"player_{acting[0]}"
        mine = twin.observe(agent)
        assert np.array_equal(mine["observation"], obs[0]) and np.array_equal(mine["action_mask"], masks[0])
        actions = venv.sample_actions()
        obs, masks, acting, step_rewards, terminated, truncated, infos = venv.step(actions)
        twin.step(int(actions[0]))
        expected = [twin.rewards.get(f"player_{p}", 0.0) for p in range(players)]  # removed seats: 0
        assert step_rewards[0].tolist() == pytest.approx(expected)
        total += step_rewards[0]
        eliminations += int(np.sum(step_rewards[0] < 0)) if not (terminated[0] or truncated[0]) else 0
        if terminated[0] or truncated[0]:
            assert twin.game.over and truncated[0] == twin.game.state.truncated
            assert infos["winner"][0] == (-1 if twin.game.winner is None else twin.game.winner)
            assert infos["episode_steps"][0] == played + 1 and total.sum() == pytest.approx(0.0, abs=1e-6)
            break
        while twin.terminations[twin.agent_selection]:
            twin.step(None)
    else:
        pytest.fail("the game did not end in 5000 actions")
    assert total[twin.game.winner] == 1.0 if twin.game.winner is not None else eliminations > 0
    assert venv._games[0] == 2 and np.array_equal(masks[0], _fresh_mask(venv, turns))  # row 0 restarted with seed 42


def _fresh_mask(venv: FronteraVectorEnv, turns: int | None) -> np.ndarray:
    """Return the first mask of row 0's second game (seed + N), built by the Python encoding."""
    env = frontera_v0.raw_env(players=venv.players, max_turns=turns)
    env.reset(seed=venv.seed + 0 + 1 * venv.num_envs)
    return action_mask(env.layout, env.game, env.selection, True, np.zeros(env.layout.size, np.int8))


def test_vector_envs_show_each_rows_current_position_and_selection() -> None:
    venv = FronteraVectorEnv(2, seed=3, players=2, max_turns=20)
    venv.reset()
    for _ in range(60):
        venv.step(venv.sample_actions())
    for i, env in enumerate(venv.envs):
        assert env.game.state.equals(arrays.load(venv.batch, i))
        assert env.selection == arrays.selection(venv.batch, i)
        assert env.game.current == venv.acting[i]
