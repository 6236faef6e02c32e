"""Frontera's rules compiled (numba) over :mod:`frontera_env.arrays` rows, on spec 6.2's action indices.

Two kernels carry the game after the deal: :func:`mask` fills the legal indices of the seat to act (spec 6.3,
exactly ``frontera_env.encoding.action_mask``) and :func:`step` plays one index as ``frontera_v0`` does
(``encoding.decode`` then ``engine.Game.apply``: sequential hidden placement with the env's automatic Ready,
trades by CC, attack and blitz, the adjust window, the forced trade, the three-step regroup, the end of turn with
its draw, elimination, wins and truncation). Dice and reshuffles draw from the row's SplitMix64 state in the
same order as the Python engine (G-1, R-2.6), so both play identical games; the lock-step test
(``tests/test_frontera_kernel.py``) checks every array after every action. The deal (R-2.2..R-2.6) stays in
Python (``Game.new``): once per game, and the fog deal's zone growing reads best as Python.

The Python engine (``frontera_env.rules``) is the readable statement of the rules; each function here names the
rule and the Python function it mirrors. Every kernel takes ``(T, S, g)``: the map's :class:`Tables`, a
:class:`Batch` and the row. ``W`` is an ``int64 [4, N + 2]`` workspace (:func:`workspace`).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from frontera_env.arrays import (
    CONQUESTS,
    CURRENT,
    DISCARD_LEN,
    DRAW_LEN,
    MOVES,
    OPENER,
    P_BLITZ,
    P_BUCKETS,
    P_CARDS,
    P_E,
    P_MAX_TURNS,
    P_N,
    P_WIN,
    PHASE,
    POOL,
    PREVIOUS,
    QUOTA,
    ROUND_POS,
    SEL_DEST,
    SEL_SOURCE,
    TRUNCATED,
    TURN,
    WINNER,
)
from frontera_env.rules.cards import CARD_BONUS, HAND_LIMIT
from frontera_env.state import (
    ACTIVE,
    ATTACK,
    ELIMINATED,
    FORCED,
    MOVES_PER_TURN,
    NONE,
    OVER,
    REGROUP,
    REINFORCE,
    SETUP,
    WINDOW,
)

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_PATTERNS = 13


def workspace(territories: int) -> NDArray[np.int64]:
    """Return the scratch rows the kernels need (component labels, stacks, hands): ``int64 [4, N + 2]``."""
    return np.zeros((4, territories + 2), np.int64)


# --- the PRNG (G-1) -------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def below(S, g, n):  # type: ignore[no-untyped-def]
    """Return ``next() mod n`` of row g's SplitMix64 and advance it (``prng.SplitMix64.below``)."""
    z = S.rng[g] + _GOLDEN
    S.rng[g] = z
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    z = z ^ (z >> np.uint64(31))
    return np.int64(z % np.uint64(n))


# --- action layout (spec 6.2) ---------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def offsets(T):  # type: ignore[no-untyped-def]
    """Return the block starts (deploy, trade, attack, blitz, occupy, end_attack, from, to, amount, end_turn)."""
    n, e, b = T.params[P_N], T.params[P_E], T.params[P_BUCKETS]
    trade = n * b
    attack = trade + _PATTERNS
    blitz = attack + e
    occupy = blitz + e
    end_attack = occupy + b + 1
    r_from = end_attack + 1
    r_to = r_from + n
    r_amount = r_to + n
    return 0, trade, attack, blitz, occupy, end_attack, r_from, r_to, r_amount, r_amount + b


@njit(cache=True, nogil=True)
def usable(lo, hi, buckets):  # type: ignore[no-untyped-def]
    """Return how many buckets ``amount(b; lo, hi)`` uses (``encoding.bucket_amounts``'s length)."""
    span = hi - lo + 1
    return 0 if span <= 0 else min(span, buckets)


@njit(cache=True, nogil=True)
def amount(lo, hi, buckets, b):  # type: ignore[no-untyped-def]
    """Return ``amount(b; lo, hi)`` (spec 6.2, ``encoding.bucket_amounts``) for a usable bucket b."""
    if hi - lo + 1 <= buckets:
        return lo + b
    return lo + ((hi - lo) * b * 2 + (buckets - 1)) // (2 * (buckets - 1))


