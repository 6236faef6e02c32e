"""Engine actions as spec 6.2 indices: how a scripted seat plays in the training env's action space.

The scripted seats (:mod:`policies.frontera`) return full-fidelity engine actions (``Deploy(t, 7)``,
``Regroup(s, d, 12)``); the vector env takes indices with amount buckets. :func:`to_indices` returns the
index (or, for a regroup, the three indices FROM, TO, AMOUNT) nearest to the action: an amount becomes the
bucket whose amount is closest (ties to the smaller), a trade the pattern of its cards' symbols (rule CC
then picks the cards). Where the nearest index is not legal in the mask (a seat's ``Ready`` or ``TakeBack``,
which the env declares itself, 6.6), the first legal index stands in; the caller passes the mask.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from frontera_env.actions import Action, Attack, Blitz, Deploy, EndAttack, EndTurn, Occupy, Place, Regroup, Trade
from frontera_env.encoding import PATTERNS, Layout, bucket_amounts
from frontera_env.engine import Game
from frontera_env.rules.context import WILD

_LETTER = {0: "G", 1: "C", 2: "B", WILD: "W"}


def nearest_bucket(amount: int, lo: int, hi: int, buckets: int) -> int:
    """Return the bucket of ``amount(b; lo, hi)`` (6.2) whose amount is closest to ``amount``."""
    amounts = bucket_amounts(lo, hi, buckets)
    return int(np.argmin([abs(a - amount) for a in amounts])) if amounts else 0


def _edge(layout: Layout, source: int, target: int) -> int:
    hits = np.flatnonzero((layout.src == source) & (layout.dst == target))
    return int(hits[0]) if hits.size else -1


def _trade(game: Game, cards: tuple[int, ...]) -> int:
    word = "".join(sorted((_LETTER[int(game.ctx.symbol[c])] for c in cards), key="GCBW".index))
    return PATTERNS.index(word) if word in PATTERNS else -1


def _wanted(layout: Layout, game: Game, action: Action) -> list[int]:
    """Return the indices ``action`` means in ``game`` (empty when none does)."""
    st, b = game.state, layout.buckets
    if isinstance(action, Place):
        return [
            layout.deploy + action.territory * b + nearest_bucket(action.count, 1, int(st.deploy_left[st.current]), b)
        ]
    if isinstance(action, Deploy):
        return [layout.deploy + action.territory * b + nearest_bucket(action.count, 1, int(st.pool), b)]
    if isinstance(action, Trade):
        p = _trade(game, action.cards)
        return [layout.trade + p] if p >= 0 else []
    if isinstance(action, Attack | Blitz):
        e = _edge(layout, action.source, action.target)
        base = layout.attack if isinstance(action, Attack) else layout.blitz
        return [base + e] if e >= 0 else []
    if isinstance(action, Occupy):
        a, lo, hi = int(st.window[2]), int(st.window[3]), int(st.window[4])
        k = nearest_bucket(action.garrison, lo, hi, b)
        keep = action.garrison == a or bucket_amounts(lo, hi, b)[k] == a  # that bucket is masked: KEEP says it
        return [layout.occupy + (b if keep else k)]
    if isinstance(action, EndAttack):
        return [layout.end_attack]
    if isinstance(action, Regroup):
        amount = nearest_bucket(action.count, 1, int(st.armies[action.source]) - 1, b)
        return [layout.regroup_from + action.source, layout.regroup_to + action.dest, layout.regroup_amount + amount]
    if isinstance(action, EndTurn):
        return [layout.end_turn]
    return []


def to_indices(layout: Layout, game: Game, action: Action, mask: NDArray[np.int8]) -> list[int]:
    """Return the env indices that play ``action`` (a regroup: three), the first checked against ``mask``.

    When the first index is not legal, return ``[the first legal index]`` instead (an all-zero mask: ``[]``).
    """
    indices = _wanted(layout, game, action)
    if indices and mask[indices[0]]:
        return indices
    legal = np.flatnonzero(mask)
    return [int(legal[0])] if legal.size else []
