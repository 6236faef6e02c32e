"""The compiled rules (``frontera_env.kernels``) in lock step with the Python engine and encoding.

Seeded random games are played by ``frontera_v0.raw_env`` (engine + ``encoding.decode``) and by the kernel on
one ``arrays.Batch`` row side by side: after every action the masks are equal and every state array, small
int, the PRNG state and the regroup selection are equal, to the game's end. This is the proof that the kernel
plays the rules of the spec (docs/FRONTERA.md, "Compiled engine and benchmarks").
"""

from __future__ import annotations

from collections import Counter
from dataclasses import fields

import numpy as np
import pytest

from frontera_env import arrays, frontera_v0, kernels, observation_kernel
from frontera_env.encoding import Selection
from frontera_env.prng import SplitMix64
from frontera_env.state import ABANDONED, ELIMINATED, FORCED, OVER, REGROUP, WINDOW, State

#: (players, size, fog, cards, blitz, max_turns, seed, abandon_at): small and medium maps, 2..6 players
GAMES = [
    (2, "small", False, True, True, None, 100, None),
    (3, "small", True, True, True, 60, 7, 100),
    (4, "small", False, False, True, 60, 3, 150),
    (5, "small", True, True, False, 50, 11, None),
    (6, "small", False, True, True, 60, 17, None),
    (2, "medium", True, False, True, 30, 2, None),
    (4, "medium", False, True, True, 30, 9, None),
    (6, "medium", True, True, True, 24, 4, None),
]


def _differences(mine: State, theirs: State) -> list[str]:
    """Return the names of the fields that differ (the PRNG as ``rng``)."""
    out = []
    for f in fields(State):
        a, b = getattr(mine, f.name), getattr(theirs, f.name)
        same = a.state == b.state if f.name == "rng" else np.array_equal(a, b)
        if not same:
            out.append(f.name)
    return out


def _lock_step(
    players: int,
    size: str,
    fog: bool,
    cards: bool,
    blitz: bool,
    turns: int | None,
    seed: int,
    abandon_at: int | None,
    empty_draw_at: int | None = None,
) -> Counter[str]:
    """Play one seeded random game both ways; return what it visited. Fails at the first difference.

    ``empty_draw_at``: before that action, every draw-pile card goes to the discard pile in both, so the next
    draw reshuffles (R-8.1), which random play on a reference map seldom reaches.
    """
    seen: Counter[str] = Counter()
    env = frontera_v0.raw_env(players=players, size=size, fog=fog, cards=cards, blitz=blitz, max_turns=turns)
    env.reset(seed=seed)
    tables = arrays.tables(env.game.ctx, env.layout.buckets, blitz)
    batch = arrays.empty_batch(1, players, env.board.territory_count)
    arrays.store(env.game.state, batch, 0)
    work = kernels.workspace(env.board.territory_count)
    legal = np.zeros(env.layout.size, np.int8)
    rng = np.random.default_rng(seed)
    played = 0
    while env.agents:
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            env.step(None)
            continue
        if played == abandon_at:  # an engine event the kernel does not play: hand it the position
            env.abandon(env.agent_selection)
            arrays.store(env.game.state, batch, 0, env.selection)
            seen["abandon"] += 1
            continue
        if played == empty_draw_at:
            st = env.game.state
            st.set_discard(st.discard_pile() + st.draw_pile())
            st.set_draw([])
            arrays.store(st, batch, 0, env.selection)
        draw_before = env.game.state.draw_len
        kernels.mask(tables, batch, 0, legal, work)
        assert np.array_equal(legal, env._mask), (
            f"action {played}: masks differ at {np.flatnonzero(legal != env._mask).tolist()}"
        )
        index = int(rng.choice(np.flatnonzero(legal)))
        env.step(index)
        kernels.step(tables, batch, 0, index, work)
        mine = arrays.load(batch, 0)
        assert mine.equals(env.game.state), f"action {played} ({index}): {_differences(mine, env.game.state)}"
        assert arrays.selection(batch, 0) == env.selection
        _same_observations(env, tables, batch, work)
        seen[str(mine.phase)] += 1
        seen["reshuffle"] += int(draw_before == 0 and mine.draw_len > 0)
        seen["eliminated"] += int(np.sum(mine.status == ELIMINATED) > 0)
        played += 1
    final = arrays.load(batch, 0)
    assert final.phase == OVER
    seen["truncated" if final.truncated else "won"] += 1
    seen["left"] += int(np.any(final.status == ABANDONED))
    seen["actions"] = played
    return seen


