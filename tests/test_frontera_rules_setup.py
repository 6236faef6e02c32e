"""Setup (R-2): the lot, shares, the deals with and without fog, the deck, the PRNG order and the deployment."""

from __future__ import annotations

from collections import Counter

import pytest

from frontera_env.actions import Place, Ready, TakeBack
from frontera_env.engine import Game
from frontera_env.map_file import reference_map
from frontera_env.prng import SplitMix64
from frontera_env.rules.context import make_context
from frontera_env.rules.setup import fog_zones, shares
from frontera_env.rules_errors import IllegalAction
from frontera_env.state import State
from tests.frontera_helpers import line_map


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("fog", [False, True])
def test_R2_3_exact_shares_extra_territories_to_the_last_of_order0_one_army_each(players: int, fog: bool) -> None:
    board = reference_map("medium")
    game = Game.new(board, players, seed=players, fog=fog)
    st = game.state
    order = [int(s) for s in st.order0]
    q, r = divmod(55, players)
    assert [st.territory_count(s) for s in order] == [q] * (players - r) + [q + 1] * r
    assert (st.armies == 1).all() and (st.owner >= 0).all()
    assert shares(55, order) == {s: st.territory_count(s) for s in order}


def test_R2_2_first_player_is_drawn_uniformly() -> None:
    board = line_map(8)
    counts = Counter(int(Game.new(board, 4, seed=seed).state.order0[0]) for seed in range(800))
    assert set(counts) == {0, 1, 2, 3} and all(150 <= c <= 250 for c in counts.values()), counts


def test_R2_2_order0_is_seat_order_from_the_first_player() -> None:
    order = Game.new(line_map(12), 5, seed=3).state.order0
    assert [(int(order[0]) + i) % 5 for i in range(5)] == list(order)


def test_R2_7_A12_the_second_of_two_places_20_others_15() -> None:
    st = Game.new(line_map(8), 2, seed=4).state
    assert st.deploy_left[st.order0[0]] == 15 and st.deploy_left[st.order0[1]] == 20
    st = Game.new(line_map(8), 3, seed=4).state
    assert list(st.deploy_left) == [15, 15, 15]


@pytest.mark.parametrize(
    ("size", "counts"), [("small", (12, 12, 11)), ("medium", (19, 18, 18)), ("large", (27, 27, 26))]
)
def test_R9_1_deck_composition_per_size(size: str, counts: tuple[int, int, int]) -> None:
    game = Game.new(reference_map(size), 3, seed=1)
    deck = game.state.draw_pile()
    assert sorted(deck) == list(range(game.ctx.n + 2)) and game.state.discard_len == 0
    symbols = Counter(int(game.ctx.symbol[c]) for c in deck)
    assert (symbols[0], symbols[1], symbols[2], symbols[3]) == (*counts, 2)


def test_R2_6_the_prng_is_consumed_lot_then_deal_then_deck() -> None:
    board = reference_map("small")
    st = Game.new(board, 4, seed=2026).state
    rng = SplitMix64(2026)
    first = rng.below(4)
    ids = list(range(35))
    rng.shuffle(ids)
    rev = [(first + i) % 4 for i in range(4)][::-1]
    deck = list(range(37))
    rng.shuffle(deck)
    assert int(st.order0[0]) == first
    assert all(st.owner[t] == rev[k % 4] for k, t in enumerate(ids))
    assert st.draw_pile() == deck and st.rng.state == rng.state


def test_R9_7_cards_off_has_no_deck() -> None:
    game = Game.new(line_map(8), 2, seed=1, cards=False)
    assert game.state.draw_len == 0


@pytest.mark.parametrize(("size", "players"), [("small", 6), ("medium", 3), ("large", 2)])
def test_R2_5_fog_deal_zones_are_seeded_once_connected_and_deterministic(size: str, players: int) -> None:
    board = reference_map(size)
    ctx = make_context(board, fog=True)
    st = State.empty(players, ctx.n, 77)
    st.order0[:] = range(players)
    owner, zones, leftovers = fog_zones(ctx, st)
    share = shares(ctx.n, list(range(players)))
    assert [owner.count(s) for s in range(players)] == [share[s] for s in range(players)]
    for seat in range(players):
        expected = 1 if share[seat] < 4 else 2 if share[seat] < 9 else 3  # F-1
        assert sum(1 for s, _ in zones if s == seat) == expected
    for seat, members in zones:  # every zone connected when F-4 ends
        assert all(owner[t] == seat for t in members)
        seen, stack = {members[0]}, [members[0]]
        while stack:
            u = stack.pop()
            for v in ctx.neighbours[u]:
                if v in members and v not in seen:
                    seen.add(v)
                    stack.append(v)
        assert seen == set(members)
    assert sorted([t for _, m in zones for t in m] + leftovers) == list(range(ctx.n))
    twin = State.empty(players, ctx.n, 77)
    twin.order0[:] = range(players)
    assert fog_zones(ctx, twin)[0] == owner


def test_R2_7_A11_deployment_ready_needs_every_army_and_undo_cancels_ready() -> None:
    game = Game.new(line_map(8), 3, seed=5)
    st = game.state
    seat = game.current
    own = [t for t in range(8) if st.owner[t] == seat]
    with pytest.raises(IllegalAction, match="R-2.7 \\(A11\\)"):
        game.apply(Ready(seat))
    game.apply(Place(seat, own[0], 15))
    game.apply(Ready(seat))
    assert st.ready[seat] and game.current != seat
    game.apply(TakeBack(seat, own[0], 2))
    assert not st.ready[seat] and st.deploy_left[seat] == 2 and game.current == seat
    with pytest.raises(IllegalAction, match="R-2.7"):
        game.apply(Place(seat, own[0], 3))
    rival = next(t for t in range(8) if st.owner[t] != seat)
    with pytest.raises(IllegalAction, match="R-2.7"):
        game.apply(Place(seat, rival, 1))
    assert st.armies.sum() == 8  # nothing is applied before everyone is ready


def test_R2_7_placements_apply_at_once_when_everyone_is_ready_and_order0_opens() -> None:
    game = Game.new(line_map(8), 2, seed=9)
    st = game.state
    for seat in (int(st.order0[0]), int(st.order0[1])):
        t = next(t for t in range(8) if st.owner[t] == seat)
        game.apply(Place(seat, t, int(st.deploy_left[seat])))
        assert game.phase == "setup" and st.armies.sum() == 8
        game.apply(Ready(seat))
    assert game.phase == "reinforce" and st.armies.sum() == 8 + 35 and game.current == st.order0[0]
    assert st.turn_index == 1
