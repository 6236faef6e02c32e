"""Winning (R-10), abandonment and ownerless territories (R-11), the clock's timeouts (R-12)."""

from __future__ import annotations

import numpy as np
import pytest

from frontera_env.actions import Attack, Deploy, EndAttack, Occupy, Place, Ready, Trade
from frontera_env.engine import Game
from frontera_env.rules.cards import auto_trade_set
from frontera_env.rules.clock import auto_deploy
from frontera_env.rules_errors import IllegalAction
from frontera_env.state import ABANDONED, NONE
from tests.frontera_helpers import line_map, make_map, position, roll


def test_R10_1_win_by_eliminating_the_last_rival() -> None:
    game = position(line_map(20, 2), [0] * 10 + [1] + [NONE] * 9, [1] * 9 + [5] + [1] * 10)
    game.apply(Deploy(9, game.state.pool))
    roll(game, 6, 6, 6, 1)
    game.apply(Attack(9, 10))
    assert game.over and game.winner == 0 and game.state.status[1] == 1 and game.state.window[0] == -1


def test_R10_1_A36_the_70_percent_denominator_includes_ownerless_territories() -> None:
    game = position(line_map(10, 2), [0] * 6 + [1, NONE, NONE, 1], [1] * 5 + [5] + [1] * 4, players=2)
    game.apply(Deploy(5, game.state.pool))
    roll(game, 6, 6, 6, 1)
    game.apply(Attack(5, 6))  # 7 of 10 territories, although the players own only 8 between them
    assert game.over and game.winner == 0


def test_R11_2_A37_win_by_the_others_abandonment_off_turn() -> None:
    game = position(line_map(12), [0, 1, 2] * 4)
    game.abandon(2)
    assert not game.over
    game.abandon(0)  # the current player leaves; seat 1 is the only active player left
    assert game.over and game.winner == 1


def test_A39_truncation_at_max_turns_has_no_winner() -> None:
    game = position(line_map(8), [0, 1] * 4, max_turns=3)
    game.timeout()
    game.timeout()
    assert not game.over
    game.timeout()
    assert game.over and game.state.truncated and game.winner is None and game.legal_actions() == []
    assert game.summary() == {"winner": None, "truncated": True, "shares": [0.5, 0.5]}


def test_R11_1_abandonment_makes_territories_ownerless_and_sends_the_hand_to_discard() -> None:
    game = position(line_map(12), [0, 1, 2] * 4, [1, 1, 7] * 4, hands={2: [5, 8]})
    st = game.state
    st.paid[5] = True
    game.abandon(2)
    assert st.status[2] == ABANDONED and (st.owner[2::3] == NONE).all() and (st.armies[2::3] == 7).all()
    assert st.discard_pile() == [5, 8] and not st.paid[5] and st.hand_len[2] == 0
    assert game.current == 0 and game.phase == "reinforce"  # off turn: the turn goes on
    with pytest.raises(IllegalAction, match="R-11.1"):
        game.abandon(2)


def test_R11_1_abandoning_on_ones_own_turn_ends_it_without_a_draw() -> None:
    game = position(line_map(12), [0, 1, 2] * 4)
    st = game.state
    st.conquests = 2
    draw = st.draw_len
    game.abandon(0)
    assert game.current == 1 and st.turn_index == 2 and st.draw_len == draw


def test_R11_3_ownerless_territories_defend_with_dice_and_taking_one_is_a_conquest() -> None:
    board = make_map([[0, 1], [2, 3]], [(0, 1), (1, 2), (2, 3)])
    game = position(board, [0, NONE, 1, 1], [4, 2, 1, 1], players=2)
    game.apply(Deploy(0, game.state.pool))
    roll(game, 6, 6, 6, 1, 1)
    game.apply(Attack(0, 1))
    assert list(game.state.last_roll[7:10]) == [1, 1, 0]  # two dice for two armies
    assert game.state.owner[1] == 0 and game.state.conquests == 1
    game.apply(EndAttack())
    hand = game.state.hand_len[0]
    game.timeout()
    assert game.state.hand_len[0] == hand + 1  # the conquest earns the card (A21)


def test_A43_abandoning_during_the_deployment_drops_the_placements_and_starts_when_the_rest_are_ready() -> None:
    game = Game.new(line_map(12), 3, seed=2)
    st = game.state
    a, b, c = (int(s) for s in st.order0)
    for seat in (a, b):
        t = next(t for t in range(12) if st.owner[t] == seat)
        game.apply(Place(seat, t, 15))
        game.apply(Ready(seat))
    tc = next(t for t in range(12) if st.owner[t] == c)
    game.apply(Place(c, tc, 4))
    game.abandon(c)
    assert game.phase == "reinforce" and st.owner[tc] == NONE and st.armies[tc] == 1
    assert st.armies.sum() == 12 + 30  # c's four provisional armies are gone


def test_R12_4_auto_deploy_golden_case() -> None:
    board = make_map([[0, 1], [2, 3]], [(0, 1), (0, 2), (2, 3)])
    game = position(board, [0, 1, 0, 1], [1, 4, 1, 2])
    picks = auto_deploy(game.ctx, game.state.owner, game.state.armies, 0, 4)
    assert picks == [0, 0, 0, 2]  # pressure 3, 2, then a 1-1 tie to the lower id, then 2's pressure 1 > 0


