"""The learned agent's inputs: spec 6.4's observation packed into int8, and the map graph the network reads.

The PPO rollout buffers hold int8 observations (training/ppo/ppo.py), while Frontera's observation is float32
with raw counts (armies, pool, turn index, pile sizes: docs/FRONTERA.md, "Observation"). Every value ``v >= 0``
is packed as ``min(127, round(SCALE * log2(1 + v)))``: 0 stays 0, a flag 1 becomes :data:`SCALE`, armies keep
their exact value up to 3 and a relative precision of a few percent above (up to about 1,500, past the
longest truncated game's turn index). The network divides by :data:`SCALE` and reads ``log2(1 + v)``.

Nothing here reads the game state: the packed vector is a function of the observation alone, which is built
from the player's view (R-13), and the graph is the public map.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from frontera_env.board import FronteraMap
from frontera_env.encoding import Layout

#: int8 units per doubling of ``1 + v``: a flag reads SCALE, the top 127 is v = 2 ** (127 / SCALE) - 1
SCALE = 12.0
#: the amount buckets the network's heads are built for (the env's default ``buckets``, spec 6.2)
BUCKETS = 5


def pack(obs: NDArray[np.float32]) -> NDArray[np.int8]:
    """Return float observations ``[..., S]`` packed as int8 (``round(SCALE * log2(1 + v))``, at most 127)."""
    v = np.maximum(np.asarray(obs, dtype=np.float32), 0.0)
    return np.minimum(np.rint(SCALE * np.log2(1.0 + v)), 127).astype(np.int8)


@dataclass(frozen=True)
class MapGraph:
    """One map's public graph as the network reads it (the env's ``info["graph"]`` plus region bonuses)."""

    edge_index: NDArray[np.int64]  # [2, E] directed edges in action order (source, target)
    edge_sea: NDArray[np.bool_]  # [E]
    region: NDArray[np.int64]  # [N] region of each territory
    bonus: NDArray[np.float32]  # [K] each region's bonus
    regions: int  # R = max(9, K): the region one-hot's width in the observation

    @property
    def n(self) -> int:
        return int(self.region.shape[0])

    @property
    def row(self) -> int:
        """Return the observation's features per territory (19 + R, frontera_env.observation)."""
        return 19 + self.regions

    @classmethod
    def of_map(cls, board: FronteraMap) -> MapGraph:
        """Return the graph of ``board`` (edges in the action order of spec 6.2)."""
        layout = Layout.for_map(board, BUCKETS)
        sea = {(a, b) for a, b in getattr(board, "sea_links", ())} | {
            (b, a) for a, b in getattr(board, "sea_links", ())
        }
        region = np.array([t.region for t in board.territories], np.int64)
        return cls(
            np.stack([layout.src, layout.dst]).astype(np.int64),
            np.array([(int(a), int(b)) in sea for a, b in zip(layout.src, layout.dst, strict=True)], np.bool_),
            region,
            np.array([r.bonus for r in board.regions], np.float32),
            max(9, board.region_count),
        )

    def permuted(self, perm: NDArray[np.int64]) -> MapGraph:
        """Return the same graph with territory ``t`` renamed ``perm[t]`` (edges re-sorted as the action order)."""
        src, dst = perm[self.edge_index[0]], perm[self.edge_index[1]]
        order = np.lexsort((dst, src))
        region = np.empty_like(self.region)
        region[perm] = self.region
        return MapGraph(np.stack([src[order], dst[order]]), self.edge_sea[order], region, self.bonus, self.regions)
