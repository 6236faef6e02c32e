"""The AEC env's hot path (issue 50): one-hop wrapper reads, one-pass masked sampling, PettingZoo's behaviour.

``env()`` wraps the raw env in PettingZoo's classic chain with direct attribute reads
(:mod:`dw_env.envs.wrappers`), and its action spaces sample a mask in one pass
(:mod:`dw_env.envs.action_space`). These tests hold both to PettingZoo's and gymnasium's behaviour:
the same values, the same actions for the same seed, the same errors.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from gymnasium import spaces
from pettingzoo.utils import wrappers as pz
from pettingzoo.utils.wrappers.base import BaseWrapper

from dw_env import domain_wheel_v0
from dw_env.envs.action_space import ActionSpace

SMALL = {"land_radius": 1, "map_radius": 2}


@pytest.fixture(scope="module")
def small_env() -> Any:
    return domain_wheel_v0.env(**SMALL)


def _random_masks(n: int, count: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    masks = [(rng.random(n) < p).astype(np.int8) for p in rng.random(count)]
    return [np.zeros(n, np.int8), np.ones(n, np.int8), *masks]


def test_sample_with_a_mask_draws_the_same_actions_as_gymnasium_for_the_same_seed() -> None:
    ours, theirs = ActionSpace(135, seed=7), spaces.Discrete(135, seed=7)
    for mask in _random_masks(135, 300, seed=1):
        a, b = ours.sample(mask), theirs.sample(mask)
        assert a == b and type(a) is type(b) is np.int64
        assert mask[a] == 1 or not mask.any()


def test_sample_without_a_mask_or_with_a_probability_is_gymnasiums() -> None:
    ours, theirs = ActionSpace(10, seed=3), spaces.Discrete(10, seed=3)
    p = np.full(10, 0.1)
    assert [ours.sample() for _ in range(20)] == [theirs.sample() for _ in range(20)]
    assert [ours.sample(probability=p) for _ in range(20)] == [theirs.sample(probability=p) for _ in range(20)]


BAD_MASKS = [
    [1, 0, 1, 0],  # a list, not an array
    np.array([1, 0, 1, 0], dtype=np.int64),  # another dtype
    np.array([1, 0, 1], dtype=np.int8),  # another shape
    np.array([[1, 0, 1, 0]], dtype=np.int8),
    np.array([1, 2, 0, 0], dtype=np.int8),  # a value other than 0 and 1
    np.array([1, -1, 0, 0], dtype=np.int8),
    np.array([0, 0, 0, -128], dtype=np.int8),
]


@pytest.mark.parametrize("mask", BAD_MASKS, ids=range(len(BAD_MASKS)))
def test_sample_refuses_a_bad_mask_with_gymnasiums_error(mask: Any) -> None:
    with pytest.raises(AssertionError) as theirs:
        spaces.Discrete(4).sample(mask)
    with pytest.raises(AssertionError) as ours:
        ActionSpace(4).sample(mask)
    assert str(ours.value) == str(theirs.value)


def test_sample_refuses_a_mask_and_a_probability_together_as_gymnasium_does() -> None:
    mask, p = np.ones(4, np.int8), np.full(4, 0.25)
    with pytest.raises(ValueError, match="Only one of"):
        ActionSpace(4).sample(mask, p)


CANDIDATES = [0, 1, 134, 135, -1, 2**70, True, False, np.int64(5), np.int64(-3), np.int64(135), np.int32(7),
              np.uint8(3), np.array(4), np.array([4]), 3.0, "3", None]  # fmt: skip


@pytest.mark.parametrize("x", CANDIDATES, ids=[repr(x) for x in CANDIDATES])
def test_contains_answers_as_gymnasium_does(x: Any) -> None:
    assert ActionSpace(135).contains(x) == spaces.Discrete(135).contains(x)


def test_env_action_spaces_are_cached_fast_discrete_spaces(small_env: Any) -> None:
    space = small_env.action_space("player_0")
    assert isinstance(space, ActionSpace) and isinstance(space, spaces.Discrete)
    assert space is small_env.action_space("player_0") is small_env.unwrapped.action_space("player_0")


def test_env_keeps_pettingzoos_wrapper_classes_in_its_chain() -> None:
    env = domain_wheel_v0.env(**SMALL)
    layers = []
    while isinstance(env, BaseWrapper):
        layers.append(env)
        env = env.env
    kinds = (pz.OrderEnforcingWrapper, pz.AssertOutOfBoundsWrapper, pz.TerminateIllegalWrapper)
    assert len(layers) == 3 and all(isinstance(layer, kind) for layer, kind in zip(layers, kinds, strict=True))


@pytest.mark.parametrize("name", ["rewards", "terminations", "truncations", "infos", "agent_selection", "agents"])
def test_env_refuses_aec_attributes_before_reset_as_order_enforcing_does(name: str) -> None:
    env = domain_wheel_v0.env(**SMALL)
    with pytest.raises(AttributeError, match=f"{name} cannot be accessed before reset"):
        getattr(env, name)


def test_wrappers_read_the_raw_envs_values_and_refuse_assignment(small_env: Any) -> None:
    small_env.reset(seed=1)
    raw = small_env.unwrapped
    layer = small_env
    while isinstance(layer, BaseWrapper):
        for name in ("rewards", "terminations", "truncations", "infos", "agents", "_cumulative_rewards"):
            assert getattr(layer, name) is getattr(raw, name)
        assert layer.agent_selection == raw.agent_selection and layer.num_agents == 3
        layer = layer.env
    with pytest.raises(AttributeError):
        small_env.agent_selection = "player_2"
    assert raw.agent_selection == "player_0"


def test_a_plain_aec_loop_reads_no_attribute_through_pettingzoos_getattr(
    small_env: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each fallback read walked three ``__getattr__`` calls, about 36 per step: more than the step's own cost."""
    calls = []
    forward = BaseWrapper.__getattr__

    def counting(self: Any, name: str) -> Any:
        calls.append(name)
        return forward(self, name)

    monkeypatch.setattr(BaseWrapper, "__getattr__", counting)
    small_env.reset(seed=2)
    small_env.action_space("player_0").seed(2)
    steps = 0
    for agent in small_env.agent_iter(max_iter=300):
        obs, _, terminated, truncated, _ = small_env.last()
        small_env.step(None if terminated or truncated else small_env.action_space(agent).sample(obs["action_mask"]))
        steps += 1
    assert steps > 100 and calls == []


