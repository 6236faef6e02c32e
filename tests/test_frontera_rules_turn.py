"""A turn (R-4 reinforcements, R-6 conquest and window, R-7 regroup, R-8 end of turn) and spec 4.2's worked turn."""

from __future__ import annotations

import pytest

from frontera_env.actions import Attack, Deploy, EndAttack, EndTurn, Occupy, Regroup, Trade
from frontera_env.rules.reinforce import base
from frontera_env.rules_errors import IllegalAction
from frontera_env.state import NONE
from tests.frontera_helpers import line_map, make_map, position, roll


def example_42_map():  # type: ignore[no-untyped-def]
    """Seat 0 holds 0..17 (a path ending in X = 17); Y = 18, Z = 19, U = 20 and 21..30 are seat 1's.

    31 territories, so 21 after three conquests stays below W(31) = 22.
    """
    land = [(t, t + 1) for t in range(17)] + [(17, 18), (18, 19), (17, 20)] + [(t, t + 1) for t in range(20, 30)]
    return make_map([[*range(11), 21], [*range(11, 21), *range(22, 31)]], land)


def test_worked_example_4_2_a_turn_with_the_transfer_quota() -> None:
    armies = [1] * 31
    armies[17], armies[18] = 3, 2
    game = position(example_42_map(), [0] * 18 + [1] * 13, armies)
    st = game.state
    assert st.pool == st.quota_left == base(18) == 9
    game.apply(Deploy(17, 9))
    roll(game, 6, 4, 2, 5, 3)
    game.apply(Attack(17, 18))
    assert (st.armies[18], st.armies[17]) == (3, 9) and tuple(st.window) == (17, 18, 3, 1, 11)
    game.apply(Occupy(8))
    assert (st.armies[18], st.armies[17], st.quota_left) == (8, 4, 4)
    roll(game, 2, 2, 1, 3, 5, 3, 1, 4)
    game.apply(Attack(18, 19))
    assert st.armies[18] == 7 and st.owner[19] == 1
    game.apply(Attack(18, 19))
    assert (st.armies[19], st.armies[18]) == (3, 4) and st.window[4] == 6
    game.apply(Occupy(1))
    assert (st.armies[19], st.armies[18], st.quota_left) == (1, 6, 4)  # withdrawing costs no quota
    roll(game, 6, 1, 1, 2)
    game.apply(Attack(17, 20))
    assert (st.armies[20], st.armies[17]) == (3, 1) and st.window[4] == 3
    game.apply(EndAttack())  # closes the window keeping 3 (A32)
    assert st.armies[20] == 3 and st.conquests == 3
    game.apply(Regroup(18, 0, 5))
    hand = st.hand_len[0]
    game.apply(EndTurn())
    assert st.hand_len[0] == hand + 1 and st.current == 1  # one card for the turn's conquests


