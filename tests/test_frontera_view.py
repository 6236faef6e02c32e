"""Information (R-13): V(p), own hand against others' counts, combat events under fog, public counters, no leaks."""

from __future__ import annotations

import random

import numpy as np
import pytest

from frontera_env.actions import Attack, Deploy, Place
from frontera_env.engine import Game
from frontera_env.map_file import reference_map
from frontera_env.state import NONE, SETUP, State
from frontera_env.view import UNKNOWN, view, visible
from tests.frontera_helpers import make_map, position, roll
from tests.test_frontera_engine_random import choose


def fog_map():  # type: ignore[no-untyped-def]
    """A path 0-1-2-3-4-5 by land plus a sea link 0~5; regions {0,1,2} and {3,4,5}."""
    return make_map([[0, 1, 2], [3, 4, 5]], [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)], sea=[(0, 5)])


def test_R13_4_A45_visibility_is_own_territories_and_their_land_and_sea_neighbours() -> None:
    game = position(fog_map(), [0, 1, 1, 2, 2, 2], fog=True)
    assert list(np.flatnonzero(visible(game.ctx, game.state, 0))) == [0, 1, 5]
    v = view(game.ctx, game.state, 0)
    assert v["owner"] == [0, 1, UNKNOWN, UNKNOWN, UNKNOWN, 2] and v["armies"][2:5] == [0, 0, 0]
    assert all(view(game.ctx, game.state, 1)["visible"][t] for t in (0, 1, 2, 3))


def test_R13_1_A46_counters_stay_public_under_fog_and_hands_are_private() -> None:
    game = position(fog_map(), [0, 1, 1, 2, 2, 2], fog=True, hands={0: [0, 6], 2: [3, 4, 7]})
    v = view(game.ctx, game.state, 0)
    assert v["territory_counts"] == [1, 2, 3] and v["card_counts"] == [2, 0, 3]
    assert v["region_owner"] == [NONE, 2]  # the mark of a fully owned region shows through the fog (A46)
    assert v["hand"] == [0, 6] and v["paid"] == [True, False]
    assert view(game.ctx, game.state, 2)["hand"] == [3, 4, 7]
    assert v["turn"] is not None and view(game.ctx, game.state, 1)["turn"] is None


def test_R13_4_A47_a_roll_shows_only_its_visible_parts() -> None:
    board = make_map([[0, 1, 2, 3], [4, 5, 6, 7]], [(t, t + 1) for t in range(7)])
    game = position(board, [0, 0, 1, 1, 2, 2, 2, 2], [1, 1, 1, 4, 1, 1, 1, 1], current=1, fog=True)
    game.apply(Deploy(3, game.state.pool))
    roll(game, 1, 1, 1, 6)
    game.apply(Attack(3, 4))  # seat 1 attacks seat 2; V(0) = {0, 1, 2}
    ctx, st = game.ctx, game.state
    assert view(ctx, st, 1)["last_roll"] == {"source": 3, "target": 4, "attack": [1, 1, 1], "defence": [6]}
    assert view(ctx, st, 2)["last_roll"]["source"] == 3  # the defender sees it whole
    assert view(ctx, st, 0)["last_roll"] is None  # neither end is in V(0) = {0, 1, 2}
    st.owner[1] = NONE  # now V(0) = {0, 1}; give seat 0 territory 5 so it sees the target 4 only
    st.owner[5] = 0
    assert view(ctx, st, 0)["last_roll"] == {"source": None, "target": 4, "attack": None, "defence": [6]}
    game_open = position(board, [0, 0, 1, 1, 2, 2, 2, 2], [1, 1, 1, 4, 1, 1, 1, 1], current=1)
    game_open.apply(Deploy(3, game_open.state.pool))
    game_open.apply(Attack(3, 4))
    assert view(game_open.ctx, game_open.state, 0)["last_roll"]["source"] == 3  # no fog: public (13.3)


def test_R13_2_provisional_placements_are_hidden_until_everyone_is_ready() -> None:
    game = Game.new(fog_map(), 2, seed=3)
    st = game.state
    a, b = int(st.order0[0]), int(st.order0[1])
    ta = next(t for t in range(6) if st.owner[t] == a)
    game.apply(Place(a, ta, 5))
    assert view(game.ctx, st, a)["armies"][ta] == 6 and view(game.ctx, st, b)["armies"][ta] == 1
    assert view(game.ctx, st, b)["placed"] == [0] * 6


def perturb_hidden(ctx_n: int, st: State, player: int, seen: np.ndarray, rng: random.Random) -> State:
    """Return a copy of ``st`` with every field hidden from ``player`` changed (R-13.2, 13.4)."""
    out = st.copy()
    out.rng.state = rng.getrandbits(64)  # future dice
    others = [p for p in range(st.players) if p != player]
    pool = out.draw_pile() + out.discard_pile() + [c for p in others for c in out.hand_of(p)]
    rng.shuffle(pool)  # others' hands, the draw order and the discard's contents, sizes kept
    out.set_draw(pool[: st.draw_len])
    out.set_discard(pool[st.draw_len : st.draw_len + st.discard_len])
    at = st.draw_len + st.discard_len
    for p in others:
        k = int(st.hand_len[p])
        out.set_hand(p, pool[at : at + k])
        at += k
    mine = set(st.hand_of(player))
    for c in range(ctx_n + 2):
        if c not in mine:
            out.paid[c] = rng.random() < 0.5
    hidden = [t for t in range(ctx_n) if not seen[t]]
    for t in hidden:  # fogged armies, and owners swapped inside a region (counts and region marks are public)
        out.armies[t] = rng.randint(1, 30)
    for p in others:  # others' provisional placements
        out.placed[p] = 0
        if st.phase == SETUP and st.owner[st.owner == p].size:
            own = np.flatnonzero(st.owner == p)
            for _ in range(rng.randint(0, 15)):
                out.placed[p, rng.choice(list(own))] += 1
    return out


def swap_fogged_owners(st: State, region_of: np.ndarray, seen: np.ndarray, rng: random.Random) -> None:
    """Swap the owners of two fogged territories of one region, which keeps every public counter."""
    hidden = [t for t in range(st.territories) if not seen[t]]
    rng.shuffle(hidden)
    for i, t in enumerate(hidden):
        for u in hidden[i + 1 :]:
            if region_of[t] == region_of[u] and st.owner[t] != st.owner[u]:
                st.owner[t], st.owner[u] = st.owner[u], st.owner[t]
                return


@pytest.mark.parametrize("fog", [False, True])
def test_R13_no_leak_perturbing_every_hidden_field_leaves_the_view_unchanged(fog: bool) -> None:
    rng = random.Random(13)
    game = Game.new(reference_map("small"), 4, seed=31, fog=fog, max_turns=40)
    checked = 0
    step = 0
    while not game.over:
        if step % 9 == 0:
            for p in range(4):
                st = game.state
                seen = visible(game.ctx, st, p)
                twin = perturb_hidden(game.ctx.n, st, p, seen, rng)
                if fog:
                    swap_fogged_owners(twin, game.ctx.region_of, seen, rng)
                assert view(game.ctx, twin, p) == view(game.ctx, st, p)
                checked += 1
            control = game.state.copy()  # the check can fail: a visible change does show
            control.armies[int(np.flatnonzero(control.owner == game.current)[0])] += 1
            assert view(game.ctx, control, game.current) != view(game.ctx, game.state, game.current)
        game.apply(choose(game, rng))
        step += 1
    assert checked > 40
