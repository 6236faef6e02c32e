"""The ego-centric observation of spec 6.4, built only from ``frontera_env.view`` (R-13): nothing hidden can leak.

Slot 0 is the observer; slots 1..5 are the other seats in cyclic seat order after it. One float32 vector:
``N`` rows of ``F = 19 + max(9, K)`` territory features, then 78 globals.

Per territory (offsets within a row, ``R = max(9, K)``)::

    0        visible
    1..8     owner: slot 0..5, ownerless, unknown
    9        armies (0 when hidden; in setup the observer's own placements are added on its territories)
    10..     region one-hot (R)
    10+R..   card symbol galleon, cannon, balloon (3)
    13+R     this territory's card is in my hand;  14+R  its paid flag
    15+R     the chosen regroup source;  16+R  the chosen regroup destination
    17+R     the window's source;  18+R  the window's target

Globals (78): decision state one-hot (10: setup, reinforce, attack, window, forced trade, forced deploy,
regroup source, regroup destination, regroup amount, not my decision); pool, quota_left, moves_left,
conquests, conquests needed to draw, "will draw"; window a, lo, hi; my trades, v(trades + 1); my hand by
galleon, cannon, balloon, wildcard; per slot 0..5 present, active, territory count, hand size, trades,
regions fully owned, is the current player (42); |draw|, |discard|; turn_index, max_turns; fog; per slot 0..5
the turns that begin before that seat's next one (6, ``rules.order.turns_until``: 0 for the current player).

The regroup destination row feature is one more than spec 6.4's 27: in the amount state the spec's layout
would not say where the armies go. The last six globals are beyond spec 6.4's 72: rounds rotate their opener, so
the current player and the turn index alone do not say how many rivals move before a seat plays again
(docs/FRONTERA.md, "Environment").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from frontera_env.board import SYMBOLS, FronteraMap
from frontera_env.encoding import Selection
from frontera_env.rules.cards import HAND_LIMIT, conquests_to_draw, trade_value
from frontera_env.state import MOVES_PER_TURN, NONE
from frontera_env.view import UNKNOWN

#: seat slots of the observation (the most players a game has)
SLOTS = 6
#: global features: spec 6.4's 72, then the turn-order gaps of the six seat slots
GLOBALS = 78
#: where the turn-order gaps start among the globals
_GAPS_AT = 72
#: decision states of the one-hot, in order (spec 6.3, 6.4)
DECISIONS: tuple[str, ...] = (
    "setup",
    "reinforce",
    "attack",
    "window",
    "forced_trade",
    "forced_deploy",
    "regroup_source",
    "regroup_dest",
    "regroup_amount",
    "not_my_decision",
)
_PHASE_DECISION = {"setup": 0, "reinforce": 1, "attack": 2, "window": 3}
_PER_SLOT = 7
_SLOTS_AT = 10 + 6 + 3 + 2 + 4


@dataclass(frozen=True)
class ObservationLayout:
    """The shape and static parts (regions, card symbols) of one map's observation."""

    n: int
    regions: int  # R = max(9, K): the width of the region one-hot
    row: int  # features per territory
    size: int
    static: NDArray[np.float32]  # [N, row]: the region and symbol one-hots, 0 elsewhere
    symbol: NDArray[np.int64]  # [N + 2] each card's symbol, 3 for the wildcards (public: the map's)
    high: NDArray[np.float32]  # [size]: the observation space's upper bounds

    @classmethod
    def for_map(cls, board: FronteraMap, max_turns: int) -> ObservationLayout:
        """Return the layout of ``board``'s observation (``max_turns`` 0: no truncation, unbounded turns)."""
        n, r = board.territory_count, max(9, board.region_count)
        row = 19 + r
        static = np.zeros((n, row), np.float32)
        for t in board.territories:
            static[t.id, 10 + t.region] = 1
            static[t.id, 10 + r + SYMBOLS.index(t.card)] = 1
        size = n * row + GLOBALS
        high = np.ones(size, np.float32)
        rows = high[: n * row].reshape(n, row)
        rows[:, 9] = np.inf  # armies
        glob = high[n * row :]
        glob[10:14] = np.inf  # pool, quota_left, moves_left, conquests
        glob[12] = MOVES_PER_TURN
        glob[14] = 2
        glob[16:21] = np.inf  # window a, lo, hi; trades; v(trades + 1)
        glob[21:25] = n + 2
        slots = glob[_SLOTS_AT : _SLOTS_AT + SLOTS * _PER_SLOT].reshape(SLOTS, _PER_SLOT)
        slots[:, 2], slots[:, 3], slots[:, 4], slots[:, 5] = n, n + 2, np.inf, board.region_count
        glob[67:69] = n + 2
        glob[69:71] = max_turns if max_turns else np.inf
        glob[_GAPS_AT:] = 2 * SLOTS - 1  # a seat waits at most 2P - 1 turns (the opener rotates, R-3.2)
        high.flags.writeable = False
        static.flags.writeable = False
        symbol = np.full(n + 2, 3, np.int64)
        symbol[:n] = [SYMBOLS.index(t.card) for t in board.territories]
        symbol.flags.writeable = False
        return cls(n, r, row, size, static, symbol, high)


