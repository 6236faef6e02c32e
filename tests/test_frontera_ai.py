"""Frontera's scripted seats (policies/frontera): legal actions only, decided on the seat's view only (R-13),
distinct behaviour, the combat odds of spec 0.2, and the clock's automatic player equal to the engine's
timeout (R-12). Small map, short seeded games: the whole file runs in seconds.
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction

import numpy as np
import pytest

from frontera_env.actions import Attack, Blitz
from frontera_env.engine import Game
from frontera_env.state import ACTIVE, SETUP
from frontera_env.view import visible
from policies.frontera import SEATS
from policies.frontera.aggressor import THRESHOLD as AGGRESSOR_THRESHOLD
from policies.frontera.automatic import AutomaticSeat
from policies.frontera.defender import THRESHOLD as DEFENDER_THRESHOLD
from policies.frontera.odds import ROLL, conquest_chance
from policies.frontera.sight import Sight
from policies.games.frontera import load_map
from policies.registry import game_seats

NAMES = list(SEATS)


def _games(
    names: list[str], seed: int, *, fog: bool = False, max_turns: int = 40
) -> Iterator[tuple[Game, int, object]]:
    """Yield (game before the action, seat, action) along one seeded game of ``names`` on the small map."""
    game = Game.new(load_map("small"), len(names), seed, fog=fog, max_turns=max_turns)
    seats = [SEATS[n](seed=seed * 7 + i) for i, n in enumerate(names)]
    while not game.over:
        seat = game.current
        action = seats[seat].act(game, seat)
        yield game, seat, action
        game.apply(action)  # IllegalAction (a ValueError) here fails the test


def _final(names: list[str], seed: int, max_turns: int) -> Game:
    """Return the game at its end (or truncation) after playing it through :func:`_games`."""
    last = None
    for last, _, _ in _games(names, seed, max_turns=max_turns):  # noqa: B007 - the game object is shared
        pass
    assert last is not None
    return last


@pytest.mark.parametrize("fog", [False, True])
def test_every_seat_plays_legal_actions_to_the_end_R_4_to_R_8(fog: bool) -> None:
    for names in (NAMES[:3], NAMES[3:]):
        played = {n: 0 for n in names}
        last = None
        for game, seat, _ in _games(names, 3, fog=fog):
            played[names[seat]] += 1
            last = game
        assert last is not None and last.over and all(played.values()), played


def test_registry_names_every_seat_in_spanish_and_english() -> None:
    seats = game_seats("frontera")
    assert list(seats) == NAMES
    for name, (target, spanish, english) in seats.items():
        assert target.endswith(SEATS[name].__name__)
        assert spanish == SEATS[name].display_name and english == SEATS[name].english_name
    assert seats["automatic"][1:] == ("Automática (reloj)", "Automatic (clock)")


def _perturb_hidden(game: Game, seat: int, rng: np.random.Generator) -> Game:
    """Return a copy of ``game`` with every field hidden from ``seat`` changed (R-13.2, R-13.4)."""
    other = game.copy()
    st = other.state
    seen = visible(other.ctx, st, seat)
    for t in np.flatnonzero(~seen):
        st.armies[t] = int(rng.integers(1, 30))
        st.owner[t] = int(rng.choice([p for p in range(st.players) if p != seat]))
    rivals = [p for p in range(st.players) if p != seat]
    pool = [c for p in rivals for c in st.hand_of(p)] + st.draw_pile()
    rng.shuffle(pool)
    for p in rivals:
        k = len(st.hand_of(p))
        st.set_hand(p, pool[:k])
        pool = pool[k:]
    st.set_draw(pool)
    if st.phase == SETUP:
        for p in rivals:
            st.placed[p] = rng.integers(0, 5, st.territories)
    st.rng.state = int(rng.integers(2**62))
    return other


def test_decisions_ignore_hidden_state_R_13() -> None:
    """Perturbing what a seat cannot see (fog, others' hands, the piles, others' placements, the PRNG) leaves its
    sight and its decision, with the same seed, unchanged."""
    rng = np.random.default_rng(5)
    checked = 0
    for k, (game, seat, _) in enumerate(_games(NAMES[:4], 11, fog=True, max_turns=24)):
        if k % 3:
            continue
        sight = Sight.of(game, seat)
        assert sight.same_as(Sight.from_view(game, seat))
        other = _perturb_hidden(game, seat, rng)
        assert sight.same_as(Sight.of(other, seat))
        name = NAMES[:4][seat]
        assert SEATS[name](seed=99).act(game, seat) == SEATS[name](seed=99).act(other, seat)
        checked += 1
    assert checked > 50


def test_odds_table_is_spec_0_2_by_enumeration() -> None:
    assert ROLL[1][1] == [(0, 1, Fraction(5, 12)), (1, 0, Fraction(7, 12))]
    assert dict(((a, d), p) for a, d, p in ROLL[3][2]) == {
        (0, 2): Fraction(1445, 3888),
        (1, 1): Fraction(2611, 7776),
        (2, 0): Fraction(2275, 7776),
    }
    assert ROLL[3][3][-1] == (3, 0, Fraction(5957, 15552))
    assert conquest_chance(2, 1) == pytest.approx(5 / 12)
    assert conquest_chance(1, 1) == 0.0
    assert 0.5 < conquest_chance(10, 4) < conquest_chance(20, 4) < 1.0


def _attacks(name: str, seeds: range) -> list[float]:
    """Return the conquest chance (spec 0.2) of every attack ``name`` chose against three other AIs."""
    chances = []
    names = [name, "expansionist", "continental", "random"]
    for seed in seeds:
        for game, seat, action in _games(names, seed, max_turns=40):
            if seat == 0 and isinstance(action, Attack | Blitz):
                st = game.state
                chances.append(conquest_chance(int(st.armies[action.source]), int(st.armies[action.target])))
    return chances


def test_aggressor_attacks_only_at_favourable_odds_spec_0_2() -> None:
    chances = _attacks("aggressor", range(2))
    assert len(chances) > 10 and min(chances) >= AGGRESSOR_THRESHOLD > 0.5


def test_defender_attacks_only_when_nearly_sure_and_once_a_turn() -> None:
    chances = _attacks("defender", range(2))
    assert chances and min(chances) >= DEFENDER_THRESHOLD
    for game, seat, action in _games(["defender", "random", "random"], 4, max_turns=40):
        if seat == 0 and isinstance(action, Attack | Blitz):
            assert game.state.conquests == 0


def test_expansionist_holds_more_territories_than_random() -> None:
    """Over four seeded three-player games cut at turn 24, the expansionist ends with more territories than
    the random seats on average (most territories is its aim)."""
    mine, theirs = [], []
    for seed in range(4):
        st = _final(["expansionist", "random", "random"], seed, 24).state
        mine.append(st.territory_count(0))
        theirs += [st.territory_count(1), st.territory_count(2)]
    assert np.mean(mine) > 1.5 * np.mean(theirs)


def test_continental_completes_regions_R_4_1() -> None:
    """Completing regions is the continental's aim: at turn 30 it owns more regions whole than both random seats
    together, summed over four seeds, and most of its conquests fall in regions it already half owned."""
    from frontera_env.rules.reinforce import owned_regions

    whole, rivals, inside, conquests = 0, 0, 0, 0
    for seed in range(4):
        for game, seat, action in _games(["continental", "random", "random"], seed, max_turns=30):
            if seat == 0 and isinstance(action, Attack | Blitz):
                st = game.state
                region = game.ctx.regions[int(game.ctx.region_of[action.target])]
                inside += sum(1 for t in region if st.owner[t] == 0) * 2 >= len(region)
                conquests += 1
        whole += len(owned_regions(game.ctx, game.state, 0))
        rivals += sum(len(owned_regions(game.ctx, game.state, p)) for p in (1, 2))
    assert whole > rivals and whole >= 4
    assert inside > 0.6 * conquests


def test_automatic_seat_ends_a_turn_like_the_engine_timeout_R_12_2() -> None:
    """From every turn start of a seeded game, the automatic seat's actions reach the state Game.timeout gives."""
    compared = 0
    for game, seat, _ in _games(["aggressor", "expansionist", "defender"], 8, max_turns=30):
        st = game.state
        if game.phase != "reinforce" or st.pool != st.quota_left or st.status[seat] != ACTIVE:
            continue
        expected = game.copy()
        expected.timeout()
        auto, mine = game.copy(), AutomaticSeat(seed=0)
        while auto.state.turn_index == st.turn_index and not auto.over:
            auto.apply(mine.act(auto, seat))
        assert auto.state.equals(expected.state)
        compared += 1
    assert compared >= 10


def test_automatic_seat_deploys_like_the_deployment_timeout_R_12_3() -> None:
    game = Game.new(load_map("small"), 3, 2)
    expected = game.copy()
    expected.deployment_timeout()
    seats = [AutomaticSeat(seed=s) for s in range(3)]
    while game.phase == "setup":
        game.apply(seats[game.current].act(game, game.current))
    assert game.state.equals(expected.state)


def test_a_seat_refuses_to_act_out_of_turn() -> None:
    game = Game.new(load_map("small"), 3, 0)
    other = (game.current + 1) % 3
    with pytest.raises(ValueError, match=f"seat {other} cannot act: not its turn"):
        SEATS["aggressor"](seed=0).act(game, other)