def test_an_illegal_action_still_ends_the_game_through_the_fast_chain(caplog: pytest.LogCaptureFixture) -> None:
    env = domain_wheel_v0.env(**SMALL)
    env.reset(seed=0)
    mover = env.agent_selection
    obs, *_ = env.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    env.step(illegal)
    assert all(env.terminations.values()) and env.rewards[mover] == -1
    assert "illegal move" in caplog.text.lower()


@pytest.mark.parametrize("action", [-1, 135, np.int64(135), 2**70, 1.0, "1"])
def test_an_action_outside_the_space_is_refused_by_assert_out_of_bounds(action: Any) -> None:
    env = domain_wheel_v0.env(**SMALL)
    env.reset()
    assert env.action_space(env.agent_selection).n == 135
    with pytest.raises(AssertionError, match="action is not in action space"):
        env.step(action)
    assert env.agent_selection == "player_0" and not any(env.terminations.values())


_COMPILED_IN_A_NEW_PROCESS = """
from numba.core import event
compiled = []
class Listener(event.Listener):
    def on_start(self, ev): compiled.append(ev.data["dispatcher"].py_func.__qualname__)
    def on_end(self, ev): pass
event.register("numba:compile", Listener())
from dw_env import domain_wheel_v0
from dw_env.engine import Game
env = domain_wheel_v0.env(land_radius=1, map_radius=2)
env.reset(seed=1)
game = Game.new(land_radius=1, map_radius=2)
game.pass_turn()
print(compiled)
"""


def test_a_new_process_builds_the_env_and_game_handles_without_numbas_proxy_constructor() -> None:
    """The env's and the game's handles are built by kernels cached on disk, not by numba's structref proxy
    constructor, which cannot be cached: every process compiled it again (about 2 s before its first env).
    On a cold cache the process compiles the kernels, never that constructor."""
    import ast
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-c", _COMPILED_IN_A_NEW_PROCESS], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    compiled: list[str] = ast.literal_eval(run.stdout.strip().splitlines()[-1])
    assert "StructRefProxy.__new__.<locals>.ctor" not in compiled, compiled
