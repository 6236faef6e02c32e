"""The PettingZoo AEC env and the batched vector env of Conquer (encoding contract, rewards, auto-reset)."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from conquer_env import conquer_v0, encoding
from conquer_env.engine import ConquerGame
from conquer_env.errors import IllegalActionError
from conquer_env.layout import END_REASONS
from conquer_env.options import ConquerOptions
from conquer_env.position import from_text
from conquer_env.vector import ConquerVectorEnv

SMALL = {"width": 9, "height": 9}
pytestmark = [
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array"),
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be"),
]


def test_pettingzoo_api_test() -> None:
    api_test(conquer_v0.env(**SMALL), num_cycles=300)
    api_test(conquer_v0.raw_env(width=5, height=4), num_cycles=300)


def test_pettingzoo_seed_test() -> None:
    seed_test(lambda: conquer_v0.env(**SMALL), num_cycles=200)


def test_metadata_spaces_and_encoding_constants() -> None:
    env = conquer_v0.raw_env(width=39, height=32)
    assert env.metadata["name"] == "conquer_v0" and env.metadata["render_modes"] == ["ansi", "rgb_array"]
    options = ConquerOptions.preset("classic")
    assert encoding.planes(options) == (8, 32, 39)
    assert encoding.ACTION_PLANES == 1 and encoding.EXTRA_ACTIONS == 1
    assert env.action_space("player_0").n == 39 * 32 + 1
    assert env.observation_space("player_1")["observation"].shape == (8 * 39 * 32,)
    assert encoding.point_action(options, 38, 31) == 31 * 39 + 38 and encoding.action_point(options, 1248) is None


def test_observation_is_egocentric_and_equals_the_engine_encoding() -> None:
    game = from_text(
        """
        to_move: B
        passes: 1
        B....
        ..R..
        .RbR.
        ..R..
        ....B
        """
    )
    env = conquer_v0.raw_env(width=5, height=5)
    env.reset(options={"position": game})
    assert env.agent_selection == "player_1"
    obs = env.observe("player_1")
    engine_obs, engine_mask = game.observe()
    assert np.array_equal(obs["observation"], engine_obs) and np.array_equal(obs["action_mask"], engine_mask)
    planes = obs["observation"].reshape(8, 5, 5)
    assert planes[0, 0, 0] == 1 and planes[1, 1, 2] == 1, "plane 0 = Blue's own live dots, plane 1 = Red's"
    assert planes[2, 2, 2] == 1 and planes[5, 2, 2] == 1, "Blue's dead dot on Red's territory"
    assert planes[6].all() and planes[7].all(), "Red just passed; on-board plane"
    assert not env.observe("player_0")["action_mask"].any(), "nothing is legal off turn"


def test_env_rewards_and_infos_at_the_end() -> None:
    env = conquer_v0.env(width=5, height=5)
    env.reset()
    env.unwrapped.reset(options={"position": from_text("to_move: B\nB....\n..R..\n.RbR.\n..R..\n....B")})
    env.step(25)  # Blue passes
    env.step(25)  # Red passes: two passes end the game, Red leads on dots 1-0
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0}
    assert env.infos["player_0"]["end_reason"] == "two_passes"
    assert env.infos["player_0"]["scores"] == {"dots": [1, 0], "territory": [1, 0]}


def test_raw_env_refuses_illegal_actions_naming_them() -> None:
    env = conquer_v0.raw_env(**SMALL)
    env.reset()
    env.step(40)
    with pytest.raises(IllegalActionError, match=r"action 40 is not legal for player_1 \(Blue\).*81 = pass"):
        env.step(40)
    with pytest.raises(IllegalActionError, match=r"action 82 is out of range; the action space is Discrete\(82\)"):
        env.step(82)


def test_env_arguments_are_validated() -> None:
    with pytest.raises(ValueError, match="unknown option 'colour'"):
        conquer_v0.raw_env(colour="red")
    assert conquer_v0.raw_env(size="9x9").options == ConquerOptions.preset("small")
    with pytest.raises(ValueError, match="render_mode 'human' is not supported"):
        conquer_v0.raw_env(render_mode="human")
    with pytest.raises(ValueError, match="render_cell must be an integer in 8..128"):
        conquer_v0.raw_env(render_cell=2)


def test_render_modes() -> None:
    env = conquer_v0.raw_env(render_mode="ansi", **SMALL)
    env.reset()
    env.step(40)
    assert "Blue to move" in env.render()
    env = conquer_v0.raw_env(render_mode="rgb_array", render_cell=10, **SMALL)
    env.reset()
    image = env.render()
    assert image.shape == (100, 100, 3) and image.dtype == np.uint8


# ---- vector env ------------------------------------------------------------------------------------------
def test_vector_env_matches_the_engine_and_auto_resets() -> None:
    options = ConquerOptions(width=6, height=6)
    venv = ConquerVectorEnv(8, options=options, seed=1)
    obs, masks, acting = venv.reset()
    games = [ConquerGame.new(options) for _ in range(8)]
    finished = 0
    for _ in range(400):
        actions = venv.sample_actions()
        assert all(masks[i, actions[i]] for i in range(8))
        obs, masks, acting, rewards, terminated, truncated, infos = venv.step(actions)
        for i, game in enumerate(games):
            game.play(int(actions[i]))
            if game.over:
                assert terminated[i] and not truncated[i]
                assert infos["final_scores"][i].tolist() == game.scores()
                assert END_REASONS[infos["end_reason"][i]] == game.end_reason
                assert infos["episode_steps"][i] == game.ply
                expected = [0.0, 0.0] if not game.winners else [1.0 if s in game.winners else -1.0 for s in (0, 1)]
                assert rewards[i].tolist() == expected and infos["winners"][i].sum() == len(game.winners)
                games[i] = game = ConquerGame.new(options)
                finished += 1
            else:
                assert not terminated[i] and rewards[i].tolist() == [0.0, 0.0]
            engine_obs, engine_mask = game.observe()
            assert np.array_equal(obs[i], engine_obs) and np.array_equal(masks[i], engine_mask)
            assert acting[i] == game.turn
            assert np.array_equal(venv.game(i).owner, game.owner)
    assert finished > 5


def test_vector_env_truncation() -> None:
    venv = ConquerVectorEnv(3, options={"width": 9, "height": 9, "max_plies": 4}, seed=0)
    venv.reset()
    for _ in range(3):
        *_, truncated, _ = venv.step(venv.sample_actions())
        assert not truncated.any()
    _, _, _, rewards, terminated, truncated, infos = venv.step(venv.sample_actions())
    assert truncated.all() and not terminated.any() and not rewards.any()
    assert (infos["end_reason"] == END_REASONS.index("truncated")).all()


def test_vector_env_refuses_an_illegal_row_and_steps_nothing() -> None:
    venv = ConquerVectorEnv(2, options=SMALL, seed=0)
    with pytest.raises(RuntimeError, match=r"call reset\(\) before step\(\)"):
        venv.step(np.array([40, 40]))
    venv.reset()
    venv.step(np.array([40, 40]))
    before = venv.game(1).dots.copy()
    with pytest.raises(ValueError, match=r"row 1: action 40 is illegal .* nothing was stepped"):
        venv.step(np.array([41, 40]))
    assert np.array_equal(venv.game(1).dots, before) and venv.game(0).dot(5, 4) == 0
    with pytest.raises(ValueError, match=r"actions must be an integer array of shape \(2,\)"):
        venv.step([1, 2, 3])
    with pytest.raises(ValueError, match="game index must be an integer in 0..1"):
        venv.game(2)


def test_vector_env_threads_give_the_same_games() -> None:
    results = []
    for threads in (1, 2):
        venv = ConquerVectorEnv(6, options=SMALL, seed=5, num_threads=threads)
        venv.reset()
        for _ in range(50):
            obs, *_ = venv.step(venv.sample_actions())
        results.append(obs.copy())
    assert np.array_equal(results[0], results[1])