def test_R12_5_auto_trade_golden_case() -> None:
    game = position(line_map(12), [0, 1] * 6, hands={0: [0, 3, 6, 1, 2, 12]})
    st = game.state
    assert auto_trade_set(game.ctx, st, 0) == (0, 1, 2)  # no wildcard; all unpaid: lowest ids
    st.paid[[0, 3, 6]] = True
    assert auto_trade_set(game.ctx, st, 0) == (0, 3, 6)  # the set with the fewest unpaid cards


def test_R12_2_timeout_in_reinforce_trades_with_AT_places_with_AD_and_ends_the_turn() -> None:
    game = position(line_map(12), [0] * 6 + [1] * 6, hands={0: [0, 3, 6, 1, 2]})
    st = game.state
    pool = st.pool
    game.timeout()
    assert (
        st.trades[0] == 1 and st.hand_of(0) == [3, 6] and st.armies[:6].sum() == 6 + 8 + pool + 4
    )  # 8: four card bonuses
    assert game.current == 1 and st.hand_len[0] == 2  # no conquest, no card


def test_R12_2_A42_timeout_with_an_open_window_keeps_it_and_still_draws() -> None:
    game = position(line_map(20, 2), [0] * 4 + [1] * 16, [1, 1, 1, 10] + [1] * 16)
    game.apply(Deploy(3, game.state.pool))
    roll(game, 6, 6, 6, 1)
    game.apply(Attack(3, 4))
    assert game.phase == "window"
    hand = game.state.hand_len[0]
    game.timeout()
    assert game.state.armies[4] == 3 and game.state.hand_len[0] == hand + 1 and game.current == 1


def test_R12_2_timeout_after_an_elimination_trades_down_and_places_before_ending() -> None:
    board = line_map(30, 2)
    owners = [0] * 9 + [1] + [2] * 20
    armies = [1] * 8 + [5] + [1] * 21
    game = position(board, owners, armies, hands={0: [0, 3, 1, 4], 1: [2, 5, 6, 7, 30]})
    game.apply(Deploy(0, game.state.pool))
    roll(game, 6, 6, 6, 1)
    game.apply(Attack(8, 9))
    total = game.state.armies.sum()
    game.timeout()
    st = game.state
    assert st.trades[0] == 2 and st.armies.sum() == total + 4 + 7  # two AT trades, placed by AD
    assert st.current == 2 and st.hand_len[0] == 4  # 9 -> 6 -> 3 cards, then the turn's card


def test_R12_3_deployment_timeout_auto_deploys_without_reading_others_placements() -> None:
    game = Game.new(line_map(12), 3, seed=11)
    st = game.state
    a, b, _ = (int(s) for s in st.order0)
    target = next(t for t in range(12) if st.owner[t] == a and any(st.owner[u] != a for u in game.ctx.neighbours[t]))
    twin = game.copy()
    game.apply(Place(a, target, 15))
    game.apply(Ready(a))
    twin.apply(Place(a, target, 15))
    twin.apply(Ready(a))
    near = [u for u in game.ctx.neighbours[target] if st.owner[u] == b]
    if near:  # seat b's provisional armies next to a's stack must not change where c's AD goes
        game.apply(Place(b, near[0], 5))
    game.deployment_timeout()
    twin.deployment_timeout()
    seat_c = [t for t in range(12) if st.owner[t] == int(st.order0[2])]
    assert np.array_equal(game.state.armies[seat_c], twin.state.armies[seat_c])
    assert game.phase == "reinforce" and st.armies.sum() == 12 + 45


def test_R9_2_trade_refusals_name_the_rule() -> None:
    game = position(line_map(12), [0, 1] * 6, hands={0: [0, 1, 3]})
    with pytest.raises(IllegalAction, match="R-9.2"):
        game.apply(Trade((0, 1, 3)))  # galleon, cannon, galleon
    with pytest.raises(IllegalAction, match="R-9.2"):
        game.apply(Trade((0, 1, 2)))  # card 2 is not in the hand
    with pytest.raises(IllegalAction, match="R-9.2"):
        game.apply(Trade((0, 0, 1)))  # type: ignore[arg-type]


@pytest.mark.parametrize("phase", ["attack", "regroup"])
def test_R12_2_timeout_after_reinforce_makes_no_attack_or_regroup_but_draws_the_earned_card(phase: str) -> None:
    game = position(line_map(20, 2), [0] * 4 + [1] * 16, [1, 1, 1, 10] + [1] * 16)
    game.apply(Deploy(3, game.state.pool))
    roll(game, 6, 6, 6, 1)
    game.apply(Attack(3, 4))
    game.apply(Occupy(3))
    if phase == "regroup":
        game.apply(EndAttack())
    armies = game.state.armies.copy()
    hand = game.state.hand_len[0]
    game.timeout()
    st = game.state
    assert np.array_equal(st.armies[:5], armies[:5]) and st.hand_len[0] == hand + 1 and game.current == 1
