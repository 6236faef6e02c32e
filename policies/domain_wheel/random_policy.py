"""Aleatoria (Random): "Mueve cualquier cosa. Sirve para probar." (spec section 6.6)."""

from __future__ import annotations

from dw_env.engine import PASS_MOVE, Game, Move
from policies.base import Policy


class RandomPolicy(Policy):
    """Uniform over the distinct legal (piece, destination) moves; passes only when none exists.

    It never requests the end, so games between random players end by truncation.
    """

    name = "random"
    display_name = "Aleatoria"

    def act(self, game: Game, seat: int) -> Move:
        moves = [Move(src, dst) for src in game.movable_pieces() for dst in game.destinations(src)]
        if not moves:
            return PASS_MOVE
        return moves[int(self.rng.integers(len(moves)))]
