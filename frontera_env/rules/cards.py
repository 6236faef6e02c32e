"""Cards (R-9): sets, trade values, trades, the card-territory bonus, draws and the automatic trade AT."""

from __future__ import annotations

from itertools import combinations

from frontera_env.rules.context import WILD, Context
from frontera_env.state import State

#: the hand size that forces a trade (R-9.4, constant H)
HAND_LIMIT = 5
#: armies a card pays on its own territory (R-9.6, constant CB)
CARD_BONUS = 2


def trade_value(k: int) -> int:
    """Return v(k), the armies of a player's k-th trade: 4, 7, 10, then 10 + 5(k-3) (R-9.3, A20)."""
    return (4, 7, 10)[k - 1] if k <= 3 else 10 + 5 * (k - 3)


def is_set(ctx: Context, cards: tuple[int, ...]) -> bool:
    """Return True if three cards form a set: any wildcard, three alike or three different (R-9.2)."""
    syms = [int(ctx.symbol[c]) for c in cards]
    if WILD in syms:
        return True
    return len(set(syms)) in (1, 3)


def sets_in_hand(ctx: Context, hand: list[int]) -> list[tuple[int, int, int]]:
    """Return every set in ``hand`` as ascending card-id triples, in lexicographic order (R-9.2)."""
    return [c for c in combinations(sorted(hand), 3) if is_set(ctx, c)]


def trade(ctx: Context, st: State, seat: int, cards: tuple[int, int, int]) -> int:
    """Trade three cards: they go to discard with ``paid`` cleared; return v(trades) added to the pool (R-4.2)."""
    hand = st.hand_of(seat)
    for c in cards:
        hand.remove(c)
        st.discard[st.discard_len] = c
        st.discard_len += 1
        st.paid[c] = False
    st.set_hand(seat, hand)
    st.trades[seat] += 1
    value = trade_value(int(st.trades[seat]))
    st.pool += value
    return value


def card_territory_bonus(ctx: Context, st: State, seat: int) -> None:
    """Pay 2 armies on each owned territory whose unpaid card is in seat's hand, ascending ids (R-4.1.2, A15)."""
    for c in sorted(st.hand_of(seat)):
        if c < ctx.n and not st.paid[c] and st.owner[c] == seat:
            st.armies[c] += CARD_BONUS
            st.paid[c] = True


def conquests_to_draw(trades: int) -> int:
    """Return the conquests a turn needs to earn a card: 1, or 2 once the player has made 3 trades (A21)."""
    return 1 if trades < 3 else 2


def draw_card(st: State, seat: int) -> int:
    """Move the top card of ``draw`` to seat's hand, reshuffling ``discard`` first if ``draw`` is empty (R-8.1).

    Return the card id, or -1 when both piles are empty (only small custom maps can get there).
    """
    if st.draw_len == 0:
        pile = st.discard_pile()
        st.rng.shuffle(pile)
        st.set_draw(pile)
        st.set_discard([])
    if st.draw_len == 0:
        return -1
    st.draw_len -= 1
    card = int(st.draw[st.draw_len])
    st.draw[st.draw_len] = -1
    st.paid[card] = False
    st.hand[seat, st.hand_len[seat]] = card
    st.hand_len[seat] += 1
    return card


def auto_trade_set(ctx: Context, st: State, seat: int) -> tuple[int, int, int]:
    """Return AT's set: the smallest (wildcards, unpaid cards, sorted ids) among seat's sets (R-12.5, A41)."""

    def key(s: tuple[int, int, int]) -> tuple[int, int, tuple[int, int, int]]:
        wild = sum(1 for c in s if ctx.symbol[c] == WILD)
        unpaid = sum(1 for c in s if not st.paid[c])
        return wild, unpaid, s

    return min(sets_in_hand(ctx, st.hand_of(seat)), key=key)
