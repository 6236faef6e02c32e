"""Host-to-device copies of the PPO update's tensors: as they are on a CPU, pinned and asynchronous on CUDA.

A copy from pageable host memory makes CUDA stage it through a pinned buffer of its own and wait for it; a
copy from pinned memory with ``non_blocking=True`` is a DMA that the host does not wait for, so the update's
next copies (and, with ``run.overlap``, the rollout thread's work) go on meanwhile. ``Tensor.pin_memory()``
takes its pinned memory from torch's caching host allocator, which keeps the buffers from one update to the
next (no fresh page-locking each time) and does not hand a buffer out again before the copy reading it is
done, so reusing it is safe without an explicit event here.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch


def to_device(value: Any, device: torch.device) -> torch.Tensor:
    """Return ``value`` (a numpy array or a CPU tensor) on ``device``: the same tensor on a CPU (no copy), a
    pinned, non-blocking copy on CUDA (ordered before any later kernel of the current stream)."""
    tensor = torch.from_numpy(np.ascontiguousarray(value)) if isinstance(value, np.ndarray) else value
    if device.type != "cuda":
        return tensor.to(device)
    return tensor.pin_memory().to(device, non_blocking=True)
