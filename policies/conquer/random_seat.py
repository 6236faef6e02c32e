"""Random: a uniformly random legal point; it passes only to accept the opponent's pass when ahead."""

from __future__ import annotations

from conquer_env.engine import ConquerGame
from policies.base import Policy


class RandomSeat(Policy):
    """Uniform over the empty, unsealed points (rule R-3.3), so its games end with a full board (rule R-9.1)."""

    name = "random"
    display_name = "Random"

    def act(self, game: ConquerGame, seat: int) -> int:  # type: ignore[override]
        if game.turn != seat or game.over:
            raise ValueError(f"seat {seat} cannot act: {'the game is over' if game.over else 'not its turn'}")
        points = game.legal_points()
        if len(points) == 0:
            return game.pass_action
        return int(points[int(self.rng.integers(len(points)))])
