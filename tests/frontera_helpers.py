"""Test-only maps for the rules engine (tiny hand-made FronteraMaps), and the learned seats' R-13 check."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from frontera_env.board import SYMBOLS, FronteraMap, Region, Territory
from frontera_env.engine import Game
from frontera_env.prng import SplitMix64
from frontera_env.rules.reinforce import start_turn


def make_map(
    regions: Sequence[Sequence[int]],
    land: Sequence[tuple[int, int]],
    sea: Sequence[tuple[int, int]] = (),
    bonuses: Sequence[int] | None = None,
) -> FronteraMap:
    """Return a map with the given regions (territory id lists), land borders and sea links; symbols id mod 3."""
    n = sum(len(r) for r in regions)
    region_of = {t: i for i, r in enumerate(regions) for t in r}
    lands: dict[int, set[int]] = {t: set() for t in range(n)}
    seas: dict[int, set[int]] = {t: set() for t in range(n)}
    for a, b in land:
        lands[a].add(b)
        lands[b].add(a)
    for a, b in sea:
        seas[a].add(b)
        seas[b].add(a)
    bonus = list(bonuses) if bonuses is not None else [(len(r) + 1) // 2 for r in regions]
    return FronteraMap(
        size="custom",
        generator="hand-made",
        world_code="",
        attempt=0,
        regions=tuple(Region(i, f"R{i}", bonus[i], tuple(sorted(r))) for i, r in enumerate(regions)),
        territories=tuple(
            Territory(t, f"T{t}", region_of[t], tuple(sorted(lands[t])), tuple(sorted(seas[t])), SYMBOLS[t % 3])
            for t in range(n)
        ),
        sea_links=tuple(sorted((min(a, b), max(a, b)) for a, b in sea)),
    )


def line_map(n: int, regions: int = 2) -> FronteraMap:
    """Return a path 0-1-...-(n-1) split into ``regions`` consecutive regions."""
    cut = [list(range(i * n // regions, (i + 1) * n // regions)) for i in range(regions)]
    return make_map(cut, [(t, t + 1) for t in range(n - 1)])


class Dice(SplitMix64):
    """A PRNG whose die draws (below(6)) come from a script of faces; any other draw is a test error."""

    def __init__(self, faces: Sequence[int]) -> None:
        super().__init__(0)
        self.faces = list(faces)

    def below(self, n: int) -> int:
        assert n == 6 and self.faces, f"unscripted draw below({n})"
        return self.faces.pop(0) - 1


def position(
    board: FronteraMap,
    owners: Sequence[int],
    armies: Sequence[int] | None = None,
    *,
    current: int = 0,
    hands: dict[int, list[int]] | None = None,
    players: int | None = None,
    trades: dict[int, int] | None = None,
    **options: Any,
) -> Game:
    """Return a game on ``board`` after setup with the given owners and armies, at the start of ``current``'s turn.

    order0 is 0, 1, ..., P-1 and the round is opened by seat 0; ``hands`` deals those cards out of the draw pile.
    """
    p = players or max(owners) + 1
    game = Game.new(board, p, seed=1, **options)
    st = game.state
    st.owner[:] = owners
    st.armies[:] = armies if armies is not None else 1
    st.deploy_left[:] = 0
    st.order0[:] = range(p)
    st.opener, st.round_pos = 0, current
    for seat, cards in (hands or {}).items():
        st.set_hand(seat, cards)
    dealt = {c for cards in (hands or {}).values() for c in cards}
    st.set_draw([c for c in st.draw_pile() if c not in dealt])
    for seat, k in (trades or {}).items():
        st.trades[seat] = k
    start_turn(game.ctx, st, current)
    return game


def roll(game: Game, *faces: int) -> None:
    """Script the next dice of ``game`` (attacker's dice, then the defender's, roll after roll)."""
    game.state.rng = Dice(faces)


#: what a learned seat decides from: ``inputs(game, seat, selection) -> (packed observation, action mask)``
Inputs = Callable[[Game, int, Any], tuple[np.ndarray, np.ndarray]]


def check_hidden_state_perturbations(fog: bool, inputs: Inputs, decide: Callable[..., object] | None = None) -> int:
    """Return how many R-13 checks passed over a random 4-player small-map game (at least 10 are expected).

    Every 20th decision: the seat's ``inputs`` are the env's own observation and mask; perturbing every hidden
    field (and, with fog, swapping fogged owners) changes neither them nor ``decide(obs, mask)``; a visible
    change (40 more armies on an own territory) does change them, so the check can fail.
    """
    from frontera_env import frontera_v0
    from frontera_env.view import visible
    from policies.frontera.inputs import pack
    from tests.test_frontera_view import perturb_hidden, swap_fogged_owners

    env = frontera_v0.raw_env(players=4, fog=fog, size="small", max_turns=24)
    env.reset(seed=21)
    rng, pick = random.Random(5), np.random.default_rng(5)
    checked = 0
    for step in range(400):
        who = env.agent_selection
        if env.terminations[who] or env.truncations[who]:
            break
        observed = env.observe(who)
        if step % 20 == 0:
            real, seat = env.game.state, env.possible_agents.index(who)
            mine, mask = inputs(env.game, seat, env.selection)
            assert np.array_equal(mine, pack(observed["observation"])) and np.array_equal(mask, observed["action_mask"])
            chosen = decide(mine, mask) if decide else None
            seen = visible(env.game.ctx, real, seat)
            twin = perturb_hidden(env.game.ctx.n, real, seat, seen, rng)
            if fog:
                swap_fogged_owners(twin, env.game.ctx.region_of, seen, rng)
            env.game.state = twin
            try:
                again, mask2 = inputs(env.game, seat, env.selection)
                assert np.array_equal(again, mine) and np.array_equal(mask2, mask), step
                assert decide is None or decide(again, mask2) == chosen, step
            finally:
                env.game.state = real
            control = real.copy()
            control.armies[int(np.flatnonzero(control.owner == seat)[0])] += 40
            env.game.state = control
            try:
                assert not np.array_equal(inputs(env.game, seat, env.selection)[0], mine), step
            finally:
                env.game.state = real
            checked += 1
        env.step(int(pick.choice(np.flatnonzero(observed["action_mask"]))))
    return checked
