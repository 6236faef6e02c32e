"""The seat interface shared by every player: scripted AIs, random, learned networks, humans.

A policy is cheap to construct and seeded. Given the game and the seat it plays,
it returns one legal :class:`dw_env.engine.Move` (a piece move, a pass or an end
request). It may keep state between calls of one game (a plan, a target); the
arena calls :meth:`Policy.reset` before every game.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from dw_env.engine import Game, Move


class Policy(ABC):
    """Base class of everything that can play a seat."""

    #: registry name (e.g. "balanced") and display name (e.g. "Equilibrada")
    name: str = "policy"
    display_name: str = "Policy"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Forget per-game state; reseed when ``seed`` is given."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    @abstractmethod
    def act(self, game: Game, seat: int) -> Move:
        """Return a legal action for ``seat``, which must be the player to act in ``game``."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"
