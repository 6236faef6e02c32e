"""The RL action space of spec 6.2: fixed blocks of one ``Discrete(A)``, amount buckets, card choice CC, masks.

Blocks, in index order (``N`` territories, ``E`` directed edges in ``FronteraMap.edges`` order, ``B`` buckets)::

    DEPLOY(t, b)        N*B    t*B + b        place amount(b; 1, pool) on t (in setup: of the armies left)
    TRADE(p)            13     pattern p      CC picks the cards (R-9.2 pattern order, PATTERNS)
    ATTACK(e)           E      edge e         one roll along e (R-5.2)
    BLITZ(e)            E      edge e         roll along e until the target falls or the source has 1 (A29)
    OCCUPY(b)           B+1    b < B          garrison amount(b; lo, hi); b = B is KEEP (x = a) (R-6.2)
    END_ATTACK          1                     go to regroup (R-5.4)
    REGROUP_FROM(t)     N                     choose the regroup source (env-side selection)
    REGROUP_TO(t)       N                     choose the destination (env-side selection)
    REGROUP_AMOUNT(b)   B                     move amount(b; 1, armies(source) - 1) (R-7.1)
    END_TURN            1                     end the turn (R-7.2)

    A = N*(B + 2) + 2E + 2B + 16   (B = 5: 507 small, 795 medium, 1198 large)

The env keeps one piece of sub-state, :class:`Selection` (the regroup source and destination chosen so far);
setup needs none, because the env declares Ready itself once a seat's armies are placed (6.6).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

from frontera_env.actions import (
    Action,
    Attack,
    Blitz,
    Deploy,
    EndAttack,
    EndTurn,
    Occupy,
    Place,
    Regroup,
    Trade,
)
from frontera_env.board import FronteraMap
from frontera_env.engine import Game
from frontera_env.rules.cards import HAND_LIMIT
from frontera_env.rules.context import WILD
from frontera_env.state import ATTACK, FORCED, NONE, REGROUP, REINFORCE, SETUP, WINDOW

#: the 13 set patterns of R-9.2 in TRADE(p) order (G galleon, C cannon, B balloon, W wildcard)
PATTERNS: tuple[str, ...] = ("GGG", "CCC", "BBB", "GCB", "GGW", "CCW", "BBW", "GCW", "GBW", "CBW", "GWW", "CWW", "BWW")
_SYMBOL_INDEX = {"G": 0, "C": 1, "B": 2, "W": WILD}
#: PATTERN_NEED[p, s]: cards of symbol s (0..2, 3 = wildcard) pattern p takes
PATTERN_NEED: NDArray[np.int64] = np.array(
    [[p.count(ch) for ch in "GCBW"] for p in PATTERNS],
    dtype=np.int64,
)
#: the blocks of the action space, in index order (spec 6.2)
BLOCKS: tuple[str, ...] = (
    "deploy",
    "trade",
    "attack",
    "blitz",
    "occupy",
    "end_attack",
    "regroup_from",
    "regroup_to",
    "regroup_amount",
    "end_turn",
)
#: the fewest buckets the action space allows: bucket 0 is lo and bucket B-1 is hi (6.2)
MIN_BUCKETS, MAX_BUCKETS = 2, 64


@lru_cache(maxsize=4096)
def bucket_amounts(lo: int, hi: int, buckets: int) -> tuple[int, ...]:
    """Return the amount of each usable bucket of ``amount(b; lo, hi)`` (6.2); buckets past the tuple are masked.

    A span of at most B counts exactly (``lo + b``); a wider span sets bucket 0 to ``lo``, bucket B-1 to ``hi``
    and the middle ones to ``lo + ((hi - lo)*b*2 + (B - 1)) div (2(B - 1))`` (half rounded up), all distinct.
    """
    span = hi - lo + 1
    if span <= 0:
        return ()
    if span <= buckets:
        return tuple(range(lo, hi + 1))
    den = 2 * (buckets - 1)
    return tuple(lo + ((hi - lo) * b * 2 + (buckets - 1)) // den for b in range(buckets))


@dataclass
class Selection:
    """The env-side regroup sub-state: the source and destination chosen so far (``NONE`` while unchosen)."""

    source: int = NONE
    dest: int = NONE

    def clear(self) -> None:
        self.source = NONE
        self.dest = NONE


@dataclass(frozen=True)
class Choose:
    """A decoded REGROUP_FROM / REGROUP_TO: a step of the env's selection, not yet an engine action."""

    what: str  # "source" or "dest"
    territory: int


