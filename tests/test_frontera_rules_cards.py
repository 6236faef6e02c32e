"""Cards (R-9): sets, the 5-card guarantee, trade values, draw thresholds, reshuffles, the bonus after a transfer."""

from __future__ import annotations

from collections import Counter
from itertools import combinations, combinations_with_replacement

import pytest

from frontera_env.actions import Attack, Deploy, EndAttack, EndTurn, Occupy, Trade
from frontera_env.prng import SplitMix64
from frontera_env.rules.cards import is_set, sets_in_hand, trade_value
from frontera_env.rules.context import WILD
from tests.frontera_helpers import line_map, position, roll

BOARD = line_map(30, 2)  # symbol of card c is c mod 3 (galleon, cannon, balloon); wildcards 30 and 31
BY_SYMBOL = {0: [0, 3, 6, 9, 12], 1: [1, 4, 7, 10, 13], 2: [2, 5, 8, 11, 14], WILD: [30, 31]}


def cards_for(symbols: tuple[int, ...]) -> tuple[int, ...]:
    """Return distinct card ids with the given symbols."""
    used = Counter(symbols)
    return tuple(c for s, k in used.items() for c in BY_SYMBOL[s][:k])


def test_R9_2_set_validity_for_every_symbol_multiset() -> None:
    game = position(BOARD, [0] * 15 + [1] * 15)
    for syms in combinations_with_replacement((0, 1, 2, WILD), 3):
        if syms.count(WILD) > 2:
            continue
        expected = WILD in syms or len(set(syms)) in (1, 3)
        assert is_set(game.ctx, cards_for(syms)) == expected, syms


def test_R9_2_every_five_card_hand_holds_a_set_and_only_three_four_card_hands_do_not() -> None:
    game = position(BOARD, [0] * 15 + [1] * 15)
    for k in (4, 5):
        for syms in combinations_with_replacement((0, 1, 2, WILD), k):
            if syms.count(WILD) > 2:
                continue
            has_set = bool(sets_in_hand(game.ctx, list(cards_for(syms))))
            if k == 5:
                assert has_set, syms
            else:
                assert has_set != (syms in {(0, 0, 1, 1), (0, 0, 2, 2), (1, 1, 2, 2)}), syms


def test_R9_3_A20_trade_values_and_per_player_counters() -> None:
    assert [trade_value(k) for k in range(1, 8)] == [4, 7, 10, 15, 20, 25, 30]
    game = position(BOARD, [0] * 15 + [1] * 15, hands={0: [0, 3, 6], 1: [16, 19, 22]}, trades={1: 3})
    st = game.state
    pool = st.pool
    game.apply(Trade((0, 3, 6)))
    assert st.pool == pool + 4 and list(st.trades) == [1, 3]  # seat 0's first trade, whatever seat 1 made


def test_A21_a_third_trade_made_this_turn_raises_the_draw_threshold() -> None:
    game = position(BOARD, [0] * 15 + [1] * 15, [1] * 14 + [9] + [1] * 15, hands={0: [0, 3, 6]}, trades={0: 2})
    game.apply(Trade((0, 3, 6)))
    game.apply(Deploy(14, game.state.pool))
    roll(game, 6, 6, 6, 1)
    game.apply(Attack(14, 15))
    game.apply(Occupy(3))
    game.apply(EndAttack())
    game.apply(EndTurn())
    assert game.state.hand_len[0] == 0  # 3 trades: one conquest is not enough


def test_R8_1_at_most_one_card_per_turn_and_a_reshuffle_when_the_draw_pile_is_empty() -> None:
    game = position(BOARD, [0] * 15 + [1] * 15, [1] * 14 + [20] + [1] * 15)
    st = game.state
    game.apply(Deploy(14, st.pool))
    for target in (15, 16):
        roll(game, 6, 6, 6, 1)
        game.apply(Attack(target - 1, target))
        game.apply(Occupy(5 if target == 15 else 3))
    assert st.conquests == 2
    everything = st.draw_pile()
    st.set_draw([])
    st.set_discard(everything)
    st.rng = SplitMix64(77)
    ref, pile = SplitMix64(77), list(everything)
    ref.shuffle(pile)
    game.apply(EndAttack())
    game.apply(EndTurn())
    assert st.hand_of(0) == [pile[-1]] and st.draw_pile() == pile[:-1] and st.discard_len == 0


def test_R9_6_A16_a_card_taken_from_an_eliminated_player_keeps_its_paid_flag() -> None:
    owners = [0] * 9 + [1] + [2] * 20
    game = position(BOARD, owners, [1] * 8 + [5] + [1] * 21, hands={1: [3, 4]})
    st = game.state
    st.paid[[3, 4]] = [True, False]  # 3 paid while seat 1 held it; 4 never paid
    game.apply(Deploy(0, st.pool))
    roll(game, 6, 6, 6, 1)
    game.apply(Attack(8, 9))
    game.apply(Occupy(3))
    game.apply(EndAttack())
    game.apply(EndTurn())
    game.timeout()  # seat 2's turn
    assert game.current == 0
    assert st.armies[3] == 1 and st.armies[4] == 3  # 3 pays no second time; 4 pays once now
    assert st.paid[3] and st.paid[4]


@pytest.mark.parametrize("hand", [list(c) for c in combinations([0, 1, 2, 30], 3)])
def test_R9_2_any_three_cards_with_a_wildcard_or_all_different_are_a_set(hand: list[int]) -> None:
    game = position(BOARD, [0] * 15 + [1] * 15, hands={0: hand})
    assert Trade(tuple(hand)) in game.legal_actions()  # type: ignore[arg-type]
