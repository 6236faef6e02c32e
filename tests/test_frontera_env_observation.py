"""The observation of ``frontera_v0`` (spec 6.4, R-13): sizes, the ego-centric slots, the selection features,
and the no-leak property at the env level (perturbing every hidden field leaves each observation unchanged)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from frontera_env import frontera_v0
from frontera_env.map_file import reference_map
from frontera_env.observation import DECISIONS, GLOBALS
from frontera_env.rules.order import turns_until
from frontera_env.state import OVER, SETUP
from frontera_env.view import visible
from tests.test_frontera_env_mask import _choose
from tests.test_frontera_view import perturb_hidden, swap_fogged_owners


@pytest.mark.parametrize(("size", "length"), [("small", 1058), ("medium", 1618), ("large", 2318)])
def test_6_4_6_7_observation_length_is_28_per_territory_plus_78(size: str, length: int) -> None:
    env = frontera_v0.raw_env(players=6, size=size)
    env.reset(seed=3)
    space = env.observation_space("player_0")
    assert space["observation"].shape == (length,) and space["observation"].dtype == np.float32
    obs = env.observe("player_4")
    assert space.contains(obs) and obs["observation"].shape == (length,)
    assert reference_map(size).territory_count * 28 + GLOBALS == length and GLOBALS == 72 + 6


def _rows(env: frontera_v0.raw_env, obs: np.ndarray) -> np.ndarray:
    layout = env.obs_layout
    return obs[: layout.n * layout.row].reshape(layout.n, layout.row)


def _globals(env: frontera_v0.raw_env, obs: np.ndarray) -> np.ndarray:
    return obs[env.obs_layout.n * env.obs_layout.row :]


def test_6_4_slot_zero_is_the_observer_and_the_others_follow_in_seat_order() -> None:
    env = frontera_v0.raw_env(players=4)
    env.reset(seed=9)
    owner = env.game.state.owner
    for seat in range(4):
        rows = _rows(env, env.observe(f"player_{seat}")["observation"])
        slots = np.argmax(rows[:, 1:9], axis=1)
        assert np.array_equal(slots, (owner - seat) % 4)  # no fog: every owner shows, rotated to the observer
        g = _globals(env, env.observe(f"player_{seat}")["observation"])
        counts = g[25 + 2 : 25 + 42 : 7]
        assert list(counts[:4]) == [np.count_nonzero(owner == (seat + k) % 4) for k in range(4)]
        assert list(g[25 + 0 : 25 + 42 : 7]) == [1, 1, 1, 1, 0, 0]  # slots 4 and 5 are absent


def test_R3_the_last_six_globals_say_how_many_turns_each_slot_waits() -> None:
    env = frontera_v0.raw_env(players=4)
    env.reset(seed=11)
    checked = 0
    rng = np.random.default_rng(0)
    while env.agents and checked < 300:
        st = env.game.state
        gaps = turns_until(st)
        for seat in range(4):
            g = _globals(env, env.observe(f"player_{seat}")["observation"])
            assert list(g[72:78]) == [gaps[(seat + k) % 4] for k in range(4)] + [0, 0]
        if st.phase not in (SETUP, OVER):
            active = sorted(gaps[s] for s in st.active_seats())  # the current seat 0, the next 1, all distinct
            assert active[:2] == [0, 1] and len(set(active)) == len(active) and gaps[st.current] == 0
            checked += 1
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(env.observe(agent)["action_mask"]))))
    assert checked == 300


def test_6_6_R13_2_others_placements_stay_hidden_in_setup_but_mine_show() -> None:
    env = frontera_v0.raw_env(players=2)
    env.reset(seed=4)
    me = env.agent_selection
    other = next(a for a in env.possible_agents if a != me)
    index = int(np.flatnonzero(env._mask)[-1])  # the top bucket on my last own territory
    territory = index // env.layout.buckets
    before = _rows(env, env.observe(other)["observation"]).copy()
    env.step(index)
    assert _rows(env, env.observe(me)["observation"])[territory, 9] > 1
    after = _rows(env, env.observe(other)["observation"])  # the board rows; whose decision it is did change
    assert after[territory, 9] == 1 and np.array_equal(after, before)


def test_6_4_regroup_selection_shows_its_source_then_destination_and_the_decision_state() -> None:
    env = frontera_v0.raw_env(players=2, max_turns=20)
    rng = np.random.default_rng(1)
    env.reset(seed=1)
    while not env._mask[env.layout.regroup_from : env.layout.regroup_to].any():
        env.step(_choose(env._mask, env.layout, rng))
    agent, lay = env.agent_selection, env.layout
    source = int(np.flatnonzero(env._mask[lay.regroup_from : lay.regroup_to])[0])
    env.step(lay.regroup_from + source)
    obs = env.observe(agent)["observation"]
    r = env.obs_layout.regions
    assert _rows(env, obs)[source, 15 + r] == 1 and DECISIONS[int(np.argmax(_globals(env, obs)[:10]))] == "regroup_dest"
    dest = int(np.flatnonzero(env._mask[lay.regroup_to : lay.regroup_amount])[0])
    env.step(lay.regroup_to + dest)
    obs = env.observe(agent)["observation"]
    assert _rows(env, obs)[dest, 16 + r] == 1 and _globals(env, obs)[8] == 1  # regroup_amount
    env.step(lay.regroup_amount)
    assert env.selection.source == -1 and not _rows(env, env.observe(agent)["observation"])[:, 15 + r].any()


@pytest.mark.parametrize("fog", [False, True], ids=["open", "fog"])
def test_R13_6_4_no_leak_perturbing_hidden_fields_leaves_every_observation_unchanged(fog: bool) -> None:
    env = frontera_v0.raw_env(players=4, fog=fog, max_turns=24)
    rng, pick = random.Random(5), np.random.default_rng(5)
    env.reset(seed=21)
    checked = step = 0
    while env.agents:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        if step % 7 == 0:
            real = env.game.state
            for seat, who in enumerate(env.possible_agents):
                seen = visible(env.game.ctx, real, seat)
                twin = perturb_hidden(env.game.ctx.n, real, seat, seen, rng)
                if fog:
                    swap_fogged_owners(twin, env.game.ctx.region_of, seen, rng)
                expected = env.observe(who)
                env.game.state = twin
                try:
                    assert np.array_equal(env.observe(who)["observation"], expected["observation"]), (seat, step)
                finally:
                    env.game.state = real
                checked += 1
            control = real.copy()  # the check can fail: a visible change does show
            control.armies[int(np.flatnonzero(control.owner == env.game.current)[0])] += 5
            env.game.state = control
            changed = env.observe(agent)["observation"]
            env.game.state = real
            assert not np.array_equal(changed, env.observe(agent)["observation"])
        env.step(_choose(env._mask, env.layout, pick))
        step += 1
    assert checked >= 40