def test_R4_1_base_reinforcements_for_every_territory_count() -> None:
    assert [base(t) for t in range(8)] == [3] * 8
    assert base(17) == 8 and base(5) == 3 and all(base(t) == max(3, t // 2) for t in range(200))


def test_R4_1_region_bonus_and_an_ownerless_territory_blocks_it() -> None:
    board = line_map(8, 2)  # regions 0..3 (bonus 2) and 4..7 (bonus 2)
    game = position(board, [0, 0, 0, 0, 0, 1, 1, 1])
    assert game.state.pool == 3 + 2
    game = position(board, [0, 0, 0, NONE, 0, 1, 1, 1], players=2)
    assert game.state.pool == 3  # the ownerless territory blocks the bonus (1.3, A44)


def test_worked_example_4_3_card_territory_bonus_at_the_start_of_the_turn() -> None:
    board = line_map(14, 3)
    game = position(board, [0] * 8 + [1] * 6, hands={0: [7, 12, 14]})
    st = game.state
    assert st.armies[7] == 3 and st.paid[7] and not st.paid[12] and not st.paid[14]
    assert st.pool == st.quota_left == 4 + 2  # the bonus goes on the territory, outside pool and quota (A15)
    game.apply(Trade((7, 12, 14)))
    assert st.pool == 6 + 4 and st.quota_left == 6 and st.trades[0] == 1  # trades add no quota (A30)
    assert st.discard_pile() == [7, 12, 14] and not st.paid[7]


def test_R9_6_bonus_paid_once_per_stay_again_after_a_reshuffle_never_for_wildcards() -> None:
    board = line_map(8, 2)
    game = position(board, [0, 0, 0, 0, 1, 1, 1, 1], hands={0: [2, 8]})
    st = game.state
    assert st.armies[2] == 3 and st.paid[2] and not st.paid[8] and st.armies.sum() == 8 + 2  # wildcard 8 pays nothing
    game.apply(Deploy(3, st.pool))
    game.apply(EndAttack())
    game.apply(EndTurn())
    game.apply(Deploy(4, st.pool))
    game.apply(EndAttack())
    game.apply(EndTurn())
    assert st.armies[2] == 3  # paid already this stay
    st.set_hand(0, [8])
    st.paid[2] = False  # as after the discard and a reshuffle
    st.set_draw([2])
    st.conquests = 1
    game.apply(Deploy(3, st.pool))
    game.apply(EndAttack())
    game.apply(EndTurn())  # draws card 2 again
    assert st.hand_of(0) == [8, 2]
    game.apply(Deploy(4, st.pool))
    game.apply(EndAttack())
    game.apply(EndTurn())
    assert st.armies[2] == 5 and st.paid[2]


def test_R4_3_A18_a_hand_of_five_or_an_unplaced_pool_blocks_the_attack_phase() -> None:
    game = position(line_map(8, 2), [0, 0, 0, 0, 1, 1, 1, 1], [1, 1, 1, 5, 1, 1, 1, 1], hands={0: [0, 1, 4, 6, 7]})
    with pytest.raises(IllegalAction, match="R-4.3"):
        game.apply(EndAttack())
    game.apply(Deploy(3, game.state.pool))
    for act in (EndAttack(), Attack(3, 4)):
        with pytest.raises(IllegalAction, match="R-4.3"):
            game.apply(act)
    assert not any(isinstance(a, Attack | EndAttack) for a in game.legal_actions())
    with pytest.raises(IllegalAction, match="R-9.2"):
        game.apply(Trade((0, 1, 6)))  # galleon, cannon, galleon: no set
    game.apply(Trade((1, 4, 7)))  # three cannons
    game.apply(Deploy(3, game.state.pool))
    assert Attack(3, 4) in game.legal_actions()
    game.apply(EndAttack())
    assert game.phase == "regroup"


def test_worked_example_4_3_elimination_transfers_the_hand_and_forces_trades_and_placement() -> None:
    board = line_map(30, 2)  # wildcards are 30 and 31
    owners = [0] * 9 + [1] + [2] * 20
    armies = [1] * 8 + [5] + [1] * 21
    game = position(board, owners, armies, hands={0: [0, 3, 1, 4], 1: [2, 5, 6, 7, 30]}, trades={0: 2})
    st = game.state
    game.apply(Deploy(0, st.pool))
    quota = st.quota_left
    roll(game, 6, 6, 6, 1)
    game.apply(Attack(8, 9))
    assert st.status[1] == 1 and st.hand_of(0) == [0, 3, 1, 4, 2, 5, 6, 7, 30] and st.hand_len[1] == 0
    game.apply(Occupy(3))
    assert game.phase == "forced"
    assert {type(a) for a in game.legal_actions()} == {Trade}
    game.apply(Trade((0, 3, 6)))
    assert st.pool == 10 and st.hand_len[0] == 6 and game.phase == "forced"
    with pytest.raises(IllegalAction, match="R-4.2"):
        game.apply(Deploy(0, 1))
    game.apply(Trade((1, 4, 7)))
    assert st.pool == 25 and st.hand_len[0] == 3 and st.trades[0] == 4 and st.quota_left == quota
    assert {type(a) for a in game.legal_actions()} == {Deploy}  # no optional trade below 5 cards
    game.apply(Deploy(0, 25))
    assert game.phase == "attack"
    game.apply(EndAttack())
    game.apply(EndTurn())
    assert st.hand_len[0] == 3  # 4 trades: one conquest no longer earns a card (A21)


def test_R6_1_the_automatic_move_equals_the_conquering_rolls_dice() -> None:
    game = position(line_map(6, 2), [0, 0, 0, 1, 1, 1], [1, 1, 3, 1, 1, 1])
    game.state.quota_left = 0
    game.apply(Deploy(2, game.state.pool))
    game.state.armies[2] = 3
    roll(game, 6, 6, 1)
    game.apply(Attack(2, 3))
    assert (game.state.armies[3], game.state.armies[2]) == (2, 1) and game.phase == "window"
    assert tuple(game.state.window) == (2, 3, 2, 1, 2)  # quota spent: only the automatic armies cross


def test_R6_2_window_bounds_quota_charging_sharing_and_lapse() -> None:
    game = position(line_map(20, 2), [0] * 4 + [1] * 16, [1, 1, 1, 10] + [1] * 16)
    st = game.state
    game.apply(Deploy(3, st.pool))  # pool = quota = 3
    roll(game, 6, 6, 6, 1)
    game.apply(Attack(3, 4))
    assert tuple(st.window) == (3, 4, 3, 1, 3 + 3)
    for bad in (0, 7):
        with pytest.raises(IllegalAction, match="R-6.2"):
            game.apply(Occupy(bad))
    game.apply(Occupy(5))
    assert (st.armies[4], st.armies[3], st.quota_left) == (5, 8, 1)
    with pytest.raises(IllegalAction, match="R-6.2"):
        game.apply(Occupy(4))  # never reopened
    roll(game, 6, 6, 6, 1)
    game.apply(Attack(4, 5))
    assert st.window[4] == 3 + 1  # the quota is shared by the turn's conquests
    roll(game, 6, 6, 1)
    game.apply(Attack(5, 6))  # closes the window at a = 3: an attack from the new territory
    assert st.armies[5] == 1 and st.armies[6] == 2 and st.quota_left == 1
    game.apply(EndAttack())
    game.apply(EndTurn())
    assert st.quota_left == st.pool  # unused quota lapsed; seat 1's turn has its own


def test_R10_2_reaching_70_percent_mid_attack_ends_the_game_with_no_window_and_no_draw() -> None:
    game = position(line_map(10, 2), [0] * 6 + [1] * 4, [1] * 5 + [9] + [1] * 4)
    game.apply(Deploy(5, game.state.pool))
    hand = game.state.hand_len[0]
    roll(game, 6, 6, 6, 1)
    game.apply(Attack(5, 6))
    assert game.over and game.winner == 0 and game.state.territory_count(0) == 7 == game.ctx.win
    assert game.state.window[0] == -1 and game.state.hand_len[0] == hand and game.legal_actions() == []


def test_R7_regroup_paths_limits_and_quota() -> None:
    board = make_map([[0, 1, 2], [3, 4, 5]], [(0, 1), (1, 2), (2, 3), (3, 4)], sea=[(0, 5)])
    game = position(board, [0, 1, 0, 0, 1, NONE], [4, 1, 1, 1, 1, 1], players=2)
    st = game.state
    game.apply(Deploy(0, st.pool))
    game.apply(EndAttack())
    quota = st.quota_left
    dests = {a.dest for a in game.legal_actions() if isinstance(a, Regroup) and a.source == 0}
    assert dests == set()  # 1 is a rival's and 5 ownerless: both block the path (A34)
    st.owner[1] = 0
    dests = {a.dest for a in game.legal_actions() if isinstance(a, Regroup) and a.source == 0}
    assert dests == {1, 2, 3}
    with pytest.raises(IllegalAction, match="R-7.1"):
        game.apply(Regroup(0, 3, int(st.armies[0])))  # at least one army stays
    game.apply(Regroup(0, 3, 2))
    game.apply(Regroup(3, 2, 2))  # the same armies move again (A35)
    game.apply(Regroup(2, 1, 1))
    assert st.moves_left == 0 and st.quota_left == quota
    with pytest.raises(IllegalAction, match="R-7.1"):
        game.apply(Regroup(2, 1, 1))
    assert game.legal_actions() == [EndTurn()]
