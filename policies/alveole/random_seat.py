"""The random seat: a uniformly random legal move (for tests and as the weakest baseline)."""

from __future__ import annotations

from alveole_env.engine import AlveoleGame
from policies.base import Policy


class RandomSeat(Policy):
    """Uniform over the legal moves (R-3.7), from the seat's seeded RNG."""

    name = "random"
    display_name = "Aleatoria"

    def act(self, game: AlveoleGame, seat: int) -> int:  # type: ignore[override]
        """Return a uniformly random legal action of ``seat``, who must be the player to move."""
        _check_seat(game, seat)
        actions = game.legal_actions()
        return actions[int(self.rng.integers(len(actions)))]


def _check_seat(game: AlveoleGame, seat: int) -> None:
    """Raise ValueError unless ``seat`` is to move in ``game`` and has a move."""
    if not isinstance(game, AlveoleGame):
        raise ValueError(f"an Alveole seat plays an AlveoleGame, got {type(game).__name__}")
    if game.over:
        raise ValueError(f"the game is over ({game.end_reason}); there is no move to choose")
    if seat != game.turn:
        raise ValueError(f"seat {seat!r} is not to move; seat {game.turn} is")
