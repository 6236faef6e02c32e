"""How the search's three players choose in the tree: the ``backup`` option of Domain Wheel's search seat.

Every playout adds the leaf's value vector (one entry per player) to each node on its path, whatever the
backup; the backup only says which number a node's player maximises when PUCT picks among its moves:

* ``maxn`` (the default): each player its own entry, ``Q_p`` (max^n: everyone plays for itself).
* ``paranoid``: everyone plays the root player's game: the root player maximises, and each rival minimises,
  ``v_root - (v_a + v_b)`` (the root player's value against the sum of the rivals'; Sturtevant & Korf's
  paranoid search, here inside PUCT). The rivals are taken to gang up on the searching seat.
* ``best_reply``: paranoid, and of the two rival turns between two of the root player's turns only the first
  branches: the rival who moves right after the root player searches its moves to hurt the root player, the
  other rival plays its network's most probable move (the node's highest prior, never explored). This is the
  closest cheap equivalent of Best-Reply Search (Schadd & Winands) in PUCT: BRS searches the single strongest
  rival reply, letting the other rival pass; the engine has no free pass (rule 3.2b), and choosing which rival
  replies would need both rivals' move lists at one node (one more network batch per node), so here the turn
  order fixes the searched rival and the other keeps its policy's move.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from dw_env.info import NUM_PLAYERS

BACKUPS = ("maxn", "paranoid", "best_reply")


def selection_values(
    totals: NDArray[np.float64], estimate: NDArray[np.float64], player: int, root: int, backup: str
) -> tuple[NDArray[np.float64], float]:
    """Return (each move's value total for ``player`` to maximise, the node's own value for unvisited moves).

    ``totals`` is [moves, players] (the summed value vectors of each move's playouts), ``estimate`` the node's
    value vector; ``root`` is the searching seat.
    """
    if backup == "maxn":
        return np.ascontiguousarray(totals[:, player]), float(estimate[player])
    if backup not in BACKUPS:
        raise ValueError(f"unknown backup {backup!r}; allowed: {', '.join(BACKUPS)}")
    sign = 1.0 if player == root else -1.0
    column = sign * (2.0 * totals[:, root] - totals.sum(axis=1))  # v_root - sum of the rivals', per playout
    return column, sign * float(2.0 * estimate[root] - estimate.sum())


def plays_its_policy(player: int, root: int, backup: str) -> bool:
    """Return True if ``player`` does not search at its nodes but plays its most probable move (best_reply)."""
    return backup == "best_reply" and player == (root + NUM_PLAYERS - 1) % NUM_PLAYERS
