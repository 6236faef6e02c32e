"""Attack and combat (R-5): legality, dice counts, one roll from the game PRNG and its losses."""

from __future__ import annotations

from frontera_env.prng import SplitMix64
from frontera_env.rules.context import Context
from frontera_env.state import State


def can_attack(ctx: Context, st: State, source: int, target: int) -> bool:
    """Return True if ATTACK(source, target) meets R-5.1: own source with >= 2 armies, non-own neighbour."""
    return (
        st.owner[source] == st.current
        and st.armies[source] >= 2
        and target in ctx.neighbours[source]
        and st.owner[target] != st.current
    )


def dice_counts(attacker_armies: int, defender_armies: int) -> tuple[int, int]:
    """Return (ad, dd) = (min(3, armies(s) - 1), min(3, armies(t))) (R-5.2, A26, A27)."""
    return min(3, attacker_armies - 1), min(3, defender_armies)


def losses(attack: list[int], defence: list[int]) -> tuple[int, int]:
    """Return (attacker losses, defender losses): sorted pairs, higher die wins, ties to the defender (R-5.2)."""
    a, d = sorted(attack, reverse=True), sorted(defence, reverse=True)
    lost_a = lost_d = 0
    for x, y in zip(a, d, strict=False):
        if x > y:
            lost_d += 1
        else:
            lost_a += 1
    return lost_a, lost_d


def roll(rng: SplitMix64, ad: int, dd: int) -> tuple[list[int], list[int]]:
    """Return the attacker's ``ad`` dice, then the defender's ``dd`` dice, each 1 + below(6) (R-5.2)."""
    attack = [1 + rng.below(6) for _ in range(ad)]
    defence = [1 + rng.below(6) for _ in range(dd)]
    return attack, defence


def one_roll(st: State, source: int, target: int) -> int:
    """Roll once on (source, target), remove the losses, record the roll and return ad (R-5.2, R-5.3)."""
    ad, dd = dice_counts(int(st.armies[source]), int(st.armies[target]))
    attack, defence = roll(st.rng, ad, dd)
    lost_a, lost_d = losses(attack, defence)
    st.armies[source] -= lost_a
    st.armies[target] -= lost_d
    st.last_roll[:] = 0
    st.last_roll[:4] = (source, target, st.owner[target], st.current)
    st.last_roll[4 : 4 + ad] = attack
    st.last_roll[7 : 7 + dd] = defence
    return ad
