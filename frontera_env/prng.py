"""The game's pseudo-random numbers (spec G-1): SplitMix64 with ``below`` and ``shuffle``, and FNV-1a-64.

Every language reproduces the same sequence: 64-bit integer arithmetic, ``below(n) = next() mod n`` (the
modulo bias is part of the definition) and a Fisher-Yates ``shuffle`` from the end. The map generator and the
rules engine share this one definition; the engine seeds it with the game seed (spec 6.1).
"""

from __future__ import annotations

from collections.abc import MutableSequence
from typing import Any

MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_FNV_OFFSET = 0xCBF29CE484222325
_FNV_PRIME = 0x100000001B3


def fnv1a64(data: bytes) -> int:
    """Return the FNV-1a-64 hash of ``data`` (offset basis 0xcbf29ce484222325, prime 0x100000001b3; G-1)."""
    h = _FNV_OFFSET
    for byte in data:
        h = ((h ^ byte) * _FNV_PRIME) & MASK64
    return h


class SplitMix64:
    """SplitMix64 on one 64-bit state (G-1); ``state`` is a plain int so positions can store it exactly."""

    __slots__ = ("state",)

    def __init__(self, seed: int) -> None:
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MASK64:
            raise ValueError(f"a SplitMix64 seed must be an integer in 0..2**64-1, got {seed!r:.80}")
        self.state = seed

    def next(self) -> int:
        """Return the next 64-bit output and advance the state by the golden gamma."""
        self.state = (self.state + _GOLDEN) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """Return ``next() mod n``, an integer in 0..n-1 (one draw; G-1)."""
        if n < 1:
            raise ValueError(f"below(n) needs n >= 1, got {n}")
        return self.next() % n

    def shuffle(self, xs: MutableSequence[Any]) -> None:
        """Shuffle ``xs`` in place: for i from len-1 down to 1, swap xs[i] with xs[below(i+1)] (G-1)."""
        for i in range(len(xs) - 1, 0, -1):
            j = self.below(i + 1)
            xs[i], xs[j] = xs[j], xs[i]

    def copy(self) -> SplitMix64:
        """Return an independent generator at the same state."""
        return SplitMix64(self.state)
