"""PettingZoo conformance of the AEC env (api_test, seed_test) and its illegal-action behaviour."""

from __future__ import annotations

import logging

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test
from pettingzoo.utils.env import AECEnv

from dw_env import domain_wheel_v0
from dw_env.engine import Game, IllegalActionError

SMALL = {"land_radius": 1, "map_radius": 2}
MAPS = [pytest.param({}, id="standard"), pytest.param(SMALL, id="n1-R2")]

# api_test warns about every dict observation of an env outside PettingZoo's own list of classic envs
pytestmark = [
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array"),
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be"),
]


@pytest.mark.parametrize("options", MAPS)
def test_pettingzoo_api_test(options: dict[str, int]) -> None:
    api_test(domain_wheel_v0.env(**options), num_cycles=400)


@pytest.mark.parametrize("options", MAPS)
def test_pettingzoo_seed_test(options: dict[str, int]) -> None:
    seed_test(lambda: domain_wheel_v0.env(**options), num_cycles=300)


def test_api_test_on_a_game_that_ends() -> None:
    # one round per game: the play test sees terminations and the dead-agent steps
    api_test(domain_wheel_v0.env(max_rounds=2, **SMALL), num_cycles=100)


def test_metadata_names_render_modes_and_version() -> None:
    env = domain_wheel_v0.raw_env()
    assert env.metadata["name"] == "domain_wheel_v0"
    assert set(env.metadata["render_modes"]) == {"human", "ansi", "rgb_array"}
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    assert domain_wheel_v0.OBSERVATION_VERSION == "dw-obs-v1"


def test_every_game_option_is_a_keyword_and_unknown_ones_are_named() -> None:
    env = domain_wheel_v0.raw_env(
        land_radius=1, map_radius=3, turns_to_conquer=2, fast_knights=False, king_may_be_alone=False, max_rounds=7
    )
    assert env.options.to_dict() == {
        "land_radius": 1,
        "map_radius": 3,
        "turns_to_conquer": 2,
        "fast_knights": False,
        "king_may_be_alone": False,
        "max_rounds": 7,
    }
    with pytest.raises(ValueError, match="unknown option 'map_size'"):
        domain_wheel_v0.env(map_size=3)
    with pytest.raises(ValueError, match="render_mode 'window'"):
        domain_wheel_v0.env(render_mode="window")


def _legal(mask: np.ndarray) -> list[int]:
    return [int(a) for a in np.flatnonzero(mask)]


def test_raw_env_raises_on_an_illegal_action_and_changes_nothing() -> None:
    env = domain_wheel_v0.raw_env(**SMALL)
    env.reset()
    c = env.geometry.num_cells
    mask = env.observe("player_0")["action_mask"]
    illegal = next(a for a in range(c) if not mask[a])  # an empty cell in phase 1
    before = (env.game.board.copy(), env.game.lands.copy(), env.game.scalars.copy())
    with pytest.raises(IllegalActionError, match=rf"action {illegal} is not legal for player_0 \(blue\) in phase 1"):
        env.step(illegal)
    with pytest.raises(ValueError, match="end request"):  # not legal with 0 points (rule 9.3)
        env.step(c + 1)
    with pytest.raises(ValueError, match="out of range"):
        env.step(c + 2)
    with pytest.raises(ValueError, match="must be an integer"):
        env.step(1.5)
    for now, then in zip((env.game.board, env.game.lands, env.game.scalars), before, strict=True):
        assert np.array_equal(now, then)
    assert env.phase == 1 and env.agent_selection == "player_0"

    piece = _legal(mask)[0]
    env.step(piece)  # phase 2: pass is not allowed any more
    assert env.phase == 2 and env.agent_selection == "player_0"
    with pytest.raises(ValueError, match=r"in phase 2 .*pass and end request are not allowed"):
        env.step(c)
    assert env.phase == 2 and env.selected_cell == domain_wheel_v0.action_to_cell(env.geometry, 0, piece)


def test_env_wrapper_ends_the_game_and_penalises_the_mover(caplog: pytest.LogCaptureFixture) -> None:
    env = domain_wheel_v0.env(**SMALL)
    env.reset()
    mask = env.observe("player_0")["action_mask"]
    illegal = next(a for a in range(len(mask)) if not mask[a])
    with caplog.at_level(logging.WARNING):
        env.step(illegal)
    assert "Illegal move made" in caplog.text
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -1.0, "player_1": 0.0, "player_2": 0.0}
    _, reward, terminated, _, _ = env.last()
    assert terminated and reward == -1.0
    wrapped = domain_wheel_v0.env(**SMALL)
    wrapped.reset()
    with pytest.raises(AssertionError, match="action space"):  # AssertOutOfBoundsWrapper
        wrapped.step(len(mask) + 5)


def test_env_is_a_pettingzoo_aec_env_with_cached_spaces() -> None:
    env = domain_wheel_v0.env()
    env.reset()
    assert isinstance(env, AECEnv)
    layout = env.unwrapped.observation_layout
    space = env.observation_space("player_1")
    assert space is env.observation_space("player_1")
    assert space["observation"].shape == (layout.size,) == (18692,)
    assert env.action_space("player_2").n == layout.mask_size == 1161
    assert layout.bytes_per_observation == 19853


def test_observe_returns_fresh_arrays() -> None:
    env = domain_wheel_v0.raw_env(**SMALL)
    env.reset()
    first = env.observe("player_0")
    first["observation"][:] = 0
    first["action_mask"][:] = 0
    again = env.observe("player_0")
    assert again["action_mask"].any() and again["observation"].any()


def test_reset_from_a_position() -> None:
    game = Game.new(**SMALL)
    game.pass_turn()  # Green to act
    env = domain_wheel_v0.raw_env(**SMALL)
    env.reset(options={"position": game})
    assert env.agent_selection == "player_1"
    assert np.array_equal(env.game.board, game.board)
    with pytest.raises(ValueError, match="options"):
        env.reset(options={"position": Game.new()})