# --- small reads ------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def territory_count(S, g, seat):  # type: ignore[no-untyped-def]
    """Return how many territories ``seat`` owns (``State.territory_count``)."""
    k = 0
    for t in range(S.owner.shape[1]):
        if S.owner[g, t] == seat:
            k += 1
    return k


@njit(cache=True, nogil=True)
def active_count(S, g):  # type: ignore[no-untyped-def]
    """Return how many seats are still active."""
    k = 0
    for p in range(S.status.shape[1]):
        if S.status[g, p] == ACTIVE:
            k += 1
    return k


@njit(cache=True, nogil=True)
def components(T, S, g, seat, work):  # type: ignore[no-untyped-def]
    """Return ``work[1]`` filled with a component id per own territory (A34: own paths, land or sea), -1 elsewhere.

    A component's id is its smallest member, as ``encoding.own_components`` labels them; ``work[2]`` is the stack.
    """
    n = T.params[P_N]
    label, stack = work[1], work[2]
    label[:] = NONE
    for start in range(n):
        if S.owner[g, start] != seat or label[start] >= 0:
            continue
        label[start] = start
        top = 1
        stack[0] = start
        while top:
            top -= 1
            u = stack[top]
            for k in range(T.nbr_off[u], T.nbr_off[u + 1]):
                v = T.nbr[k]
                if S.owner[g, v] == seat and label[v] < 0:
                    label[v] = start
                    stack[top] = v
                    top += 1
    return label


# --- setup (R-2.7) ----------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def setup_seat(S, g):  # type: ignore[no-untyped-def]
    """Return the first active, unready seat in order0, or NONE (``setup.setup_seat``)."""
    for i in range(S.order0.shape[1]):
        seat = S.order0[g, i]
        if S.status[g, seat] == ACTIVE and not S.ready[g, seat]:
            return np.int64(seat)
    return np.int64(NONE)


@njit(cache=True, nogil=True)
def place(T, S, g, seat, t, count):  # type: ignore[no-untyped-def]
    """Place ``count`` provisional armies, and declare Ready once the seat has none left (R-2.7, spec 6.6)."""
    S.placed[g, seat, t] += count
    S.deploy_left[g, seat] -= count
    S.sc[g, CURRENT] = setup_seat(S, g)
    if S.deploy_left[g, seat] != 0:
        return
    S.ready[g, seat] = True
    S.sc[g, CURRENT] = setup_seat(S, g)
    for p in range(S.status.shape[1]):
        if S.status[g, p] == ACTIVE and not S.ready[g, p]:
            return
    start_game(T, S, g)


@njit(cache=True, nogil=True)
def start_game(T, S, g):  # type: ignore[no-untyped-def]
    """Reveal every placement at once and start turn 1 with order0's first active seat (R-2.7, R-3.1)."""
    players = S.status.shape[1]
    for p in range(players):
        if S.status[g, p] == ACTIVE:
            S.armies[g] += S.placed[g, p]
    S.placed[g] = 0
    S.ready[g] = False
    S.sc[g, PREVIOUS] = NONE
    first = NONE
    for i in range(players):
        if S.status[g, S.order0[g, i]] == ACTIVE:
            S.sc[g, OPENER] = i
            S.sc[g, ROUND_POS] = 0
            first = S.order0[g, i]
            break
    start_turn(T, S, g, first)


