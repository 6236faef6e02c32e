"""The AEC env's action space: gymnasium's ``Discrete`` with a one-pass ``sample(mask)`` and ``contains``.

PettingZoo's documented loop samples every action with ``env.action_space(agent).sample(mask)``, and the
``AssertOutOfBoundsWrapper`` of ``env()`` asks ``contains(action)`` on every step. Gymnasium validates the
mask with three passes over it (``mask == 1``, ``mask == 0``, their ``or``) and then draws with
``Generator.choice``, which checks its argument again; on the standard map's 1,161 actions that cost more
than the compiled step. This space checks the same things in one pass (a mask of int8 0/1 values is one
whose bytes are all at most 1) and draws with ``Generator.integers`` over the legal actions, which is what
``choice`` does inside: a seeded space returns the same actions as gymnasium's ``Discrete``.

Anything gymnasium would refuse (a mask of another type, dtype, shape or with other values, a probability
vector, both at once) is handed to gymnasium's own ``sample``, so the errors and their messages are
gymnasium's, word for word.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces


class ActionSpace(spaces.Discrete):
    """``Discrete(n)`` whose masked sampling and membership test take one pass (see the module docs)."""

    def __init__(self, n: int, seed: int | None = None, start: int = 0) -> None:
        super().__init__(n, seed=seed, start=start)  # int64 actions, gymnasium's default, which the fast paths assume

    def sample(self, mask: Any = None, probability: Any = None) -> np.int64:
        """Return a uniformly random action among those ``mask`` marks 1 (``start`` if none), as gymnasium does."""
        if (
            probability is not None
            or type(mask) is not np.ndarray
            or mask.dtype != np.int8
            or mask.shape != (self.n,)
            or mask.view(np.uint8).max() > 1  # a negative int8 reads as 128..255
        ):
            return super().sample(mask, probability)
        legal = np.flatnonzero(mask)
        if not len(legal):
            return self.start
        return self.start + legal[self.np_random.integers(len(legal))]  # type: ignore[no-any-return]

    def contains(self, x: Any) -> bool:
        """Return whether ``x`` is an action of this space (a plain int or int64 is tested without numpy's casts)."""
        if type(x) is int or type(x) is np.int64:
            return bool(self.start <= x < self.start + self.n)
        return super().contains(x)