def _same_observations(env: frontera_v0.raw_env, tables: arrays.Tables, batch: arrays.Batch, work: object) -> None:
    """Check the compiled observation against frontera_v0's for the seat to act and the seat after it (6.4)."""
    if env.game.over:
        return
    acting = env.game.current
    for seat in (acting, (acting + 1) % env.options.players):
        theirs = env.observe(env.possible_agents[seat])["observation"]
        mine = np.empty_like(theirs)
        fog, turns = int(env.game.ctx.fog), env.options.max_turns
        observation_kernel.observe(tables, env.obs_layout.static, batch, 0, seat, fog, turns, mine, work)
        assert np.array_equal(mine, theirs), f"seat {seat}: observations differ at {np.flatnonzero(mine != theirs)}"


@pytest.fixture(scope="module")
def outcomes() -> dict[tuple[object, ...], Counter[str] | str]:
    """Play every game of GAMES once for the module: what it visited, or the first difference found."""
    out: dict[tuple[object, ...], Counter[str] | str] = {}
    for case in GAMES:
        try:
            out[case] = _lock_step(*case)
        except AssertionError as error:
            out[case] = str(error)
    return out


@pytest.mark.parametrize("case", GAMES, ids=lambda c: "-".join(map(str, c)))
def test_kernel_plays_the_python_engines_game_action_for_action(
    outcomes: dict[tuple[object, ...], Counter[str] | str], case: tuple[object, ...]
) -> None:
    seen = outcomes[case]
    assert not isinstance(seen, str), seen
    assert seen["actions"] > 50


def test_lock_step_games_reach_every_phase_and_both_endings(
    outcomes: dict[tuple[object, ...], Counter[str] | str],
) -> None:
    """The games are only a proof if they visit windows, forced trades, regroups, eliminations, leavers and ends."""
    seen: Counter[str] = Counter()
    for one in outcomes.values():
        if not isinstance(one, str):
            seen.update(one)
    for phase in (WINDOW, FORCED, REGROUP):
        assert seen[str(phase)] > 0, phase
    assert seen["eliminated"] > 0 and seen["won"] > 0 and seen["truncated"] > 0 and seen["left"] > 0


def test_r8_1_kernel_reshuffles_the_discard_pile_as_the_engine_does() -> None:
    seen = _lock_step(3, "small", False, True, True, 40, 7, None, empty_draw_at=60)
    assert seen["reshuffle"] >= 1


def test_g1_kernel_dice_follow_splitmix64() -> None:
    batch = arrays.empty_batch(1, 2, 35)
    batch.rng[0] = np.uint64(2**64 - 5)  # the state wraps past 2**64 on the first draw
    ref = SplitMix64(2**64 - 5)
    for n in (6, 6, 35, 2, 1, 10**9):
        assert kernels.below(batch, 0, n) == ref.below(n)
    assert int(batch.rng[0]) == ref.state


def test_arrays_store_and_load_round_trip_a_state_and_a_selection() -> None:
    env = frontera_v0.raw_env(players=3, size="small", fog=True)
    env.reset(seed=5)
    batch = arrays.empty_batch(2, 3, env.board.territory_count)
    arrays.store(env.game.state, batch, 1, Selection(4, 9))
    assert arrays.load(batch, 1).equals(env.game.state)
    assert arrays.selection(batch, 1) == Selection(4, 9)
    view = arrays.state_view(batch, 1)
    batch.owner[1, 0] = 2
    assert view.owner[0] == 2 and arrays.load(batch, 0).owner[0] == 0  # a view shares its row, load copies
