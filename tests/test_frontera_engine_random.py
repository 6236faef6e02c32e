"""Random play on reference maps for 2..6 players: invariants after every action, and legal_actions against check.

Spec 7's fuzz kinds: armies >= 1, owner and status consistency, eliminated players hold nothing, card
conservation, hands <= 5 at turn end, nobody plays twice in a row, a conquering roll costs the attacker nothing,
every state has a legal action, and every listed action is accepted while every other candidate is refused.
"""

from __future__ import annotations

import random

import pytest

from frontera_env.actions import (
    Action,
    Attack,
    Blitz,
    Deploy,
    EndAttack,
    EndTurn,
    Occupy,
    Place,
    Ready,
    Regroup,
    TakeBack,
    Trade,
)
from frontera_env.engine import Game
from frontera_env.map_file import reference_map
from frontera_env.rules import legal
from frontera_env.rules_errors import IllegalAction
from frontera_env.state import ACTIVE, NONE, OVER, SETUP


def choose(game: Game, rng: random.Random) -> Action:
    """Return a random legal action, preferring attacks and whole-pool deploys so games move on."""
    acts = game.legal_actions()
    attacks = [a for a in acts if isinstance(a, Blitz)]
    if attacks and rng.random() < 0.6:
        return rng.choice(attacks)
    big = [
        a
        for a in acts
        if isinstance(a, Deploy | Place)
        and a.count == game.state.pool + (game.state.deploy_left[a.seat] if isinstance(a, Place) else 0)
    ]
    if big and rng.random() < 0.7:
        return rng.choice(big)
    return rng.choice(acts)


def check_invariants(game: Game) -> None:
    st, n = game.state, game.ctx.n
    assert (st.armies >= 1).all()
    assert ((st.owner >= NONE) & (st.owner < st.players)).all()
    cards = st.draw_pile() + st.discard_pile() + [c for p in range(st.players) for c in st.hand_of(p)]
    if game.ctx.cards:
        assert sorted(cards) == list(range(n + 2))  # conservation, N + 2
    for p in range(st.players):
        if st.status[p] != ACTIVE:
            assert st.territory_count(p) == 0 and st.hand_len[p] == 0
        elif st.phase != SETUP:
            assert st.territory_count(p) >= 1
    if st.phase != OVER:
        assert st.status[game.current] == ACTIVE
        assert game.legal_actions(), "every state has a legal action"
    else:
        assert st.winner != NONE or st.truncated


def candidates(game: Game) -> list[object]:
    """Return a spread of actions, legal or not, for the legality cross-check."""
    st, ctx = game.state, game.ctx
    seat = game.current
    out: list[object] = [EndAttack(), EndTurn(), Ready(seat), Occupy(0), Occupy(1), Occupy(int(st.window[4]) + 1)]
    for t in range(ctx.n):
        out += [Deploy(t, 1), Deploy(t, st.pool + 1), Place(seat, t, 1), TakeBack(seat, t, 1)]
        for u in ctx.neighbours[t][:2]:
            out += [Attack(t, u), Regroup(t, u, 1)]
    hand = st.hand_of(seat)
    if len(hand) >= 3:
        out.append(Trade(tuple(sorted(hand[:3]))))  # type: ignore[arg-type]
    return out


@pytest.mark.parametrize(
    ("size", "players"), [("small", 2), ("small", 3), ("small", 4), ("small", 5), ("small", 6), ("medium", 3)]
)
def test_random_play_keeps_every_invariant(size: str, players: int) -> None:
    rng = random.Random(players)
    for fog in (False, True):
        game = Game.new(reference_map(size), players, seed=100 + players, fog=fog, max_turns=12 * players)
        seq = []
        step = conquests = 0
        while not game.over:
            check_invariants(game)
            if step % 11 == 0:  # spot-check the legal list against check() (spec 7, RL environment)
                listed = set(game.legal_actions())
                for cand in [*listed, *candidates(game)]:
                    try:
                        legal.check(game.ctx, game.state, cand)
                        ok = True
                    except IllegalAction:
                        ok = False
                    assert ok == (cand in listed), cand
            act = choose(game, rng)
            st = game.state
            before = (st.turn_index, st.current, st.hand_len[st.current])
            src = int(st.armies[act.source]) if isinstance(act, Attack) else 0
            game.apply(act)
            step += 1
            if isinstance(act, Attack) and st.owner[act.target] == before[1]:  # A28: the conquering roll
                ad = int((st.last_roll[4:7] > 0).sum())
                assert st.armies[act.source] == src - ad >= 1  # costs the attacker nothing
                conquests += 1
            if st.turn_index != before[0]:
                assert st.hand_len[before[1]] <= 5
                seq.append(before[1])
        check_invariants(game)
        assert conquests > 0 and len(seq) > 2 * players
        assert all(a != b for a, b in zip(seq, seq[1:], strict=False))