@dataclass(frozen=True)
class Layout:
    """The block offsets and edge arrays of one map and bucket count, computed once (spec 6.2)."""

    n: int
    e: int
    buckets: int
    src: NDArray[np.int64]  # [E] source of edge e
    dst: NDArray[np.int64]  # [E] target of edge e
    deploy: int
    trade: int
    attack: int
    blitz: int
    occupy: int
    end_attack: int
    regroup_from: int
    regroup_to: int
    regroup_amount: int
    end_turn: int
    size: int

    @classmethod
    def for_map(cls, board: FronteraMap, buckets: int = 5) -> Layout:
        """Return the layout of ``board`` with ``buckets`` amount buckets."""
        if isinstance(buckets, bool) or not isinstance(buckets, int) or not MIN_BUCKETS <= buckets <= MAX_BUCKETS:
            raise ValueError(f"buckets must be an integer in {MIN_BUCKETS}..{MAX_BUCKETS}, got {buckets!r}")
        n, edges = board.territory_count, board.edges
        e = len(edges)
        pairs = np.array(edges, dtype=np.int64).reshape(e, 2)
        sizes = (n * buckets, len(PATTERNS), e, e, buckets + 1, 1, n, n, buckets, 1)
        offsets = np.concatenate([[0], np.cumsum(sizes)]).tolist()
        src, dst = pairs[:, 0].copy(), pairs[:, 1].copy()
        src.flags.writeable = dst.flags.writeable = False
        o = offsets
        return cls(n, e, buckets, src, dst, o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7], o[8], o[9], o[10])

    def block(self, index: int) -> tuple[str, int]:
        """Return the block name of ``index`` and its argument within the block (``t*B + b`` for DEPLOY)."""
        if not 0 <= index < self.size:
            raise ValueError(f"action {index!r} is outside 0..{self.size - 1}")
        starts = (
            self.deploy,
            self.trade,
            self.attack,
            self.blitz,
            self.occupy,
            self.end_attack,
            self.regroup_from,
            self.regroup_to,
            self.regroup_amount,
            self.end_turn,
        )
        k = bisect_right(starts, index) - 1
        return BLOCKS[k], index - starts[k]


def hand_symbols(game: Game, seat: int) -> NDArray[np.int64]:
    """Return how many galleons, cannons, balloons and wildcards ``seat`` holds."""
    st = game.state
    hand = st.hand[seat, : st.hand_len[seat]]
    return np.bincount(game.ctx.symbol[hand], minlength=4).astype(np.int64)


def card_choice(game: Game, pattern: int) -> tuple[int, int, int] | None:
    """Return the cards CC picks for TRADE(pattern) from the current hand, ascending, or None if it cannot (6.2).

    For each symbol of the pattern in order: among the not-yet-chosen cards of that exact symbol, a card whose
    ``paid`` is true first, then the lowest id; wildcards lowest id first.
    """
    st, ctx = game.state, game.ctx
    hand = sorted(st.hand_of(st.current))
    chosen: list[int] = []
    for ch in PATTERNS[pattern]:
        sym = _SYMBOL_INDEX[ch]
        pool = [c for c in hand if ctx.symbol[c] == sym and c not in chosen]
        if not pool:
            return None
        paid_first = [c for c in pool if sym != WILD and st.paid[c]]
        chosen.append(paid_first[0] if paid_first else pool[0])
    a, b, c = sorted(chosen)
    return a, b, c


def own_components(game: Game) -> NDArray[np.int64]:
    """Return a component label per territory for the current player's own territories (A34), -1 elsewhere."""
    st, nbrs = game.state, game.ctx.neighbours
    label = np.full(st.territories, -1, np.int64)
    own = (st.owner == st.current).tolist()
    for start in range(st.territories):
        if not own[start] or label[start] >= 0:
            continue
        label[start] = start
        stack = [start]
        while stack:
            u = stack.pop()
            for v in nbrs[u]:
                if own[v] and label[v] < 0:
                    label[v] = start
                    stack.append(v)
    return label


def action_mask(layout: Layout, game: Game, sel: Selection, blitz: bool, out: NDArray[np.int8]) -> NDArray[np.int8]:
    """Fill ``out`` with the legal indices of the seat to act (spec 6.3) and return it; all 0 once over."""
    out[:] = 0
    st = game.state
    if game.over:
        return out
    cur, phase = st.current, st.phase
    own = st.owner == cur
    if phase == SETUP:
        _deploy(layout, own, int(st.deploy_left[cur]), out)
        return out
    hand = int(st.hand_len[cur])
    if phase == REINFORCE or (phase == FORCED and hand >= HAND_LIMIT):
        _trades(layout, game, out)
    if (phase == REINFORCE or (phase == FORCED and hand < HAND_LIMIT)) and st.pool > 0:
        _deploy(layout, own, int(st.pool), out)
    if phase == WINDOW:
        _occupy(layout, st.window, out)
    if phase == ATTACK or (phase in (REINFORCE, WINDOW) and hand < HAND_LIMIT and (phase != REINFORCE or st.pool == 0)):
        _attacks(layout, game, own, blitz, out)
    if phase == REGROUP:
        _regroup(layout, game, own, sel, out)
    return out


