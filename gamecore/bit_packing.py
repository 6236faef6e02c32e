"""Packed observations: the 0/1 positions of a flat int8 observation carried as bits, the rest as bytes.

A packed row of an observation of ``D`` int8 values is::

    [ bits of the binary positions, 8 a byte, first position in the high bit (np.packbits' order),
      the last byte padded with 0 ][ the other positions' values, one byte each ]

both parts in ascending position order. Which positions are binary is the game's declaration
(:class:`BitPacking` is built from a boolean mask); the packer checks it on every row (a value other than 0
or 1 at a binary position is counted, and the env reports it as a bug rather than losing it).

:meth:`BitPacking.pack_into` is the compiled packer a vector env runs after its step (split over the env's
threads); :meth:`BitPacking.pack` and :meth:`BitPacking.unpack` are the numpy reference forms. The network's
unpacker is a torch function on the device that runs the network (:mod:`policies.packed_input`). Shared by
every engine: a game's env only declares its binary positions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numba import njit, prange
from numpy.typing import NDArray

from gamecore.errors import brief


@njit(cache=True, nogil=True)
def _pack_row(row, out, binary, run, rest, nbytes):  # type: ignore[no-untyped-def]
    """Pack one observation ``row`` into ``out``; return 1 if a binary position held neither 0 nor 1."""
    seen = np.uint8(0)
    full = run // 8  # whole bytes of the leading run of binary positions 0..run-1: no index to gather
    for j in range(full):
        v = np.uint8(0)
        for k in range(8):
            x = np.uint8(row[8 * j + k])
            seen |= x
            v = (v << np.uint8(1)) | x
        out[j] = v
    nb = binary.shape[0]
    for j in range(full, nbytes):
        v = np.uint8(0)
        for k in range(8):
            p = 8 * j + k
            x = np.uint8(row[binary[p]]) if p < nb else np.uint8(0)
            seen |= x
            v = (v << np.uint8(1)) | x
        out[j] = v
    for k in range(rest.shape[0]):
        out[nbytes + k] = np.uint8(row[rest[k]])
    return 1 if seen > 1 else 0


@njit(cache=True, nogil=True)
def _pack_chunk(obs, out, binary, run, rest, nbytes, lo, hi):  # type: ignore[no-untyped-def]
    # a plain function: inlined into the parallel loop's body, the byte loop ran 20x slower (measured)
    bad = 0
    for i in range(lo, hi):
        bad += _pack_row(obs[i], out[i], binary, run, rest, nbytes)
    return bad


@njit(cache=True, nogil=True, parallel=True)
def pack_rows(obs, out, binary, run, rest, nbytes, nthreads):  # type: ignore[no-untyped-def]
    """Pack every row of ``obs`` [N, D] into ``out`` [N, P], one chunk of rows a thread; return how many rows
    held a value other than 0 or 1 at a binary position (0 unless the game's declaration is wrong)."""
    n = obs.shape[0]
    bad = 0
    for t in prange(nthreads):
        bad += _pack_chunk(obs, out, binary, run, rest, nbytes, t * n // nthreads, (t + 1) * n // nthreads)
    return bad


@dataclass(frozen=True, eq=False)
class BitPacking:
    """The packed form of observations of ``size`` int8 values whose positions ``binary`` hold only 0 or 1."""

    size: int  #: D, the unpacked observation's length
    binary: NDArray[np.int64]  #: positions carried as bits, ascending
    rest: NDArray[np.int64]  #: positions carried as bytes, ascending
    run: int = field(init=False)  #: length of the leading run 0, 1, 2, ... of ``binary`` (packed without a gather)
    inverse: NDArray[np.int64] = field(init=False)  #: [D]: where each position sits in ``[bits..., rest...]``

    def __post_init__(self) -> None:
        run = int(np.argmin(self.binary == np.arange(len(self.binary)))) if len(self.binary) else 0
        if len(self.binary) and self.binary[-1] == len(self.binary) - 1:
            run = len(self.binary)
        object.__setattr__(self, "run", run)
        order = np.concatenate([self.binary, self.rest])
        object.__setattr__(self, "inverse", np.argsort(order).astype(np.int64))

    @classmethod
    def of_mask(cls, binary_mask: Any) -> BitPacking:
        """Return the packing of observations whose positions ``binary_mask`` (bool [D]) are 0/1."""
        mask = np.asarray(binary_mask)
        if mask.ndim != 1 or mask.dtype != np.bool_ or mask.size == 0:
            raise ValueError(f"binary_mask must be a non-empty 1-d bool array, got {brief(binary_mask)}")
        return cls(int(mask.size), np.flatnonzero(mask).astype(np.int64), np.flatnonzero(~mask).astype(np.int64))

    @property
    def bit_bytes(self) -> int:
        """Return the bytes that carry the binary positions (8 a byte, the last one padded)."""
        return -(-len(self.binary) // 8)

    @property
    def packed_size(self) -> int:
        """Return P, the bytes of one packed observation."""
        return self.bit_bytes + len(self.rest)

    def _check(self, value: Any, width: int, what: str) -> NDArray[Any]:
        a = np.asarray(value)
        if a.ndim < 1 or a.shape[-1] != width or a.dtype not in (np.int8, np.uint8):
            raise ValueError(f"{what} must be int8 or uint8 arrays [..., {width}], got {brief(value)}")
        return a

    def pack(self, obs: Any) -> NDArray[np.uint8]:
        """Return observations [..., D] packed: uint8 [..., P] (numpy; ValueError if a binary position is not 0/1)."""
        a = self._check(obs, self.size, "observations")
        bits = a[..., self.binary]
        if bits.size and (bits.view(np.uint8) > 1).any():
            raise ValueError("a binary position of the observations holds a value other than 0 or 1")
        packed = np.packbits(bits.view(np.uint8), axis=-1) if len(self.binary) else a[..., :0].view(np.uint8)
        return np.concatenate([packed, a[..., self.rest].view(np.uint8)], axis=-1)

    def unpack(self, packed: Any) -> NDArray[np.int8]:
        """Return packed observations [..., P] unpacked: int8 [..., D] (numpy)."""
        p = self._check(packed, self.packed_size, "packed observations").view(np.uint8)
        bits = np.unpackbits(p[..., : self.bit_bytes], axis=-1, count=len(self.binary))
        return np.concatenate([bits, p[..., self.bit_bytes :]], axis=-1)[..., self.inverse].view(np.int8)

    def pack_into(self, obs: NDArray[np.int8], out: NDArray[np.uint8], nthreads: int = 1) -> int:
        """Pack ``obs`` [N, D] into ``out`` [N, P] with the compiled packer on ``nthreads`` threads; return the
        number of rows that held a value other than 0/1 at a binary position (those rows' bits are wrong).

        ``obs`` and ``out`` must be C-contiguous (the env's own buffers; nothing is checked here)."""
        return int(pack_rows(obs, out, self.binary, self.run, self.rest, self.bit_bytes, nthreads))

    def byte_mask(self, keep: Any) -> NDArray[np.uint8]:
        """Return the packed form [P] of a per-position byte mask ``keep`` [D] (0xFF compare, 0 ignore), so that
        ``(a ^ b) & mask`` compares packed rows where ``keep`` compares unpacked ones."""
        k = np.asarray(keep, dtype=np.uint8)
        bits = np.packbits(k[self.binary] != 0) if len(self.binary) else np.zeros(0, np.uint8)
        return np.concatenate([bits, k[self.rest]])
