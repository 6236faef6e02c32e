"""The seat interface shared by every player: scripted AIs, random, learned networks, humans.

A policy is cheap to construct and seeded. Given the game and the seat it plays,
it returns one legal :class:`dw_env.engine.Move` (a piece move, a pass or an end
request). It may keep state between calls of one game (a plan, a target); the
arena calls :meth:`Policy.reset` before every game.

Its memory of the game in progress (the RNG, a plan) is saved as plain data by :meth:`Policy.state_dict`
and put back by :meth:`Policy.load_state_dict`: that is how ``dw train --resume`` continues the scripted
AIs' games exactly without pickling objects (policies/state.py).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

import numpy as np

from dw_env.engine import Game, Move
from policies import state as st


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

    def state_dict(self) -> dict[str, Any]:
        """Return the per-game memory as plain data (JSON-able): here the RNG's state; subclasses add theirs."""
        return {"rng": st.generator_state(self.rng)}

    def load_state_dict(self, state: Mapping[str, Any], *, num_lands: int = 2**15) -> None:
        """Restore what :meth:`state_dict` returned; StateError naming the entry if it does not fit.

        ``num_lands`` bounds the land indices a saved plan may hold. Everything is checked before anything
        is set, so on error the policy is unchanged.
        """
        values = self._read_state(st.check_keys(state, self.state_dict(), type(self).__name__), num_lands)
        for name, value in values.items():
            setattr(self, name, value)

    def _read_state(self, state: Mapping[str, Any], num_lands: int) -> dict[str, Any]:
        """Return {attribute: value} read from a state with the right keys; StateError if a value is wrong."""
        return {"rng": st.generator_from_state(state["rng"], f"{type(self).__name__}.rng")}

    @abstractmethod
    def act(self, game: Game, seat: int) -> Move:
        """Return a legal action for ``seat``, which must be the player to act in ``game``."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"