def encode(
    layout: ObservationLayout,
    view: dict[str, Any],
    sel: Selection,
    options: tuple[int, bool],
    out: NDArray[np.float32],
) -> NDArray[np.float32]:
    """Fill ``out`` with the observation of ``view``'s player (spec 6.4) and return it.

    It reads the view, the env's own regroup selection and the public options ``(max_turns, cards)`` only.
    """
    n, r = layout.n, layout.regions
    me, players = int(view["player"]), len(view["status"])
    out[:] = 0
    rows = out[: n * layout.row].reshape(n, layout.row)
    rows[:] = layout.static
    owner = np.asarray(view["owner"], np.int64)
    slot = np.where(owner >= 0, (owner - me) % players, np.where(owner == UNKNOWN, 7, 6))
    rows[:, 0] = view["visible"]
    rows[np.arange(n), 1 + slot] = 1
    rows[:, 9] = view["armies"]
    hand, paid = view["hand"], view["paid"]
    for c, p in zip(hand, paid, strict=True):
        if c < n:
            rows[c, 13 + r] = 1
            rows[c, 14 + r] = p
    for col, t in ((15, sel.source), (16, sel.dest)):
        if t != NONE:
            rows[t, col + r] = 1
    turn = view["turn"]
    window = turn["window"] if turn else None
    if window is not None:
        rows[window[0], 17 + r] = 1
        rows[window[1], 18 + r] = 1
    hand_symbols = np.bincount(layout.symbol[hand], minlength=4) if hand else np.zeros(4, np.int64)
    _globals(view, sel, options, out[n * layout.row :])
    out[n * layout.row + 21 : n * layout.row + 25] = hand_symbols
    return out


def decision(view: dict[str, Any], sel: Selection) -> int:
    """Return the index in DECISIONS of the observer's decision state (spec 6.3)."""
    phase = view["phase"]
    if view["current"] != view["player"] or phase == "over":
        return 9
    if phase in _PHASE_DECISION:
        return _PHASE_DECISION[phase]
    if phase == "forced":
        return 4 if len(view["hand"]) >= HAND_LIMIT else 5
    return 6 if sel.source == NONE else (7 if sel.dest == NONE else 8)


def _globals(view: dict[str, Any], sel: Selection, options: tuple[int, bool], g: NDArray[np.float32]) -> None:
    max_turns, cards = options
    me, players = int(view["player"]), len(view["status"])
    g[decision(view, sel)] = 1
    turn = view["turn"]
    trades = int(view["trades"][me])
    need = conquests_to_draw(trades)
    if view["phase"] == "setup" and view["current"] == me:
        g[10] = view["deploy_left"]
    if turn:
        g[10:14] = turn["pool"], turn["quota_left"], turn["moves_left"], turn["conquests"]
        g[15] = 1.0 if cards and turn["conquests"] >= need else 0.0
        if turn["window"] is not None:
            g[16:19] = turn["window"][2:5]
    g[14] = need
    g[19:21] = trades, trade_value(trades + 1)
    region_owner = view["region_owner"]
    for k in range(players):
        seat = (me + k) % players
        at = _SLOTS_AT + k * _PER_SLOT
        g[at : at + 7] = (
            1,
            view["status"][seat] == 0,
            view["territory_counts"][seat],
            view["card_counts"][seat],
            view["trades"][seat],
            region_owner.count(seat),
            view["current"] == seat,
        )
    g[67:72] = view["draw_size"], view["discard_size"], view["turn_index"], max_turns, view["fog"]
    gaps = view["turns_until"]
    for k in range(players):
        g[_GAPS_AT + k] = gaps[(me + k) % players]
