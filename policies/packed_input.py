"""The network's input from packed observations, unpacked by torch on the device that runs the network.

A packed observation (:mod:`gamecore.bit_packing`) crosses memory and the host-to-device link in a sixth of
the bytes; :class:`TorchUnpacker` turns a batch of them back into the int8 observation the network reads
(``dw-obs-v1`` for Domain Wheel), byte for byte what the unpacked env would have given: a shift-and-mask of
the bit bytes, the byte part appended, and one gather that puts every position back in its place. All three
are plain tensor ops, as fast on a CPU as on a GPU.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import Tensor

from gamecore.bit_packing import BitPacking

#: the bit of each of a byte's 8 positions, first position in the high bit (np.packbits' order)
_SHIFTS = tuple(range(7, -1, -1))


class TorchUnpacker:
    """Unpack packed observations [B, P] (uint8 tensors) into int8 observations [B, D] on their own device.

    Picklable (it holds the numpy layout; the index tensors are made per device on first use), so an update
    process receives it with the minibatch's loss (training/ppo/update_processes.py).
    """

    def __init__(self, packing: BitPacking) -> None:
        self.packing = packing
        self._index: dict[torch.device, tuple[Tensor, Tensor]] = {}

    def __getstate__(self) -> dict[str, Any]:
        return {"packing": self.packing}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["packing"])  # type: ignore[misc]

    def _tensors(self, device: torch.device) -> tuple[Tensor, Tensor]:
        if device not in self._index:  # two small constants per device (a dict write is atomic under the GIL)
            shifts = torch.tensor(_SHIFTS, dtype=torch.uint8, device=device)
            self._index[device] = shifts, torch.from_numpy(self.packing.inverse).to(device)
        return self._index[device]

    def __call__(self, packed: Tensor) -> Tensor:
        """Return int8 observations [B, D] of packed observations ``packed`` [B, P] (uint8), on their device."""
        p = self.packing
        if packed.dim() != 2 or packed.shape[1] != p.packed_size or packed.dtype != torch.uint8:
            raise ValueError(
                f"packed observations must be a uint8 tensor [B, {p.packed_size}], "
                f"got {packed.dtype} {tuple(packed.shape)}"
            )
        shifts, inverse = self._tensors(packed.device)
        rows, nbytes = packed.shape[0], p.bit_bytes
        bits = (packed[:, :nbytes, None] >> shifts).bitwise_and_(1).reshape(rows, nbytes * 8)
        values = torch.cat([bits[:, : len(p.binary)], packed[:, nbytes:]], dim=1)
        return values.index_select(1, inverse).view(torch.int8)