# --- turns (R-3, R-4, R-8) --------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def start_turn(T, S, g, seat):  # type: ignore[no-untyped-def]
    """Start seat's turn: card-territory bonus, pool = quota = Q, moves and window reset (R-4.1, A15, A30)."""
    S.sc[g, CURRENT] = seat
    S.sc[g, TURN] += 1
    n = T.params[P_N]
    if T.params[P_CARDS]:
        # ascending card ids, as rules.cards.card_territory_bonus sorts the hand
        for c in range(n):
            if S.paid[g, c] or S.owner[g, c] != seat:
                continue
            for k in range(S.hand_len[g, seat]):
                if S.hand[g, seat, k] == c:
                    S.armies[g, c] += CARD_BONUS
                    S.paid[g, c] = True
                    break
    q = max(3, territory_count(S, g, seat) // 2)
    for r in range(T.bonus.shape[0]):
        whole = True
        for k in range(T.reg_off[r], T.reg_off[r + 1]):
            if S.owner[g, T.reg_mem[k]] != seat:
                whole = False
                break
        if whole:
            q += T.bonus[r]
    S.sc[g, POOL] = q
    S.sc[g, QUOTA] = q
    S.sc[g, CONQUESTS] = 0
    S.sc[g, MOVES] = MOVES_PER_TURN
    S.window[g] = NONE
    S.sc[g, PHASE] = REINFORCE


@njit(cache=True, nogil=True)
def end_turn(T, S, g):  # type: ignore[no-untyped-def]
    """Draw a card if the turn's conquests earn it (R-8.1, A21), then pass the turn (``turn_end.end_turn``)."""
    seat = S.sc[g, CURRENT]
    need = 1 if S.trades[g, seat] < 3 else 2
    if T.params[P_CARDS] and S.sc[g, CONQUESTS] >= need:
        draw_card(S, g, seat)
    pass_turn(T, S, g)


@njit(cache=True, nogil=True)
def draw_card(S, g, seat):  # type: ignore[no-untyped-def]
    """Move the top card to seat's hand, reshuffling the discard pile first when the draw pile is empty (R-8.1)."""
    if S.sc[g, DRAW_LEN] == 0:
        k = S.sc[g, DISCARD_LEN]
        S.draw[g] = NONE
        S.draw[g, :k] = S.discard[g, :k]
        for i in range(k - 1, 0, -1):  # Fisher-Yates from the end (G-1)
            j = below(S, g, i + 1)
            tmp = S.draw[g, i]
            S.draw[g, i] = S.draw[g, j]
            S.draw[g, j] = tmp
        S.sc[g, DRAW_LEN] = k
        S.discard[g] = NONE
        S.sc[g, DISCARD_LEN] = 0
    if S.sc[g, DRAW_LEN] == 0:
        return
    S.sc[g, DRAW_LEN] -= 1
    top = S.sc[g, DRAW_LEN]
    card = S.draw[g, top]
    S.draw[g, top] = NONE
    S.paid[g, card] = False
    S.hand[g, seat, S.hand_len[g, seat]] = card
    S.hand_len[g, seat] += 1


@njit(cache=True, nogil=True)
def pass_turn(T, S, g):  # type: ignore[no-untyped-def]
    """Truncate at max_turns (R-8.3, A39) or start the next seat's turn (R-8.4, ``turn_end.pass_turn``)."""
    S.window[g] = NONE
    S.sc[g, POOL] = 0
    if T.params[P_MAX_TURNS] and S.sc[g, TURN] >= T.params[P_MAX_TURNS]:
        S.sc[g, PHASE] = OVER
        S.sc[g, TRUNCATED] = 1
        return
    nxt = next_seat(S, g)
    S.sc[g, PREVIOUS] = S.sc[g, CURRENT]
    start_turn(T, S, g, nxt)


@njit(cache=True, nogil=True)
def next_seat(S, g):  # type: ignore[no-untyped-def]
    """Return the seat that plays next: strict alternation between two (R-3.3, A14), else rotation (R-3.2)."""
    if active_count(S, g) == 2:
        seat = alternate(S, g, S.sc[g, CURRENT], S.sc[g, PREVIOUS])
        if seat != NONE:
            return seat
    return rotate(S, g)


@njit(cache=True, nogil=True)
def alternate(S, g, cur, prev):  # type: ignore[no-untyped-def]
    """Return the other of two active seats after ``cur`` (R-3.3), or NONE where the rotation decides (A14).

    When ``cur`` has left, both qualify, and the one who did not play the turn before (``prev``) goes.
    """
    first = second = NONE
    for p in range(S.status.shape[1]):
        if S.status[g, p] == ACTIVE and p != cur:
            if first == NONE:
                first = p
            else:
                second = p
    if second == NONE:
        return np.int64(first)
    if first == prev:
        return np.int64(second)
    if second == prev:
        return np.int64(first)
    return np.int64(NONE)


@njit(cache=True, nogil=True)
def rotate(S, g):  # type: ignore[no-untyped-def]
    """Return the next active seat of the round, or open the next round after the opener (R-3.2, A13)."""
    seat, S.sc[g, OPENER], S.sc[g, ROUND_POS] = rotate_from(S, g, S.sc[g, OPENER], S.sc[g, ROUND_POS])
    return seat


@njit(cache=True, nogil=True)
def rotate_from(S, g, opener, pos):  # type: ignore[no-untyped-def]
    """Return the seat after round position ``pos`` of the round ``opener`` opened, and the opener and position
    it plays at: the next active seat of the round, or the next round's first after the opener (R-3.2, A13)."""
    p = S.status.shape[1]
    for k in range(pos + 1, p):
        seat = S.order0[g, (opener + k) % p]
        if S.status[g, seat] == ACTIVE:
            return np.int64(seat), np.int64(opener), np.int64(k)
    for k in range(1, p + 1):
        i = (opener + k) % p
        if S.status[g, S.order0[g, i]] == ACTIVE:
            return np.int64(S.order0[g, i]), np.int64(i), np.int64(0)
    return np.int64(NONE), np.int64(opener), np.int64(pos)


# --- cards (R-9) ------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def trade(T, S, g, pattern, work):  # type: ignore[no-untyped-def]
    """Trade the three cards CC picks for ``pattern`` (spec 6.2 CC, R-9.2) and add v(k) to the pool (R-4.2)."""
    seat = S.sc[g, CURRENT]
    size = S.hand_len[g, seat]
    chosen = work[0]
    for k in range(3):
        chosen[k] = NONE
    for k in range(3):
        sym = _pattern_symbol(T, pattern, k)
        pick = NONE
        for c in range(T.symbol.shape[0]):  # ascending ids: the lowest first, a paid one first (not wildcards)
            if T.symbol[c] != sym or c == chosen[0] or c == chosen[1] or not _in_hand(S, g, seat, c):
                continue
            if pick == NONE:
                pick = c
            if sym == 3 or S.paid[g, c]:
                pick = c
                break
        chosen[k] = pick
    kept = 0
    for k in range(size):
        c = S.hand[g, seat, k]
        if c == chosen[0] or c == chosen[1] or c == chosen[2]:
            continue
        S.hand[g, seat, kept] = c
        kept += 1
    S.hand[g, seat, kept:] = NONE
    S.hand_len[g, seat] = kept
    # the three go to discard in ascending id order, as Trade(cards) names them
    a, b, c = chosen[0], chosen[1], chosen[2]
    lo, hi = min(a, b, c), max(a, b, c)
    mid = a + b + c - lo - hi
    for card in (lo, mid, hi):
        S.discard[g, S.sc[g, DISCARD_LEN]] = card
        S.sc[g, DISCARD_LEN] += 1
        S.paid[g, card] = False
    S.trades[g, seat] += 1
    k = S.trades[g, seat]
    S.sc[g, POOL] += (4, 7, 10)[k - 1] if k <= 3 else 10 + 5 * (k - 3)  # v(k) (R-9.3, A20)


@njit(cache=True, nogil=True)
def _pattern_symbol(T, pattern, k):  # type: ignore[no-untyped-def]
    """Return the symbol of the k-th card of ``pattern`` (G, C, B in order, then wildcards: PATTERNS' spelling)."""
    seen = 0
    for s in range(4):
        seen += T.need[pattern, s]
        if k < seen:
            return s
    return 3


@njit(cache=True, nogil=True)
def _in_hand(S, g, seat, c):  # type: ignore[no-untyped-def]
    for k in range(S.hand_len[g, seat]):  # noqa: SIM110 - a plain loop compiles; a generator in any() may not
        if S.hand[g, seat, k] == c:
            return True
    return False


# --- combat and conquest (R-5, R-6, R-10) ----------------------------------------------------------------


@njit(cache=True, nogil=True)
def one_roll(S, g, source, target):  # type: ignore[no-untyped-def]
    """Roll once: attacker's dice then defender's, losses by sorted pairs, ties to the defender (R-5.2)."""
    ad = min(3, S.armies[g, source] - 1)
    dd = min(3, S.armies[g, target])
    roll = S.last_roll[g]
    roll[:] = 0
    roll[0], roll[1], roll[2], roll[3] = source, target, S.owner[g, target], S.sc[g, CURRENT]
    for k in range(ad):
        roll[4 + k] = 1 + below(S, g, 6)
    for k in range(dd):
        roll[7 + k] = 1 + below(S, g, 6)
    att = _descending(roll[4], roll[5], roll[6])
    dfn = _descending(roll[7], roll[8], roll[9])
    for k in range(min(ad, dd)):
        if att[k] > dfn[k]:
            S.armies[g, target] -= 1
        else:
            S.armies[g, source] -= 1
    return ad


@njit(cache=True, nogil=True)
def _descending(a, b, c):  # type: ignore[no-untyped-def]
    """Return three dice highest first (an unrolled die is 0, so it sorts last and is never paired)."""
    if a < b:
        a, b = b, a
    if b < c:
        b, c = c, b
    if a < b:
        a, b = b, a
    return a, b, c


@njit(cache=True, nogil=True)
def attack(T, S, g, source, target, blitz):  # type: ignore[no-untyped-def]
    """Roll once, or until the target falls or the source has 1 army (A29); take an emptied target (R-6.1)."""
    while True:
        ad = one_roll(S, g, source, target)
        if S.armies[g, target] == 0:
            conquer(T, S, g, source, target, ad)
            return
        if not blitz or S.armies[g, source] < 2:
            return


@njit(cache=True, nogil=True)
def conquer(T, S, g, source, target, ad):  # type: ignore[no-untyped-def]
    """Move ``ad`` in, eliminate (the hand passes, A16), check the win, open the window (R-6.1, R-6.2, R-10.2)."""
    seat = S.sc[g, CURRENT]
    prev = S.owner[g, target]
    S.owner[g, target] = seat
    S.armies[g, target] = ad
    S.armies[g, source] -= ad
    S.sc[g, CONQUESTS] += 1
    if prev != NONE and territory_count(S, g, prev) == 0:
        S.status[g, prev] = ELIMINATED
        for k in range(S.hand_len[g, prev]):
            S.hand[g, seat, S.hand_len[g, seat]] = S.hand[g, prev, k]
            S.hand_len[g, seat] += 1
        S.hand[g, prev] = NONE
        S.hand_len[g, prev] = 0
    if check_win(T, S, g):
        return
    hi = ad + min(S.sc[g, QUOTA], S.armies[g, source] - 1)
    if hi > 1:
        w = S.window[g]
        w[0], w[1], w[2], w[3], w[4] = source, target, ad, 1, hi
        S.sc[g, PHASE] = WINDOW
    else:
        close_window(S, g)


@njit(cache=True, nogil=True)
def check_win(T, S, g):  # type: ignore[no-untyped-def]
    """End the game if one active seat is left or the current seat owns >= W(N); return whether (R-10.1)."""
    winner = NONE
    if active_count(S, g) == 1:
        for p in range(S.status.shape[1]):
            if S.status[g, p] == ACTIVE:
                winner = p
    else:
        cur = S.sc[g, CURRENT]
        if cur >= 0 and S.status[g, cur] == ACTIVE and territory_count(S, g, cur) >= T.params[P_WIN]:
            winner = cur
    if winner == NONE:
        return False
    S.sc[g, WINNER] = winner
    S.sc[g, PHASE] = OVER
    S.window[g] = NONE
    return True


@njit(cache=True, nogil=True)
def close_window(S, g):  # type: ignore[no-untyped-def]
    """Close the window; the forced trade follows with 5+ cards (R-6.1 step 5, ``conquest.close_window``)."""
    S.window[g] = NONE
    S.sc[g, PHASE] = FORCED if S.hand_len[g, S.sc[g, CURRENT]] >= HAND_LIMIT else ATTACK


@njit(cache=True, nogil=True)
def occupy(S, g, garrison):  # type: ignore[no-untyped-def]
    """Set the window's garrison, charging max(0, x - a) quota, and close it (R-6.2)."""
    source, target, a = S.window[g, 0], S.window[g, 1], S.window[g, 2]
    S.armies[g, source] += a - garrison
    S.armies[g, target] = garrison
    S.sc[g, QUOTA] -= max(0, garrison - a)
    close_window(S, g)


# --- the env's decisions (spec 6.2, 6.3) -----------------------------------------------------------------


@njit(cache=True, nogil=True)
def mask(T, S, g, out, work):  # type: ignore[no-untyped-def]
    """Fill ``out`` with the legal indices of the seat to act (spec 6.3, ``encoding.action_mask``); 0s once over."""
    out[:] = 0
    phase, cur = S.sc[g, PHASE], S.sc[g, CURRENT]
    if phase == OVER:
        return out
    n, b = T.params[P_N], T.params[P_BUCKETS]
    o = offsets(T)
    if phase == SETUP:
        _mask_deploy(S, g, cur, S.deploy_left[g, cur], n, b, out)
        return out
    hand = S.hand_len[g, cur]
    pool = S.sc[g, POOL]
    if T.params[P_CARDS] and (phase == REINFORCE or (phase == FORCED and hand >= HAND_LIMIT)):
        have = work[0]
        have[:4] = 0
        for k in range(hand):
            have[T.symbol[S.hand[g, cur, k]]] += 1
        for p in range(_PATTERNS):
            ok = True
            for s in range(4):
                if have[s] < T.need[p, s]:
                    ok = False
            out[o[1] + p] = ok
    if (phase == REINFORCE or (phase == FORCED and hand < HAND_LIMIT)) and pool > 0:
        _mask_deploy(S, g, cur, pool, n, b, out)
    if phase == WINDOW:
        a, lo, hi = S.window[g, 2], S.window[g, 3], S.window[g, 4]
        for k in range(usable(lo, hi, b)):
            out[o[4] + k] = amount(lo, hi, b, k) != a  # an amount equal to a is KEEP's, offered once (6.3)
        out[o[4] + b] = 1
    opened = phase == REINFORCE and pool == 0 or phase == WINDOW
    if phase == ATTACK or (opened and hand < HAND_LIMIT):
        blitz = T.params[P_BLITZ]
        for s in range(n):  # only the current seat's territories: a P-th of the edges
            if S.owner[g, s] != cur or S.armies[g, s] < 2:
                continue
            for e in range(T.nbr_off[s], T.nbr_off[s + 1]):
                if S.owner[g, T.nbr[e]] != cur:
                    out[o[2] + e] = 1
                    if blitz:
                        out[o[3] + e] = 1
        out[o[5]] = 1
    if phase == REGROUP:
        _mask_regroup(T, S, g, cur, o, out, work)
    return out


@njit(cache=True, nogil=True)
def _mask_deploy(S, g, cur, pool, n, b, out):  # type: ignore[no-untyped-def]
    k = usable(1, pool, b)
    for t in range(n):
        if S.owner[g, t] == cur:
            out[t * b : t * b + k] = 1


@njit(cache=True, nogil=True)
def _mask_regroup(T, S, g, cur, o, out, work):  # type: ignore[no-untyped-def]
    n, b = T.params[P_N], T.params[P_BUCKETS]
    source, dest = S.sc[g, SEL_SOURCE], S.sc[g, SEL_DEST]
    if source != NONE and dest != NONE:
        out[o[8] : o[8] + usable(1, S.armies[g, source] - 1, b)] = 1
        return
    label = components(T, S, g, cur, work)
    if source != NONE:
        for t in range(n):
            out[o[7] + t] = label[t] == label[source] and t != source
        return
    if S.sc[g, MOVES] >= 1:
        size = work[3]
        size[:] = 0
        for t in range(n):
            if label[t] >= 0:
                size[label[t]] += 1
        for t in range(n):
            out[o[6] + t] = label[t] >= 0 and S.armies[g, t] >= 2 and size[label[t]] >= 2
    out[o[9]] = 1


@njit(cache=True, nogil=True)
def step(T, S, g, index, work):  # type: ignore[no-untyped-def]
    """Play legal index ``index`` for the seat to act, as ``frontera_v0``'s ``_play`` (spec 6.2's decoding).

    The index is trusted (callers check it against :func:`mask`, as the vector env does): an illegal one
    corrupts the row rather than raising, because a compiled hot path cannot afford the engine's checks.
    """
    o = offsets(T)
    b = T.params[P_BUCKETS]
    phase, cur = S.sc[g, PHASE], S.sc[g, CURRENT]
    if index < o[1]:
        t, k = index // b, index % b
        if phase == SETUP:
            place(T, S, g, cur, t, amount(1, S.deploy_left[g, cur], b, k))
            return
        count = amount(1, S.sc[g, POOL], b, k)
        S.armies[g, t] += count  # DEPLOY, R-6.4
        S.sc[g, POOL] -= count
        if phase == FORCED and S.hand_len[g, cur] < HAND_LIMIT and S.sc[g, POOL] == 0:
            S.sc[g, PHASE] = ATTACK
    elif index < o[2]:
        trade(T, S, g, index - o[1], work)
    elif index < o[4]:
        if phase == WINDOW:  # any other action closes the window at its value (A32)
            close_window(S, g)
        S.sc[g, PHASE] = ATTACK
        e = index - o[2] if index < o[3] else index - o[3]
        attack(T, S, g, T.src[e], T.nbr[e], index >= o[3])
    elif index < o[5]:
        k = index - o[4]
        lo, hi = S.window[g, 3], S.window[g, 4]
        occupy(S, g, S.window[g, 2] if k == b else amount(lo, hi, b, k))
    elif index == o[5]:
        if phase == WINDOW:
            close_window(S, g)
        S.sc[g, PHASE] = REGROUP
    elif index < o[7]:
        S.sc[g, SEL_SOURCE] = index - o[6]
    elif index < o[8]:
        S.sc[g, SEL_DEST] = index - o[7]
    elif index < o[9]:
        source, dest = S.sc[g, SEL_SOURCE], S.sc[g, SEL_DEST]
        count = amount(1, S.armies[g, source] - 1, b, index - o[8])
        S.armies[g, source] -= count
        S.armies[g, dest] += count
        S.sc[g, MOVES] -= 1
        S.sc[g, SEL_SOURCE] = NONE
        S.sc[g, SEL_DEST] = NONE
    else:
        end_turn(T, S, g)


@njit(cache=True, nogil=True)
def random_index(legal, found):  # type: ignore[no-untyped-def]
    """Return a uniformly random legal index of the int8 mask ``legal``; ``found`` is an int64 [A] buffer."""
    k = 0
    for i in range(legal.shape[0]):
        if legal[i]:
            found[k] = i
            k += 1
    return found[np.random.randint(k)]


@njit(cache=True, nogil=True)
def random_games(T, S, seed, max_actions, legal, work):  # type: ignore[no-untyped-def]
    """Play every row of ``S`` to its end by uniform random legal indices, in one call; return actions per row.

    A row stops at the game's end or after ``max_actions`` actions (then its count is negative, so a caller
    sees the cap was hit). ``legal`` is an int8 ``[A]`` buffer; ``np.random`` is seeded with ``seed``.
    """
    np.random.seed(seed)
    played = np.zeros(S.sc.shape[0], np.int64)
    found = np.empty(legal.shape[0], np.int64)
    for g in range(S.sc.shape[0]):
        while S.sc[g, PHASE] != OVER:
            if played[g] >= max_actions:
                played[g] = -played[g]
                break
            mask(T, S, g, legal, work)
            step(T, S, g, random_index(legal, found), work)
            played[g] += 1
    return played
