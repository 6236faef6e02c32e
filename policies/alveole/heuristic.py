"""The heuristic seat: centralisation, concentration, connectivity and mobility with a 1-2 ply look-ahead.

Every legal move is scored by :func:`policies.alveole.evaluation.score_moves` (compiled): at depth 2
(the default) a move is worth its worst outcome over the opponent's replies, so the seat wins at once
when it can and avoids handing the opponent a connection. A move that recreates a position this seat
has already moved to in the game loses :data:`REPEAT_PENALTY` (two deterministic seats would otherwise
shuffle the same pieces back and forth until the ply limit). Ties are broken by a tiny noise from the
seat's seeded RNG, so a seat is deterministic given its seed. About 1 ms a move on one core.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import numpy as np

from alveole_env import rules
from alveole_env.encoding import action_of
from alveole_env.engine import AlveoleGame
from alveole_env.state import MAX_PLIES
from policies import state as st
from policies.alveole.evaluation import WEIGHTS, cube_table, score_moves
from policies.alveole.random_seat import _check_seat
from policies.base import Policy

_TABLES = rules.tables()
_CUBE = cube_table()
#: subtracted from the value of a move back to a position this seat already moved to (about one group's worth)
REPEAT_PENALTY = 1.0
#: the most positions a seat remembers in one game (far above the default ply limit)
MAX_SEEN = 100_000


def position_key(game: AlveoleGame) -> str:
    """Return a short hash of the board and the player to move (what makes two positions the same)."""
    data = game.board.tobytes() + bytes([game.turn])
    return hashlib.blake2b(data, digest_size=8).hexdigest()


class HeuristicSeat(Policy):
    """Scripted Alveole player: evaluation terms of :mod:`policies.alveole.evaluation`, ``depth`` plies deep."""

    name = "heuristic"
    display_name = "Heurística"

    def __init__(self, seed: int | None = None, depth: int = 2, noise: float = 1e-3) -> None:
        super().__init__(seed)
        if isinstance(depth, bool) or depth not in (1, 2):
            raise ValueError(f"depth must be 1 or 2, got {depth!r}")
        if isinstance(noise, bool) or not isinstance(noise, (int, float)) or not 0 <= noise <= 1:
            raise ValueError(f"noise must be a number in 0..1, got {noise!r}")
        self.depth = depth
        self.noise = float(noise)
        self._scores = np.zeros(rules.MAX_MOVES, dtype=np.float64)
        self._moves = np.zeros(rules.MAX_MOVES, dtype=np.int32)
        self.seen: set[str] = set()
        self.last_ply = -1

    def reset(self, seed: int | None = None) -> None:
        """Forget the positions of the last game; reseed when ``seed`` is given."""
        super().reset(seed)
        self.seen = set()
        self.last_ply = -1

    def act(self, game: AlveoleGame, seat: int) -> int:  # type: ignore[override]
        """Return the best-scored legal action of ``seat`` (the player to move)."""
        _check_seat(game, seat)
        if game.ply <= self.last_ply:  # a new game without reset()
            self.seen = set()
        count = score_moves(_TABLES, _CUBE, game.board, game.lines, game.scalars, WEIGHTS, self.depth, self._scores)
        rules.list_moves(_TABLES, game.board, game.lines, seat, self._moves)
        scores = self._scores[:count] + self.noise * self.rng.random(count)
        keys = []
        for i in range(count):
            child = game.copy()
            child.scalars[MAX_PLIES] = 2**30
            child.play(action_of(int(self._moves[i]) // 6, int(self._moves[i]) % 6))
            keys.append(position_key(child))
            if keys[-1] in self.seen:
                scores[i] -= REPEAT_PENALTY
        i = int(np.argmax(scores))
        if len(self.seen) < MAX_SEEN:
            self.seen.add(keys[i])
        self.last_ply = game.ply
        best = int(self._moves[i])
        return action_of(best // 6, best % 6)

    def state_dict(self) -> dict[str, Any]:
        """Return the RNG state and the positions remembered in this game (JSON-able)."""
        return {**super().state_dict(), "seen": sorted(self.seen), "last_ply": self.last_ply}

    def _read_state(self, state: Mapping[str, Any], num_lands: int) -> dict[str, Any]:
        values = super()._read_state(state, num_lands)
        where = f"{type(self).__name__}.seen"
        seen = st.read_list(state["seen"], where, MAX_SEEN)
        for key in seen:
            st.read_str(key, where, max_len=16)
        values["seen"] = set(seen)
        values["last_ply"] = st.read_int(state["last_ply"], f"{type(self).__name__}.last_ply", -1, 10**6)
        return values


__all__ = ["REPEAT_PENALTY", "HeuristicSeat", "position_key"]
