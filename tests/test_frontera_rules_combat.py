"""Combat (R-5): the exhaustive odds table of spec 0.2, ties, pairs, dice counts, attack legality, the roll order."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction as F
from itertools import product

import pytest

from frontera_env.actions import Attack, Blitz
from frontera_env.prng import SplitMix64
from frontera_env.rules.combat import dice_counts, losses
from frontera_env.rules_errors import IllegalAction
from frontera_env.state import NONE
from tests.frontera_helpers import make_map, position, roll

#: spec 0.2, every cell: (ad, dd) -> {(attacker losses, defender losses): probability}
ODDS = {
    (1, 1): {(1, 0): F(7, 12), (0, 1): F(5, 12)},
    (1, 2): {(1, 0): F(161, 216), (0, 1): F(55, 216)},
    (1, 3): {(1, 0): F(119, 144), (0, 1): F(25, 144)},
    (2, 1): {(1, 0): F(91, 216), (0, 1): F(125, 216)},
    (2, 2): {(2, 0): F(581, 1296), (1, 1): F(35, 108), (0, 2): F(295, 1296)},
    (2, 3): {(2, 0): F(301, 486), (1, 1): F(1981, 7776), (0, 2): F(979, 7776)},
    (3, 1): {(1, 0): F(49, 144), (0, 1): F(95, 144)},
    (3, 2): {(2, 0): F(2275, 7776), (1, 1): F(2611, 7776), (0, 2): F(1445, 3888)},
    (3, 3): {(3, 0): F(5957, 15552), (2, 1): F(343, 1296), (1, 2): F(371, 1728), (0, 3): F(535, 3888)},
}


@pytest.mark.parametrize(("ad", "dd"), sorted(ODDS))
def test_R5_2_exhaustive_enumeration_reproduces_the_odds_table_of_0_2(ad: int, dd: int) -> None:
    outcomes = Counter(losses(list(r[:ad]), list(r[ad:])) for r in product(range(1, 7), repeat=ad + dd))
    total = 6 ** (ad + dd)
    assert {k: F(v, total) for k, v in outcomes.items()} == ODDS[(ad, dd)]


def test_R5_2_ties_go_to_the_defender_and_pairs_are_the_smaller_count() -> None:
    assert losses([6, 6, 6], [6]) == (1, 0)
    assert losses([5, 3, 1], [5, 2]) == (1, 1)  # the page's example (src Ejemplo)
    assert losses([6], [1, 1, 1]) == (0, 1)
    assert sum(losses([4, 4, 4], [3, 3])) == 2


@pytest.mark.parametrize(("a", "d", "expected"), [(2, 1, (1, 1)), (3, 2, (2, 2)), (4, 3, (3, 3)), (9, 7, (3, 3))])
def test_R5_2_A26_A27_dice_counts_follow_the_armies(a: int, d: int, expected: tuple[int, int]) -> None:
    assert dice_counts(a, d) == expected


def duel_map():  # type: ignore[no-untyped-def]
    """0-1-2 by land, 0~3 by sea; 3 regions so nobody owns a region."""
    return make_map([[0, 1], [2], [3]], [(0, 1), (1, 2)], sea=[(0, 3)], bonuses=[0, 0, 0])


def test_R5_1_attack_legality_armies_neighbour_owner_sea_and_ownerless() -> None:
    game = position(duel_map(), [0, 1, 0, NONE], [1, 2, 3, 2], players=2)
    game.state.pool = 0
    attacks = {(a.source, a.target) for a in game.legal_actions() if isinstance(a, Attack)}
    assert attacks == {(2, 1)}  # 0 has 1 army; 2's only rival neighbour is 1
    game.state.armies[0] = 2
    attacks = {(a.source, a.target) for a in game.legal_actions() if isinstance(a, Attack)}
    assert attacks == {(0, 1), (0, 3), (2, 1)}  # sea link and the ownerless territory 3 count (A5, A33)
    for bad in (Attack(2, 3), Attack(1, 0), Attack(0, 2)):
        with pytest.raises(IllegalAction, match="R-5.1"):
            game.apply(bad)


def test_R5_2_attacker_dice_are_drawn_before_the_defenders() -> None:
    game = position(duel_map(), [0, 1, 0, 1], [4, 3, 1, 1], players=2)
    game.state.pool = 0
    game.state.rng = SplitMix64(123)
    ref = SplitMix64(123)
    game.apply(Attack(0, 1))
    att = [1 + ref.below(6) for _ in range(3)]
    dfn = [1 + ref.below(6) for _ in range(3)]
    assert list(game.state.last_roll[4:7]) == att and list(game.state.last_roll[7:10]) == dfn
    lost_a, lost_d = losses(att, dfn)
    assert (game.state.armies[0], game.state.armies[1]) == (4 - lost_a, 3 - lost_d)


def test_R5_3_a_roll_that_does_not_conquer_stays_in_attack() -> None:
    game = position(duel_map(), [0, 1, 0, 1], [4, 2, 1, 1], players=2)
    game.state.pool = 0
    roll(game, 5, 3, 1, 5, 2)  # the page's example: each side loses one (src Ejemplo)
    game.apply(Attack(0, 1))
    assert game.phase == "attack" and game.state.owner[1] == 1
    assert (game.state.armies[0], game.state.armies[1]) == (3, 1)


def test_A29_blitz_rolls_until_the_source_has_one_army() -> None:
    game = position(duel_map(), [0, 1, 0, 1], [3, 3, 1, 1], players=2)
    game.state.pool = 0
    roll(game, 1, 1, 6, 6, 6, 1, 6, 6, 6)  # 2 dice vs 3: loses 2 -> source has 1
    game.apply(Blitz(0, 1))
    assert game.state.armies[0] == 1 and game.state.owner[1] == 1 and game.phase == "attack"


def test_R6_1_A28_a_conquering_roll_never_costs_the_attacker_an_army() -> None:
    """Every roll that empties the target (dd = armies(t) <= 3) is won on every pair, over all dice."""
    for armies_t in (1, 2, 3):
        for ad in (1, 2, 3):
            dd = min(3, armies_t)
            for dice in product(range(1, 7), repeat=ad + dd):
                lost_a, lost_d = losses(list(dice[:ad]), list(dice[ad:]))
                if lost_d == armies_t:
                    assert lost_a == 0