def _deploy(layout: Layout, own: NDArray[np.bool_], pool: int, out: NDArray[np.int8]) -> None:
    usable = len(bucket_amounts(1, pool, layout.buckets))
    block = out[layout.deploy : layout.trade].reshape(layout.n, layout.buckets)
    block[own, :usable] = 1


def _trades(layout: Layout, game: Game, out: NDArray[np.int8]) -> None:
    if not game.ctx.cards:
        return
    have = hand_symbols(game, game.state.current)
    out[layout.trade : layout.attack] = np.all(have >= PATTERN_NEED, axis=1)


def _occupy(layout: Layout, window: NDArray[np.int32], out: NDArray[np.int8]) -> None:
    a, lo, hi = int(window[2]), int(window[3]), int(window[4])
    for b, x in enumerate(bucket_amounts(lo, hi, layout.buckets)):
        out[layout.occupy + b] = x != a  # an amount equal to a is KEEP's, offered once (6.3)
    out[layout.occupy + layout.buckets] = 1


def _attacks(layout: Layout, game: Game, own: NDArray[np.bool_], blitz: bool, out: NDArray[np.int8]) -> None:
    st = game.state
    legal = own[layout.src] & (st.armies[layout.src] >= 2) & ~own[layout.dst]
    out[layout.attack : layout.blitz] = legal
    if blitz:
        out[layout.blitz : layout.occupy] = legal
    out[layout.end_attack] = 1


def _regroup(layout: Layout, game: Game, own: NDArray[np.bool_], sel: Selection, out: NDArray[np.int8]) -> None:
    st = game.state
    if sel.source != NONE and sel.dest != NONE:
        usable = len(bucket_amounts(1, int(st.armies[sel.source]) - 1, layout.buckets))
        out[layout.regroup_amount : layout.regroup_amount + usable] = 1
        return
    label = own_components(game)
    if sel.source != NONE:
        to = label == label[sel.source]
        to[sel.source] = False
        out[layout.regroup_to : layout.regroup_amount] = to
        return
    if st.moves_left >= 1:
        sizes = np.bincount(label[own], minlength=st.territories)
        has_dest = np.zeros(st.territories, np.bool_)
        has_dest[own] = sizes[label[own]] >= 2
        out[layout.regroup_from : layout.regroup_to] = own & (st.armies >= 2) & has_dest
    out[layout.end_turn] = 1


def decode(layout: Layout, game: Game, sel: Selection, index: int, blitz: bool) -> Action | Choose | None:
    """Return the engine action (or selection step) ``index`` means now, or None if it names none (6.2).

    None: an amount bucket past the span, a TRADE pattern the hand cannot fill, BLITZ with blitz off, an
    OCCUPY bucket whose amount equals KEEP's, or a step out of turn with the regroup selection.
    """
    st = game.state
    name, arg = layout.block(index)
    pending = sel.source != NONE
    if name == "deploy":
        t, b = divmod(arg, layout.buckets)
        if st.phase == SETUP:
            amounts = bucket_amounts(1, int(st.deploy_left[st.current]), layout.buckets)
            return Place(int(st.current), t, amounts[b]) if b < len(amounts) else None
        amounts = bucket_amounts(1, int(st.pool), layout.buckets)
        return Deploy(t, amounts[b]) if b < len(amounts) else None
    if name == "trade":
        cards = card_choice(game, arg) if game.ctx.cards else None
        return Trade(cards) if cards is not None else None
    if name in ("attack", "blitz"):
        s, t = int(layout.src[arg]), int(layout.dst[arg])
        return Attack(s, t) if name == "attack" else (Blitz(s, t) if blitz else None)
    if name == "occupy":
        return _decode_occupy(layout, game, arg)
    if name == "end_attack":
        return EndAttack()
    if name == "regroup_from":
        return None if pending else Choose("source", arg)
    if name == "regroup_to":
        return Choose("dest", arg) if pending and sel.dest == NONE else None
    if name == "regroup_amount":
        if not pending or sel.dest == NONE:
            return None
        amounts = bucket_amounts(1, int(st.armies[sel.source]) - 1, layout.buckets)
        return Regroup(sel.source, sel.dest, amounts[arg]) if arg < len(amounts) else None
    return None if pending else EndTurn()


def _decode_occupy(layout: Layout, game: Game, b: int) -> Occupy | None:
    st = game.state
    if st.phase != WINDOW:
        return None
    a, lo, hi = int(st.window[2]), int(st.window[3]), int(st.window[4])
    if b == layout.buckets:
        return Occupy(a)
    amounts = bucket_amounts(lo, hi, layout.buckets)
    return Occupy(amounts[b]) if b < len(amounts) and amounts[b] != a else None
