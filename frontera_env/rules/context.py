"""The map's tables the rules read (neighbours, regions, card symbols), computed once per game, plus options."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from frontera_env.board import SYMBOLS, FronteraMap, win_threshold

#: a wildcard's symbol index (the three symbols are 0..2 in SYMBOLS order)
WILD = 3


@dataclass(frozen=True)
class Context:
    """What the rules read besides the state: the map's tables and the options fog, cards and max_turns."""

    map: FronteraMap
    neighbours: tuple[tuple[int, ...], ...]  # land and sea together, ascending (1.2, A5)
    region_of: NDArray[np.int16]
    regions: tuple[tuple[int, ...], ...]
    bonus: tuple[int, ...]
    symbol: NDArray[np.int8]  # per card id: 0..2, or WILD for the two wildcards
    win: int  # W(N)
    fog: bool = False
    cards: bool = True
    max_turns: int = 0  # 0: no truncation (A39)

    @property
    def n(self) -> int:
        return len(self.neighbours)


def make_context(board: FronteraMap, *, fog: bool = False, cards: bool = True, max_turns: int = 0) -> Context:
    """Return the rules' tables for ``board`` with the given options (max_turns 0 means none)."""
    n = board.territory_count
    symbol = np.full(n + 2, WILD, np.int8)
    for t in board.territories:
        symbol[t.id] = SYMBOLS.index(t.card)
    return Context(
        map=board,
        neighbours=tuple(t.neighbours for t in board.territories),
        region_of=np.array([t.region for t in board.territories], np.int16),
        regions=tuple(r.territories for r in board.regions),
        bonus=tuple(r.bonus for r in board.regions),
        symbol=symbol,
        win=win_threshold(n),
        fog=fog,
        cards=cards,
        max_turns=max_turns,
    )
