"""The heuristic seat: centralisation, concentration, connectivity and mobility with a 1-2 ply look-ahead.

Every legal move is scored by :func:`policies.alveole.evaluation.score_moves` (compiled): at depth 2
(the default) a move is worth its worst outcome over the opponent's replies, so the seat wins at once
when it can and avoids handing the opponent a connection. Ties are broken by a tiny noise from the
seat's seeded RNG, so a seat is deterministic given its seed. About 1-5 ms a move on one core.
"""

from __future__ import annotations

import numpy as np

from alveole_env import rules
from alveole_env.encoding import action_of
from alveole_env.engine import AlveoleGame
from policies.alveole.evaluation import WEIGHTS, cube_table, score_moves
from policies.alveole.random_seat import _check_seat
from policies.base import Policy

_TABLES = rules.tables()
_CUBE = cube_table()


class HeuristicSeat(Policy):
    """Scripted Alveole player: evaluation terms of :mod:`policies.alveole.evaluation`, ``depth`` plies deep."""

    name = "heuristic"
    display_name = "Heurística"

    def __init__(self, seed: int | None = None, depth: int = 2, noise: float = 1e-3) -> None:
        super().__init__(seed)
        if isinstance(depth, bool) or depth not in (1, 2):
            raise ValueError(f"depth must be 1 or 2, got {depth!r}")
        if not isinstance(noise, (int, float)) or not 0 <= noise <= 1:
            raise ValueError(f"noise must be a number in 0..1, got {noise!r}")
        self.depth = depth
        self.noise = float(noise)
        self._scores = np.zeros(rules.MAX_MOVES, dtype=np.float64)
        self._moves = np.zeros(rules.MAX_MOVES, dtype=np.int32)

    def act(self, game: AlveoleGame, seat: int) -> int:  # type: ignore[override]
        """Return the best-scored legal action of ``seat`` (the player to move)."""
        _check_seat(game, seat)
        count = score_moves(_TABLES, _CUBE, game.board, game.lines, game.scalars, WEIGHTS, self.depth, self._scores)
        rules.list_moves(_TABLES, game.board, game.lines, seat, self._moves)
        scores = self._scores[:count] + self.noise * self.rng.random(count)
        best = int(self._moves[int(np.argmax(scores))])
        return action_of(best // 6, best % 6)


__all__ = ["HeuristicSeat"]
